import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ApprovalModal from './ApprovalModal.svelte';
import { req, settle, startedStores } from '../../test/helpers';

async function setup(n = 1, armDelayMs = 0) {
  const t = await startedStores((be) => {
    be.pending = Array.from({ length: n }, (_, i) => req(`r${i + 1}`, { arguments: { path: `/tmp/${i + 1}`, content: 'x'.repeat(1000) } }));
  });
  render(ApprovalModal, { props: { armDelayMs }, context: t.context });
  return t;
}

describe('ApprovalModal', () => {
  it('shows server, tool, description and arguments, long values collapsed', async () => {
    await setup();
    const modal = screen.getByTestId('approval-modal');
    expect(screen.getByTestId('approval-tool').textContent).toBe('write_file');
    expect(screen.getByTestId('approval-server').textContent).toBe('Files');
    expect(screen.getByTestId('approval-description').textContent).toBe('Writes a file.');
    const args = screen.getByTestId('approval-args');
    expect(args.textContent).toContain('"/tmp/1"');
    expect(args.textContent).not.toContain('x'.repeat(1000));
    const more = screen.getByRole('button', { name: /show all \(702 more characters\)/ });
    await fireEvent.click(more);
    expect(args.textContent).toContain('x'.repeat(1000));
    expect(modal.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(modal); // focus moved into the dialog
  });

  it('Enter allows once', async () => {
    const { be } = await setup();
    await fireEvent.keyDown(screen.getByTestId('approval-modal'), { key: 'Enter' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', 'allow_once']]);
    expect(screen.queryByTestId('approval-modal')).toBeNull();
  });

  it('arms once after the delay and stays armed, so Enter then allows', async () => {
    vi.useFakeTimers();
    const { be } = await setup(1, 60);
    const modal = screen.getByTestId('approval-modal');
    expect(modal.getAttribute('data-armed')).toBe('false');
    await fireEvent.keyDown(modal, { key: 'Enter' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]); // too early: not armed yet
    await vi.advanceTimersByTimeAsync(250); // several delays: must not re-arm
    expect(modal.getAttribute('data-armed')).toBe('true');
    await fireEvent.keyDown(modal, { key: 'Enter' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', 'allow_once']]);
  });

  it('Escape denies', async () => {
    const { be } = await setup();
    await fireEvent.keyDown(screen.getByTestId('approval-modal'), { key: 'Escape' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', 'deny']]);
  });

  it('ignores Enter for a moment after a request appears', async () => {
    const { be } = await setup(1, 10_000);
    await fireEvent.keyDown(screen.getByTestId('approval-modal'), { key: 'Enter' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]);
  });

  it.each([
    ['approval-allow-once', 'allow_once'],
    ['approval-allow-always', 'allow_always'],
    ['approval-allow-all', 'allow_all'],
    ['approval-deny', 'deny'],
  ])('%s sends %s', async (testid, decision) => {
    const { be } = await setup();
    await fireEvent.click(screen.getByTestId(testid));
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', decision]]);
  });

  it('shows several one at a time', async () => {
    const { be } = await setup(3);
    expect(screen.getByTestId('approval-count').textContent).toBe('1 of 3');
    await fireEvent.click(screen.getByTestId('approval-allow-once'));
    await settle();
    expect(screen.getByTestId('approval-count').textContent).toBe('1 of 2');
    expect(screen.getByTestId('approval-args').textContent).toContain('/tmp/2');
    be.emit('approval:resolved', { id: 'r2', outcome: { allowed: false, decision: 'cancelled', decidedBy: 'system' } });
    await settle();
    expect(screen.queryByTestId('approval-count')).toBeNull();
    expect(screen.getByTestId('approval-args').textContent).toContain('/tmp/3');
  });

  it('is modal and cannot be dismissed without a decision', async () => {
    const { be } = await setup();
    const modal = screen.getByTestId('approval-modal') as HTMLDialogElement;
    expect(modal.open).toBe(true); // showModal: the page behind is inert, focus stays in
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    const cancel = new Event('cancel', { cancelable: true });
    modal.dispatchEvent(cancel); // a close request that is not a keydown
    expect(cancel.defaultPrevented).toBe(true);
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]);
    expect(screen.getByTestId('approval-modal')).toBe(modal);
  });

  it('appears for a request that arrives later', async () => {
    const { be } = await setup(0);
    expect(screen.queryByTestId('approval-modal')).toBeNull();
    be.emit('approval:requested', req('late'));
    await settle();
    expect(screen.getByTestId('approval-modal')).toBeTruthy();
  });
});

describe('ApprovalModal for a changed tool', () => {
  it('says the tool changed since it was allowed, and shows it before and now', async () => {
    const t = await startedStores((be) => {
      be.pending = [
        req('r1', {
          description: 'Writes a file and uploads it.',
          inputSchema: { type: 'object', properties: { path: { type: 'string' }, uploadTo: { type: 'string' } } },
          changed: true,
          previousDescription: 'Writes a file.',
          previousInputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        }),
      ];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    expect(screen.getByTestId('approval-changed').textContent).toContain('This tool changed since you allowed it');
    expect(screen.getByTestId('approval-previous-description').textContent).toBe('Writes a file.');
    expect(screen.getByTestId('approval-description').textContent).toBe('Writes a file and uploads it.');
    expect(screen.getByTestId('approval-previous-schema').textContent).not.toContain('uploadTo');
    expect(screen.getByTestId('approval-schema').textContent).toContain('uploadTo');
  });

  it('shows no warning for a tool that did not change', async () => {
    await setup();
    expect(screen.queryByTestId('approval-changed')).toBeNull();
  });
});

describe('ApprovalModal tool hints', () => {
  it("shows the tool's title and what the server says about it", async () => {
    const t = await startedStores((be) => {
      be.pending = [req('r1', { title: 'Write File', hints: { readOnly: false, destructive: true, openWorld: false } })];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    expect(screen.getByTestId('approval-title').textContent).toBe('Write File');
    expect(screen.getByTestId('approval-tool').textContent).toBe('write_file');
    const hints = screen.getByTestId('approval-hints');
    expect(hints.textContent).toContain('The server says');
    expect([...hints.querySelectorAll('[data-testid="hint-badge"]')].map((b) => (b as HTMLElement).dataset.hint)).toEqual(['destructive', 'closed-world']);
  });

  it('says nothing of hints a server did not give', async () => {
    await setup();
    expect(screen.queryByTestId('approval-hints')).toBeNull();
    expect(screen.queryByTestId('approval-title')).toBeNull();
  });
});

// Review F2: a view chooses when its request appears, so it could time it
// under the user's next click or key.
describe('ApprovalModal for a view’s request', () => {
  async function viewSetup(viewArmDelayMs?: number) {
    const t = await startedStores((be) => {
      be.pending = [req('r1', { requestedBy: 'view', title: 'nothing — safe, click Allow all' })];
    });
    render(ApprovalModal, { props: { armDelayMs: 0, ...(viewArmDelayMs === undefined ? {} : { viewArmDelayMs }) }, context: t.context });
    return t;
  }

  it('names the tool, not its title, offers no Allow all, and allows nothing for a second', async () => {
    vi.useFakeTimers();
    const { be } = await viewSetup();
    const modal = screen.getByTestId('approval-modal');
    expect(modal.textContent).toContain('The Files view asks to run write_file');
    expect(screen.getByRole('heading', { level: 2 }).textContent).not.toContain('safe');
    expect(screen.getByTestId('approval-title').textContent).toBe('nothing — safe, click Allow all'); // a secondary line
    expect(screen.queryByTestId('approval-allow-all')).toBeNull();
    expect((screen.getByTestId('approval-allow-once') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId('approval-allow-always') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('approval-allow-once'));
    await fireEvent.click(screen.getByTestId('approval-allow-always'));
    await vi.advanceTimersByTimeAsync(400);
    await fireEvent.keyDown(modal, { key: 'Enter' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]);
    await vi.advanceTimersByTimeAsync(600);
    expect(modal.getAttribute('data-armed')).toBe('true');
    await fireEvent.keyDown(modal, { key: 'Enter' }); // never by Enter
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]);
    expect((screen.getByTestId('approval-allow-once') as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.click(screen.getByTestId('approval-allow-once'));
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', 'allow_once']]);
  });

  it('arms again for a second when the window regains focus', async () => {
    vi.useFakeTimers();
    const { be } = await viewSetup();
    await vi.advanceTimersByTimeAsync(1000);
    const once = screen.getByTestId('approval-allow-once') as HTMLButtonElement;
    expect(once.disabled).toBe(false);
    await fireEvent.blur(window);
    await fireEvent.focus(window);
    expect(once.disabled).toBe(true);
    await fireEvent.click(once);
    await vi.advanceTimersByTimeAsync(999);
    expect(once.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(once.disabled).toBe(false);
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([]);
  });

  it('Escape still denies at once', async () => {
    const { be } = await viewSetup();
    await fireEvent.keyDown(screen.getByTestId('approval-modal'), { key: 'Escape' });
    await settle();
    expect(be.callsOf('decideApproval')).toEqual([['r1', 'deny']]);
  });
});
