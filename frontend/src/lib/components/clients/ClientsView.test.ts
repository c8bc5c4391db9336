import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ClientsView from './ClientsView.svelte';
import ShareDialog from './ShareDialog.svelte';
import { settle, startedStores } from '../../test/helpers';
import type { FakeBackend } from '../../backend/fake';
import type { ClientApp } from '../../backend';
import { AUDIT_PAGE } from '../../stores/clients.svelte';

const iso = (ms: number) => new Date(ms).toISOString();
const now = Date.now();
const zero = '0001-01-01T00:00:00Z';

function seed(be: FakeBackend) {
  be.conversations = [
    { id: 'c1', title: 'Trip to Lisbon', providerId: 'p1', model: 'm1', createdAt: iso(now), updatedAt: iso(now) },
    { id: 'c2', title: 'Tax notes', providerId: 'p1', model: 'm1', createdAt: iso(now), updatedAt: iso(now) },
  ];
  be.messages = { c1: [], c2: [] };
  const app = (id: string, name: string, extra: Partial<ClientApp> = {}): ClientApp => ({
    id, name, canStart: false, createdAt: iso(now - 86_400_000), lastSeenAt: zero, revokedAt: zero, grants: 0, ...extra,
  });
  be.clientApps = [app('a1', 'Claude Desktop', { lastSeenAt: iso(now - 5 * 60_000) }), app('a2', 'nightly script')];
  be.clientGrantList = [
    { clientId: 'a1', clientName: 'Claude Desktop', conversationId: 'c1', title: 'Trip to Lisbon', access: 'read', owned: false, expiresAt: zero, createdAt: iso(now), expired: false },
  ];
  be.servers = [
    {
      config: { id: 'files', name: 'Files', transport: 'stdio', command: 'x', enabled: true },
      status: { serverId: 'files', state: 'connected', toolCount: 2 },
      tools: [
        { name: 'files__read', originalName: 'read', serverId: 'files', serverName: 'Files', description: '', schema: {}, enabled: true, fingerprint: 'f1' },
        { name: 'files__write', originalName: 'write', serverId: 'files', serverName: 'Files', description: '', schema: {}, enabled: true, fingerprint: 'f2' },
      ],
    } as never,
  ];
}

async function setup(more?: (be: FakeBackend) => void) {
  const t = await startedStores((be) => {
    seed(be);
    more?.(be);
  });
  render(ClientsView, { context: t.context });
  await settle();
  return t;
}

const row = (name: string) => screen.getAllByTestId('client-row').find((r) => r.dataset.name === name)!;

describe('Connected apps', () => {
  it('lists apps with last seen and how many conversations they have', async () => {
    await setup();
    expect(screen.getAllByTestId('client-row').map((r) => r.dataset.name)).toEqual(['Claude Desktop', 'nightly script']);
    expect(within(row('Claude Desktop')).getByTestId('client-last-seen').textContent).toBe('last seen 5 minutes ago');
    expect(within(row('Claude Desktop')).getByTestId('client-grant-count').textContent).toBe('1 conversation');
    expect(within(row('nightly script')).getByTestId('client-last-seen').textContent).toBe('never connected');
    expect(within(row('nightly script')).getByTestId('client-state').textContent).toBe('active');
  });

  it('follows other processes\' activity while it shows, and stops when it closes', async () => {
    const t = await startedStores(seed);
    const view = render(ClientsView, { context: t.context });
    await settle();
    expect(t.be.watchingActivity).toBe(true);
    view.unmount();
    await settle();
    expect(t.be.callsOf('watchClientActivity')).toEqual([[true], [false]]);
  });

  it('adds an app and shows its token once, with Copy and the note', async () => {
    const { be } = await setup();
    await fireEvent.click(screen.getByTestId('client-add'));
    await fireEvent.click(screen.getByTestId('client-add-submit'));
    expect(screen.getByTestId('client-add-error').textContent).toMatch(/Give the app a name/);
    expect(be.callsOf('addClient')).toEqual([]);

    await fireEvent.input(screen.getByTestId('client-add-name'), { target: { value: 'claude desktop' } });
    await fireEvent.click(screen.getByTestId('client-add-submit'));
    await settle();
    expect(screen.getByTestId('client-add-error').textContent).toMatch(/exists; pick another name/);

    await fireEvent.input(screen.getByTestId('client-add-name'), { target: { value: '  Research agent ' } });
    await fireEvent.click(screen.getByTestId('client-add-can-start'));
    await fireEvent.click(screen.getByTestId('client-add-submit'));
    await settle();
    expect(be.callsOf('addClient').at(-1)).toEqual(['Research agent', true]);
    const id = be.clientApps.find((c) => c.name === 'Research agent')!.id;
    expect(screen.getByTestId('client-token').textContent).toBe(be.tokens[id]);
    expect(screen.getByTestId('client-token-note').textContent).toMatch(/will not be shown again/);
    expect(document.activeElement).toBe(screen.getByTestId('client-token-copy')); // the keyboard is where the next step is
    await fireEvent.click(screen.getByTestId('client-add-done'));
    await settle();
    expect(screen.queryByTestId('client-token')).toBeNull();
    expect(within(row('Research agent')).getByText('may start conversations')).toBeTruthy();
  });

  it('makes a new token, revokes and removes, each after asking', async () => {
    const { be } = await setup();
    const r = () => row('nightly script');
    await fireEvent.click(within(r()).getByTestId('client-rotate'));
    expect(within(r()).getByRole('group', { name: 'Confirm' }).textContent).toMatch(/stops working at once/);
    await fireEvent.click(within(r()).getByTestId('client-confirm'));
    await settle();
    expect(screen.getByTestId('client-token').textContent).toBe(be.tokens.a2);
    await fireEvent.click(screen.getByTestId('client-token-done'));

    await fireEvent.click(within(r()).getByTestId('client-revoke'));
    await fireEvent.click(within(r()).getByTestId('client-confirm-cancel'));
    expect(be.callsOf('revokeClient')).toEqual([]);
    await fireEvent.click(within(r()).getByTestId('client-revoke'));
    await fireEvent.click(within(r()).getByTestId('client-confirm'));
    await settle();
    expect(be.callsOf('revokeClient')).toEqual([['a2']]);
    expect(r().dataset.revoked).toBe('true');
    expect(within(r()).getByTestId('client-state').textContent).toBe('revoked');
    expect(within(r()).queryByTestId('client-revoke')).toBeNull();

    await fireEvent.click(within(r()).getByTestId('client-remove'));
    expect(within(r()).getByRole('group', { name: 'Confirm' }).textContent).toMatch(/past requests stay in the activity/);
    await fireEvent.click(within(r()).getByTestId('client-confirm'));
    await settle();
    expect(screen.getAllByTestId('client-row').map((x) => x.dataset.name)).toEqual(['Claude Desktop']);
  });

  it('shows what an app may use: its grants (Unshare) and its tools (add, remove)', async () => {
    const { be } = await setup();
    const r = row('Claude Desktop');
    await fireEvent.click(within(r).getByTestId('client-toggle'));
    await settle();
    const grant = within(r).getByTestId('client-grant');
    expect(grant.textContent).toMatch(/Trip to Lisbon.*Read.*never expires/s);
    await fireEvent.click(within(grant).getByTestId('client-grant-unshare'));
    await settle();
    expect(be.callsOf('ungrantClient')).toEqual([['a1', 'c1']]);
    expect(within(r).getByTestId('client-grants-empty')).toBeTruthy();
    expect(within(r).getByTestId('client-grant-count').textContent).toBe('0 conversations');

    const pick = within(r).getByTestId('client-tool-pick') as HTMLSelectElement;
    expect([...pick.options].map((o) => o.textContent)).toEqual(['Choose a tool…', 'read — Files', 'write — Files']);
    await fireEvent.change(pick, { target: { value: '["files","write"]' } });
    await fireEvent.click(within(r).getByTestId('client-tool-add'));
    await settle();
    expect(be.callsOf('allowClientTool')).toEqual([['a1', 'files', 'write']]);
    const tool = within(r).getByTestId('client-tool');
    expect(tool.dataset.tool).toBe('write');
    expect([...(within(r).getByTestId('client-tool-pick') as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['Choose a tool…', 'read — Files']);
    await fireEvent.click(within(tool).getByTestId('client-tool-remove'));
    await settle();
    expect(be.callsOf('disallowClientTool')).toEqual([['a1', 'files', 'write']]);
    expect(within(r).queryByTestId('client-tool')).toBeNull();

    await fireEvent.click(within(r).getByTestId('client-can-start'));
    await settle();
    expect(be.callsOf('setClientCanStart')).toEqual([['a1', true]]);
  });

  it('turns the HTTP endpoint on at a port and shows its URL; a bad port says what is allowed', async () => {
    const { be } = await setup();
    await fireEvent.input(screen.getByTestId('client-endpoint-port'), { target: { value: '99999' } });
    await fireEvent.click(screen.getByTestId('client-endpoint-apply'));
    expect(screen.getByRole('alert').textContent).toMatch(/1024 to 65535/);
    expect(be.callsOf('setClientEndpoint')).toEqual([]);
    await fireEvent.input(screen.getByTestId('client-endpoint-port'), { target: { value: '' } });
    await fireEvent.click(screen.getByTestId('client-endpoint-switch'));
    await settle();
    expect(be.callsOf('setClientEndpoint')).toEqual([[true, 0]]);
    expect(screen.getByTestId('client-endpoint-url').textContent).toBe('http://127.0.0.1:43117/mcp');
    expect((screen.getByTestId('client-endpoint-port') as HTMLInputElement).value).toBe('43117');
    await fireEvent.click(screen.getByTestId('client-endpoint-switch'));
    await settle();
    expect(be.callsOf('setClientEndpoint').at(-1)).toEqual([false, 43117]);
    expect(screen.queryByTestId('client-endpoint-url')).toBeNull();
  });

  it('filters the activity, pages older entries, and shows new requests as they come', async () => {
    const { be } = await setup((be) => {
      for (let i = 1; i <= AUDIT_PAGE + 5; i++) {
        be.auditEntries.unshift({
          id: i, clientId: i % 2 ? 'a1' : 'a2', clientName: i % 2 ? 'Claude Desktop' : 'nightly script', transport: 'stdio',
          operation: i % 3 ? 'tools/call read_conversation' : 'tools/call search_messages', conversationId: 'c1',
          allowed: i % 5 !== 0, reason: i % 5 ? '' : 'not shared with this app', at: iso(now - (200 - i) * 1000),
        });
      }
    });
    const entries = () => screen.queryAllByTestId('audit-entry');
    expect(entries()).toHaveLength(AUDIT_PAGE);
    expect(entries()[0].textContent).toMatch(/denied.*tools\/call search_messages.*Claude Desktop.*Trip to Lisbon.*stdio.*not shared with this app/s);
    await fireEvent.click(screen.getByTestId('audit-older'));
    await settle();
    expect(be.callsOf('clientAudit').at(-1)![0]).toMatchObject({ before: 6, limit: AUDIT_PAGE });
    expect(entries()).toHaveLength(AUDIT_PAGE + 5);
    expect(screen.queryByTestId('audit-older')).toBeNull();

    await fireEvent.change(screen.getByTestId('audit-filter-result'), { target: { value: 'denied' } });
    await settle();
    expect(be.callsOf('clientAudit').at(-1)![0]).toMatchObject({ allowed: false, before: 0 });
    expect(entries().every((e) => e.dataset.allowed === 'false')).toBe(true);
    expect(entries()[0].querySelector('[data-testid=audit-reason]')!.textContent).toBe('not shared with this app');
    await fireEvent.change(screen.getByTestId('audit-filter-client'), { target: { value: 'a2' } });
    await settle();
    expect(entries().map((e) => e.dataset.client)).toEqual(Array(10).fill('nightly script'));
    await fireEvent.change(screen.getByTestId('audit-filter-operation'), { target: { value: 'tools/call search_messages' } });
    await settle();
    expect(entries().map((e) => e.dataset.operation)).toEqual(Array(3).fill('tools/call search_messages'));
    await fireEvent.click(screen.getByTestId('audit-filter-clear'));
    await settle();
    await fireEvent.input(screen.getByTestId('audit-filter-text'), { target: { value: 'NOT SHARED' } });
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(be.callsOf('clientAudit').at(-1)![0]).toMatchObject({ query: 'NOT SHARED', client: '', operation: '' });
    expect(entries()).toHaveLength(21);
    await fireEvent.input(screen.getByTestId('audit-filter-text'), { target: { value: 'nothing like this' } });
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(screen.getByTestId('audit-empty').textContent).toMatch(/No request matches/);
    await fireEvent.click(screen.getByTestId('audit-filter-clear'));
    await settle();

    // A request comes in: it shows on top without a reload of the page.
    be.recordAudit({ clientId: 'a2', clientName: 'nightly script', operation: 'auth', allowed: false, reason: 'the token is not valid', transport: 'http' });
    be.recordAudit({ clientId: 'a2', clientName: 'nightly script', operation: 'initialize', allowed: true, transport: 'http' });
    await new Promise((r) => setTimeout(r, 350));
    await settle();
    expect(entries().slice(0, 2).map((e) => e.dataset.operation)).toEqual(['initialize', 'auth']);
    expect(entries()).toHaveLength(AUDIT_PAGE + 2);
  });

  it('connects Claude Desktop: shows the file and the entry, writes only when asked', async () => {
    const { be } = await setup((be) => {
      be.clientApps = be.clientApps.filter((c) => c.name !== 'Claude Desktop');
      be.connectFiles['claude-desktop'] = { exists: true, replaces: false };
    });
    await fireEvent.click(screen.getByTestId('connect-claude-desktop'));
    await settle();
    expect(screen.getByTestId('connect-path').textContent).toBe('/home/ann/.config/claude-desktop/mcp.json');
    expect(screen.queryByTestId('connect-rotate-note')).toBeNull();
    await fireEvent.click(screen.getByTestId('connect-start'));
    await settle();
    const id = be.clientApps.find((c) => c.name === 'Claude Desktop')!.id;
    expect(screen.getByTestId('connect-entry').textContent).toContain(`"SWITCHBOARD_CLIENT_TOKEN": "${be.tokens[id]}"`);
    expect(screen.getByTestId('connect-file-state').textContent).toMatch(/adds switchboard under mcpServers and keeps every other entry/);
    expect(be.callsOf('writeAppConfig')).toEqual([]);
    await fireEvent.click(screen.getByTestId('connect-write'));
    await settle();
    expect(be.writtenConfigs['claude-desktop']).toBe(be.tokens[id]);
    expect(screen.getByTestId('connect-written').textContent).toMatch(/kept in .*\.bak/);
    await fireEvent.click(screen.getByTestId('connect-done'));
    expect(row('Claude Desktop')).toBeTruthy();
  });

  it('connecting an app again says its old token stops; a file that is not JSON can only be copied', async () => {
    const { be } = await setup((be) => {
      be.connectFiles.vscode = { exists: true, problem: 'Switchboard will not change mcp.json: it has comments. Copy the entry and add it to the file yourself.' };
      be.clientApps.push({ id: 'a3', name: 'VS Code', canStart: false, createdAt: iso(now), lastSeenAt: zero, revokedAt: zero, grants: 0 });
    });
    await fireEvent.click(screen.getByTestId('connect-vscode'));
    await settle();
    expect(screen.getByTestId('connect-rotate-note').textContent).toMatch(/stops working at once/);
    expect(screen.getByTestId('connect-problem').textContent).toMatch(/Copy the entry/);
    await fireEvent.click(screen.getByTestId('connect-start'));
    await settle();
    expect(be.callsOf('connectApp')).toEqual([['vscode', false]]);
    expect((screen.getByTestId('connect-write') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('connect-entry').textContent).toContain('"servers"');
  });
});

describe('Share with…', () => {
  async function share(more?: (be: FakeBackend) => void) {
    const t = await startedStores((be) => {
      seed(be);
      more?.(be);
    });
    let closed = false;
    render(ShareDialog, { context: t.context, props: { conversationId: 'c2', title: 'Tax notes', onclose: () => (closed = true) } });
    await settle();
    return { ...t, closed: () => closed };
  }

  it('shares a conversation with an app, read and write, for 7 days, and unshares it', async () => {
    const { be } = await share();
    expect(screen.getByTestId('share-none').textContent).toMatch(/not shared/);
    await fireEvent.change(screen.getByTestId('share-client'), { target: { value: 'a2' } });
    await fireEvent.click(screen.getByTestId('share-access-write'));
    await fireEvent.change(screen.getByTestId('share-expiry'), { target: { value: String(7 * 86_400_000) } });
    await fireEvent.click(screen.getByTestId('share-submit'));
    await settle();
    expect(be.callsOf('grantClient')).toEqual([['a2', 'c2', 'write', 7 * 86_400_000]]);
    expect(screen.getByTestId('share-done').textContent).toBe('Shared with nightly script (read and write).');
    const g = screen.getByTestId('share-grant');
    expect(g.textContent).toMatch(/nightly script.*Read and write.*expires in 7 days/s);
    await fireEvent.click(within(g).getByTestId('share-unshare'));
    await settle();
    expect(be.callsOf('ungrantClient')).toEqual([['a2', 'c2']]);
    expect(screen.queryByTestId('share-grant')).toBeNull();
  });

  it('offers no revoked app, and with no apps says where to add one', async () => {
    await share((be) => {
      be.clientApps[0].revokedAt = iso(now);
    });
    const opts = [...(screen.getByTestId('share-client') as HTMLSelectElement).options];
    expect(opts.map((o) => [o.textContent, o.disabled])).toEqual([['Claude Desktop (revoked)', true], ['nightly script', false]]);
    expect((screen.getByTestId('share-client') as HTMLSelectElement).value).toBe('a2');
  });

  it('with every app revoked, says how to get one back', async () => {
    await share((be) => {
      for (const c of be.clientApps) c.revokedAt = iso(now);
    });
    expect(screen.getByTestId('share-all-revoked').textContent).toMatch(/Give one a new token/);
    expect((screen.getByTestId('share-submit') as HTMLButtonElement).disabled).toBe(true);
  });

  it('with no apps, says where to add one', async () => {
    const { s, closed } = await share((be) => {
      be.clientApps = [];
      be.clientGrantList = [];
    });
    expect(screen.getByTestId('share-no-clients').textContent).toMatch(/No connected apps yet/);
    await fireEvent.click(screen.getByTestId('share-open-apps'));
    expect(closed()).toBe(true);
    expect(s.ui.tab).toBe('apps');
  });
});
