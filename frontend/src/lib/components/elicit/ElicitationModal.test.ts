import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ElicitationModal from './ElicitationModal.svelte';
import { settle, startedStores } from '../../test/helpers';
import { fakeElicitation } from '../../test/asks';
import type { ElicitRequest } from '../../backend';

async function setup(...reqs: ElicitRequest[]) {
  return setupWith({}, ...reqs);
}

async function setupWith(props: { doneMs?: number }, ...reqs: ElicitRequest[]) {
  const t = await startedStores((be) => {
    be.elicitations = reqs;
  });
  render(ElicitationModal, { props: { armDelayMs: 0, ...props }, context: t.context });
  return t;
}

const urlRequest = (id: string, extra: Partial<ElicitRequest> = {}) =>
  fakeElicitation(id, {
    mode: 'url',
    form: undefined,
    message: 'Connect your Example account.',
    url: 'https://auth.example.com/connect?elicitationId=e1',
    host: 'auth.example.com',
    elicitationId: 'e1',
    ...extra,
  });

const input = (name: string) => within(screen.getByTestId('elicit-form').querySelector(`[data-name="${name}"]`) as HTMLElement);

describe('ElicitationModal', () => {
  it('renders the form by type: required marks, defaults, choices', async () => {
    await setup(fakeElicitation('e1'));
    expect(screen.getByTestId('elicit-modal').querySelector('h2')?.textContent).toBe('Everything asks for input');
    expect(screen.getByTestId('elicit-message').textContent).toBe('Please provide inputs for the following fields:');
    expect(screen.getByTestId('elicit-expires').textContent).toMatch(/^Expires in (10:00|9:5\d)$/);
    const fields = screen.getAllByTestId('elicit-field');
    expect(fields.map((f) => f.dataset.type)).toEqual(['string', 'string', 'integer', 'boolean', 'select', 'multiselect']);
    expect(input('name').getByText('*')).toBeTruthy();
    expect((input('email').getByTestId('elicit-input') as HTMLInputElement).type).toBe('email');
    expect((input('integer').getByTestId('elicit-input') as HTMLInputElement).value).toBe('42');
    expect(input('integer').getByText(/1 to 100 · a whole number/)).toBeTruthy();
    expect((input('hero').getByTestId('elicit-input') as HTMLSelectElement).value).toBe('hero-1');
    const fish = input('fish').getAllByTestId('elicit-option') as HTMLInputElement[];
    expect(fish.map((f) => f.checked)).toEqual([true, false, false]);
  });

  it('shows what is wrong by each field and sends nothing until it is right', async () => {
    const { be } = await setup(fakeElicitation('e1'));
    await fireEvent.input(input('email').getByTestId('elicit-input'), { target: { value: 'not-an-email' } });
    await fireEvent.input(input('integer').getByTestId('elicit-input'), { target: { value: '500' } });
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(be.callsOf('answerElicitation')).toEqual([]);
    expect(input('name').getByTestId('elicit-error').textContent).toBe('required');
    expect(input('email').getByTestId('elicit-error').textContent).toBe('must be an email address, like name@example.com');
    expect(input('integer').getByTestId('elicit-error').textContent).toBe('at most 100');
    expect(document.activeElement).toBe(input('name').getByTestId('elicit-input')); // the first wrong field

    await fireEvent.input(input('name').getByTestId('elicit-input'), { target: { value: 'Ada Lovelace' } });
    await fireEvent.input(input('email').getByTestId('elicit-input'), { target: { value: 'ada@example.com' } });
    await fireEvent.input(input('integer').getByTestId('elicit-input'), { target: { value: '7' } });
    await fireEvent.click(input('check').getByTestId('elicit-input'));
    await fireEvent.click(input('fish').getAllByTestId('elicit-option')[1]);
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(be.callsOf('answerElicitation')).toEqual([
      ['e1', { action: 'accept', content: { name: 'Ada Lovelace', email: 'ada@example.com', integer: 7, check: true, hero: 'hero-1', fish: ['fish-1', 'fish-2'] } }],
    ]);
    expect(screen.queryByTestId('elicit-modal')).toBeNull();
  });

  it('Escape cancels and Decline declines', async () => {
    const { be } = await setup(fakeElicitation('e1'), fakeElicitation('e2'));
    expect(screen.getByTestId('elicit-count').textContent).toBe('1 of 2');
    await fireEvent.keyDown(screen.getByTestId('elicit-modal'), { key: 'Escape' });
    await settle();
    await fireEvent.click(screen.getByTestId('elicit-decline'));
    await settle();
    expect(be.callsOf('answerElicitation')).toEqual([
      ['e1', { action: 'cancel' }],
      ['e2', { action: 'decline' }],
    ]);
  });

  it('falls back to a JSON editor for a schema it cannot render', async () => {
    const schema = '{\n  "type": "object",\n  "properties": {\n    "code": {"type": "string", "pattern": "^[0-9]{4}$"}\n  }\n}';
    const { be } = await setup(fakeElicitation('e1', { form: undefined, formProblem: 'property "code" uses "pattern"', schema }));
    expect(screen.getByTestId('elicit-fallback').textContent).toContain('property "code" uses "pattern"');
    expect(screen.getByText(/"pattern": "\^\[0-9\]\{4\}\$"/)).toBeTruthy();
    const editor = screen.getByTestId('elicit-json');
    await fireEvent.input(editor, { target: { value: '{"code": 1234' } });
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(screen.getByTestId('elicit-json-error').textContent).toMatch(/^not valid JSON/);
    await fireEvent.input(editor, { target: { value: '{"code": "1234"}' } });
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(be.callsOf('answerElicitation')).toEqual([['e1', { action: 'accept', content: { code: '1234' } }]]);
  });

  it('shows the answer Go refused, and keeps the request', async () => {
    const { be } = await setup(fakeElicitation('e1', { form: { fields: [] } }));
    be.failures.answerElicitation = 'the answer does not match what the server asked for: x: required';
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(screen.getByTestId('elicit-answer-error').textContent).toMatch(/x: required/);
    expect(screen.getByTestId('elicit-modal')).toBeTruthy();
  });

  it('a URL names the server, stresses the host, and opens only on consent', async () => {
    const { be } = await setup(
      fakeElicitation('u1', { mode: 'url', form: undefined, message: 'Sign in to continue', url: 'https://login.example.com/auth?x=1', host: 'login.example.com' }),
    );
    expect(screen.getByTestId('elicit-modal').querySelector('h2')?.textContent).toBe('Everything asks you to open a page');
    expect(screen.getByTestId('elicit-url').textContent).toBe('https://login.example.com/auth?x=1');
    expect(screen.getByTestId('elicit-host').textContent).toBe('login.example.com');
    expect(be.callsOf('openURL')).toEqual([]);
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    // Go opens the URL it holds, not one the page sends.
    expect(be.callsOf('answerElicitation')).toEqual([['u1', { action: 'accept' }]]);
    expect(be.callsOf('openURL')).toEqual([]);
  });

  it('shows a host as the browser reads it: a look-alike as punycode, no direction override', async () => {
    // Go sends the URL percent-encoded and the host as the server wrote it.
    const { be } = await setupWith(
      { doneMs: 0 },
      urlRequest('u1', { url: 'https://%D0%B0pple.com/x?\u202emoc.elgoog//:sptth', host: 'аpple.com' }),
      urlRequest('w1', { url: 'https://%D0%B0pple.com/x', host: 'аpple.com', waiting: true }),
    );
    expect(screen.getByTestId('elicit-host').textContent).toBe('xn--pple-43d.com');
    expect(screen.getByTestId('elicit-url').textContent).toBe('https://xn--pple-43d.com/x?%E2%80%AEmoc.elgoog//:sptth');
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    expect(screen.getByTestId('elicit-modal').querySelector('h2')?.textContent).toBe('Finish at xn--pple-43d.com in your browser');
    expect(screen.getByTestId('elicit-waiting').textContent).toMatch(/You opened xn--pple-43d.com in your browser/);
    be.emit('elicit:completed', { serverId: 'everything', serverName: 'Everything', elicitationId: 'e1', message: '', host: 'ev\u202eil.com' });
    await settle();
    expect(screen.getByTestId('elicit-completed-text').textContent).toContain('the step at ev%E2%80%AEil.com is done');
  });

  it('a step a call needs: after the page is opened, waits for Done or Give up', async () => {
    const { be } = await setup(urlRequest('w1', { waiting: true }), urlRequest('w2', { waiting: true }));
    expect(screen.getByTestId('elicit-modal').querySelector('h2')?.textContent).toBe('Finish at auth.example.com in your browser');
    expect(screen.getByTestId('elicit-waiting').textContent).toMatch(/You opened auth.example.com in your browser\. A tool call of Everything waits until you finish there/);
    expect(screen.queryByTestId('elicit-decline')).toBeNull();
    expect(screen.queryByTestId('elicit-url')).toBeNull(); // nothing more to open
    await fireEvent.click(screen.getByTestId('elicit-accept'));
    await settle();
    await fireEvent.keyDown(screen.getByTestId('elicit-modal'), { key: 'Escape' });
    await settle();
    expect(be.callsOf('answerElicitation')).toEqual([
      ['w1', { action: 'accept' }],
      ['w2', { action: 'cancel' }],
    ]);
  });

  it('the server says a step is done: its dialog closes, "done" shows and closes by itself', async () => {
    const { be } = await setupWith({ doneMs: 30 }, urlRequest('u1'), fakeElicitation('f1'));
    be.emit('elicit:completed', { serverId: 'everything', serverName: 'Everything', elicitationId: 'e1', message: 'Connect your Example account.', host: 'auth.example.com' });
    await settle();
    expect(screen.queryByTestId('elicit-modal')).toBeNull();
    expect(screen.getByTestId('elicit-completed-text').textContent).toBe(' Everything says the step at auth.example.com is done (“Connect your Example account.”).');
    // The backend ends the request after: no "ended" notice for it.
    be.emit('elicit:ended', { id: 'u1', serverId: 'everything', serverName: 'Everything', outcome: 'cancelled', reason: 'the server stopped waiting', summary: '' });
    await new Promise((r) => setTimeout(r, 60));
    await settle();
    expect(screen.queryByTestId('elicit-completed')).toBeNull();
    expect(screen.queryByTestId('elicit-ended')).toBeNull();
    expect(screen.getByTestId('elicit-modal').dataset.request).toBe('f1');
    expect(be.callsOf('answerElicitation')).toEqual([]);
  });

  it('a step another server finished leaves this dialog open', async () => {
    const { be } = await setupWith({ doneMs: 0 }, urlRequest('u1'));
    be.emit('elicit:completed', { serverId: 'other', serverName: 'Other', elicitationId: 'e1', message: '', host: 'x.example.com' });
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await settle();
    expect(screen.getByTestId('elicit-modal').dataset.request).toBe('u1');
  });

  it('says so when the request shown expires', async () => {
    const { be } = await setup(fakeElicitation('e1'));
    be.emit('elicit:ended', { id: 'e1', serverId: 'everything', serverName: 'Everything', outcome: 'expired', reason: 'nobody answered within 10m0s', summary: '' });
    await settle();
    expect(screen.queryByTestId('elicit-modal')).toBeNull();
    expect(screen.getByTestId('elicit-ended-text').textContent).toContain('It expired: nobody answered within 10m0s. The server was told it was cancelled.');
    await fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await settle();
    expect(screen.queryByTestId('elicit-ended')).toBeNull();
  });
});
