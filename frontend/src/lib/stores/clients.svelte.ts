// ClientsStore holds the connected apps (external MCP clients that may use
// the conversations the user shares with them): the apps, the open app's
// grants and allowed tools, the HTTP endpoint, and the audit of their
// requests. The backend owns all of it; every change goes through it and is
// read back. A clients:activity event (a request was audited) refreshes
// the audit's newest page and the apps' "last seen", coalesced.
import {
  Events,
  errorMessage,
  type AuditEntry,
  type Backend,
  type ClientAccess,
  type ClientApp,
  type ClientGrant,
  type ClientToolRef,
  type EndpointStatus,
  type Unsubscribe,
} from '../backend';

/** How many audit entries a page holds. */
export const AUDIT_PAGE = 100;
/** The most audit entries kept in the window ("Show older" adds pages up to it). */
export const AUDIT_CAP = 2000;

/** The audit's filters, as the view shows them. */
export interface AuditView {
  /** A client's ID; '' = every client. */
  client: string;
  result: 'all' | 'allowed' | 'denied';
  /** An operation as recorded ("tools/call read_conversation"); '' = every one. */
  operation: string;
  /** Text the operation or the reason contains. */
  query: string;
}

/** The expiries "Share with…" offers, in milliseconds; 0 = never. */
export const EXPIRIES: { label: string; ms: number }[] = [
  { label: 'Never', ms: 0 },
  { label: '1 day', ms: 86_400_000 },
  { label: '7 days', ms: 7 * 86_400_000 },
  { label: '30 days', ms: 30 * 86_400_000 },
];

/** True when a time Go sent is set (Go's zero time means "never"). */
export function timeSet(t: string | undefined | null): boolean {
  return !!t && !t.startsWith('0001-');
}

/** What an access is called in the UI. */
export const ACCESS_TEXT: Record<ClientAccess, string> = { read: 'Read', write: 'Read and write' };

const emptyFilter = (): AuditView => ({ client: '', result: 'all', operation: '', query: '' });

export class ClientsStore {
  #backend: Backend;
  #unsubs: Unsubscribe[] = [];
  #clients = $state.raw<ClientApp[]>([]);
  #loaded = $state(false);
  #error = $state('');
  /** The app whose details are open ('' = none). */
  #openId = $state('');
  #grants = $state.raw<ClientGrant[]>([]);
  #tools = $state.raw<ClientToolRef[]>([]);
  #detailError = $state('');
  #endpoint = $state.raw<EndpointStatus | null>(null);
  #endpointBusy = $state(false);
  #endpointError = $state('');
  #audit = $state.raw<AuditEntry[]>([]);
  #auditFilter = $state<AuditView>(emptyFilter());
  #auditMore = $state(false);
  #auditLoading = $state(false);
  #auditError = $state('');
  /** Bumped by each audit load, so an older answer does not overwrite a newer one. */
  #auditGen = 0;
  #activityTimer: ReturnType<typeof setTimeout> | undefined;
  #activityDelay: number;
  /** True while the view shows: activity refreshes the audit only then. */
  #watching = false;

  constructor(backend: Backend, opts: { activityDelayMs?: number } = {}) {
    this.#backend = backend;
    this.#activityDelay = opts.activityDelayMs ?? 300;
  }

  get clients(): ClientApp[] {
    return this.#clients;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string {
    return this.#error;
  }
  client(id: string): ClientApp | undefined {
    return this.#clients.find((c) => c.id === id);
  }
  /** The app whose details are open, if any. */
  get openId(): string {
    return this.#openId;
  }
  get grants(): ClientGrant[] {
    return this.#grants;
  }
  get tools(): ClientToolRef[] {
    return this.#tools;
  }
  get detailError(): string {
    return this.#detailError;
  }
  get endpoint(): EndpointStatus | null {
    return this.#endpoint;
  }
  get endpointBusy(): boolean {
    return this.#endpointBusy;
  }
  get endpointError(): string {
    return this.#endpointError;
  }
  get audit(): AuditEntry[] {
    return this.#audit;
  }
  get auditFilter(): AuditView {
    return this.#auditFilter;
  }
  /** True when older entries may exist ("Show older"). */
  get auditMore(): boolean {
    return this.#auditMore;
  }
  get auditLoading(): boolean {
    return this.#auditLoading;
  }
  get auditError(): string {
    return this.#auditError;
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [this.#backend.on(Events.clientsActivity, () => this.#activity())];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
    this.leave();
  }

  /** Loads everything the Connected apps view shows, and follows activity while it shows. */
  async enter(): Promise<void> {
    this.#watching = true;
    // Requests an app's own `switchboard mcp serve` records come as activity too.
    this.#backend.watchClientActivity(true).catch(() => {});
    await Promise.all([this.load(), this.loadEndpoint(), this.loadAudit()]);
    if (this.#openId) await this.#loadDetails(this.#openId);
  }

  /** The view closed: activity no longer reloads anything. */
  leave(): void {
    if (this.#watching) this.#backend.watchClientActivity(false).catch(() => {});
    this.#watching = false;
    clearTimeout(this.#activityTimer);
    this.#activityTimer = undefined;
  }

  async load(): Promise<void> {
    try {
      this.#clients = await this.#backend.listClients();
      this.#error = '';
    } catch (e) {
      this.#error = `Could not load the connected apps: ${errorMessage(e)}`;
    } finally {
      this.#loaded = true;
    }
  }

  /** Registers an app; resolves with its token (shown once). Rejects with why not. */
  async add(name: string, canStart: boolean): Promise<{ client: ClientApp; token: string }> {
    const added = await this.#backend.addClient(name.trim(), canStart);
    await this.load();
    return added;
  }

  /** A new token for an app; its old one stops working at once. Rejects with why not. */
  async rotate(id: string): Promise<string> {
    const token = await this.#backend.rotateClientToken(id);
    await this.load();
    return token;
  }

  /** Cuts an app off: its token is refused from now on, its open sessions end. */
  async revoke(id: string): Promise<void> {
    await this.#act(() => this.#backend.revokeClient(id));
  }

  /** Forgets an app, its grants and tools (the audit keeps its requests). */
  async remove(id: string): Promise<void> {
    await this.#act(() => this.#backend.removeClient(id));
    if (this.#openId === id) this.#openId = '';
  }

  async setCanStart(id: string, on: boolean): Promise<void> {
    await this.#act(() => this.#backend.setClientCanStart(id, on));
  }

  /** Opens an app's details (its grants and allowed tools), or closes them when open. */
  async toggle(id: string): Promise<void> {
    if (this.#openId === id) {
      this.#openId = '';
      return;
    }
    this.#openId = id;
    this.#grants = [];
    this.#tools = [];
    await this.#loadDetails(id);
  }

  async #loadDetails(id: string): Promise<void> {
    try {
      const [grants, tools] = await Promise.all([this.#backend.clientGrants(id), this.#backend.clientTools(id)]);
      if (this.#openId !== id) return;
      this.#grants = grants;
      this.#tools = tools;
      this.#detailError = '';
    } catch (e) {
      if (this.#openId === id) this.#detailError = `Could not load what this app may use: ${errorMessage(e)}`;
    }
  }

  /** Shares a conversation with an app; expiresInMs 0 = never. Rejects with why not. */
  async grant(clientId: string, conversationId: string, access: ClientAccess, expiresInMs: number): Promise<void> {
    await this.#backend.grantClient(clientId, conversationId, access, expiresInMs);
    await this.#afterGrants(clientId);
  }

  /** Stops sharing a conversation with an app; its open sessions lose it at once. Rejects with why not. */
  async ungrant(clientId: string, conversationId: string): Promise<void> {
    await this.#backend.ungrantClient(clientId, conversationId);
    await this.#afterGrants(clientId);
  }

  /** Who may use a conversation ("Share with…"). */
  grantsFor(conversationId: string): Promise<ClientGrant[]> {
    return this.#backend.conversationGrants(conversationId);
  }

  async #afterGrants(clientId: string): Promise<void> {
    await this.load();
    if (this.#openId === clientId) await this.#loadDetails(clientId);
  }

  /** Lets an app's turns run a tool without asking. */
  async allowTool(clientId: string, serverId: string, tool: string): Promise<void> {
    await this.#act(() => this.#backend.allowClientTool(clientId, serverId, tool));
  }

  async disallowTool(clientId: string, serverId: string, tool: string): Promise<void> {
    await this.#act(() => this.#backend.disallowClientTool(clientId, serverId, tool));
  }

  /** Runs an action on an app, then reads the apps (and the open one's details) back; an error shows in the details. */
  async #act(f: () => Promise<void>): Promise<void> {
    try {
      await f();
      this.#detailError = '';
    } catch (e) {
      this.#detailError = errorMessage(e);
    }
    await this.load();
    if (this.#openId) await this.#loadDetails(this.#openId);
  }

  async loadEndpoint(): Promise<void> {
    try {
      this.#endpoint = await this.#backend.clientEndpoint();
    } catch (e) {
      this.#endpointError = `Could not read the HTTP endpoint's state: ${errorMessage(e)}`;
    }
  }

  /** Turns the HTTP endpoint on (port 0 = a free one) or off; the answer says where it listens or why it could not. */
  async setEndpoint(on: boolean, port: number): Promise<void> {
    this.#endpointBusy = true;
    try {
      this.#endpoint = await this.#backend.setClientEndpoint(on, port);
      this.#endpointError = '';
    } catch (e) {
      this.#endpointError = errorMessage(e);
      await this.loadEndpoint();
    } finally {
      this.#endpointBusy = false;
    }
  }

  /** Changes the audit's filters and loads its newest page under them. */
  async filterAudit(f: Partial<AuditView>): Promise<void> {
    this.#auditFilter = { ...this.#auditFilter, ...f };
    await this.loadAudit();
  }

  /** Loads the newest page of the audit under the filters. */
  async loadAudit(): Promise<void> {
    const gen = ++this.#auditGen;
    this.#auditLoading = true;
    try {
      const page = await this.#backend.clientAudit(this.#query(0));
      if (gen !== this.#auditGen) return;
      this.#audit = page;
      this.#auditMore = page.length >= AUDIT_PAGE;
      this.#auditError = '';
    } catch (e) {
      if (gen === this.#auditGen) this.#auditError = `Could not load the activity: ${errorMessage(e)}`;
    } finally {
      if (gen === this.#auditGen) this.#auditLoading = false;
    }
  }

  /** Adds the page older than the oldest shown. */
  async loadOlder(): Promise<void> {
    const last = this.#audit[this.#audit.length - 1];
    if (!last || this.#auditLoading) return;
    const gen = ++this.#auditGen;
    this.#auditLoading = true;
    try {
      const page = await this.#backend.clientAudit(this.#query(last.id));
      if (gen !== this.#auditGen) return;
      this.#audit = [...this.#audit, ...page].slice(0, AUDIT_CAP);
      this.#auditMore = page.length >= AUDIT_PAGE && this.#audit.length < AUDIT_CAP;
      this.#auditError = '';
    } catch (e) {
      if (gen === this.#auditGen) this.#auditError = `Could not load older activity: ${errorMessage(e)}`;
    } finally {
      if (gen === this.#auditGen) this.#auditLoading = false;
    }
  }

  /** Puts the entries newer than the newest shown on top (after a clients:activity). */
  async #loadNewer(): Promise<void> {
    const top = this.#audit[0]?.id ?? 0;
    const gen = this.#auditGen;
    try {
      const page = await this.#backend.clientAudit(this.#query(0));
      if (gen !== this.#auditGen) return;
      const fresh = page.filter((e) => e.id > top);
      if (fresh.length === 0) return;
      // More than a page came in: the newest page replaces the list (older ones are one click away).
      this.#audit = fresh.length >= page.length && top > 0 ? page : [...fresh, ...this.#audit].slice(0, AUDIT_CAP);
      if (fresh.length >= page.length && top > 0) this.#auditMore = true;
    } catch {
      // The next activity, or a filter change, tries again.
    }
  }

  #query(before: number) {
    const f = this.#auditFilter;
    return {
      client: f.client,
      operation: f.operation,
      conversationId: '',
      allowed: f.result === 'all' ? undefined : f.result === 'allowed',
      query: f.query.trim(),
      before,
      limit: AUDIT_PAGE,
    };
  }

  /** A request was audited: refresh what shows, once per burst. */
  #activity(): void {
    if (!this.#watching || this.#activityTimer !== undefined) return;
    this.#activityTimer = setTimeout(() => {
      this.#activityTimer = undefined;
      void this.#loadNewer();
      void this.load();
      if (this.#openId) void this.#loadDetails(this.#openId);
    }, this.#activityDelay);
  }
}
