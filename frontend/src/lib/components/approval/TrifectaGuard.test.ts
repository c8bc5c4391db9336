// The lethal-trifecta guard in the UI: the approval modal's warning, the
// Tools panel's private mark and the setting in Settings → Approvals.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ApprovalModal from './ApprovalModal.svelte';
import ServerRow from '../tools/ServerRow.svelte';
import ApprovalsSection from '../settings/ApprovalsSection.svelte';
import type { ServerView, Tool } from '../../backend';
import { req, settle, startedStores } from '../../test/helpers';

const reason = 'This conversation has read private data (fs__read_file) and taken in outside content (web__fetch); web__post can send data out.';

describe('approval modal with the guard', () => {
  it('shows why first, and that always does not silence it', async () => {
    const t = await startedStores((be) => {
      be.pending = [req('g', { tool: 'post', serverName: 'Web', guard: { privateFrom: ['fs__read_file'], untrustedFrom: ['web__fetch'], tool: 'web__post', reason } })];
    });
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    const box = screen.getByTestId('approval-guard');
    expect(box.getAttribute('role')).toBe('alert');
    expect(screen.getByTestId('approval-guard-reason').textContent).toBe(reason);
    expect(box.textContent).toContain('does not stop it asking next time');
    expect(box.textContent).toMatch(/anything you would not send to\s+Web\?/);
    // It comes before the arguments, where it is seen first.
    const args = screen.getByTestId('approval-args');
    expect(box.compareDocumentPosition(args) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await fireEvent.click(screen.getByTestId('approval-allow-always'));
    await settle();
    expect(t.be.callsOf('decideApproval')).toEqual([['g', 'allow_always']]);
  });

  it('shows no warning for a call without a guard', async () => {
    const t = await startedStores((be) => (be.pending = [req('r')]));
    render(ApprovalModal, { props: { armDelayMs: 0 }, context: t.context });
    expect(screen.getByTestId('approval-modal')).toBeTruthy();
    expect(screen.queryByTestId('approval-guard')).toBeNull();
  });
});

const tool = (originalName: string, extra: Partial<Tool> = {}): Tool => ({
  name: `fs__${originalName}`, serverId: 'fs', serverName: 'Files', originalName, description: '', inputSchema: {}, enabled: true,
  fingerprint: 'sha256:fs', ...extra,
});

const files = (tools: Tool[]): ServerView => ({
  config: { id: 'fs', name: 'Files', transport: 'stdio', command: 'mcp-server-filesystem', enabled: true },
  status: { serverId: 'fs', state: 'connected', toolCount: tools.length },
  tools,
});

describe('private mark in the Tools panel', () => {
  it('marks and unmarks a tool; a local tool that is not read-only says it counts already', async () => {
    const server = files([
      tool('read_file', { local: true, annotations: { readOnlyHint: true, openWorldHint: false } }),
      tool('write_file', { local: true, annotations: { readOnlyHint: false } }),
    ]);
    const t = await startedStores((be) => (be.servers = [server]));
    render(ServerRow, { context: t.context, props: { server, onedit: () => {} } });
    await fireEvent.click(screen.getByTestId('server-tools-toggle'));
    await settle();
    const mark = (name: string) => screen.getAllByTestId('tool-row').find((el) => el.dataset.tool === name)!.querySelector('[data-testid="tool-private"]') as HTMLButtonElement;

    expect(mark('read_file').textContent?.trim()).toBe('mark private');
    expect(mark('read_file').getAttribute('aria-pressed')).toBe('false');
    expect(mark('write_file').textContent?.trim()).toBe('private (local)');
    expect(mark('write_file').title).toMatch(/runs on this computer/);

    await fireEvent.click(mark('read_file'));
    await settle();
    expect(t.be.callsOf('setToolPrivate')).toEqual([['fs', 'read_file', true]]);
    expect(mark('read_file').getAttribute('aria-pressed')).toBe('true');
    expect(mark('read_file').textContent?.trim()).toBe('private');
    expect(t.s.approvals.isPrivate('sha256:fs', 'read_file')).toBe(true);

    await fireEvent.click(mark('read_file'));
    await settle();
    expect(t.be.callsOf('setToolPrivate')).toEqual([['fs', 'read_file', true], ['fs', 'read_file', false]]);
    expect(mark('read_file').getAttribute('aria-pressed')).toBe('false');
  });

  it('says so when the mark cannot be saved', async () => {
    const server = files([tool('read_file')]);
    const t = await startedStores((be) => {
      be.servers = [server];
      be.failures.setToolPrivate = 'disk I/O error';
    });
    await t.s.approvals.setPrivate('fs', 'read_file', 'sha256:fs', true);
    expect(t.s.approvals.policyError).toMatch(/Could not mark read_file as private: disk I\/O error/);
    expect(t.s.approvals.isPrivate('sha256:fs', 'read_file')).toBe(false);
  });
});

describe('Settings → Approvals', () => {
  it('the guard is on by default, turns off and lists the marked tools', async () => {
    const t = await startedStores((be) => {
      be.servers = [files([tool('read_file')])];
      be.policy = { ...be.policy, private: [{ fingerprint: 'sha256:fs', tool: 'read_file', serverId: 'fs', createdAt: '2025-01-01T00:00:00Z' }] };
    });
    render(ApprovalsSection, { context: t.context });
    await settle();
    const sw = screen.getByTestId('settings-trifecta-guard') as HTMLInputElement;
    expect(sw.checked).toBe(true);
    expect(screen.getByTestId('settings-trifecta-note').textContent).toMatch(/^\s*On:/);
    await fireEvent.click(sw);
    await settle();
    expect(t.be.callsOf('saveSettings').at(-1)?.[0]).toMatchObject({ trifectaGuard: false, toolResultLimit: 32000 });
    expect(screen.getByTestId('settings-trifecta-note').textContent).toMatch(/^\s*Off:/);

    const row = screen.getByTestId('private-row');
    expect(row.textContent).toContain('read_file');
    expect(row.textContent).toContain('on Files');
    await fireEvent.click(screen.getByTestId('private-unmark'));
    await settle();
    expect(t.be.callsOf('unmarkPrivate')).toEqual([['sha256:fs', 'read_file']]);
    expect(screen.queryByTestId('private-row')).toBeNull();
  });
});
