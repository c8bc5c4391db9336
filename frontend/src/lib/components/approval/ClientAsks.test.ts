import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ApprovalModal from './ApprovalModal.svelte';
import { req, settle, startedStores } from '../../test/helpers';

describe('ApprovalModal for a connected app', () => {
  it('says which app asks, offers no Allow all, and still allows once or always', async () => {
    const t = await startedStores((be) => {
      be.pending = [req('r1', { requestedBy: 'client', client: 'Claude Desktop' }), req('r2', { requestedBy: 'client', client: 'Claude Desktop' })];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    await settle();
    const modal = screen.getByTestId('approval-modal');
    expect(modal.querySelector('h2')!.textContent).toBe('Claude Desktop asks to run write_file');
    expect(screen.getByTestId('approval-asker').textContent).toMatch(/Claude Desktop, a connected app, started this turn/);
    expect(screen.getByTestId('approval-client-note').textContent).toMatch(/"Allow all" does not apply to connected apps/);
    expect(screen.queryByTestId('approval-allow-all')).toBeNull();
    await fireEvent.keyDown(modal, { key: 'Enter' });
    await settle();
    expect(t.be.callsOf('decideApproval')).toEqual([['r1', 'allow_once']]);
    await fireEvent.click(screen.getByTestId('approval-allow-always'));
    await settle();
    expect(t.be.callsOf('decideApproval').at(-1)).toEqual(['r2', 'allow_always']);
  });

  it("keeps the model's own wording for the user's turns", async () => {
    const t = await startedStores((be) => {
      be.pending = [req('r1')];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    await settle();
    expect(screen.getByTestId('approval-modal').querySelector('h2')!.textContent).toBe('Allow this tool call?');
    expect(screen.queryByTestId('approval-asker')).toBeNull();
    expect(screen.getByTestId('approval-allow-all')).toBeTruthy();
  });
});
