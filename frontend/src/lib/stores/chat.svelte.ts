// ChatStore holds the open conversation: its messages (loaded a page at a
// time), the tool calls they made, and the state of running turns.
//
// Stream deltas are collected and applied once per animation frame; any
// other chat event first applies the deltas before it, so the order the
// backend sent is the order the UI sees. After a turn ends the latest page
// and the tool-call records are fetched again and merged, so the UI ends up
// as stored (tool results in full: the events carry only their start).
import { rememberConversation } from './session';
import {
  Events,
  errorMessage,
  type Backend,
  type ChatDeltaEvent,
  type ChatDoneEvent,
  type ChatStatusEvent,
  type Attachment,
  type ExportFormat,
  type Message,
  type ToolSelection,
  type Unsubscribe,
} from '../backend';
import type { PromptResult } from '../backend';
import { afterTask, FrameBatch, type Schedule } from '../frame';
import { mergeCall, toolCallViews, type CallState, type ToolCallView } from './toolcalls';
import type { ConversationsStore } from './conversations.svelte';

export const PAGE_SIZE = 60;

export type { CardStatus, ToolCallView } from './toolcalls';
export { mergeCall } from './toolcalls';

export interface Draft {
  providerId: string;
  model: string;
  tools: ToolSelection | null;
  systemPrompt: string | null;
}

export interface ChatOptions {
  schedule?: Schedule;
  pageSize?: number;
}

export class ChatStore {
  #backend: Backend;
  #conversations: ConversationsStore;
  #pageSize: number;
  #deltas: FrameBatch<ChatDeltaEvent>;
  #unsubs: Unsubscribe[] = [];

  #convId = $state<string | null>(null);
  #messages = $state<Message[]>([]);
  #calls = $state<Record<string, CallState>>({});
  #hasOlder = $state(false);
  #loading = $state(false);
  #loadingOlder = $state(false);
  #loadError = $state('');
  #actionError = $state('');
  #running = $state<Record<string, boolean>>({});
  #stopping = $state<Record<string, boolean>>({});
  #status = $state<Record<string, ChatStatusEvent>>({});
  #draft = $state<Draft>({ providerId: '', model: '', tools: null, systemPrompt: null });
  #highlight = $state<number | null>(null);
  #warnings = $state<Record<string, string>>({});
  /** The backend's warning about a conversation's tools, by conversation: known before a request. */
  #toolWarnings = $state<Record<string, string>>({});
  #callsTimer: ReturnType<typeof setTimeout> | undefined;
  #openToken = 0;
  /** Counts chat:message events of the open conversation. */
  #messageEvents = 0;

  #visible = $derived(this.#messages.filter((m) => m.role === 'user' || m.role === 'assistant'));
  #toolMessages = $derived(new Map(this.#messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m])));
  #callsByMessage = $derived.by(() => {
    const by = new Map<number, CallState[]>();
    for (const r of Object.values(this.#calls)) {
      const list = by.get(r.messageId) ?? [];
      list.push(r);
      by.set(r.messageId, list);
    }
    for (const list of by.values()) list.sort((a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt));
    return by;
  });

  constructor(backend: Backend, conversations: ConversationsStore, opts: ChatOptions = {}) {
    this.#backend = backend;
    this.#conversations = conversations;
    this.#pageSize = opts.pageSize ?? PAGE_SIZE;
    // The backend sends a conversation's deltas at most once per
    // chat.DefaultDeltaInterval, so each is shown at once: waiting for a
    // frame doubled the lag of a fast stream (make bench, stream_rich_lag_ms).
    this.#deltas = new FrameBatch((ds) => this.#applyDeltas(ds), opts.schedule ?? afterTask);
  }

  // ---- reading ----

  get conversationId(): string | null {
    return this.#convId;
  }
  /** Every loaded message, tool results included, oldest first. */
  get messages(): Message[] {
    return this.#messages;
  }
  /** The user and assistant messages, oldest first. */
  get visible(): Message[] {
    return this.#visible;
  }
  get hasOlder(): boolean {
    return this.#hasOlder;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get loadingOlder(): boolean {
    return this.#loadingOlder;
  }
  get loadError(): string {
    return this.#loadError;
  }
  /** The last failed action (send, stop, …), for a banner. */
  get actionError(): string {
    return this.#actionError;
  }
  get running(): boolean {
    return !!this.#convId && !!this.#running[this.#convId];
  }
  get stopping(): boolean {
    return !!this.#convId && !!this.#stopping[this.#convId];
  }
  get status(): ChatStatusEvent | undefined {
    return this.#convId ? this.#status[this.#convId] : undefined;
  }
  /** A warning about the open conversation (too many tools, say). */
  get warning(): string {
    return this.#convId ? (this.#warnings[this.#convId] ?? '') : '';
  }
  /** The backend's warning about the open conversation's tools (more than its provider accepts, say), before anything is sent. */
  get toolWarning(): string {
    return this.#convId ? (this.#toolWarnings[this.#convId] ?? '') : '';
  }
  get draft(): Draft {
    return this.#draft;
  }
  /** The message to scroll to and mark (from a search hit). */
  get highlight(): number | null {
    return this.#highlight;
  }

  isRunning(conversationId: string): boolean {
    return !!this.#running[conversationId];
  }

  /** The provider and model that answer in the open conversation (or the draft). */
  get model(): { providerId: string; model: string } {
    const c = this.#conversations.byId(this.#convId);
    return c ? { providerId: c.providerId, model: c.model } : { providerId: this.#draft.providerId, model: this.#draft.model };
  }
  get tools(): ToolSelection | null {
    const c = this.#conversations.byId(this.#convId);
    return c ? (c.tools ?? null) : this.#draft.tools;
  }
  get systemPrompt(): string | null {
    const c = this.#conversations.byId(this.#convId);
    return c ? (c.systemPrompt ?? null) : this.#draft.systemPrompt;
  }

  /** The tool calls an assistant message made, as cards. */
  toolCalls(m: Message): ToolCallView[] {
    return toolCallViews(m, this.#callsByMessage.get(m.id) ?? [], this.#toolMessages);
  }

  // ---- events ----

  /** Subscribes to the chat events; call dispose to stop. */
  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.chatDelta, (d) => {
        if (d.conversationId === this.#convId) this.#deltas.push(d);
      }),
      this.#backend.on(Events.chatMessage, (e) => {
        this.#deltas.flush();
        this.#onMessage(e);
      }),
      this.#backend.on(Events.chatToolCall, (r) => {
        this.#deltas.flush();
        if (r.conversationId !== this.#convId) return;
        this.#calls[r.id] = mergeCall(this.#calls[r.id], r);
        // The event has the start of the result; the record has all of it.
        if (['done', 'failed', 'denied', 'cancelled'].includes(r.status)) this.#refreshCallsSoon();
      }),
      this.#backend.on(Events.chatStatus, (s) => {
        this.#deltas.flush();
        if (s.state === 'idle' || s.state === 'error') {
          delete this.#status[s.conversationId];
        } else {
          this.#status[s.conversationId] = s;
          this.#running[s.conversationId] = true;
        }
      }),
      this.#backend.on(Events.chatDone, (d) => {
        this.#deltas.flush();
        void this.#onDone(d);
      }),
      this.#backend.on(Events.chatTruncated, (t) => {
        this.#deltas.flush();
        if (t.conversationId === this.#convId) this.#messages = this.#messages.filter((m) => m.seq <= t.afterSeq);
      }),
      this.#backend.on(Events.chatConversation, (c) => this.#conversations.upsert(c)),
      this.#backend.on(Events.chatWarning, (w) => (this.#warnings[w.conversationId] = w.message)),
    ];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
    this.#deltas.clear();
    clearTimeout(this.#callsTimer);
  }

  dismissWarning(): void {
    if (this.#convId) delete this.#warnings[this.#convId];
  }

  /** Applies waiting deltas now (the frame does it otherwise). */
  flush(): void {
    this.#deltas.flush();
  }

  #applyDeltas(ds: ChatDeltaEvent[]): void {
    for (const d of ds) {
      if (d.conversationId !== this.#convId) continue;
      let m = this.#find(d.messageId);
      if (!m) {
        // A delta before its message: keep it in a placeholder.
        const last = this.#messages[this.#messages.length - 1];
        this.#messages.push({
          id: d.messageId,
          conversationId: d.conversationId,
          seq: (last?.seq ?? 0) + 1,
          role: 'assistant',
          content: '',
          reasoning: '',
          toolCalls: [],
          toolCallId: '',
          status: 'streaming',
          error: '',
          meta: null,
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        });
        m = this.#messages[this.#messages.length - 1];
      }
      if (d.content) m.content += d.content;
      if (d.reasoning) m.reasoning += d.reasoning;
    }
  }

  #find(id: number): Message | undefined {
    for (let i = this.#messages.length - 1; i >= 0; i--) if (this.#messages[i].id === id) return this.#messages[i];
    return undefined;
  }

  #onMessage(message: Message): void {
    const conversationId = message.conversationId;
    if (message.status === 'streaming') this.#running[conversationId] = true;
    if (!this.#conversations.byId(conversationId)) void this.#conversations.load();
    else this.#conversations.touch(conversationId);
    if (conversationId !== this.#convId) return;
    this.#messageEvents++;
    const i = this.#messages.findIndex((m) => m.id === message.id);
    if (i >= 0) {
      const old = this.#messages[i];
      // A streaming message may carry less text than the deltas already gave.
      const keep = message.status === 'streaming' && old.content.startsWith(message.content) ? old.content : message.content;
      const keepR = message.status === 'streaming' && old.reasoning.startsWith(message.reasoning) ? old.reasoning : message.reasoning;
      this.#messages[i] = { ...message, content: keep, reasoning: keepR };
      return;
    }
    let at = this.#messages.length;
    while (at > 0 && this.#messages[at - 1].seq > message.seq) at--;
    this.#messages.splice(at, 0, message);
  }

  async #onDone(d: ChatDoneEvent): Promise<void> {
    const id = d.conversationId;
    this.#running[id] = false;
    this.#stopping[id] = false;
    delete this.#status[id];
    if (id === this.#convId) {
      // Whatever still streams ended with the run.
      for (const m of this.#messages) {
        if (m.status === 'streaming') {
          m.status = d.status;
          if (d.status === 'error' && d.error) m.error = d.error;
        }
      }
      await this.#reconcile();
      const last = this.#visible[this.#visible.length - 1];
      // An error not shown on a message gets the banner.
      if (d.status === 'error' && d.error && !(last?.role === 'assistant' && last.status === 'error')) this.#actionError = d.error;
    }
    void this.#conversations.load();
  }

  /** Loads the open conversation's tool-call records and merges them. */
  async #loadCalls(): Promise<void> {
    const id = this.#convId;
    if (!id) return;
    const token = this.#openToken;
    try {
      const records = await this.#backend.getToolCalls(id);
      if (token !== this.#openToken) return;
      for (const r of records) this.#calls[r.id] = mergeCall(this.#calls[r.id], r);
    } catch {
      // The cards keep what the events said.
    }
  }

  #refreshCallsSoon(): void {
    clearTimeout(this.#callsTimer);
    this.#callsTimer = setTimeout(() => void this.#loadCalls(), 250);
  }

  // ---- loading ----

  /** Makes id the open conversation, kept across a reload of the window. */
  #setConversation(id: string | null): void {
    this.#convId = id;
    rememberConversation(id);
  }

  /** Opens a conversation and loads its latest messages. */
  async open(id: string): Promise<void> {
    if (id === this.#convId && !this.#loadError) return;
    const token = ++this.#openToken;
    this.#deltas.clear();
    this.#setConversation(id);
    this.#messages = [];
    this.#calls = {};
    this.#hasOlder = false;
    this.#highlight = null;
    this.#loadError = '';
    this.#actionError = '';
    this.#loading = true;
    void this.#loadCalls();
    try {
      const page = await this.#backend.getMessages(id, 0, this.#pageSize);
      if (token !== this.#openToken) return;
      // Events may have arrived while loading: keep what the page lacks.
      const ids = new Set(page.map((m) => m.id));
      this.#messages = [...page, ...this.#messages.filter((m) => !ids.has(m.id))];
      this.#hasOlder = page.length >= this.#pageSize;
      // After a reload a reply may still be arriving.
      if (page.some((m) => m.status === 'streaming')) this.#running[id] = true;
    } catch (e) {
      if (token === this.#openToken) this.#loadError = `Could not load the messages: ${errorMessage(e)}`;
    } finally {
      if (token === this.#openToken) this.#loading = false;
    }
  }

  /** Starts a new chat that exists only once the first message is sent. */
  openDraft(providerId: string, model: string): void {
    this.#openToken++;
    this.#deltas.clear();
    this.#setConversation(null);
    this.#messages = [];
    this.#calls = {};
    this.#hasOlder = false;
    this.#loading = false;
    this.#loadError = '';
    this.#actionError = '';
    this.#highlight = null;
    this.#draft = { providerId, model, tools: null, systemPrompt: null };
  }

  /** Loads the page before the oldest loaded message; false when there is none. */
  async loadOlder(): Promise<boolean> {
    const id = this.#convId;
    if (!id || !this.#hasOlder || this.#loadingOlder || this.#messages.length === 0) return false;
    const token = this.#openToken;
    this.#loadingOlder = true;
    try {
      const page = await this.#backend.getMessages(id, this.#messages[0].seq, this.#pageSize);
      if (token !== this.#openToken) return false;
      const first = this.#messages[0].seq;
      this.#messages = [...page.filter((m) => m.seq < first), ...this.#messages];
      this.#hasOlder = page.length >= this.#pageSize;
      return page.length > 0;
    } catch (e) {
      this.#loadError = `Could not load older messages: ${errorMessage(e)}`;
      return false;
    } finally {
      this.#loadingOlder = false;
    }
  }

  /** Loads older pages until the message is there, then marks it. */
  async reveal(messageId: number, maxPages = 40): Promise<boolean> {
    for (let i = 0; i < maxPages; i++) {
      if (this.#messages.some((m) => m.id === messageId)) {
        this.#highlight = messageId;
        return true;
      }
      if (!(await this.loadOlder())) break;
    }
    return false;
  }

  clearHighlight(): void {
    this.#highlight = null;
  }

  /** Fetches the latest page again and merges it over what is loaded. */
  async #reconcile(): Promise<void> {
    const id = this.#convId;
    if (!id) return;
    const token = this.#openToken;
    void this.#loadCalls();
    try {
      const page = await this.#backend.getMessages(id, 0, this.#pageSize);
      // A new turn may have started meanwhile; its events are fresher.
      if (token !== this.#openToken || this.#running[id]) return;
      if (page.length === 0) return;
      // The page replaces what it covers; what it does not cover stays, so
      // nothing the user saw vanishes if the store lags behind the events.
      const min = page[0].seq;
      const max = page[page.length - 1].seq;
      const ids = new Set(page.map((m) => m.id));
      const before = this.#messages.filter((m) => m.seq < min && !ids.has(m.id));
      const after = this.#messages.filter((m) => m.seq > max && !ids.has(m.id));
      this.#messages = [...before, ...page, ...after];
    } catch {
      // Keep what the events built.
    }
  }

  // ---- actions ----

  async #createFromDraft(): Promise<string> {
    const d = this.#draft;
    const c = await this.#conversations.create(d.providerId, d.model);
    this.#openToken++;
    this.#setConversation(c.id);
    if (d.tools !== null) {
      await this.#backend.setConversationTools(c.id, d.tools);
      this.#conversations.patch(c.id, { tools: d.tools });
    }
    if (d.systemPrompt !== null) {
      await this.#backend.setSystemPrompt(c.id, d.systemPrompt);
      this.#conversations.patch(c.id, { systemPrompt: d.systemPrompt });
    }
    return c.id;
  }

  /** Sends a message, with attachments (AttachmentsStore.pending), creating the conversation of a draft; false when it failed. */
  async send(text: string, attachments: Attachment[] = []): Promise<boolean> {
    const t = text.trim();
    if (!t && attachments.length === 0) return false;
    this.#actionError = '';
    let id = this.#convId;
    try {
      if (!id) id = await this.#createFromDraft();
      this.#running[id] = true;
      const before = this.#messageEvents;
      if (attachments.length) await this.#backend.send(id, t, attachments);
      else await this.#backend.send(id, t);
      this.#conversations.touch(id);
      if (this.#messageEvents === before && this.#convId === id) await this.#reconcile();
      return true;
    } catch (e) {
      const msg = errorMessage(e);
      const last = this.#visible[this.#visible.length - 1];
      if (!(last?.status === 'error' && last.error === msg)) this.#actionError = msg;
      if (id) this.#running[id] = false;
      return false;
    }
  }

  /**
   * Adds an MCP prompt's messages to the conversation as they are, with no
   * reply (a prompt that speaks for the assistant too), creating the
   * conversation of a draft; false when it failed (actionError says why).
   */
  async appendPrompt(prompt: PromptResult): Promise<boolean> {
    this.#actionError = '';
    let id = this.#convId;
    try {
      if (!id) id = await this.#createFromDraft();
      if (this.#running[id]) throw new Error('a reply is still being written in this conversation; stop it or wait for it to finish');
      const before = this.#messageEvents;
      await this.#backend.appendPrompt(id, prompt);
      this.#conversations.touch(id);
      if (this.#messageEvents === before && this.#convId === id) await this.#reconcile();
      return true;
    } catch (e) {
      this.#actionError = `Could not add the prompt: ${errorMessage(e)}`;
      return false;
    }
  }

  async stop(): Promise<void> {
    const id = this.#convId;
    if (!id || !this.#running[id]) return;
    this.#stopping[id] = true;
    try {
      await this.#backend.stop(id);
      // No run answered (one left over from a crash, say): stop waiting.
      setTimeout(() => {
        if (!this.#stopping[id]) return;
        this.#stopping[id] = false;
        this.#running[id] = false;
        delete this.#status[id];
        if (id === this.#convId) for (const m of this.#messages) if (m.status === 'streaming') m.status = 'stopped';
      }, 3000);
    } catch (e) {
      this.#actionError = `Could not stop: ${errorMessage(e)}`;
      this.#stopping[id] = false;
    }
  }

  /** Answers the last user message again (also the Retry of a failed reply). */
  async regenerate(): Promise<void> {
    const id = this.#convId;
    if (!id || this.#running[id]) return;
    this.#actionError = '';
    let lastUser = -1;
    for (let i = this.#messages.length - 1; i >= 0; i--) {
      if (this.#messages[i].role === 'user') {
        lastUser = i;
        break;
      }
    }
    const removed = this.#messages.slice(lastUser + 1);
    if (lastUser >= 0) this.#messages = this.#messages.slice(0, lastUser + 1);
    this.#running[id] = true;
    try {
      await this.#backend.regenerate(id);
    } catch (e) {
      this.#running[id] = false;
      if (this.#messages.length === lastUser + 1) this.#messages = [...this.#messages, ...removed];
      this.#actionError = `Could not regenerate: ${errorMessage(e)}`;
    }
  }

  /** Replaces a user message's text (and, when given, its attachments), drops what followed it, and sends again. */
  async editAndResend(seq: number, text: string, attachments?: Attachment[]): Promise<boolean> {
    const id = this.#convId;
    const t = text.trim();
    const kept = attachments ?? this.#messages.find((m) => m.seq === seq)?.attachments ?? [];
    if (!id || (!t && kept.length === 0) || this.#running[id]) return false;
    this.#actionError = '';
    const before = this.#messages;
    this.#messages = this.#messages
      .filter((m) => m.seq <= seq)
      .map((m) => (m.seq === seq ? { ...m, content: t, ...(attachments ? { attachments } : {}) } : m));
    this.#running[id] = true;
    try {
      if (attachments) await this.#backend.editAndResend(id, seq, t, attachments);
      else await this.#backend.editAndResend(id, seq, t);
      return true;
    } catch (e) {
      this.#running[id] = false;
      this.#messages = before;
      this.#actionError = `Could not resend: ${errorMessage(e)}`;
      return false;
    }
  }

  async setModel(providerId: string, model: string): Promise<void> {
    const id = this.#convId;
    if (!id) {
      this.#draft = { ...this.#draft, providerId, model };
      return;
    }
    try {
      await this.#backend.setConversationModel(id, providerId, model);
      this.#conversations.patch(id, { providerId, model });
    } catch (e) {
      this.#actionError = `Could not change the model: ${errorMessage(e)}`;
    }
  }

  /** Asks the backend whether the open conversation's tools draw a warning (ToolSet.warning). */
  async checkTools(): Promise<void> {
    const id = this.#convId;
    if (!id) return;
    try {
      const set = await this.#backend.conversationTools(id);
      this.#toolWarnings[id] = set.warning ?? '';
    } catch {
      // the warning is advice; without it the chat works
    }
  }

  async setTools(tools: ToolSelection | null): Promise<void> {
    const id = this.#convId;
    if (!id) {
      this.#draft = { ...this.#draft, tools };
      return;
    }
    try {
      await this.#backend.setConversationTools(id, tools);
      this.#conversations.patch(id, { tools });
    } catch (e) {
      this.#actionError = `Could not change the tools: ${errorMessage(e)}`;
    }
  }

  async setSystemPrompt(prompt: string | null): Promise<void> {
    const id = this.#convId;
    if (!id) {
      this.#draft = { ...this.#draft, systemPrompt: prompt };
      return;
    }
    try {
      await this.#backend.setSystemPrompt(id, prompt);
      this.#conversations.patch(id, { systemPrompt: prompt });
    } catch (e) {
      this.#actionError = `Could not change the system prompt: ${errorMessage(e)}`;
    }
  }

  exportAs(format: ExportFormat): Promise<string> {
    if (!this.#convId) return Promise.reject(new Error('Send a message first; an empty chat has nothing to export.'));
    return this.#backend.exportConversation(this.#convId, format);
  }

  /** Forgets the open conversation (after it was deleted). */
  close(): void {
    this.openDraft(this.#draft.providerId, this.#draft.model);
  }

  dismissError(): void {
    this.#actionError = '';
  }
}
