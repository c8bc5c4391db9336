// ServersStore holds the MCP servers: their configs, live status and tools,
// and the actions on them. Status and tool changes arrive as events.
import {
  Events,
  errorMessage,
  type Backend,
  type FieldError,
  type InstallRequest,
  type ServerConfig,
  type ServerLogLevel,
  type ServerView,
  type Tool,
  type Unsubscribe,
} from '../backend';

export class ServersStore {
  #backend: Backend;
  #unsubs: Unsubscribe[] = [];
  #servers = $state<ServerView[]>([]);
  #loaded = $state(false);
  #error = $state('');
  /** What is being done to a server now ("Connecting…"), by id. */
  #busy = $state<Record<string, string>>({});
  /** The last failed action of a server, by id. */
  #errors = $state<Record<string, string>>({});
  #reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get servers(): ServerView[] {
    return this.#servers;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string {
    return this.#error;
  }
  busy(id: string): string {
    return this.#busy[id] ?? '';
  }
  actionError(id: string): string {
    return this.#errors[id] ?? '';
  }
  server(id: string): ServerView | undefined {
    return this.#servers.find((s) => s.config.id === id);
  }
  /** A tool by its exposed name, enabled or not. */
  toolByName(name: string): Tool | undefined {
    for (const s of this.#servers) {
      const t = s.tools.find((x) => x.name === name);
      if (t) return t;
    }
    return undefined;
  }
  /** Every enabled tool of every server, as models see them. */
  get tools(): Tool[] {
    return this.#servers.flatMap((s) => s.tools.filter((t) => t.enabled));
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.serverStatus, (st) => {
        const s = this.server(st.serverId);
        if (s) s.status = st;
        else this.#reloadSoon();
      }),
      this.#backend.on(Events.serverTools, (ev) => {
        const s = this.server(ev.serverId);
        if (s) s.tools = ev.tools;
      }),
    ];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
    clearTimeout(this.#reloadTimer);
  }

  #reloadSoon(): void {
    clearTimeout(this.#reloadTimer);
    this.#reloadTimer = setTimeout(() => void this.load(), 200);
  }

  async load(): Promise<void> {
    try {
      this.#servers = await this.#backend.listServers();
      this.#error = '';
    } catch (e) {
      this.#error = `Could not load the MCP servers: ${errorMessage(e)}`;
    } finally {
      this.#loaded = true;
    }
  }

  async #act(id: string, label: string, f: () => Promise<void>): Promise<void> {
    this.#busy[id] = label;
    delete this.#errors[id];
    try {
      await f();
    } catch (e) {
      this.#errors[id] = errorMessage(e);
    } finally {
      delete this.#busy[id];
    }
  }

  connect(id: string) {
    return this.#act(id, 'Connecting…', () => this.#backend.connectServer(id));
  }
  disconnect(id: string) {
    return this.#act(id, 'Disconnecting…', () => this.#backend.disconnectServer(id));
  }
  restart(id: string) {
    return this.#act(id, 'Restarting…', () => this.#backend.restartServer(id));
  }
  /** Runs the browser sign-in; it waits until the user finished or cancelled. */
  authorize(id: string) {
    return this.#act(id, 'Waiting for sign-in in your browser…', () => this.#backend.authorizeServer(id));
  }
  async cancelAuthorize(id: string): Promise<void> {
    try {
      await this.#backend.cancelAuthorize(id);
    } catch (e) {
      this.#errors[id] = errorMessage(e);
    }
  }
  signOut(id: string) {
    return this.#act(id, 'Signing out…', () => this.#backend.signOutServer(id));
  }

  /** Switches a tool on or off at once; undone if the backend refuses. */
  async setToolEnabled(serverId: string, tool: string, enabled: boolean): Promise<void> {
    const t = this.server(serverId)?.tools.find((x) => x.originalName === tool);
    if (t) t.enabled = enabled;
    try {
      await this.#backend.setToolEnabled(serverId, tool, enabled);
      delete this.#errors[serverId];
    } catch (e) {
      if (t) t.enabled = !enabled;
      this.#errors[serverId] = errorMessage(e);
    }
  }

  validate(cfg: ServerConfig): Promise<FieldError[]> {
    return this.#backend.validateServer(cfg);
  }

  /** Validates and saves; returns the field errors (none when saved). Throws on other failures. */
  async save(cfg: ServerConfig): Promise<FieldError[]> {
    const errors = await this.#backend.validateServer(cfg);
    if (errors.length) return errors;
    const view = await this.#backend.saveServer(cfg);
    const i = this.#servers.findIndex((s) => s.config.id === view.config.id);
    if (i >= 0) this.#servers[i] = view;
    else this.#servers.push(view);
    return [];
  }

  /** Sets the MCP log level a server is asked for ('' = its default). */
  setLogLevel(id: string, level: ServerLogLevel | '') {
    return this.#act(id, 'Setting the log level…', async () => {
      const cfg = await this.#backend.setServerLogLevel(id, level);
      const s = this.server(id);
      if (s) s.config = cfg;
    });
  }

  /** Adds a view Go returned, or replaces the one of its id. */
  #put(view: ServerView): void {
    const i = this.#servers.findIndex((s) => s.config.id === view.config.id);
    if (i >= 0) this.#servers[i] = view;
    else this.#servers.push(view);
  }

  /** Installs a server into the data folder and adds it (it connects by itself); rejects with Go's message. */
  async install(req: InstallRequest): Promise<ServerView> {
    const view = await this.#backend.installServer(req);
    this.#put(view);
    return view;
  }

  /**
   * Installs another version of an installed server: version ('' = the
   * latest) or a newer .tgz/.mcpb file. Resolves with the version installed
   * now, or '' when it failed (actionError says why; the old one stays).
   */
  async update(id: string, version = '', file = ''): Promise<string> {
    let got = '';
    await this.#act(id, file ? 'Installing the file…' : version ? `Installing ${version}…` : 'Updating…', async () => {
      const view = await this.#backend.updateServer(id, version, file);
      this.#put(view);
      got = view.config.install?.version ?? '';
    });
    return got;
  }

  /** The system's file dialog for a newer .tgz or .mcpb of server id; '' when cancelled (or failed: actionError says why). */
  async pickPackageFile(id: string): Promise<string> {
    try {
      return await this.#backend.pickPackageFile();
    } catch (e) {
      this.#errors[id] = errorMessage(e);
      return '';
    }
  }

  /** Pins an installed server to its version (Update then needs a version named), or unpins it. */
  pin(id: string, pinned: boolean) {
    return this.#act(id, pinned ? 'Pinning…' : 'Unpinning…', async () => this.#put(await this.#backend.pinServer(id, pinned)));
  }

  async remove(id: string): Promise<void> {
    await this.#backend.deleteServer(id);
    this.#servers = this.#servers.filter((s) => s.config.id !== id);
  }
}
