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
