// ConversationsStore holds the sidebar: the conversation list grouped by
// date, and message search.
import { errorMessage, type Backend, type ConversationSummary, type SearchHit } from '../backend';

export interface DateGroup {
  label: 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older';
  items: ConversationSummary[];
}

const DAY = 24 * 60 * 60 * 1000;

/** Groups conversations by updatedAt (newest first) relative to now's local day. */
export function groupByDate(list: ConversationSummary[], now: number = Date.now()): DateGroup[] {
  const d = new Date(now);
  const today = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const groups: DateGroup[] = [
    { label: 'Today', items: [] },
    { label: 'Yesterday', items: [] },
    { label: 'Previous 7 days', items: [] },
    { label: 'Older', items: [] },
  ];
  for (const c of [...list].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))) {
    const t = Date.parse(c.updatedAt);
    const g = t >= today ? 0 : t >= today - DAY ? 1 : t >= today - 7 * DAY ? 2 : 3;
    groups[g].items.push(c);
  }
  return groups.filter((g) => g.items.length > 0);
}

export class ConversationsStore {
  #backend: Backend;
  #list = $state<ConversationSummary[]>([]);
  #loading = $state(false);
  #error = $state('');
  #query = $state('');
  #hits = $state<SearchHit[]>([]);
  #searching = $state(false);
  #searchError = $state('');
  #timer: ReturnType<typeof setTimeout> | undefined;
  #searchSeq = 0;
  #now = $state(Date.now());

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get list(): ConversationSummary[] {
    return this.#list;
  }
  get groups(): DateGroup[] {
    return groupByDate(this.#list, this.#now);
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
  get hits(): SearchHit[] {
    return this.#hits;
  }
  get searching(): boolean {
    return this.#searching;
  }
  get searchError(): string {
    return this.#searchError;
  }

  byId(id: string | null): ConversationSummary | undefined {
    return id ? this.#list.find((c) => c.id === id) : undefined;
  }

  async load(): Promise<void> {
    this.#loading = true;
    try {
      this.#list = await this.#backend.listConversations();
      this.#now = Date.now();
      this.#error = '';
    } catch (e) {
      this.#error = `Could not load the conversations: ${errorMessage(e)}`;
    } finally {
      this.#loading = false;
    }
  }

  /** Sets the search text; the search runs after a short pause in typing. */
  setQuery(q: string, delayMs = 250): void {
    this.#query = q;
    clearTimeout(this.#timer);
    if (!q.trim()) {
      this.#hits = [];
      this.#searching = false;
      this.#searchError = '';
      return;
    }
    this.#searching = true;
    this.#timer = setTimeout(() => void this.search(), delayMs);
  }

  async search(): Promise<void> {
    const q = this.#query.trim();
    const seq = ++this.#searchSeq;
    if (!q) return;
    this.#searching = true;
    try {
      const hits = await this.#backend.searchMessages(q);
      if (seq !== this.#searchSeq) return;
      this.#hits = hits;
      this.#searchError = '';
    } catch (e) {
      if (seq !== this.#searchSeq) return;
      this.#searchError = `Search failed: ${errorMessage(e)}`;
    } finally {
      if (seq === this.#searchSeq) this.#searching = false;
    }
  }

  async create(providerId: string, model: string): Promise<ConversationSummary> {
    const c = await this.#backend.newConversation(providerId, model);
    this.upsert(c);
    return c;
  }

  async rename(id: string, title: string): Promise<void> {
    const t = title.trim();
    if (!t) return;
    await this.#backend.renameConversation(id, t);
    this.#patch(id, { title: t });
  }

  async remove(id: string): Promise<void> {
    await this.#backend.deleteConversation(id);
    this.#list = this.#list.filter((c) => c.id !== id);
    this.#hits = this.#hits.filter((h) => h.conversationId !== id);
  }

  upsert(c: ConversationSummary): void {
    const i = this.#list.findIndex((x) => x.id === c.id);
    if (i >= 0) this.#list[i] = c;
    else this.#list = [c, ...this.#list];
  }

  /** Marks a conversation active now (it moves to the top of Today). */
  touch(id: string): void {
    this.#now = Date.now();
    this.#patch(id, { updatedAt: new Date(this.#now).toISOString() });
  }

  /** Applies a local change after the backend accepted it. */
  patch(id: string, p: Partial<ConversationSummary>): void {
    this.#patch(id, p);
  }

  #patch(id: string, p: Partial<ConversationSummary>): void {
    const i = this.#list.findIndex((c) => c.id === id);
    if (i >= 0) this.#list[i] = { ...this.#list[i], ...p };
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}
