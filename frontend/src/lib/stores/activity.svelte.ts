// ActivityStore is the Tool activity view's state: the filter controls,
// the pages of calls loaded so far (newest first, keyset pages from Go),
// the servers and tools to filter by, and the call whose detail is open.
// A reply that arrives after a newer filter was asked for is dropped.
import { errorMessage, type ActivityFacets, type ActivityRow, type Backend, type ToolCallRecord } from '../backend';
import { noControls, toFilter, type ActivityControls } from '../components/activity/format';

/**
 * Rows a page asks for: a screenful and more. Fifty, not a hundred, halves
 * what a filter change sends, renders and lays out (make bench,
 * activity_ui_filter_p95_ms).
 */
export const activityPageSize = 50;
/** The most rows "Load more" gathers; past it, narrow the filter or export. */
export const activityMaxRows = 5000;

export class ActivityStore {
  #backend: Backend;
  #debounceMs: number;
  #controls = $state<ActivityControls>({ ...noControls });
  #rows = $state<ActivityRow[]>([]);
  #next = $state('');
  #loading = $state(false);
  #loadingMore = $state(false);
  #loaded = $state(false);
  #error = $state('');
  #facets = $state<ActivityFacets | null>(null);
  #selected = $state<string | null>(null);
  #detail = $state<ToolCallRecord | null>(null);
  #detailError = $state('');
  #exportNote = $state('');
  #exporting = $state(false);
  #token = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(backend: Backend, opts: { debounceMs?: number } = {}) {
    this.#backend = backend;
    this.#debounceMs = opts.debounceMs ?? 250;
  }

  get controls(): ActivityControls {
    return this.#controls;
  }
  get rows(): ActivityRow[] {
    return this.#rows;
  }
  get hasMore(): boolean {
    return this.#next !== '' && this.#rows.length < activityMaxRows;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get loadingMore(): boolean {
    return this.#loadingMore;
  }
  /** True once a first page (or its error) arrived. */
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string {
    return this.#error;
  }
  get facets(): ActivityFacets | null {
    return this.#facets;
  }
  get selected(): string | null {
    return this.#selected;
  }
  get detail(): ToolCallRecord | null {
    return this.#detail;
  }
  get detailError(): string {
    return this.#detailError;
  }
  get exportNote(): string {
    return this.#exportNote;
  }
  get exporting(): boolean {
    return this.#exporting;
  }

  /** Loads the facets and the first page again (the view was opened). */
  async refresh(): Promise<void> {
    void this.#loadFacets();
    await this.#reload();
  }

  /** Changes filter controls and reloads at once (the query waits: setQuery). */
  set(patch: Partial<Omit<ActivityControls, 'query'>>): void {
    this.#controls = { ...this.#controls, ...patch };
    clearTimeout(this.#timer);
    void this.#reload();
  }

  /** Changes the search text; the reload waits until typing pauses. */
  setQuery(text: string): void {
    this.#controls = { ...this.#controls, query: text };
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#reload(), this.#debounceMs);
  }

  /** Clears every filter. */
  clear(): void {
    this.#controls = { ...noControls };
    clearTimeout(this.#timer);
    void this.#reload();
  }

  async #loadFacets(): Promise<void> {
    try {
      this.#facets = await this.#backend.activityFacets();
    } catch {
      // The filters fall back to what the rows show; the list says if the store fails.
    }
  }

  async #reload(): Promise<void> {
    const token = ++this.#token;
    this.#loading = true;
    try {
      const page = await this.#backend.listActivity({ ...toFilter(this.#controls), limit: activityPageSize });
      if (token !== this.#token) return;
      this.#rows = page.rows;
      this.#next = page.next ?? '';
      this.#error = '';
    } catch (e) {
      if (token !== this.#token) return;
      this.#rows = [];
      this.#next = '';
      this.#error = `Could not read the tool activity: ${errorMessage(e)}`;
    } finally {
      if (token === this.#token) {
        this.#loading = false;
        this.#loaded = true;
      }
    }
  }

  /** Loads the next (older) page. */
  async loadMore(): Promise<void> {
    if (!this.hasMore || this.#loadingMore || this.#loading) return;
    const token = this.#token;
    this.#loadingMore = true;
    try {
      const page = await this.#backend.listActivity({ ...toFilter(this.#controls), limit: activityPageSize, cursor: this.#next });
      if (token !== this.#token) return;
      const have = new Set(this.#rows.map((r) => r.id));
      this.#rows = [...this.#rows, ...page.rows.filter((r) => !have.has(r.id))];
      this.#next = page.next ?? '';
    } catch (e) {
      if (token === this.#token) this.#error = `Could not read more of the tool activity: ${errorMessage(e)}`;
    } finally {
      this.#loadingMore = false;
    }
  }

  /** Opens a call's detail (its whole record); null closes it. */
  async select(id: string | null): Promise<void> {
    this.#selected = id;
    this.#detail = null;
    this.#detailError = '';
    if (!id) return;
    try {
      const rec = await this.#backend.getActivityCall(id);
      if (this.#selected === id) this.#detail = rec;
    } catch (e) {
      if (this.#selected === id) this.#detailError = `Could not read this call: ${errorMessage(e)}`;
    }
  }

  /** Exports the calls the filter keeps to a file the user picks. */
  async export(format: 'jsonl' | 'csv'): Promise<void> {
    this.#exporting = true;
    this.#exportNote = '';
    try {
      const r = await this.#backend.saveActivityExport(toFilter(this.#controls), format);
      if (r.path) this.#exportNote = `Exported ${r.calls} ${r.calls === 1 ? 'call' : 'calls'} to ${r.path}`;
    } catch (e) {
      this.#exportNote = `Could not export: ${errorMessage(e)}`;
    } finally {
      this.#exporting = false;
    }
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#token++;
  }
}

const stores = new WeakMap<Backend, ActivityStore>();

/** The activity store of a backend: one per window, so the filter survives switching tabs. */
export function activityStoreFor(backend: Backend): ActivityStore {
  let s = stores.get(backend);
  if (!s) {
    s = new ActivityStore(backend);
    stores.set(backend, s);
  }
  return s;
}
