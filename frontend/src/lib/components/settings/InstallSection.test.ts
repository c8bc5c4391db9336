import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import InstallSection from './InstallSection.svelte';
import { settle, startedStores } from '../../test/helpers';
import type { FakeBackend } from '../../backend/fake';

async function setup(be?: (be: FakeBackend) => void) {
  const t = await startedStores(be);
  render(InstallSection, { context: t.context });
  await settle(10);
  return t;
}

describe('Settings → Servers', () => {
  it('says which Node installed servers run on', async () => {
    await setup();
    expect(screen.getByTestId('settings-node-text').textContent).toBe('Node 22.11.0 at /usr/bin/node (system)');
    expect(screen.queryByTestId('settings-node-fetch')).toBeNull();
  });

  it('offers to download Node when there is none, with its progress', async () => {
    let open!: () => void;
    const t = await setup((be) => {
      be.node = null;
      be.installGate = new Promise<void>((r) => (open = r));
    });
    expect(screen.getByTestId('settings-node-text').textContent).toMatch(/no Node.js 20 or newer found/);
    await fireEvent.click(screen.getByTestId('settings-node-fetch'));
    await settle();
    expect(screen.getByTestId('settings-node-progress').textContent).toBe('Downloading Node.js: 0 of 29696 KB');
    expect((screen.getByTestId('settings-node-fetch') as HTMLButtonElement).disabled).toBe(true);
    open();
    await settle(10);
    expect(t.be.callsOf('fetchNode')).toHaveLength(1);
    expect(screen.getByTestId('settings-node-text').textContent).toBe('Node 22.11.0 at /tmp/switchboard/runtime/node/22.11.0/bin/node (downloaded by Switchboard)');
    expect(screen.queryByTestId('settings-node-progress')).toBeNull();
  });

  it('saves the registries, and refuses what is not an http(s) URL', async () => {
    const t = await setup((be) => (be.settings = { ...be.settings, npmRegistry: 'https://mirror.example/npm/' }));
    expect((screen.getByTestId('settings-npm-registry') as HTMLInputElement).value).toBe('https://mirror.example/npm/');
    await fireEvent.input(screen.getByTestId('settings-mcp-registry'), { target: { value: 'ftp://registry.example' } });
    expect((screen.getByTestId('settings-servers-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByTestId('settings-mcp-registry'), { target: { value: ' http://127.0.0.1:8080 ' } });
    await fireEvent.click(screen.getByTestId('settings-servers-save'));
    await settle();
    const saved = t.be.callsOf('saveSettings').at(-1)?.[0] as { npmRegistry: string; mcpRegistry: string; toolSearch: string };
    expect([saved.npmRegistry, saved.mcpRegistry, saved.toolSearch]).toEqual(['https://mirror.example/npm/', 'http://127.0.0.1:8080', 'auto']);
    expect(screen.getByTestId('settings-servers-saved')).toBeTruthy();
  });
});
