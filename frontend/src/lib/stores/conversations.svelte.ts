// ConversationsStore holds the sidebar: the conversation list grouped by
// date, and message search.
import { errorMessage, type Backend, type ConversationSummary, type SearchHit } from '../backend';

export interface DateGroup {
  /** "Pinned", "Today", "Yesterday", "Previous 7 days", "Previous 30 days", or a month ("March 2026"). */
  label: string;
  items: ConversationSummary[];
}

const MONTH = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric' });

/**
 * Groups conversations for the sidebar: the pinned ones first, then by
 * updatedAt (newest first) against now's local calendar: Today,
 * Yesterday, Previous 7 days, Previous 30 days, then one group a month.
 * Day starts are local midnights computed from the calendar, so a day of
 * 23 or 25 hours (a DST change) still splits where the user's clock does.
 */
export function groupByDate(list: ConversationSummary[], now: number = Date.now()): DateGroup[] {
  const d = new Date(now);
  const dayStart = (back: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() - back).getTime();
  const bounds: [number, string][] = [
    [dayStart(0), 'Today'],
    [dayStart(1), 'Yesterday'],
    [dayStart(7), 'Previous 7 days'],
    [dayStart(30), 'Previous 30 days'],
  ];
  const pinned: DateGroup = { label: 'Pinned', items: [] };
  const groups: DateGroup[] = [];
  const byLabel = new Map<string, DateGroup>();
  for (const c of [...list].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))) {
    if (c.pinned) {
      pinned.items.push(c);
      continue;
    }
    const t = Date.parse(c.updatedAt);
    const label = bounds.find(([start]) => t >= start)?.[1] ?? (Number.isNaN(t) ? 'Older' : MONTH.format(t));
    let g = byLabel.get(label);
    if (!g) {
      g = { label, items: [] };
      byLabel.set(label, g);
      groups.push(g);
    }
    g.items.push(c);
  }
  // Newest first, the groups come out in order: Today before Yesterday
  // before each month. A date in the future counts as Today.
  return pinned.items.length ? [pinned, ...groups] : groups;
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
  #archived = $state<ConversationSummary[]>([]);
  #showArchived = $state(false);
  #archivedError = $state('');
  #renaming = $state<string | null>(null);

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get list(): ConversationSummary[] {
    return this.#list;
  }
  get groups(): DateGroup[] {
    return groupByDate(this.#list, this.#now);
  }
  /** The conversations in the order the sidebar shows them. */
  get ordered(): ConversationSummary[] {
    return this.groups.flatMap((g) => g.items);
  }
  /** The archived conversations (loaded when the archive is shown). */
  get archived(): ConversationSummary[] {
    return this.#archived;
  }
  get showArchived(): boolean {
    return this.#showArchived;
  }
  get archivedError(): string {
    return this.#archivedError;
  }
  /** The conversation whose title is being edited in the list, if any. */
  get renaming(): string | null {
    return this.#renaming;
  }
  /** Opens the title of id for editing (null: none). */
  setRenaming(id: string | null): void {
    this.#renaming = id;
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
    return id ? (this.#list.find((c) => c.id === id) ?? this.#archived.find((c) => c.id === id)) : undefined;
  }

  /**
   * The conversation step places after id in the sidebar's order (-1: the
   * one above), wrapping around; the first (or last) when id is not in
   * the list; undefined when the list is empty.
   */
  neighbour(id: string | null, step: 1 | -1): ConversationSummary | undefined {
    const list = this.ordered;
    if (list.length === 0) return undefined;
    const i = list.findIndex((c) => c.id === id);
    if (i < 0) return step > 0 ? list[0] : list[list.length - 1];
    return list[(i + step + list.length) % list.length];
  }

  /** Shows (true) or hides the archived conversations instead of the list. */
  async setShowArchived(on: boolean): Promise<void> {
    this.#showArchived = on;
    if (on) await this.loadArchived();
  }

  async loadArchived(): Promise<void> {
    try {
      this.#archived = await this.#backend.listArchivedConversations();
      this.#archivedError = '';
    } catch (e) {
      this.#archivedError = `Could not load the archived conversations: ${errorMessage(e)}`;
    }
  }

  /** Pins (true) or unpins a conversation. */
  async pin(id: string, pinned: boolean): Promise<void> {
    await this.#backend.pinConversation(id, pinned);
    this.#patch(id, { pinned });
    const i = this.#archived.findIndex((c) => c.id === id);
    if (i >= 0) this.#archived[i] = { ...this.#archived[i], pinned };
  }

  /** Archives (true) a conversation out of the list, or brings it back. */
  async archive(id: string, archived: boolean): Promise<void> {
    await this.#backend.archiveConversation(id, archived);
    if (archived) {
      const c = this.#list.find((x) => x.id === id);
      this.#list = this.#list.filter((x) => x.id !== id);
      if (c) this.#archived = [{ ...c, archived: true }, ...this.#archived.filter((x) => x.id !== id)];
    } else {
      const c = this.#archived.find((x) => x.id === id);
      this.#archived = this.#archived.filter((x) => x.id !== id);
      if (c) this.upsert({ ...c, archived: false });
    }
  }

  async load(): Promise<void> {
    this.#loading = true;
    try {
      this.#list = await this.#backend.listConversations();
      this.#now = Date.now();
      await this.loadArchived(); // a reload may reopen an archived chat
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
    this.#archived = this.#archived.filter((c) => c.id !== id);
    this.#hits = this.#hits.filter((h) => h.conversationId !== id);
  }

  /** Adds or replaces a conversation; an archived one goes to the archive. */
  upsert(c: ConversationSummary): void {
    if (c.archived) {
      this.#list = this.#list.filter((x) => x.id !== c.id);
      const j = this.#archived.findIndex((x) => x.id === c.id);
      if (j >= 0) this.#archived[j] = c;
      else this.#archived = [c, ...this.#archived];
      return;
    }
    this.#archived = this.#archived.filter((x) => x.id !== c.id);
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
    const j = this.#archived.findIndex((c) => c.id === id);
    if (j >= 0) this.#archived[j] = { ...this.#archived[j], ...p };
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}
