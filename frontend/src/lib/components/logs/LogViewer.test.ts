import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import LogViewer from './LogViewer.svelte';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

describe('LogViewer', () => {
  it('tails a server log; pause holds new lines; levels filter', async () => {
    const t = await startedStores((be) => {
      be.servers = [{ config: { id: 'files', name: 'Files', transport: 'stdio', command: 'npx', enabled: true }, status: { serverId: 'files', state: 'connected', toolCount: 0 }, tools: [] }];
      be.serverLogLines = { files: [{ seq: 1, time: iso(0), level: 'info', text: 'started' }] };
    });
    t.s.ui.showLogs('files');
    render(LogViewer, { context: t.context });
    await settle();
    expect(t.be.callsOf('serverLogs')[0]).toEqual(['files', 0, 5000]);
    expect(screen.getAllByTestId('log-line')).toHaveLength(1);
    // The store batches on animation frames: here, faked ones.
    vi.useFakeTimers();
    t.be.emit('log:append', { source: 'files', lines: [{ seq: 2, time: iso(0), level: 'error', text: 'boom' }] });
    await vi.advanceTimersByTimeAsync(16); // a frame
    expect(screen.getAllByTestId('log-line').map((l) => l.dataset.level)).toEqual(['info', 'error']);
    await fireEvent.click(screen.getByTestId('log-pause'));
    t.be.emit('log:append', { source: 'files', lines: [{ seq: 3, time: iso(0), level: 'info', text: 'later' }] });
    await vi.advanceTimersByTimeAsync(16);
    expect(screen.getAllByTestId('log-line')).toHaveLength(2);
    expect(screen.getByTestId('log-resume').textContent).toContain('1 new');
    await fireEvent.click(screen.getByTestId('log-resume'));
    expect(screen.getAllByTestId('log-line')).toHaveLength(3);
    await fireEvent.click(screen.getByTestId('log-level-info'));
    expect(screen.getAllByTestId('log-line').map((l) => l.textContent)).toEqual([expect.stringContaining('boom')]);
  });
});

describe('LogViewer server log level', () => {
  it('sets the MCP log level of the server whose log is shown, and says when it sends none', async () => {
    const t = await startedStores((be) => {
      be.servers = [
        { config: { id: 'ev', name: 'Everything', transport: 'stdio', command: 'npx', enabled: true }, status: { serverId: 'ev', state: 'connected', toolCount: 0, logging: true }, tools: [] },
        { config: { id: 'fs', name: 'Files', transport: 'stdio', command: 'npx', enabled: true, logLevel: 'error' }, status: { serverId: 'fs', state: 'connected', toolCount: 0 }, tools: [] },
      ];
    });
    t.s.ui.showLogs('ev');
    render(LogViewer, { context: t.context });
    await settle();
    const pick = screen.getByTestId('log-server-level') as HTMLSelectElement;
    expect(pick.value).toBe('');
    expect(screen.queryByTestId('log-no-logging')).toBeNull();
    await fireEvent.change(pick, { target: { value: 'notice' } });
    await settle();
    expect(t.be.callsOf('setServerLogLevel')).toEqual([['ev', 'notice']]);
    expect(t.s.servers.server('ev')?.config.logLevel).toBe('notice');

    t.s.ui.showLogs('fs');
    await settle();
    expect((screen.getByTestId('log-server-level') as HTMLSelectElement).value).toBe('error');
    expect(screen.getByTestId('log-no-logging').textContent).toContain('sends no MCP log messages');

    t.s.ui.showLogs('app');
    await settle();
    expect(screen.queryByTestId('log-server-level')).toBeNull();
  });
});
