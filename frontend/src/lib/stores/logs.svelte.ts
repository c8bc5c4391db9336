// LogStore is the log of one source (the app, or one MCP server): its recent
// lines and a live tail. Appended lines are batched once per animation frame
// and the list is capped, so a flood of stderr never freezes the UI.
import { Events, errorMessage, type Backend, type LogLevel, type LogLine, type Unsubscribe } from '../backend';
import { FrameBatch, type Schedule } from '../frame';

export const LOG_CAP = 5000;
export const LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug'];

export interface LogOptions {
  cap?: number;
  schedule?: Schedule;
}

export class LogStore {
  readonly source: string;
  #backend: Backend;
  #cap: number;
  #batch: FrameBatch<LogLine>;
  #unsub: Unsubscribe | null = null;
  #lastSeq = 0;
  /** Lines that arrived while paused, shown on resume. */
  #held: LogLine[] = [];

  #lines = $state.raw<LogLine[]>([]);
  #paused = $state(false);
  #heldCount = $state(0);
  #skipped = $state(0);
  #loading = $state(false);
  #error = $state('');
  #query = $state('');
  #levels = $state<Record<LogLevel, boolean>>({ error: true, warn: true, info: true, debug: true });

  #visible = $derived.by(() => {
    const q = this.#query.trim().toLowerCase();
    const lv = this.#levels;
    if (!q && LEVELS.every((l) => lv[l])) return this.#lines;
    return this.#lines.filter((l) => lv[l.level] && (!q || l.text.toLowerCase().includes(q)));
  });

  /** source is 'app' or a server id. */
  constructor(backend: Backend, source: string, opts: LogOptions = {}) {
    this.#backend = backend;
    this.source = source;
    this.#cap = opts.cap ?? LOG_CAP;
    this.#batch = new FrameBatch((lines) => this.#append(lines), opts.schedule);
  }

  get lines(): LogLine[] {
    return this.#lines;
  }
  /** The lines that pass the text and level filters. */
  get visible(): LogLine[] {
    return this.#visible;
  }
  get paused(): boolean {
    return this.#paused;
  }
  /** Lines the backend could not send in a flood. */
  get skipped(): number {
    return this.#skipped;
  }
  /** Lines waiting while paused. */
  get held(): number {
    return this.#heldCount;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get error(): string {
    return this.#error;
  }
  get query(): string {
    return this.#query;
  }
  get levels(): Record<LogLevel, boolean> {
    return this.#levels;
  }

  /** Subscribes to the live tail, then loads the recent lines. */
  async start(): Promise<void> {
    if (!this.#unsub) {
      this.#unsub = this.#backend.on(Events.logAppend, (ev) => {
        if (ev.source !== this.source) return;
        if (ev.skipped) this.#skipped += ev.skipped;
        this.#batch.push(...ev.lines);
      });
    }
    this.#loading = true;
    try {
      const lines =
        this.source === 'app' ? await this.#backend.appLogs(0, this.#cap) : await this.#backend.serverLogs(this.source, 0, this.#cap);
      this.#append(lines);
      this.#error = '';
    } catch (e) {
      this.#error = `Could not load the log: ${errorMessage(e)}`;
    } finally {
      this.#loading = false;
    }
  }

  dispose(): void {
    this.#unsub?.();
    this.#unsub = null;
    this.#batch.clear();
  }

  /** Applies lines waiting for the next frame now. */
  flush(): void {
    this.#batch.flush();
  }

  #append(lines: LogLine[]): void {
    // Lines come in seq order; drop any already seen (load and tail overlap).
    const fresh = lines.filter((l) => l.seq > this.#lastSeq);
    if (fresh.length === 0) return;
    this.#lastSeq = fresh[fresh.length - 1].seq;
    if (this.#paused) {
      this.#held = capped(this.#held.concat(fresh), this.#cap);
      this.#heldCount = this.#held.length;
      return;
    }
    this.#lines = capped(this.#lines.concat(fresh), this.#cap);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    if (this.#held.length) this.#lines = capped(this.#lines.concat(this.#held), this.#cap);
    this.#held = [];
    this.#heldCount = 0;
  }

  setQuery(q: string): void {
    this.#query = q;
  }

  toggleLevel(level: LogLevel): void {
    this.#levels[level] = !this.#levels[level];
  }

  /** The visible lines as text, for the clipboard. */
  text(): string {
    return this.#visible.map((l) => `${new Date(l.time).toISOString()} ${l.level.toUpperCase().padEnd(5)} ${l.text}`).join('\n');
  }

  /** Empties the view (the backend keeps its lines). */
  clear(): void {
    this.#lines = [];
    this.#held = [];
    this.#heldCount = 0;
  }
}

function capped<T>(a: T[], cap: number): T[] {
  return a.length > cap ? a.slice(a.length - cap) : a;
}
