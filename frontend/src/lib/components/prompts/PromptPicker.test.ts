import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import type { ServerView } from '../../backend';
import type { FakeBackend } from '../../backend/fake';
import Composer from '../chat/Composer.svelte';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

const everything: ServerView = {
  config: { id: 'ev', name: 'Everything', transport: 'stdio', command: 'x', enabled: true },
  status: { serverId: 'ev', state: 'connected', toolCount: 0, connectedAt: iso(1), offers: { prompts: true, completions: true } },
  tools: [],
};

function setup(be: FakeBackend) {
  be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1) }];
  be.servers = [everything];
  be.promptLists.ev = {
    serverId: 'ev',
    prompts: [
      { name: 'simple-prompt', title: 'Simple Prompt', arguments: [] },
      { name: 'completable-prompt', title: 'Team Management', arguments: [{ name: 'department', required: true }, { name: 'name', required: true }] },
      { name: 'dialog', arguments: [] },
    ],
  };
  be.completions = { department: ['Engineering', 'Sales'], name: ['Alice', 'Bob'] };
}

async function typeIn(input: HTMLTextAreaElement, text: string) {
  await fireEvent.input(input, { target: { value: text } });
  await settle();
}

// Issue 16, item 2: "/" in the composer lists the servers' prompts, with
// an argument form that completes as the user types; the result goes
// into the composer, or into the conversation.
describe('PromptPicker', () => {
  it('lists prompts after "/", filters them, and puts a prompt of user messages into the composer', async () => {
    const t = await startedStores(setup);
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;

    await typeIn(input, '/');
    expect(t.be.callsOf('listPrompts')).toEqual([['ev']]);
    const names = () => screen.queryAllByTestId('prompt-option').map((o) => o.dataset.name);
    expect(names()).toEqual(['simple-prompt', 'completable-prompt', 'dialog']);
    expect(screen.getAllByTestId('prompt-option')[1].textContent).toContain('Everything');

    await typeIn(input, '/team');
    expect(names()).toEqual(['completable-prompt']);

    // Keyboard: the form opens with the first argument focused.
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(t.be.callsOf('send')).toEqual([]);
    const form = screen.getByTestId('prompt-form');
    expect(form.dataset.name).toBe('completable-prompt');
    const fields = screen.getAllByTestId('prompt-arg-field') as HTMLInputElement[];
    expect(document.activeElement).toBe(fields[0]);
    expect((screen.getByTestId('prompt-submit') as HTMLButtonElement).disabled).toBe(true);

    // Completion as the user types, the other argument's value sent along.
    await fireEvent.input(fields[0], { target: { value: 'En' } });
    await new Promise((r) => setTimeout(r, 200));
    await settle();
    expect(screen.getAllByTestId('prompt-arg-value').map((v) => v.textContent?.trim())).toEqual(['Engineering']);
    await fireEvent.keyDown(fields[0], { key: 'ArrowDown' });
    await fireEvent.keyDown(fields[0], { key: 'Enter' });
    expect(fields[0].value).toBe('Engineering');
    await fireEvent.focus(fields[1]);
    await new Promise((r) => setTimeout(r, 200));
    await settle();
    expect(t.be.callsOf('completeArgument').at(-1)).toEqual(['ev', { type: 'ref/prompt', name: 'completable-prompt' }, 'name', '', { department: 'Engineering' }]);
    await fireEvent.input(fields[1], { target: { value: 'Alice' } });
    await fireEvent.submit(form);
    await settle();

    expect(t.be.callsOf('usePrompt')).toEqual([['ev', 'completable-prompt', { department: 'Engineering', name: 'Alice' }]]);
    expect(input.value).toBe('completable-prompt department=Engineering name=Alice');
    expect(screen.queryByTestId('prompt-picker')).toBeNull();
    expect(t.be.callsOf('send')).toEqual([]);
  });

  it('runs a prompt without arguments at once; one that speaks for the assistant goes into the conversation', async () => {
    const t = await startedStores((be) => {
      setup(be);
      be.promptUses.dialog = {
        mode: 'conversation',
        attachments: [],
        prompt: { serverId: 'ev', name: 'dialog', messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }, { role: 'assistant', content: { type: 'text', text: 'Hello, how can I help?' } }] },
      };
      be.promptUses['simple-prompt'] = {
        mode: 'composer',
        text: 'This is a simple prompt.',
        attachments: [{ id: 'b1', name: '1', mime: 'text/plain', size: 3, kind: 'text', serverId: 'ev', uri: 'demo://text/1' }],
      };
    });
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;

    await typeIn(input, '/simple');
    await fireEvent.mouseDown(screen.getByTestId('prompt-option'));
    await settle();
    expect(input.value).toBe('This is a simple prompt.');
    expect(t.s.attachments.pending.map((a) => a.uri)).toEqual(['demo://text/1']);

    await typeIn(input, '/dialog');
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(t.be.callsOf('appendPrompt')).toEqual([['c1', t.be.promptUses.dialog.prompt]]);
    expect(input.value).toBe('');
    expect(t.s.chat.messages.map((m) => `${m.role}: ${m.content}`)).toEqual(['user: Hi', 'assistant: Hello, how can I help?']);

    // Escape closes the list; the text stays.
    await typeIn(input, '/sim');
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByTestId('prompt-picker')).toBeNull();
    expect(input.value).toBe('/sim');
  });

  it('says when no connected server offers prompts', async () => {
    const t = await startedStores((be) => {
      setup(be);
      be.servers = [{ ...everything, status: { ...everything.status, offers: {} } }];
    });
    render(Composer, { context: t.context });
    await typeIn(screen.getByTestId('composer-input') as HTMLTextAreaElement, '/');
    expect(screen.getByTestId('prompt-none').textContent).toMatch(/No connected server offers prompts/);
  });
});
