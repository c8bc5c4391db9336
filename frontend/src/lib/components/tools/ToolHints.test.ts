import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ServerRow from './ServerRow.svelte';
import type { ServerView, Tool } from '../../backend';
import { settle, startedStores } from '../../test/helpers';

const png = 'data:image/png;base64,iVBORw0KGgo=';

const tool = (originalName: string, extra: Partial<Tool>): Tool => ({
  name: `ev__${originalName}`,
  serverId: 'ev',
  serverName: 'Everything',
  originalName,
  description: `Does ${originalName}.`,
  inputSchema: { type: 'object' },
  enabled: true,
  ...extra,
});

const everything: ServerView = {
  config: { id: 'ev', name: 'Everything', transport: 'stdio', command: 'mcp-server-everything', enabled: true },
  status: { serverId: 'ev', state: 'connected', toolCount: 2 },
  tools: [
    tool('echo', { title: 'Echo Tool', annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false }, icons: [{ src: png, mimeType: 'image/png' }] }),
    tool('wipe', { annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } }),
  ],
};

describe('the Tools panel shows what a server says about its tools', () => {
  it('title, icon and hint badges per tool; the read-only policy per server, off by default', async () => {
    const t = await startedStores((be) => (be.servers = [everything]));
    render(ServerRow, { context: t.context, props: { server: everything, onedit: () => {} } });
    await fireEvent.click(screen.getByTestId('server-tools-toggle'));
    await settle();
    const rows = screen.getAllByTestId('tool-row');
    const badges = (row: HTMLElement) => [...row.querySelectorAll('[data-testid="hint-badge"]')].map((b) => (b as HTMLElement).dataset.hint);
    expect(rows[0].textContent).toContain('Echo Tool');
    expect(rows[0].textContent).toContain('echo');
    expect(badges(rows[0])).toEqual(['read-only', 'closed-world']);
    expect(rows[0].querySelector('[data-testid="tool-icon"]')?.getAttribute('src')).toBe(png);
    expect(badges(rows[1])).toEqual(['destructive', 'idempotent']);
    expect(rows[1].querySelector('[data-testid="tool-icon"]')).toBeNull();

    const policy = screen.getByTestId('readonly-policy');
    expect(policy.dataset.on).toBe('false');
    expect(policy.textContent).toContain("the server's own claim");
    expect(policy.textContent).toContain('1 of its 2 tools');
    await fireEvent.click(screen.getByTestId('readonly-switch'));
    await settle();
    expect(t.be.callsOf('setReadOnlyServer')).toEqual([['ev', true]]);
    expect(screen.getByTestId('readonly-policy').dataset.on).toBe('true');
    await fireEvent.click(screen.getByTestId('readonly-switch'));
    await settle();
    expect(t.be.callsOf('setReadOnlyServer')).toEqual([['ev', true], ['ev', false]]);
    expect(t.s.approvals.readOnly('ev')).toBe(false);
  });
});
