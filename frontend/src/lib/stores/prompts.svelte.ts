// PromptsStore holds the prompts of the connected MCP servers, for the
// composer's "/" picker and the Tools panel: loaded when first asked for,
// again when a server says they changed or reconnects. A prompt asked for
// from the Tools panel ("Use in chat") waits in `requested` for the
// picker to open its form.
import { Events, errorMessage, type Backend, type Prompt, type PromptUse, type ServerView, type Unsubscribe } from '../backend';

/** A prompt with the server it comes from. */
export interface PromptEntry {
  serverId: string;
  serverName: string;
  prompt: Prompt;
}

interface ServerPrompts {
  prompts: Prompt[];
  loading: boolean;
  error: string;
  /** The session listed (its connectedAt). */
  session?: string;
}

/** Whether a server can be asked for prompts now. */
export const offersPrompts = (s: ServerView) => s.status.state === 'connected' && !!s.status.offers?.prompts;

export class PromptsStore {
  #backend: Backend;
  #servers: () => ServerView[];
  #unsubs: Unsubscribe[] = [];
  #byServer = $state<Record<string, ServerPrompts>>({});
  #requested = $state<PromptEntry | null>(null);
  /** Servers whose prompts the Tools panel shows (kept across tabs). */
  #expanded = $state<Record<string, boolean>>({});

  /** servers returns the configured servers, in order (the servers store's). */
  constructor(backend: Backend, servers: () => ServerView[]) {
    this.#backend = backend;
    this.#servers = servers;
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.promptsChanged, (c) => {
        if (this.#byServer[c.serverId]) void this.load(c.serverId);
      }),
      this.#backend.on(Events.serverStatus, (st) => {
        // A new session may offer other prompts: asked again when next needed.
        const cur = this.#byServer[st.serverId];
        if (!cur || st.state === 'degraded' || (st.state === 'connected' && st.connectedAt === cur.session)) return;
        delete this.#byServer[st.serverId];
      }),
    ];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
  }

  /** Whether the Tools panel shows a server's prompts. */
  expanded(serverId: string): boolean {
    return this.#expanded[serverId] ?? false;
  }
  /** Shows or hides a server's prompts, listing them when first shown. */
  setExpanded(serverId: string, on: boolean): void {
    this.#expanded[serverId] = on;
    if (on && !this.#byServer[serverId]) void this.load(serverId);
  }

  /** A server's prompts, once asked for. */
  of(serverId: string): ServerPrompts | undefined {
    return this.#byServer[serverId];
  }

  /** Every loaded prompt of the servers that offer prompts now, in server order. */
  get entries(): PromptEntry[] {
    const out: PromptEntry[] = [];
    for (const s of this.#servers()) {
      if (!offersPrompts(s)) continue;
      for (const prompt of this.#byServer[s.config.id]?.prompts ?? []) {
        out.push({ serverId: s.config.id, serverName: s.config.name || s.config.id, prompt });
      }
    }
    return out;
  }

  /** True while some server's prompts are being listed. */
  get loading(): boolean {
    return Object.values(this.#byServer).some((p) => p.loading);
  }

  /** The servers whose prompts could not be listed, with why. */
  get errors(): { serverName: string; error: string }[] {
    return this.#servers()
      .filter((s) => offersPrompts(s) && this.#byServer[s.config.id]?.error)
      .map((s) => ({ serverName: s.config.name || s.config.id, error: this.#byServer[s.config.id].error }));
  }

  /** True when no connected server offers prompts. */
  get none(): boolean {
    return !this.#servers().some(offersPrompts);
  }

  /** Lists the prompts of every server that offers them and has not been asked yet. */
  async loadAll(): Promise<void> {
    await Promise.all(
      this.#servers()
        .filter((s) => offersPrompts(s) && !this.#byServer[s.config.id])
        .map((s) => this.load(s.config.id)),
    );
  }

  async load(serverId: string): Promise<void> {
    const cur = this.#byServer[serverId];
    const session = this.#servers().find((s) => s.config.id === serverId)?.status.connectedAt;
    this.#byServer[serverId] = { prompts: cur?.prompts ?? [], loading: true, error: '', session };
    try {
      const l = await this.#backend.listPrompts(serverId);
      this.#byServer[serverId] = { prompts: l.prompts, loading: false, error: '', session };
    } catch (e) {
      this.#byServer[serverId] = { prompts: [], loading: false, error: errorMessage(e), session };
    }
  }

  /** Fills in a prompt (see Backend.usePrompt). */
  use(serverId: string, name: string, args: Record<string, string>): Promise<PromptUse> {
    return this.#backend.usePrompt(serverId, name, args);
  }

  /** A prompt the Tools panel asked to use; the composer's picker takes it. */
  get requested(): PromptEntry | null {
    return this.#requested;
  }
  request(e: PromptEntry): void {
    this.#requested = e;
  }
  /** The picker took the request. */
  take(): PromptEntry | null {
    const e = this.#requested;
    this.#requested = null;
    return e;
  }
}

/**
 * The entries whose prompt or server name contains every word of query
 * (case-insensitive), those whose name starts with the query first.
 */
export function filterPrompts(entries: PromptEntry[], query: string): PromptEntry[] {
  const q = query.trim().toLowerCase();
  if (!q) return entries;
  const words = q.split(/\s+/);
  const hay = (e: PromptEntry) => `${e.prompt.name} ${e.prompt.title ?? ''} ${e.serverName} ${e.serverId}`.toLowerCase();
  const hits = entries.filter((e) => words.every((w) => hay(e).includes(w)));
  const starts = (e: PromptEntry) => (e.prompt.name.toLowerCase().startsWith(q) || (e.prompt.title ?? '').toLowerCase().startsWith(q) ? 0 : 1);
  return hits.map((e, i) => [e, i] as const).sort((a, b) => starts(a[0]) - starts(b[0]) || a[1] - b[1]).map(([e]) => e);
}
