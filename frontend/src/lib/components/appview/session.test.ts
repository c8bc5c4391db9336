// The host side of a view, with the SDK's real AppBridge: a fake view
// posts JSON-RPC messages to the page's window (as a frame would, from its
// own window) and records what the host posts back.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../../backend/fake';
import type { AppView, ToolResult } from '../../backend';
import * as sdk from './sdk';
import { AppViewSession, type SessionOptions } from './session';

type Msg = { jsonrpc: '2.0'; id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message: string } };

/** A view's side: its window (which the host posts to) and what it sends. */
class FakeView {
  got: Msg[] = [];
  frame = {
    postMessage: (m: unknown) => {
      this.got.push(structuredClone(m) as Msg);
    },
  } as unknown as Window;
  #id = 0;

  post(data: unknown): void {
    window.dispatchEvent(new MessageEvent('message', { data, source: this.frame as unknown as MessageEventSource }));
  }
  request(method: string, params: Record<string, unknown> = {}): number {
    const id = ++this.#id;
    this.post({ jsonrpc: '2.0', id, method, params });
    return id;
  }
  notify(method: string, params: Record<string, unknown> = {}): void {
    this.post({ jsonrpc: '2.0', method, params });
  }
  async answer(id: number): Promise<Msg> {
    await vi.waitFor(() => expect(this.got.some((m) => m.id === id && (m.result || m.error))).toBe(true));
    return this.got.find((m) => m.id === id && (m.result || m.error))!;
  }
  methods(): string[] {
    return this.got.filter((m) => m.method).map((m) => m.method!);
  }
  /** The view's start: ui/initialize, then initialized (not waiting for the host to take it). */
  async start(): Promise<Msg> {
    const id = this.request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'fake-view', version: '1.0.0' }, appCapabilities: {} });
    const r = await this.answer(id);
    this.notify('ui/notifications/initialized');
    return r;
  }
}

const view: AppView = {
  id: 'view1', url: '/mcp-view/view1', serverId: 'srv', serverName: 'Clock', tool: 'get-time', resourceUri: 'ui://get-time/app.html',
  csp: "default-src 'none'", allow: '', prefersBorder: true, externalDomains: [],
};

let sessions: AppViewSession[] = [];
// The SDK logs every message it sends or parses.
beforeEach(() => {
  vi.spyOn(console, 'debug').mockImplementation(() => {});
});
afterEach(() => {
  for (const s of sessions) s.dispose();
  sessions = [];
});

function setup(extra: Partial<SessionOptions> = {}) {
  const be = new FakeBackend();
  be.openViews.set(view.id, view);
  const v = new FakeView();
  const log: string[] = [];
  const ends: { stopped: boolean; why: string }[] = [];
  const sizes: number[] = [];
  const drafts: string[] = [];
  const frames: (() => void)[] = [];
  const s = new AppViewSession({
    sdk,
    view,
    frame: v.frame,
    backend: be,
    hostContext: { theme: 'dark', platform: 'desktop', displayMode: 'inline' },
    version: 'test',
    confirmLink: async () => false,
    draft: (t) => {
      drafts.push(t);
      return true;
    },
    resize: (h) => sizes.push(h),
    removeFrame: () => log.push('removeFrame'),
    onend: (e) => ends.push(e),
    schedule: (fn) => frames.push(fn),
    ...extra,
  });
  sessions.push(s);
  return { be, v, s, log, ends, sizes, drafts, frames };
}

const result: ToolResult = {
  content: [
    { type: 'text', text: '12:00' },
    { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain', text: 'a' },
  ],
  structuredContent: { time: '12:00' },
  meta: { 'ui/x': 1 },
};

describe('AppViewSession', () => {
  it('sends nothing before the view is initialized, then the input, then the result in MCP shape', async () => {
    const { v, s } = setup();
    await s.connect();
    s.toolInput({ tz: 'UTC' });
    s.toolResult(result);
    const init = await v.start();
    expect(init.result).toMatchObject({ hostInfo: { name: 'Switchboard', version: 'test' }, hostContext: { theme: 'dark', platform: 'desktop' } });
    expect(init.result?.hostCapabilities).toEqual({ openLinks: {}, serverTools: {}, serverResources: {}, message: { text: {} } });
    await vi.waitFor(() => expect(v.methods()).toEqual(['ui/notifications/tool-input', 'ui/notifications/tool-result']));
    expect(s.state).toBe('ready');
    const [input, res] = v.got.filter((m) => m.method);
    expect(input.params).toEqual({ arguments: { tz: 'UTC' } });
    expect(res.params).toEqual({
      content: [
        { type: 'text', text: '12:00' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'a' } },
      ],
      structuredContent: { time: '12:00' },
      _meta: { 'ui/x': 1 },
    });
  });

  it('sends plain copies: the stores’ reactive proxies cannot cross postMessage', async () => {
    const proxied = <T extends object>(o: T): T => new Proxy(o, {});
    const { v, s } = setup({
      hostContext: { theme: 'light', toolInfo: { tool: { name: 't', inputSchema: proxied({ type: 'object' as const, properties: proxied({ a: { type: 'string' } }) }) } } },
    });
    await s.connect();
    s.toolInput(proxied({ a: proxied({ b: 1 }) }));
    s.toolResult(proxied({ content: [proxied({ type: 'text', text: 'x' })], structuredContent: proxied({ n: 1 }), meta: proxied({ m: 1 }) }));
    const init = await v.start();
    expect(init.result?.hostContext).toMatchObject({ toolInfo: { tool: { inputSchema: { properties: { a: { type: 'string' } } } } } });
    await vi.waitFor(() => expect(v.methods()).toEqual(['ui/notifications/tool-input', 'ui/notifications/tool-result']));
    s.setHostContext(proxied({ theme: 'dark' as const }));
    await vi.waitFor(() => expect(v.methods()).toContain('ui/notifications/host-context-changed'));
  });

  it('sends the result when it lands, after the input; a call that ended without one is cancelled', async () => {
    const { v, s } = setup();
    await s.connect();
    s.toolInput({});
    await v.start();
    await vi.waitFor(() => expect(v.methods()).toEqual(['ui/notifications/tool-input']));
    s.toolResult(result);
    await vi.waitFor(() => expect(v.methods()).toEqual(['ui/notifications/tool-input', 'ui/notifications/tool-result']));
    s.toolCancelled('denied'); // too late: the result went
    s.toolResult({ content: [] });
    await new Promise((r) => setTimeout(r, 10));
    expect(v.methods()).toHaveLength(2);

    const b = setup();
    await b.s.connect();
    b.s.toolInput({});
    b.s.toolCancelled('the user denied the call');
    await b.v.start();
    await vi.waitFor(() => expect(b.v.methods()).toEqual(['ui/notifications/tool-input', 'ui/notifications/tool-cancelled']));
    expect(b.v.got.find((m) => m.method === 'ui/notifications/tool-cancelled')?.params).toEqual({ reason: 'the user denied the call' });
  });

  it('runs tools/call through AppViewCallTool; a refusal comes back as an error result, and nothing runs before the view started', async () => {
    const { v, s, be } = setup();
    be.viewToolResults['poll'] = { content: [{ type: 'text', text: 'cpu 5%' }] };
    await s.connect();
    const early = await v.answer(v.request('tools/call', { name: 'poll', arguments: {} }));
    expect(early.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the view has not started (ui/initialize)' }] });
    expect(be.callsOf('appViewCallTool')).toEqual([]);

    await v.start();
    const ok = await v.answer(v.request('tools/call', { name: 'poll', arguments: { n: 1 } }));
    expect(ok.result).toEqual({ content: [{ type: 'text', text: 'cpu 5%' }] });
    expect(be.callsOf('appViewCallTool')).toEqual([['view1', 'poll', { n: 1 }]]);

    const refused = await v.answer(v.request('tools/call', { name: 'other__delete', arguments: {} }));
    expect(refused.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^refused to the view/) }] });
  });

  it('reads resources through AppViewReadResource; an unknown one is a JSON-RPC error', async () => {
    const { v, s, be } = setup();
    be.viewResources['ui://x/data'] = { serverId: 'srv', uri: 'ui://x/data', contents: [{ uri: 'ui://x/data', mimeType: 'application/pdf', blob: 'AAEC', binary: true }] };
    await s.connect();
    await v.start();
    const ok = await v.answer(v.request('resources/read', { uri: 'ui://x/data' }));
    expect(ok.result).toEqual({ contents: [{ uri: 'ui://x/data', mimeType: 'application/pdf', blob: 'AAEC' }] });
    const missing = await v.answer(v.request('resources/read', { uri: 'file:///etc/passwd' }));
    expect(missing.error?.message).toMatch(/not found/);
  });

  it('opens only http(s) links, and only after the user said yes', async () => {
    const asked: string[] = [];
    let yes = false;
    let now = 0;
    const { v, s, be } = setup({
      confirmLink: async (url) => {
        asked.push(url);
        return yes;
      },
      now: () => now,
    });
    await s.connect();
    await v.start();
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,hi', `https://x.example/${'a'.repeat(3000)}`]) {
      expect((await v.answer(v.request('ui/open-link', { url }))).result).toEqual({ isError: true });
    }
    expect(asked).toEqual([]);
    expect((await v.answer(v.request('ui/open-link', { url: 'https://example.com/a' }))).result).toEqual({ isError: true });
    expect(asked).toEqual(['https://example.com/a']);
    expect(be.callsOf('appViewOpenLink')).toEqual([]);
    yes = true;
    now += 5_000;
    expect((await v.answer(v.request('ui/open-link', { url: 'https://example.com/b' }))).result).toEqual({});
    expect(be.callsOf('appViewOpenLink')).toEqual([['view1', 'https://example.com/b']]);
  });

  // Review F4: a view asking again the moment the user cancels would keep
  // the window behind dialogs for good.
  it('asks about a link at most once in 5 s, and stops a view that asks again after 2 cancels', async () => {
    const asked: string[] = [];
    let now = 0;
    const { v, s, ends, be } = setup({
      confirmLink: async (url) => {
        asked.push(url);
        return false;
      },
      now: () => now,
    });
    await s.connect();
    await v.start();
    for (let i = 0; i < 5; i++) expect((await v.answer(v.request('ui/open-link', { url: `https://example.com/${i}` }))).result).toEqual({ isError: true });
    expect(asked).toEqual(['https://example.com/0']); // the rest came sooner than 5 s: refused, no dialog
    expect(ends).toEqual([]);
    now += 4_999;
    expect((await v.answer(v.request('ui/open-link', { url: 'https://example.com/5' }))).result).toEqual({ isError: true });
    expect(asked).toHaveLength(1);
    now += 1;
    v.request('ui/open-link', { url: 'https://example.com/6' });
    await vi.waitFor(() => expect(ends).toEqual([{ stopped: true, why: 'it kept asking to open links after you said no' }]));
    expect(asked).toEqual(['https://example.com/0', 'https://example.com/6']);
    expect(s.state).toBe('closed');
    expect(be.callsOf('appViewOpenLink')).toEqual([]);
  });

  it('puts at most one draft in 10 s; one sooner is refused to the view', async () => {
    let now = 0;
    const { v, s, drafts } = setup({ now: () => now });
    await s.connect();
    await v.start();
    const draft = (text: string) => v.request('ui/message', { role: 'user', content: [{ type: 'text', text }] });
    expect((await v.answer(draft('one'))).result).toEqual({});
    now += 9_999;
    expect((await v.answer(draft('two'))).result).toEqual({ isError: true });
    now += 10_000;
    expect((await v.answer(draft('three'))).result).toEqual({});
    expect(drafts).toEqual(['one', 'three']);
  });

  it('puts ui/message text into a draft; a message without text is refused', async () => {
    const { v, s, drafts } = setup();
    await s.connect();
    await v.start();
    const ok = await v.answer(v.request('ui/message', { role: 'user', content: [{ type: 'text', text: 'Explain this' }, { type: 'text', text: 'chart' }] }));
    expect(ok.result).toEqual({});
    const img = await v.answer(v.request('ui/message', { role: 'user', content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }));
    expect(img.result).toEqual({ isError: true });
    const long = await v.answer(v.request('ui/message', { role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_001) }] }));
    expect(long.result).toEqual({ isError: true });
    expect(drafts).toEqual(['Explain this\n\nchart']);
  });

  it('clamps the height a view asks for, once a frame', async () => {
    const { v, s, sizes, frames } = setup();
    await s.connect();
    await v.start();
    v.notify('ui/notifications/size-changed', { width: 500, height: 1e9 });
    v.notify('ui/notifications/size-changed', { height: 300 });
    await vi.waitFor(() => expect(frames).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 10));
    expect(frames).toHaveLength(1);
    frames[0]();
    expect(sizes).toEqual([300]);
    v.notify('ui/notifications/size-changed', { height: 1e9 });
    await vi.waitFor(() => expect(frames).toHaveLength(2));
    frames[1]();
    v.notify('ui/notifications/size-changed', { height: -5 });
    await vi.waitFor(() => expect(frames).toHaveLength(3));
    frames[2]();
    expect(sizes).toEqual([300, 720, 60]);
  });

  it('stops a view that floods messages, before the SDK parses them, and says why', async () => {
    const { v, s, be, log, ends } = setup({ limits: { burst: 50, perSecond: 10 } });
    await s.connect();
    await v.start();
    const handled = vi.fn();
    window.addEventListener('message', handled);
    for (let i = 0; i < 1000; i++) v.request('ping');
    window.removeEventListener('message', handled);
    expect(s.state).toBe('closed');
    expect(ends).toEqual([{ stopped: true, why: 'it sent too many messages (more than 50 at once, or 10 a second)' }]);
    expect(log).toEqual(['removeFrame']);
    await vi.waitFor(() => expect(be.callsOf('closeAppView')).toEqual([['view1']]));
    // Past the limit, nothing reaches any other listener of the page: the
    // burst less the two messages of the start got through, no more.
    expect(handled.mock.calls.length).toBe(48);
    await new Promise((r) => setTimeout(r, 20));
    expect(v.got.filter((m) => m.id !== undefined && m.id > 1).length).toBeLessThanOrEqual(50);
  });

  // Review F6: each message within the size limit, but 30 MB in a second.
  it('stops a view that sends more bytes than its budget', async () => {
    const { v, s, ends } = setup();
    await s.connect();
    await v.start();
    const blob = 'a'.repeat(3 << 20);
    for (let i = 0; i < 10 && s.state !== 'closed'; i++) v.notify('ui/notifications/x', { blob });
    expect(s.state).toBe('closed');
    expect(ends).toEqual([{ stopped: true, why: 'it sent too much data (more than 16.0 MB at once, or 8.0 MB a second)' }]);
  });

  it('stops a view that sends an oversized message', async () => {
    const { v, s, ends } = setup();
    await s.connect();
    await v.start();
    v.post({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'x', arguments: { blob: 'a'.repeat(20 << 20) } } });
    expect(s.state).toBe('closed');
    expect(ends[0].why).toBe('it sent a message of 20.0 MB; the most is 4.0 MB');
    await new Promise((r) => setTimeout(r, 10));
    expect(v.got.some((m) => m.id === 99)).toBe(false);
  });

  it('stops a view that does not start within 10 s', async () => {
    vi.useFakeTimers();
    const { s, ends, be } = setup();
    await s.connect();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ends).toEqual([{ stopped: true, why: 'it did not start within 10 s (it never sent ui/initialize)' }]);
    expect(be.callsOf('closeAppView')).toEqual([['view1']]);
  });

  it('closes in order: teardown request (answered or not, at most 1 s), bridge closed, frame removed, Go told', async () => {
    const { v, s, be, log } = setup();
    const closeView = be.closeAppView.bind(be);
    be.closeAppView = (id) => {
      log.push('closeAppView');
      return closeView(id);
    };
    await s.connect();
    await v.start();
    await vi.waitFor(() => expect(s.state).toBe('ready'));
    const closed = s.close();
    await vi.waitFor(() => expect(v.methods()).toContain('ui/resource-teardown'));
    const td = v.got.find((m) => m.method === 'ui/resource-teardown')!;
    expect(log).toEqual([]);
    expect(s.state).toBe('closing');
    v.post({ jsonrpc: '2.0', id: td.id, result: {} });
    await closed;
    expect(log).toEqual(['removeFrame', 'closeAppView']);
    expect(s.state).toBe('closed');
    // The bridge no longer answers.
    const n = v.got.length;
    v.request('ping');
    await new Promise((r) => setTimeout(r, 10));
    expect(v.got.length).toBe(n);

    // A view that does not answer holds the close 1 s at most.
    vi.useFakeTimers();
    const b = setup();
    await b.s.connect();
    await b.v.start();
    await vi.waitFor(() => expect(b.s.state).toBe('ready'));
    let done = false;
    void b.s.close().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    expect(b.log).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(done).toBe(true);
    expect(b.log).toEqual(['removeFrame']);
    expect(b.be.callsOf('closeAppView')).toEqual([['view1']]);
  });

  it('a view that asks to close is closed by its host; one that never started gets no teardown request', async () => {
    const { v, s, ends } = setup();
    await s.connect();
    await v.start();
    v.notify('ui/notifications/request-teardown');
    await vi.waitFor(() => expect(ends).toEqual([{ stopped: false, why: 'the view asked to close' }]));

    const b = setup();
    await b.s.connect();
    await b.s.close();
    expect(b.v.methods()).toEqual([]);
    expect(b.log).toEqual(['removeFrame']);
  });
});
