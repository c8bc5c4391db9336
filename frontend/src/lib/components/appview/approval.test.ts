// The approval dialog of a call a server's view asks for says so: the
// view, not the model, asks.
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import ApprovalModal from '../approval/ApprovalModal.svelte';
import { req, startedStores } from '../../test/helpers';

describe('ApprovalModal of a view’s call', () => {
  it('says the server’s view asks to run the tool', async () => {
    const t = await startedStores((be) => {
      be.pending = [req('r1', { serverName: 'System Monitor', tool: 'poll-system-stats', requestedBy: 'view' })];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    const modal = screen.getByTestId('approval-modal');
    expect(modal.textContent).toContain('The System Monitor view asks to run poll-system-stats');
    expect(modal.textContent).not.toContain('Allow this tool call?');
    expect(screen.getByTestId('approval-asker').textContent).toMatch(/The view of System Monitor shown in your conversation asks for this call, not the model/);
  });

  it('keeps the usual wording for the model’s calls', async () => {
    const t = await startedStores((be) => {
      be.pending = [req('r1', { requestedBy: 'model' }), req('r2')];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    expect(screen.getByTestId('approval-modal').textContent).toContain('Allow this tool call?');
    expect(screen.queryByTestId('approval-asker')).toBeNull();
  });
});
