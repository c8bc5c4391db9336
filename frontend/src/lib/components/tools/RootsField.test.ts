import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ServerForm from './ServerForm.svelte';
import type { ServerConfig } from '../../backend';
import { configToForm, emptyForm, formToConfig } from './form';
import { settle, startedStores } from '../../test/helpers';

const fs: ServerConfig = { id: 'fs', name: 'Files', transport: 'stdio', command: 'mcp-server-filesystem', args: ['/tmp'], enabled: true, roots: ['/home/ada/a'] };

describe('roots in the server form', () => {
  it('round-trips through the form model; none means the field is absent', () => {
    expect(formToConfig(configToForm(fs)).roots).toEqual(['/home/ada/a']);
    expect(formToConfig(emptyForm())).not.toHaveProperty('roots');
  });

  it('adds folders from the dialog and typed, removes them, and saves them', async () => {
    const t = await startedStores((be) => {
      be.servers = [{ config: fs, status: { serverId: 'fs', state: 'connected', toolCount: 0 }, tools: [] }];
      be.pickedFolder = '/home/ada/picked';
    });
    render(ServerForm, { context: t.context, props: { config: fs, onclose: () => {} } });
    expect(screen.getAllByTestId('server-root').map((r) => r.querySelector('code')?.textContent)).toEqual(['/home/ada/a']);
    await fireEvent.click(screen.getByTestId('server-root-pick'));
    await settle();
    expect(t.be.callsOf('pickFolder')).toHaveLength(1);
    await fireEvent.input(screen.getByTestId('server-root-input'), { target: { value: '/srv/typed' } });
    await fireEvent.click(screen.getByTestId('server-root-add'));
    await fireEvent.click(screen.getAllByTestId('server-root-remove')[0]);
    expect(screen.getAllByTestId('server-root').map((r) => r.querySelector('code')?.textContent)).toEqual(['/home/ada/picked', '/srv/typed']);
    await fireEvent.click(screen.getByTestId('server-save'));
    await settle();
    expect(t.be.callsOf('saveServer')[0][0]).toMatchObject({ id: 'fs', roots: ['/home/ada/picked', '/srv/typed'] });
  });

  it('a cancelled dialog adds nothing', async () => {
    const t = await startedStores((be) => (be.pickedFolder = ''));
    render(ServerForm, { context: t.context, props: { onclose: () => {} } });
    await fireEvent.click(screen.getByTestId('server-root-pick'));
    await settle();
    expect(screen.queryAllByTestId('server-root')).toHaveLength(0);
    expect(screen.getByTestId('server-roots').textContent).toContain('offered no roots');
  });
});
