import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import InstallDialog from './InstallDialog.svelte';
import ServerRow from './ServerRow.svelte';
import type { InstallRequest, ServerView } from '../../backend';
import type { InstallPrefill } from './installform';
import { settle, startedStores } from '../../test/helpers';
import type { FakeBackend } from '../../backend/fake';

async function setup(opts: { prefill?: InstallPrefill; be?: (be: FakeBackend) => void } = {}) {
  const t = await startedStores(opts.be);
  let closed = 0;
  const installed: ServerView[] = [];
  render(InstallDialog, { context: t.context, props: { prefill: opts.prefill, onclose: () => closed++, oninstalled: (v: ServerView) => installed.push(v) } });
  await settle();
  return { ...t, closed: () => closed, installed };
}

const input = (id: string, value: string) => fireEvent.input(screen.getByTestId(id), { target: { value } });

/** A gate the fake's install waits at; open() lets it go on. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

describe('install dialog', () => {
  it('installs a package: live steps while it runs, the form disabled, then closes with the server in the list', async () => {
    const g = gate();
    const t = await setup({ be: (be) => (be.installGate = g.p) });
    await input('install-package', '@modelcontextprotocol/server-memory@2025.9.25');
    await fireEvent.click(screen.getByTestId('install-pin'));
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle();

    // Halfway: two files fetched, the form off, Install says so.
    const progress = screen.getByTestId('install-progress');
    expect(progress.dataset.step).toBe('downloading');
    expect(screen.getByTestId('install-progress-text').textContent).toBe('Downloading: 2 files fetched (zod)');
    expect((screen.getByTestId('install-package') as HTMLInputElement).closest('fieldset')!.disabled).toBe(true);
    expect(screen.getByTestId('install-submit').textContent!.trim()).toBe('Installing…');
    expect(t.closed()).toBe(0);

    g.open();
    await settle(10);
    expect(t.be.callsOf('installServer')[0][0]).toEqual({
      id: '', package: '@modelcontextprotocol/server-memory', version: '2025.9.25', bin: '', values: {}, fetchNode: false,
    } satisfies InstallRequest);
    expect(t.closed()).toBe(1);
    expect(t.installed.map((v) => v.config.id)).toEqual(['server-memory']);
    // In the list, pinned as asked.
    expect(t.s.servers.server('server-memory')?.config.install).toMatchObject({ kind: 'npm', version: '2025.9.25', pinned: true });
    expect(t.be.callsOf('pinServer')).toEqual([['server-memory', true]]);
  });

  it('shows what went wrong under the form and keeps what was typed', async () => {
    const t = await setup();
    await input('install-package', '@modelcontextprotocol/server-nope-1234');
    await input('install-id', 'nope');
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle(10);
    expect(screen.getByTestId('install-error').textContent).toMatch(/no such package: @modelcontextprotocol\/server-nope-1234 is not in the npm registry/);
    expect((screen.getByTestId('install-package') as HTMLInputElement).value).toBe('@modelcontextprotocol/server-nope-1234');
    expect((screen.getByTestId('install-id') as HTMLInputElement).value).toBe('nope');
    expect((screen.getByTestId('install-package') as HTMLInputElement).disabled).toBe(false);
    expect(t.closed()).toBe(0);
    expect(t.s.servers.servers).toEqual([]);
    // Typing again clears it.
    await input('install-package', '@modelcontextprotocol/server-memory');
    expect(screen.queryByTestId('install-error')).toBeNull();
  });

  it("checks the form before asking Go, and says what is wrong under the field", async () => {
    const t = await setup();
    await input('install-package', 'Not A Package');
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle();
    expect(screen.getByText(/is not an npm package name/)).toBeTruthy();
    expect(t.be.callsOf('installServer')).toEqual([]);
  });

  it('asks before downloading Node, and installs with it on yes', async () => {
    const t = await setup({ be: (be) => (be.node = null) });
    await input('install-package', '@modelcontextprotocol/server-memory');
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle(10);
    expect(screen.getByTestId('node-consent-why').textContent).toMatch(/^Switchboard needs Node.js to install this server: the system has no Node.js 20/);
    expect(screen.getByTestId('node-consent').textContent).toContain("Download Node.js 22 from the npm registry into Switchboard's data folder (~30 MB)?");
    expect(t.be.callsOf('installServer').map((c) => (c[0] as InstallRequest).fetchNode)).toEqual([false]);

    await fireEvent.click(screen.getByTestId('node-consent-yes'));
    await settle(10);
    expect(t.be.callsOf('installServer').map((c) => (c[0] as InstallRequest).fetchNode)).toEqual([false, true]);
    expect(t.closed()).toBe(1);
    expect(t.s.servers.server('server-memory')).toBeTruthy();
  });

  it('installs nothing when the user says no to Node, and says why', async () => {
    const t = await setup({ be: (be) => (be.node = null) });
    await input('install-package', '@modelcontextprotocol/server-memory');
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle(10);
    await fireEvent.click(screen.getByTestId('node-consent-no'));
    await settle();
    expect(screen.queryByTestId('node-consent')).toBeNull();
    expect(screen.getByTestId('install-error').textContent).toMatch(/needs Node.js 20 or newer/);
    expect(t.be.callsOf('installServer')).toHaveLength(1);
    expect(t.be.node).toBeNull();
  });

  it('installs a file: a path typed as the package, or chosen with Browse…', async () => {
    const t = await setup({ be: (be) => (be.pickedFile = '/home/ann/weather-1.2.0.mcpb') });
    await input('install-package', '/tmp/shout-1.0.0.tgz');
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle(10);
    expect((t.be.callsOf('installServer')[0][0] as InstallRequest).package).toBe('/tmp/shout-1.0.0.tgz');
    expect(t.s.servers.server('shout')?.config.install).toMatchObject({ kind: 'npm', version: '1.0.0', file: 'shout-1.0.0.tgz' });

    // Opened again, the file with Browse…; a bundle takes its settings.
    document.body.innerHTML = '';
    render(InstallDialog, { context: t.context, props: { onclose: () => {} } });
    await fireEvent.click(screen.getByTestId('install-source-file'));
    await fireEvent.click(screen.getByTestId('install-browse'));
    await settle();
    expect((screen.getByTestId('install-file') as HTMLInputElement).value).toBe('/home/ann/weather-1.2.0.mcpb');
    await fireEvent.click(screen.getByText('Add setting'));
    await fireEvent.input(screen.getByLabelText('setting name'), { target: { value: 'units' } });
    await fireEvent.input(screen.getByLabelText('setting value'), { target: { value: 'metric' } });
    await fireEvent.click(screen.getByTestId('install-submit'));
    await settle(10);
    expect(t.be.callsOf('installServer')[1][0]).toMatchObject({ package: '/home/ann/weather-1.2.0.mcpb', values: { units: 'metric' } });
    expect(t.s.servers.server('weather')?.config.install?.kind).toBe('mcpb');
  });

  it('opens prefilled with a package and version', async () => {
    await setup({ prefill: { pkg: '@modelcontextprotocol/server-sequential-thinking', version: '2025.7.1' } });
    expect((screen.getByTestId('install-package') as HTMLInputElement).value).toBe('@modelcontextprotocol/server-sequential-thinking');
    expect((screen.getByTestId('install-version') as HTMLInputElement).value).toBe('2025.7.1');
  });
});

describe('installed server row', () => {
  const installed = (pinned = false): ServerView => ({
    config: { id: 'memory', name: '@modelcontextprotocol/server-memory', transport: 'stdio', command: 'node', enabled: true, install: { kind: 'npm', package: '@modelcontextprotocol/server-memory', version: '2025.9.25', pinned, runtime: 'node' } },
    status: { serverId: 'memory', state: 'connected', toolCount: 0 },
    tools: [],
  });

  async function row(view: ServerView) {
    const t = await startedStores((be) => (be.servers = [view]));
    const r = render(ServerRow, { context: t.context, props: { server: t.s.servers.server('memory')!, onedit: () => {} } });
    return { ...t, r };
  }

  it('shows its version and updates it to the latest, then to a version named', async () => {
    const t = await row(installed());
    expect(screen.getByTestId('server-install').textContent).toBe('npm 2025.9.25');
    expect(screen.queryByTestId('server-pinned')).toBeNull();
    await fireEvent.click(screen.getByTestId('server-update'));
    await settle(10);
    expect(t.be.callsOf('updateServer')).toEqual([['memory', '', '']]);
    expect(screen.getByTestId('server-update-result').textContent).toBe('Updated to 2026.1.26.');
    await t.r.rerender({ server: t.s.servers.server('memory')!, onedit: () => {} });
    expect(screen.getByTestId('server-install').textContent).toBe('npm 2026.1.26');

    await fireEvent.click(screen.getByTestId('server-update-ask'));
    await fireEvent.input(screen.getByTestId('server-update-input'), { target: { value: '9.9.9' } });
    await fireEvent.click(screen.getByTestId('server-update-go'));
    await settle(10);
    expect(screen.getByTestId('server-error').textContent).toMatch(/has no version 9.9.9/);
    expect(screen.queryByTestId('server-update-result')).toBeNull();
    expect(t.s.servers.server('memory')?.config.install?.version).toBe('2026.1.26');
  });

  it('pins and unpins; a pinned server has no plain Update', async () => {
    const t = await row(installed());
    await fireEvent.click(screen.getByTestId('server-pin'));
    await settle(10);
    expect(t.be.callsOf('pinServer')).toEqual([['memory', true]]);
    await t.r.rerender({ server: t.s.servers.server('memory')!, onedit: () => {} });
    expect(screen.getByTestId('server-pinned').textContent).toBe('pinned');
    expect(screen.queryByTestId('server-update')).toBeNull();
    expect(screen.getByTestId('server-pin').textContent!.trim()).toBe('Unpin');
    await fireEvent.click(screen.getByTestId('server-pin'));
    await settle(10);
    expect(t.be.callsOf('pinServer')).toEqual([['memory', true], ['memory', false]]);
  });
});
