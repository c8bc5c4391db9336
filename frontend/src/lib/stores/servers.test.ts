import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { ServerView } from '../backend';
import { ServersStore } from './servers.svelte';
import { ImportFlow } from './import.svelte';

const files = (): ServerView => ({
  config: { id: 'files', name: 'Files', transport: 'stdio', command: 'npx', enabled: true },
  status: { serverId: 'files', state: 'connecting', toolCount: 0 },
  tools: [],
});
const tool = (name: string, enabled = true) => ({
  name: `files__${name}`,
  serverId: 'files',
  serverName: 'Files',
  originalName: name,
  description: '',
  inputSchema: {},
  enabled,
});

describe('ServersStore', () => {
  it('follows server:status and server:tools', async () => {
    const be = new FakeBackend();
    be.servers = [files()];
    const s = new ServersStore(be);
    s.start();
    await s.load();
    be.emit('server:status', { serverId: 'files', state: 'connected', toolCount: 2 });
    expect(s.server('files')!.status).toMatchObject({ state: 'connected', toolCount: 2 });
    be.emit('server:tools', { serverId: 'files', tools: [tool('read'), tool('write', false)] });
    expect(s.tools.map((t) => t.name)).toEqual(['files__read']); // only enabled ones are offered
    be.emit('server:status', { serverId: 'files', state: 'failed', toolCount: 0, reason: 'npx not found on PATH', lastStderr: ['boom'] });
    expect(s.server('files')!.status.reason).toBe('npx not found on PATH');
  });

  it('reloads the list when an unknown server reports', async () => {
    vi.useFakeTimers();
    try {
      const be = new FakeBackend();
      const s = new ServersStore(be);
      s.start();
      await s.load();
      be.servers = [files()];
      be.emit('server:status', { serverId: 'files', state: 'connected', toolCount: 0 });
      await vi.advanceTimersByTimeAsync(300);
      expect(s.servers.map((x) => x.config.id)).toEqual(['files']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows an action in progress and its failure', async () => {
    const be = new FakeBackend();
    be.servers = [files()];
    const s = new ServersStore(be);
    await s.load();
    const p = s.connect('files');
    expect(s.busy('files')).toBe('Connecting…');
    await p;
    expect(s.busy('files')).toBe('');
    be.failures.restartServer = 'npx not found on PATH; set the full path in the server’s command';
    await s.restart('files');
    expect(s.actionError('files')).toContain('set the full path');
  });

  it('switches a tool at once and undoes it when refused', async () => {
    const be = new FakeBackend();
    be.servers = [{ ...files(), tools: [tool('read')] }];
    const s = new ServersStore(be);
    await s.load();
    await s.setToolEnabled('files', 'read', false);
    expect(be.callsOf('setToolEnabled')).toEqual([['files', 'read', false]]);
    expect(s.server('files')!.tools[0].enabled).toBe(false);
    be.failures.setToolEnabled = 'store failed';
    await s.setToolEnabled('files', 'read', true);
    expect(s.server('files')!.tools[0].enabled).toBe(false);
  });

  it('saves only a valid config and returns field errors', async () => {
    const be = new FakeBackend();
    const s = new ServersStore(be);
    be.validationErrors = [{ field: 'command', message: 'the command is empty' }];
    const cfg = { id: 'x', name: 'X', transport: 'stdio' as const, enabled: true };
    expect(await s.save(cfg)).toEqual([{ field: 'command', message: 'the command is empty' }]);
    expect(be.callsOf('saveServer')).toEqual([]);
    be.validationErrors = [];
    expect(await s.save(cfg)).toEqual([]);
    expect(s.servers.map((x) => x.config.id)).toEqual(['x']);
  });
});

describe('ImportFlow', () => {
  it('previews, then imports all and reloads the servers', async () => {
    const be = new FakeBackend();
    be.importReport = {
      format: 'claude',
      added: [{ id: 'github', name: 'github', transport: 'stdio', command: 'npx', enabled: true }],
      skipped: [{ server: 'files', message: 'already configured' }],
      failed: [{ server: 'bad', message: 'has neither command nor url' }],
    };
    const servers = new ServersStore(be);
    const f = new ImportFlow(be, servers);
    expect(f.canImport).toBe(false);
    f.setText('{"mcpServers":{}}');
    await f.preview();
    expect(f.step).toBe('preview');
    expect(f.report?.skipped?.[0].message).toBe('already configured');
    expect(f.canImport).toBe(true);
    expect(be.callsOf('importServers')).toEqual([]); // preview never writes
    expect(await f.commit()).toBe(true);
    expect(be.callsOf('importServers')).toEqual([['{"mcpServers":{}}']]);
    expect(f.step).toBe('done');
    expect(servers.servers.map((s) => s.config.id)).toEqual(['github']);
  });

  it('says why a file cannot be read, and editing goes back to the start', async () => {
    const be = new FakeBackend();
    const f = new ImportFlow(be, new ServersStore(be));
    await f.preview();
    expect(f.error).toContain('Paste the JSON');
    f.setText('not json');
    be.failures.previewImport = 'the text is not JSON: invalid character';
    await f.preview();
    expect(f.error).toBe('the text is not JSON: invalid character');
    expect(f.step).toBe('edit');
  });

  it('imports nothing when the import fails', async () => {
    const be = new FakeBackend();
    be.importReport = { format: 'vscode', added: [{ id: 'a', name: 'a', transport: 'http', url: 'https://a', enabled: true }] };
    const f = new ImportFlow(be, new ServersStore(be));
    f.setText('{}');
    await f.preview();
    be.failures.importServers = 'keyring unavailable';
    expect(await f.commit()).toBe(false);
    expect(f.error).toBe('Nothing was imported: keyring unavailable');
    expect(f.step).toBe('preview');
  });
});
