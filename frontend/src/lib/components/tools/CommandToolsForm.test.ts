import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import CommandToolsForm from './CommandToolsForm.svelte';
import type { ServerConfig } from '../../backend';
import { settle, startedStores } from '../../test/helpers';

async function setup(config?: ServerConfig) {
  const t = await startedStores();
  let closed = false;
  render(CommandToolsForm, { context: t.context, props: { config, onclose: () => (closed = true) } });
  await settle();
  return { ...t, closed: () => closed };
}

const input = (el: HTMLElement, value: string) => fireEvent.input(el, { target: { value } });

describe('command tools form', () => {
  it('saves a server of command tools as the backend wants it', async () => {
    const t = await setup();
    await input(screen.getByTestId('cmd-field-name'), 'Search');
    const tool = within(screen.getByTestId('cmd-tool'));
    await input(tool.getByTestId('cmd-tool-name'), 'grep');
    await input(tool.getByTestId('cmd-tool-command'), 'rg\n--json\n--\n{{pattern}}');
    await fireEvent.click(tool.getByTestId('cmd-tool-schema-gen'));
    await input(tool.getByTestId('cmd-tool-timeout'), '5');
    await fireEvent.click(screen.getByTestId('cmd-save'));
    await settle(10);
    expect(t.closed()).toBe(true);
    const [cfg] = t.be.callsOf('saveServer')[0] as [ServerConfig];
    expect(cfg).toMatchObject({
      id: 'search',
      name: 'Search',
      transport: 'command',
      enabled: true,
      tools: [{ name: 'grep', command: ['rg', '--json', '--', '{{pattern}}'], timeout: 5e9, inputSchema: { type: 'object', required: ['pattern'] } }],
    });
  });

  it('shows JSON it cannot read, and the backend\'s errors, under their fields; saves nothing', async () => {
    const t = await setup();
    t.be.validationErrors = [{ field: 'tools[0].command[1]', message: 'uses {{p}}, which is not a property of the tool\'s input schema' }];
    await input(screen.getByTestId('cmd-field-name'), 'x');
    const tool = within(screen.getByTestId('cmd-tool'));
    await input(tool.getByTestId('cmd-tool-name'), 't');
    await input(tool.getByTestId('cmd-tool-command'), 'rg\n{{p}}');
    await input(tool.getByTestId('cmd-tool-schema'), '{"type": ');
    expect(tool.getByTestId('cmd-error-schema').textContent).toMatch(/is not JSON/);
    await fireEvent.click(screen.getByTestId('cmd-save'));
    await settle(10);
    expect(t.closed()).toBe(false);
    expect(tool.getByTestId('cmd-error-command').textContent).toBe('command[1]: uses {{p}}, which is not a property of the tool\'s input schema');
    expect(t.be.callsOf('saveServer')).toEqual([]);
  });

  it('edits a stored server: fields filled in, the ID fixed, tools added and removed', async () => {
    const t = await setup({ id: 'fs', name: 'Files', transport: 'command', enabled: true, tools: [{ name: 'ls', command: ['ls', '-l'] }] });
    expect((screen.getByTestId('cmd-field-id') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByTestId('cmd-tool-command') as HTMLTextAreaElement).value).toBe('ls\n-l');
    expect(screen.queryByTestId('cmd-tool-remove')).toBeNull(); // the last tool stays
    await fireEvent.click(screen.getByTestId('cmd-add-tool'));
    const second = within(screen.getAllByTestId('cmd-tool')[1]);
    await input(second.getByTestId('cmd-tool-name'), 'date');
    await input(second.getByTestId('cmd-tool-command'), 'date');
    await fireEvent.click(within(screen.getAllByTestId('cmd-tool')[0]).getByTestId('cmd-tool-remove'));
    await fireEvent.click(screen.getByTestId('cmd-save'));
    await settle(10);
    const [cfg] = t.be.callsOf('saveServer')[0] as [ServerConfig];
    expect(cfg.tools).toEqual([{ name: 'date', command: ['date'] }]);
  });
});
