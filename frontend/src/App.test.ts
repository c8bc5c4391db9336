import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { FakeBackend } from './lib/backend/fake';
import { settle } from './lib/test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

function withProvider(be: FakeBackend) {
  be.providers = [{ id: 'p1', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
  return be;
}

describe('App', () => {
  it('shows the first screen with the data directory', async () => {
    const be = new FakeBackend();
    render(App, { props: { backend: be } });
    expect(await screen.findByTestId('welcome')).toBeTruthy();
    expect(screen.getByTestId('data-dir').textContent).toBe('/tmp/switchboard');
  });

  it('shows a damaged database instead of an empty app', async () => {
    const be = new FakeBackend();
    be.info.problems = [{ kind: 'database', message: 'database file is damaged: /x/switchboard.db', advice: 'move it aside', fatal: true }];
    render(App, { props: { backend: be } });
    const fatal = await screen.findByTestId('fatal');
    expect(fatal.textContent).toContain('/x/switchboard.db');
    expect(fatal.textContent).toContain('Nothing was deleted');
    expect(screen.queryByTestId('welcome')).toBeNull();
  });

  it('warns when secrets are kept in memory only', async () => {
    const be = new FakeBackend();
    be.info.keyring = { backend: 'memory', persistent: false };
    be.info.problems = [{ kind: 'keyring', message: 'Secrets are kept in memory only', advice: 'install gnome-keyring', fatal: false }];
    render(App, { props: { backend: be } });
    expect((await screen.findByTestId('problem-keyring')).textContent).toContain('memory only');
    expect(screen.getByTestId('keyring').textContent).toContain('memory');
  });
});

describe('first start', () => {
  it('shows when no provider is configured and ends in a chat with a local server', async () => {
    const be = new FakeBackend();
    be.local = [{ preset: be.presets.find((p) => p.id === 'ollama')!, models: [{ id: 'llama3.2' }, { id: 'qwen' }] }];
    render(App, { props: { backend: be } });
    expect(await screen.findByTestId('first-start')).toBeTruthy();
    expect(screen.queryByTestId('composer-input')).toBeNull();
    await fireEvent.click(await screen.findByTestId('use-local'));
    await settle();
    expect(be.callsOf('saveProvider')).toEqual([[{ id: '', name: 'Ollama', preset: 'ollama', baseUrl: 'http://localhost:11434/v1', defaultModel: 'llama3.2', apiKey: '' }]]);
    expect(be.settings.defaultProviderId).toBe(be.providers[0].id);
    expect(await screen.findByTestId('composer-input')).toBeTruthy();
    expect(screen.queryByTestId('first-start')).toBeNull();
  });

  it('checks a pasted Cerebras key and shows the provider’s exact answer', async () => {
    const be = new FakeBackend();
    render(App, { props: { backend: be } });
    expect(await screen.findByTestId('no-local')).toBeTruthy();
    be.testResults = {};
    be.failures.testProvider = undefined;
    await fireEvent.input(screen.getByTestId('setup-key'), { target: { value: 'csk-bad' } });
    const orig = be.testProvider.bind(be);
    be.testProvider = async (id) => {
      await orig(id);
      return { ok: false, message: 'the provider refused the API key; check it in Settings → Providers (401: Wrong API Key)', models: [] };
    };
    await fireEvent.click(screen.getByTestId('setup-connect'));
    await settle();
    expect(screen.getByTestId('setup-error').textContent).toBe('the provider refused the API key; check it in Settings → Providers (401: Wrong API Key)');
    expect(screen.getByTestId('first-start')).toBeTruthy();
    // A second try updates the same provider and, once the key works, opens the chat.
    be.testProvider = orig;
    be.models = { 'cerebras-1': ['gpt-oss-120b'] };
    await fireEvent.input(screen.getByTestId('setup-key'), { target: { value: 'csk-good' } });
    await fireEvent.click(screen.getByTestId('setup-connect'));
    await settle(10);
    expect(be.providers).toHaveLength(1);
    expect(be.providers[0]).toMatchObject({ id: 'cerebras-1', defaultModel: 'gpt-oss-120b', hasKey: true });
    expect(await screen.findByTestId('composer-input')).toBeTruthy();
  });
});

describe('header', () => {
  it('shows the yolo badge while allow-all is on; a click turns it off', async () => {
    const be = withProvider(new FakeBackend());
    be.policy = { yolo: true, grants: [] };
    render(App, { props: { backend: be } });
    const badge = await screen.findByTestId('yolo-badge');
    await fireEvent.click(badge);
    await settle();
    expect(be.callsOf('setYolo')).toEqual([[false]]);
    expect(screen.queryByTestId('yolo-badge')).toBeNull();
    be.emit('approval:policy', { yolo: true, grants: [] });
    expect(await screen.findByTestId('yolo-badge')).toBeTruthy();
  });

  it('shows pending approvals again after a reload', async () => {
    const be = withProvider(new FakeBackend());
    be.pending = [
      { id: 'a', conversationId: 'c', serverId: 's', tool: 't', serverName: 'S', description: '', fingerprint: '', arguments: {} },
    ];
    render(App, { props: { backend: be, approvalArmMs: 0 } });
    expect(await screen.findByTestId('approval-modal')).toBeTruthy();
    expect(screen.getByTestId('approvals-pending').textContent).toContain('1');
  });
});

describe('settings', () => {
  it('theme radio sets data-theme on <html>', async () => {
    const be = withProvider(new FakeBackend());
    render(App, { props: { backend: be } });
    await fireEvent.click(await screen.findByTestId('tab-settings'));
    await fireEvent.click(screen.getByTestId('settings-theme-dark'));
    expect(document.documentElement.dataset.theme).toBe('dark');
    await settle();
    expect(be.settings.theme).toBe('dark');
  });

  it('lists always-allowed tools with revoke', async () => {
    const be = withProvider(new FakeBackend());
    be.policy = { yolo: false, grants: [{ serverId: 'files', tool: 'read_file', fingerprint: 'f', createdAt: iso(1)}] };
    render(App, { props: { backend: be } });
    await fireEvent.click(await screen.findByTestId('tab-settings'));
    const row = screen.getByTestId('grant-row');
    expect(row.dataset.tool).toBe('read_file');
    await fireEvent.click(within(row).getByTestId('grant-revoke'));
    await settle();
    expect(be.callsOf('revokeGrant')).toEqual([['files', 'read_file']]);
    expect(screen.queryByTestId('grant-row')).toBeNull();
  });

  it('tests a provider and shows the exact message', async () => {
    const be = withProvider(new FakeBackend());
    be.testResults = { p1: { ok: false, message: 'cannot reach the provider: dial tcp: connection refused', models: [] } };
    render(App, { props: { backend: be } });
    await fireEvent.click(await screen.findByTestId('tab-settings'));
    await fireEvent.click(screen.getByTestId('provider-edit'));
    await fireEvent.click(screen.getByTestId('provider-test'));
    await settle();
    const r = await screen.findByTestId('provider-test-result');
    expect(r.textContent).toBe('cannot reach the provider: dial tcp: connection refused');
    expect(be.callsOf('saveProvider')[0][0]).toMatchObject({ id: 'p1', apiKey: '' }); // '' keeps the stored key
  });
});

describe('tools', () => {
  it('server rows follow server:status, and import previews before importing', async () => {
    const be = withProvider(new FakeBackend());
    be.servers = [{ config: { id: 'files', name: 'Files', transport: 'stdio', command: 'npx', enabled: true }, status: { serverId: 'files', state: 'connecting', toolCount: 0 }, tools: [] }];
    be.importReport = {
      format: 'claude',
      added: [{ id: 'gh', name: 'GitHub', transport: 'stdio', command: 'npx', enabled: true }],
      skipped: [{ server: 'files', message: 'already configured' }],
      failed: [{ server: 'bad', message: 'has neither command nor url' }],
    };
    render(App, { props: { backend: be } });
    await fireEvent.click(await screen.findByTestId('tab-tools'));
    const row = screen.getByTestId('server-row');
    expect(row.dataset.state).toBe('connecting');
    be.emit('server:status', { serverId: 'files', state: 'failed', toolCount: 0, reason: 'npx not found on PATH' });
    await settle();
    expect(row.dataset.state).toBe('failed');
    expect(within(row).getByTestId('server-reason').textContent).toContain('npx not found');

    await fireEvent.click(screen.getByTestId('import-servers'));
    await fireEvent.input(screen.getByTestId('import-text'), { target: { value: '{"mcpServers":{}}' } });
    expect((screen.getByTestId('import-commit') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('import-preview'));
    await settle();
    expect(screen.getByTestId('import-added').textContent).toContain('GitHub');
    expect(screen.getByTestId('import-skipped').textContent).toContain('already configured');
    expect(screen.getByTestId('import-failed').textContent).toContain('has neither command nor url');
    expect(be.callsOf('importServers')).toEqual([]);
    await fireEvent.click(screen.getByTestId('import-commit'));
    await settle();
    expect(be.callsOf('importServers')).toEqual([['{"mcpServers":{}}']]);
    expect(screen.getByTestId('import-done')).toBeTruthy();
    expect(screen.getAllByTestId('server-row')).toHaveLength(2);
  });

  it('shows field errors from ValidateServer under their fields', async () => {
    const be = withProvider(new FakeBackend());
    be.validationErrors = [{ field: 'command', message: 'the command is empty; enter the program to run, e.g. npx' }];
    render(App, { props: { backend: be } });
    await fireEvent.click(await screen.findByTestId('tab-tools'));
    await fireEvent.click(screen.getByTestId('add-server'));
    await fireEvent.input(screen.getByTestId('server-field-name'), { target: { value: 'My Files' } });
    expect((screen.getByTestId('server-field-id') as HTMLInputElement).value).toBe('my-files');
    await fireEvent.click(screen.getByTestId('server-save'));
    await settle();
    expect(screen.getByTestId('server-error-command').textContent).toContain('the command is empty');
    expect(be.callsOf('saveServer')).toEqual([]);
  });
});
