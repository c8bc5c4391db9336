import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ToolCallCard from '../chat/ToolCallCard.svelte';
import type { ServerView } from '../../backend';
import type { ToolCallView } from '../../stores/toolcalls';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

const clock: ServerView = {
  config: { id: 'clock', name: 'Clock', transport: 'stdio', command: 'node', enabled: true },
  status: { serverId: 'clock', state: 'connected', toolCount: 2 },
  tools: [
    {
      name: 'clock__get-time', serverId: 'clock', serverName: 'Clock', originalName: 'get-time', description: 'Tells the time.',
      inputSchema: { type: 'object' }, enabled: true, ui: { resourceUri: 'ui://get-time/app.html' },
    },
    { name: 'clock__plain', serverId: 'clock', serverName: 'Clock', originalName: 'plain', description: '', inputSchema: { type: 'object' }, enabled: true },
  ],
};

function call(id: string, tool: string, status: ToolCallView['status']): ToolCallView {
  return {
    key: id, tool, serverId: 'clock', serverName: 'Clock', arguments: '{"tz":"UTC"}', status,
    record: {
      id, callId: `call_${id}`, conversationId: 'c1', messageId: 3, serverId: 'clock', serverName: 'Clock', tool, arguments: '{"tz":"UTC"}',
      status, decision: 'allow_once', decidedBy: 'user', result: status === 'done' ? { content: [{ type: 'text', text: '12:00' }] } : null,
      isError: false, error: '', requestedAt: iso(Date.now()), durationMs: 0,
    },
  };
}

async function setup() {
  const t = await startedStores((be) => {
    be.servers = [clock];
  });
  return t;
}

// happy-dom loads no frames: each gets a window of its own that takes messages.
const windows = new WeakMap<HTMLIFrameElement, Window>();
beforeEach(() => {
  vi.spyOn(console, 'debug').mockImplementation(() => {});
  vi.spyOn(HTMLIFrameElement.prototype, 'contentWindow', 'get').mockImplementation(function (this: HTMLIFrameElement) {
    let w = windows.get(this);
    if (!w) windows.set(this, (w = { postMessage: () => {} } as unknown as Window));
    return w;
  });
});

describe('a tool call card with a view', () => {
  it('opens the view of a live call by itself, framed: sandboxed with allow-scripts only, its CSP, no referrer, under a header naming the server', async () => {
    const t = await setup();
    render(ToolCallCard, { props: { view: call('rec1', 'clock__get-time', 'running'), openURL: () => {} }, context: t.context });
    const av = await vi.waitFor(() => screen.getByTestId('appview'));
    expect(within(av).getByTestId('appview-header').textContent).toMatch(/View from Clock/);
    const frame = await vi.waitFor(() => {
      const f = within(av).getByTestId('appview-frame') as HTMLIFrameElement;
      expect(f.getAttribute('src')).toBe('/mcp-view/view1');
      return f;
    });
    expect(t.be.callsOf('openAppView')).toEqual([['c1', 'clock', 'get-time']]);
    expect(frame.getAttribute('sandbox')).toBe('allow-scripts');
    expect(frame.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(frame.getAttribute('csp')).toBe("default-src 'none'; script-src 'self' 'unsafe-inline'");
    expect(frame.getAttribute('allow')).toBe('');
    expect(av.dataset.state).toBe('starting');

    // Closed by the user: Go is told, and the card offers it again.
    await fireEvent.click(within(av).getByTestId('appview-close'));
    await vi.waitFor(() => expect(screen.queryByTestId('appview')).toBeNull());
    expect(t.be.callsOf('closeAppView')).toEqual([['view1']]);
    expect(t.be.openViews.size).toBe(0);
    expect(screen.getByTestId('appview-show')).toBeTruthy();
    expect(t.s.appviews.slot('rec1')?.state).toBe('closed');
  });

  it('shows "Show view" for a call from history and opens it only when asked', async () => {
    const t = await setup();
    render(ToolCallCard, { props: { view: call('rec2', 'clock__get-time', 'done'), openURL: () => {} }, context: t.context });
    await settle();
    expect(screen.queryByTestId('appview')).toBeNull();
    expect(t.be.callsOf('openAppView')).toEqual([]);
    // The text of the result stays.
    expect(screen.getByText('Result')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('appview-show'));
    await vi.waitFor(() => expect(screen.getByTestId('appview-frame').getAttribute('src')).toBe('/mcp-view/view1'));
    expect(t.be.callsOf('openAppView')).toEqual([['c1', 'clock', 'get-time']]);
  });

  it('shows nothing for a tool without a view, and says why a view could not open', async () => {
    const t = await setup();
    const { unmount } = render(ToolCallCard, { props: { view: call('rec3', 'clock__plain', 'running'), openURL: () => {} }, context: t.context });
    await settle();
    expect(screen.queryByTestId('appview')).toBeNull();
    expect(screen.queryByTestId('appview-show')).toBeNull();
    unmount();

    t.be.failures.openAppView = 'the view of get-time is not a ui:// resource of text/html;profile=mcp-app';
    render(ToolCallCard, { props: { view: call('rec4', 'clock__get-time', 'running'), openURL: () => {} }, context: t.context });
    const err = await vi.waitFor(() => screen.getByTestId('appview-error'));
    expect(err.textContent).toMatch(/^The view from Clock could not open: the view of get-time is not a ui:\/\/ resource/);
  });

  it('a view Go closes (its server went away) says so, and the frame goes', async () => {
    const t = await setup();
    render(ToolCallCard, { props: { view: call('rec5', 'clock__get-time', 'running'), openURL: () => {} }, context: t.context });
    await vi.waitFor(() => expect(screen.getByTestId('appview-frame').getAttribute('src')).toBe('/mcp-view/view1'));
    t.be.emit('appview:closed', { viewId: 'view1', reason: 'its server disconnected' });
    await vi.waitFor(() => expect(screen.queryByTestId('appview')).toBeNull());
    expect(screen.getByTestId('appview-note').textContent).toBe('The view from Clock was closed: its server disconnected');
  });

  it('is closed when the card leaves the page', async () => {
    const t = await setup();
    const { unmount } = render(ToolCallCard, { props: { view: call('rec6', 'clock__get-time', 'running'), openURL: () => {} }, context: t.context });
    await vi.waitFor(() => expect(screen.getByTestId('appview-frame').getAttribute('src')).toBe('/mcp-view/view1'));
    unmount();
    await settle();
    expect(t.be.callsOf('closeAppView')).toEqual([['view1']]);
  });
});
