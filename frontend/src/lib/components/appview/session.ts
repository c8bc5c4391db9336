// An AppViewSession is the host's side of one open view: the SDK's
// AppBridge over a PostMessageTransport to the view's frame, with every
// request the view may make mapped to a Go binding (tools/call,
// resources/read, ui/open-link) or to the window (ui/message becomes a
// draft, size changes a clamped height), and the limits a view lives
// within (it must start within 10 s; a flood of messages, of bytes, or an
// oversized message stops it; it may ask to open a link once in 5 s and is
// stopped after 2 cancelled asks; one draft in 10 s). The protocol is the
// SDK's; nothing here speaks JSON-RPC.
//
// The order is the spec's: nothing goes to the view before it says it is
// initialized; then the tool's input, then its result (when it lands).
// Closing asks the view to tear down (ui/resource-teardown, at most
// teardownMs), then closes the bridge, removes the frame and tells Go.
import type { McpUiHostCapabilities, McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { errorMessage, type AppView, type Backend, type ToolResult } from '../../backend';
import type { BridgeSDK } from './bridge';
import { TokenBucket, clampHeight, formatBytes, messageSize } from './limits';
import { errorCallResult, toCallToolResult, toReadResourceResult } from './wire';

type Bridge = InstanceType<BridgeSDK['AppBridge']>;

/** The bounds of a session; each has a default. */
export interface Limits {
  /** How long a view has to finish its start (ui/initialize, then initialized). */
  initMs: number;
  /** How long a view has to answer ui/resource-teardown. */
  teardownMs: number;
  /** Messages a view may send at once, and then per second. */
  burst: number;
  perSecond: number;
  /** The largest message a view may send, in bytes (about: as JSON). */
  maxMessageBytes: number;
  /** Bytes (about: as JSON) a view may send at once, and then per second. */
  burstBytes: number;
  bytesPerSecond: number;
  /** The least time between two link prompts (ui/open-link); an ask sooner is refused without one. */
  linkIntervalMs: number;
  /** Link prompts the user may cancel before the view is stopped. */
  maxLinkCancels: number;
  /** The least time between two drafts (ui/message); one sooner is refused. */
  draftIntervalMs: number;
  /** The longest text a ui/message may put in the composer. */
  maxDraftChars: number;
}

export const defaultLimits: Limits = {
  initMs: 10_000,
  teardownMs: 1_000,
  burst: 200,
  perSecond: 100,
  maxMessageBytes: 4 << 20,
  burstBytes: 16 << 20,
  bytesPerSecond: 8 << 20,
  linkIntervalMs: 5_000,
  maxLinkCancels: 2,
  draftIntervalMs: 10_000,
  maxDraftChars: 10_000,
};

/** What the host offers a view: only what Switchboard implements. */
export const hostCapabilities: McpUiHostCapabilities = {
  openLinks: {},
  serverTools: {},
  serverResources: {},
  message: { text: {} },
};

/** The Go bindings a session calls (Backend's). */
export type SessionBackend = Pick<Backend, 'appViewCallTool' | 'appViewReadResource' | 'appViewOpenLink' | 'closeAppView'>;

export interface SessionOptions {
  sdk: BridgeSDK;
  view: AppView;
  /** The view's frame (the iframe's contentWindow); messages from any other window are not the view's. */
  frame: Window;
  backend: SessionBackend;
  /** The context the view starts with (theme, display mode, size, the tool). */
  hostContext: McpUiHostContext;
  /** Switchboard's version, told to the view. */
  version: string;
  /** Asks the user whether to open an http(s) link; resolves true on yes. */
  confirmLink(url: string): Promise<boolean>;
  /** Puts text from the view into the composer for the user to send; false when it was refused. */
  draft(text: string): boolean;
  /** The height the view asked for, clamped; at most once a frame. */
  resize(height: number): void;
  /** Removes the frame from the page. */
  removeFrame(): void;
  /** The session ended on its own: a limit stopped the view (stopped, why says which), or the view asked to close. */
  onend(e: { stopped: boolean; why: string }): void;
  /** Told each change of state. */
  onstate?(state: SessionState): void;
  limits?: Partial<Limits>;
  /** Where the view's messages arrive (the page's window). */
  target?: Window;
  /** Runs fn before the next frame (requestAnimationFrame). */
  schedule?: (fn: () => void) => void;
  /** The clock of the link and draft intervals, in ms (performance.now). */
  now?: () => number;
}

/** Where a session is: connecting, waiting for the view's start, ready, closing, closed. */
export type SessionState = 'connecting' | 'starting' | 'ready' | 'closing' | 'closed';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A plain copy of what goes to the view: postMessage cannot clone the
 * stores' reactive proxies (nor functions), and the view must not share
 * objects with the app.
 */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** True for an http(s) URL of at most 2048 characters (what Go opens). */
export function isWebLink(url: unknown): url is string {
  if (typeof url !== 'string' || url.length > 2048) return false;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export class AppViewSession {
  #o: SessionOptions;
  #limits: Limits;
  #bridge: Bridge | null = null;
  #state: SessionState = 'connecting';
  #ctx: McpUiHostContext;
  #bucket: TokenBucket;
  #bytes: TokenBucket;
  #now: () => number;
  #lastLink = -Infinity;
  #linkCancels = 0;
  #lastDraft = -Infinity;
  #target: Window;
  #initTimer: ReturnType<typeof setTimeout> | undefined;
  #input: Record<string, unknown> | null = null;
  #result: ToolResult | null = null;
  #cancelled: string | null = null;
  #sentInput = false;
  #sentResult = false;
  #linkPending = false;
  #height: number | null = null;
  #sizeScheduled = false;
  #gateOn = false;

  constructor(o: SessionOptions) {
    this.#o = o;
    this.#limits = { ...defaultLimits, ...o.limits };
    this.#ctx = plain(o.hostContext);
    this.#bucket = new TokenBucket(this.#limits.burst, this.#limits.perSecond);
    this.#bytes = new TokenBucket(this.#limits.burstBytes, this.#limits.bytesPerSecond);
    this.#now = o.now ?? (() => performance.now());
    this.#target = o.target ?? window;
  }

  get state(): SessionState {
    return this.#state;
  }
  #set(state: SessionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#o.onstate?.(state);
  }
  get viewId(): string {
    return this.#o.view.id;
  }

  /**
   * Listens to the frame and starts the clock of the view's start. Call
   * it before the frame loads the view (then set its src), so the view's
   * first message is not missed.
   */
  async connect(): Promise<void> {
    if (this.#bridge) return;
    const { AppBridge, PostMessageTransport } = this.#o.sdk;
    // The gate sees each message first: it drops, and counts, before the SDK parses anything.
    this.#target.addEventListener('message', this.#gate, true);
    this.#gateOn = true;
    const b = new AppBridge(null, { name: 'Switchboard', version: this.#o.version }, hostCapabilities, { hostContext: this.#ctx });
    this.#bridge = b;
    this.#handle(b);
    this.#set('starting');
    this.#initTimer = setTimeout(() => this.#startTimedOut(), this.#limits.initMs);
    await b.connect(new PostMessageTransport(this.#o.frame, this.#o.frame));
  }

  /** The tool's arguments; sent once the view is ready. */
  toolInput(args: Record<string, unknown>): void {
    this.#input ??= plain(args);
    this.#flush();
  }

  /** The tool's result, when it landed; sent after the input. */
  toolResult(r: ToolResult): void {
    this.#result ??= plain(r);
    this.#flush();
  }

  /** The call ended without a result (denied, cancelled, failed). */
  toolCancelled(reason: string): void {
    this.#cancelled ??= reason;
    this.#flush();
  }

  /** Changes what the view is told of its host (theme, size, display mode). */
  setHostContext(change: Partial<McpUiHostContext>): void {
    change = plain(change);
    if (this.#state === 'ready' && this.#bridge) {
      this.#ctx = { ...this.#ctx, ...change };
      this.#bridge.setHostContext(this.#ctx);
    } else {
      // Before the view's start, the bridge answers ui/initialize with this object.
      Object.assign(this.#ctx, change);
    }
  }

  /**
   * Closes the view in order: asks it to tear down (if it started; at most
   * teardownMs), closes the bridge, removes the frame, tells Go.
   */
  async close(): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return;
    const ready = this.#state === 'ready';
    this.#set('closing');
    clearTimeout(this.#initTimer);
    const b = this.#bridge;
    if (b && ready) {
      const ms = this.#limits.teardownMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        b.teardownResource({}, { timeout: ms }).catch(() => {}),
        new Promise<void>((r) => (timer = setTimeout(r, ms))),
      ]);
      clearTimeout(timer);
    }
    this.#end();
  }

  /** Stops the view at once, for a reason the user is shown. */
  stop(why: string): void {
    if (this.#state === 'closed') return;
    this.#end();
    this.#o.onend({ stopped: true, why });
  }

  /**
   * Ends the session when its frame is already gone (the card left the
   * page): no teardown request can reach the view any more.
   */
  dispose(): void {
    if (this.#state !== 'closed') this.#end(false);
    if (this.#gateOn) {
      this.#target.removeEventListener('message', this.#gate, true);
      this.#gateOn = false;
    }
  }

  #end(removeFrame = true): void {
    this.#set('closed');
    clearTimeout(this.#initTimer);
    const b = this.#bridge;
    if (b) void b.close().catch(() => {});
    if (removeFrame) this.#o.removeFrame();
    void this.#o.backend.closeAppView(this.#o.view.id).catch(() => {});
  }

  #startTimedOut(): void {
    if (this.#state !== 'starting') return;
    const s = Math.round(this.#limits.initMs / 1000);
    this.stop(this.#bridge?.getAppVersion() ? `it did not finish starting within ${s} s` : `it did not start within ${s} s (it never sent ui/initialize)`);
  }

  // Every message of the frame passes here first (a capture listener on
  // the window, installed before the SDK's): once the session ended, or
  // past a limit, it never reaches the SDK.
  #gate = (e: MessageEvent): void => {
    if (e.source !== this.#o.frame) return;
    if (this.#state === 'closed' || this.#state === 'closing') {
      e.stopImmediatePropagation();
      return;
    }
    if (!this.#bucket.take()) {
      e.stopImmediatePropagation();
      this.stop(`it sent too many messages (more than ${this.#limits.burst} at once, or ${this.#limits.perSecond} a second)`);
      return;
    }
    const max = this.#limits.maxMessageBytes;
    const n = messageSize(e.data, max);
    if (n > max) {
      e.stopImmediatePropagation();
      this.stop(`it sent a message of ${formatBytes(n)}; the most is ${formatBytes(max)}`);
      return;
    }
    if (!this.#bytes.take(n)) {
      e.stopImmediatePropagation();
      const l = this.#limits;
      this.stop(`it sent too much data (more than ${formatBytes(l.burstBytes)} at once, or ${formatBytes(l.bytesPerSecond)} a second)`);
    }
  };

  #flush(): void {
    const b = this.#bridge;
    if (!b || this.#state !== 'ready') return;
    if (this.#input && !this.#sentInput) {
      this.#sentInput = true;
      void b.sendToolInput({ arguments: this.#input }).catch(() => {});
    }
    if (!this.#sentInput || this.#sentResult) return;
    if (this.#result) {
      this.#sentResult = true;
      void b.sendToolResult(toCallToolResult(this.#result)).catch(() => {});
    } else if (this.#cancelled !== null) {
      this.#sentResult = true;
      void b.sendToolCancelled({ reason: this.#cancelled }).catch(() => {});
    }
  }

  /**
   * Refuses what a view asks before its start (ui/initialize) or after
   * its end. A request right after ui/initialize is served: the SDK
   * handles the initialized notification a few ticks later than a request
   * sent after it.
   */
  #notReady(): string | null {
    if (this.#state === 'ready' || (this.#state === 'starting' && this.#bridge?.getAppVersion())) return null;
    return this.#state === 'starting' ? 'the view has not started (ui/initialize)' : 'the view is closed';
  }

  #handle(b: Bridge): void {
    const id = this.#o.view.id;
    const be = this.#o.backend;
    // What the SDK could not do (a message it could not parse or send).
    b.onerror = (e) => console.warn(`view ${id} of ${this.#o.view.serverName}:`, e);
    b.oninitialized = () => {
      if (this.#state !== 'starting') return;
      clearTimeout(this.#initTimer);
      this.#set('ready');
      this.#flush();
    };
    b.oncalltool = async (p) => {
      const refused = this.#notReady();
      if (refused) return errorCallResult(refused);
      try {
        return toCallToolResult(await be.appViewCallTool(id, String(p.name), isRecord(p.arguments) ? p.arguments : {}));
      } catch (e) {
        return errorCallResult(errorMessage(e));
      }
    };
    b.onreadresource = async (p) => {
      const refused = this.#notReady();
      if (refused) throw new Error(refused);
      return toReadResourceResult(await be.appViewReadResource(id, String(p.uri)));
    };
    // A link asks the user: at most once in linkIntervalMs (sooner is
    // refused without a dialog), and a view asked again after the user
    // said no maxLinkCancels times is stopped, so it cannot keep the
    // window behind an endless chain of dialogs.
    b.onopenlink = async (p) => {
      if (this.#notReady() || !isWebLink(p.url) || this.#linkPending) return { isError: true };
      const t = this.#now();
      if (t - this.#lastLink < this.#limits.linkIntervalMs) return { isError: true };
      this.#lastLink = t;
      this.#linkPending = true;
      try {
        const yes = await this.#o.confirmLink(p.url);
        // The wait for the user does not count toward the interval.
        this.#lastLink = this.#now();
        if (!yes && ++this.#linkCancels >= this.#limits.maxLinkCancels) {
          this.stop('it kept asking to open links after you said no');
          return { isError: true };
        }
        if (!yes || this.#state !== 'ready') return { isError: true };
        await be.appViewOpenLink(id, p.url);
        return {};
      } catch {
        return { isError: true };
      } finally {
        this.#linkPending = false;
      }
    };
    b.onmessage = async (p) => {
      if (this.#notReady()) return { isError: true };
      const blocks = Array.isArray(p.content) ? p.content : [];
      const text = blocks
        .map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : ''))
        .filter(Boolean)
        .join('\n\n')
        .trim();
      if (!text || text.length > this.#limits.maxDraftChars) return { isError: true };
      // One draft in draftIntervalMs: a view re-sending its draft cannot
      // slip it into whatever the user is about to send.
      // A refused draft counts too: retrying cannot land one sooner.
      const t = this.#now();
      if (t - this.#lastDraft < this.#limits.draftIntervalMs) return { isError: true };
      this.#lastDraft = t;
      return this.#o.draft(text) ? {} : { isError: true };
    };
    b.onsizechange = (p) => {
      const h = clampHeight(p.height);
      if (h === null || this.#notReady()) return;
      this.#height = h;
      if (this.#sizeScheduled) return;
      this.#sizeScheduled = true;
      const run = () => {
        this.#sizeScheduled = false;
        if (this.#height !== null && !this.#notReady()) this.#o.resize(this.#height);
      };
      (this.#o.schedule ?? ((fn) => requestAnimationFrame(fn)))(run);
    };
    b.onrequestteardown = () => {
      if (this.#state === 'ready' || this.#state === 'starting') this.#o.onend({ stopped: false, why: 'the view asked to close' });
    };
  }
}
