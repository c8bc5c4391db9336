// ResourcesStore holds the resources MCP servers offer: each connected
// server's listing (loaded when the Tools panel shows it), the resources
// followed and how often they changed since last looked at, and the one
// preview open (a resource, a template filled in, or a block a tool or
// prompt sent), from which a resource is attached to the next message.
import {
  Events,
  errorMessage,
  type Attachment,
  type Backend,
  type Content,
  type ResourceList,
  type ResourcePreview,
  type Unsubscribe,
} from '../backend';

/** One server's listing as the panel shows it. */
export interface ServerResources {
  list: ResourceList | null;
  loading: boolean;
  error: string;
  /** The session listed (its connectedAt), when known. */
  session?: string;
}

/** The preview open now. */
export interface PreviewState {
  serverId: string;
  uri: string;
  /** What the preview is titled: the resource's name, else its URI. */
  title: string;
  preview: ResourcePreview | null;
  loading: boolean;
  error: string;
  /** A block a server sent, previewed and attached as it is (not read again). */
  content?: Content;
  attaching: boolean;
  /** The server said the resource changed since the preview was read. */
  updated: boolean;
}

const key = (serverId: string, uri: string) => `${serverId}\n${uri}`;

export class ResourcesStore {
  #backend: Backend;
  #onAttach: (list: Attachment[]) => void;
  #unsubs: Unsubscribe[] = [];
  #byServer = $state<Record<string, ServerResources>>({});
  /** Updates not yet looked at, by server and URI. */
  #updates = $state<Record<string, number>>({});
  /** Subscriptions being changed now, by server and URI. */
  #toggling = $state<Record<string, boolean>>({});
  #preview = $state<PreviewState | null>(null);
  /** Servers whose resources the Tools panel shows (kept across tabs). */
  #expanded = $state<Record<string, boolean>>({});
  #seq = 0; // the preview's read; a later one wins

  /** onAttach receives what the preview attached (the pending attachments take it). */
  constructor(backend: Backend, opts: { onAttach?: (list: Attachment[]) => void } = {}) {
    this.#backend = backend;
    this.#onAttach = opts.onAttach ?? (() => {});
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.resourceUpdated, (u) => {
        const k = key(u.serverId, u.uri);
        const p = this.#preview;
        if (p && !p.content && p.serverId === u.serverId && p.uri === u.uri) p.updated = true;
        else this.#updates[k] = (this.#updates[k] ?? 0) + 1;
      }),
      this.#backend.on(Events.resourcesChanged, (c) => {
        if (this.#byServer[c.serverId]) void this.load(c.serverId);
      }),
      this.#backend.on(Events.serverStatus, (st) => {
        // A new session may offer other resources: listed again.
        const had = this.#byServer[st.serverId];
        if (!had || st.state === 'degraded' || (st.state === 'connected' && st.connectedAt === had.session)) return;
        if (st.state === 'connected') void this.load(st.serverId, st.connectedAt);
        else delete this.#byServer[st.serverId];
      }),
    ];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
  }

  /** A server's listing, once asked for (load). */
  of(serverId: string): ServerResources | undefined {
    return this.#byServer[serverId];
  }

  /** Lists a server's resources; session is its connectedAt, when known. */
  async load(serverId: string, session?: string): Promise<void> {
    const cur = this.#byServer[serverId];
    session ??= cur?.session;
    this.#byServer[serverId] = { list: cur?.list ?? null, loading: true, error: '', session };
    try {
      const list = await this.#backend.listResources(serverId);
      this.#byServer[serverId] = { list, loading: false, error: '', session };
    } catch (e) {
      this.#byServer[serverId] = { list: null, loading: false, error: errorMessage(e), session };
    }
  }

  subscribed(serverId: string, uri: string): boolean {
    return this.#byServer[serverId]?.list?.subscribed.includes(uri) ?? false;
  }

  /** Whether the Tools panel shows a server's resources. */
  expanded(serverId: string): boolean {
    return this.#expanded[serverId] ?? false;
  }
  /** Shows or hides a server's resources, listing them when first shown. */
  setExpanded(serverId: string, on: boolean, session?: string): void {
    this.#expanded[serverId] = on;
    if (on && !this.#byServer[serverId]) void this.load(serverId, session);
  }
  /** How many updates of a followed resource came since it was last previewed. */
  updates(serverId: string, uri: string): number {
    return this.#updates[key(serverId, uri)] ?? 0;
  }
  toggling(serverId: string, uri: string): boolean {
    return this.#toggling[key(serverId, uri)] ?? false;
  }

  /** Follows a resource's updates, or stops following them. */
  async toggleSubscribe(serverId: string, uri: string): Promise<void> {
    const k = key(serverId, uri);
    const s = this.#byServer[serverId];
    if (!s?.list || this.#toggling[k]) return;
    const on = !s.list.subscribed.includes(uri);
    this.#toggling[k] = true;
    s.error = '';
    try {
      if (on) {
        await this.#backend.subscribeResource(serverId, uri);
        if (!s.list.subscribed.includes(uri)) s.list.subscribed = [...s.list.subscribed, uri];
      } else {
        await this.#backend.unsubscribeResource(serverId, uri);
        s.list.subscribed = s.list.subscribed.filter((u) => u !== uri);
        delete this.#updates[k];
      }
    } catch (e) {
      s.error = `Could not ${on ? 'follow' : 'stop following'} ${uri}: ${errorMessage(e)}`;
    } finally {
      delete this.#toggling[k];
    }
  }

  get preview(): PreviewState | null {
    return this.#preview;
  }

  /** Opens the preview of a server's resource, reading it. */
  async open(serverId: string, uri: string, title = ''): Promise<void> {
    delete this.#updates[key(serverId, uri)];
    this.#preview = { serverId, uri, title: title || uri, preview: null, loading: true, error: '', attaching: false, updated: false };
    await this.#read();
  }

  /** Fills in a template and opens the preview of the resource it names. */
  async openTemplate(serverId: string, template: string, values: Record<string, string>, title = ''): Promise<void> {
    let uri: string;
    try {
      uri = await this.#backend.expandResourceTemplate(template, values);
    } catch (e) {
      this.#preview = { serverId, uri: template, title: title || template, preview: null, loading: false, error: errorMessage(e), attaching: false, updated: false };
      return;
    }
    await this.open(serverId, uri, title ? `${title}: ${uri}` : uri);
  }

  /**
   * Opens the preview of a block a server sent: an embedded resource or an
   * image is shown as it came; a resource link is read from its server.
   */
  async openContent(serverId: string, c: Content): Promise<void> {
    if (c.type === 'resource_link') return this.open(serverId, c.uri ?? '', c.title || c.name || c.uri);
    const n = ++this.#seq;
    this.#preview = { serverId, uri: c.uri ?? '', title: c.uri || c.mimeType || 'Image', preview: null, loading: true, error: '', content: c, attaching: false, updated: false };
    try {
      const preview = await this.#backend.previewContent(serverId, c);
      if (n === this.#seq && this.#preview) this.#preview = { ...this.#preview, preview, loading: false };
    } catch (e) {
      if (n === this.#seq && this.#preview) this.#preview = { ...this.#preview, loading: false, error: errorMessage(e) };
    }
  }

  /** Reads the open resource again (after the server said it changed). */
  async reload(): Promise<void> {
    const p = this.#preview;
    if (!p || p.content) return;
    this.#preview = { ...p, loading: true, error: '', updated: false };
    await this.#read();
  }

  async #read(): Promise<void> {
    const p = this.#preview;
    if (!p) return;
    const n = ++this.#seq;
    try {
      const preview = await this.#backend.previewResource(p.serverId, p.uri);
      if (n === this.#seq && this.#preview) this.#preview = { ...this.#preview, preview, loading: false };
    } catch (e) {
      if (n === this.#seq && this.#preview) this.#preview = { ...this.#preview, loading: false, error: errorMessage(e) };
    }
  }

  close(): void {
    this.#seq++;
    this.#preview = null;
  }

  /** Attaches the open resource to the next message and closes the preview; false when it failed (the preview says why). */
  async attach(): Promise<boolean> {
    const p = this.#preview;
    if (!p || p.attaching) return false;
    this.#preview = { ...p, attaching: true, error: '' };
    try {
      const list = p.content ? [await this.#backend.attachContent(p.serverId, p.content)] : await this.#backend.attachResource(p.serverId, p.uri);
      this.#onAttach(list);
      this.close();
      return true;
    } catch (e) {
      if (this.#preview) this.#preview = { ...this.#preview, attaching: false, error: `Could not attach: ${errorMessage(e)}` };
      return false;
    }
  }
}
