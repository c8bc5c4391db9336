import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import RegistryBrowser from './RegistryBrowser.svelte';
import type { RegistryInstall, RegistryItem, RegistryPlan } from '../../backend';
import type { FakeBackend } from '../../backend/fake';
import { settle, startedStores } from '../../test/helpers';

const brave: RegistryItem = {
  entry: { server: { name: 'io.github.brave/brave-search-mcp-server', title: 'Brave Search', description: 'Web search', version: '2.0.58' }, _meta: {} },
  options: [
    { kind: 'npm', label: 'npm @brave/brave-search-mcp-server 2.0.58 (stdio)' },
    { label: 'oci brave (stdio)', unsupported: 'docker images are not supported' },
  ],
  preferred: 0,
  status: 'deprecated',
};
const plan: RegistryPlan = {
  kind: 'npm', id: 'brave-search', name: 'Brave Search', package: '@brave/brave-search-mcp-server', version: '2.0.58',
  config: { id: 'brave-search', name: 'Brave Search', transport: 'stdio', enabled: true },
  fields: [
    { key: 'env.BRAVE_API_KEY', label: 'BRAVE_API_KEY', required: true, secret: true },
    { key: 'env.LOG', label: 'LOG', choices: ['info', 'debug'], default: 'info' },
  ],
  notes: ['Installed from npmjs.org.'],
};

async function setup() {
  const t = await startedStores((be: FakeBackend) => {
    be.registryItems = [brave];
    be.registryPlans = { [`${brave.entry.server.name}#0`]: plan };
  });
  let closed = 0;
  render(RegistryBrowser, { context: t.context, props: { onclose: () => closed++ } });
  await settle();
  return { ...t, closed: () => closed };
}

describe('registry browser', () => {
  it('lists a result with its kinds and status; its entry shows options, notes and fields; a missing key is marked and nothing is sent; with the key it installs and closes', async () => {
    const t = await setup();
    const result = screen.getByTestId('registry-result');
    expect(screen.getAllByTestId('registry-kind').map((e) => e.textContent)).toEqual(['npm']);
    expect(screen.getByTestId('registry-status').textContent).toBe('deprecated');
    await fireEvent.click(result);
    await settle();
    const opts = screen.getAllByTestId('registry-option');
    expect(opts[1].querySelector('input')!.disabled).toBe(true);
    expect(opts[1].textContent).toContain('docker images are not supported');
    expect(screen.getByTestId('registry-notes').textContent).toContain('Installed from npmjs.org.');
    const key = document.querySelector('[data-key="env.BRAVE_API_KEY"]')!;
    expect(key.querySelector('input')!.type).toBe('password');
    expect((screen.getByTestId('registry-id') as HTMLInputElement).value).toBe('brave-search');

    await fireEvent.click(screen.getByTestId('registry-install'));
    await settle();
    expect(key.querySelector('[data-testid=registry-field-error]')?.textContent).toBe('Required.');
    expect(t.be.callsOf('installFromRegistry')).toEqual([]);

    await fireEvent.input(key.querySelector('input')!, { target: { value: 'secret' } });
    await fireEvent.click(screen.getByTestId('registry-install'));
    await settle();
    const req = t.be.callsOf('installFromRegistry')[0][0] as RegistryInstall;
    expect(req).toEqual({ name: brave.entry.server.name, version: '2.0.58', choice: 0, id: 'brave-search', values: { 'env.BRAVE_API_KEY': 'secret' }, fetchNode: false });
    expect(t.closed()).toBe(1);
    expect(t.s.servers.servers.map((s) => s.config.id)).toContain('brave-search');
  });

  it("shows Go's error under the field it names, keeping what was typed", async () => {
    const t = await setup();
    t.be.failures.installFromRegistry = 'invalid server config: env.LOG: must be one of info, debug (got "x")';
    await fireEvent.click(screen.getByTestId('registry-result'));
    await settle();
    const key = document.querySelector('[data-key="env.BRAVE_API_KEY"] input') as HTMLInputElement;
    await fireEvent.input(key, { target: { value: 'secret' } });
    await fireEvent.click(screen.getByTestId('registry-install'));
    await settle();
    expect(document.querySelector('[data-key="env.LOG"] [data-testid=registry-field-error]')?.textContent).toBe('must be one of info, debug (got "x")');
    expect(screen.getByTestId('registry-install-error').textContent).toMatch(/see the values marked/);
    expect(key.value).toBe('secret');
    expect(t.closed()).toBe(0);
  });
});
