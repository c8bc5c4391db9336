// AppViewsStore says which tool calls show their server's view (MCP Apps)
// in their card, and why one that does not any more stopped. A call seen
// running in this window opens its view by itself; a call from history
// shows "Show view" instead. At most MAX_OPEN_VIEWS views are open: showing
// one more closes the one used least recently, with a note. Switching
// conversations forgets them all (the cards and their frames go too).
// Drafts a view offers (ui/message) go to the composer through here.
import { untrack } from 'svelte';
import { Events, type Backend, type ToolCallStatus, type Unsubscribe } from '../backend';

/** The most views open at once. */
export const MAX_OPEN_VIEWS = 10;

/** open: the card shows the view; closed: the user, the view or the cap closed it; stopped: a limit or Go stopped it. */
export type SlotState = 'open' | 'closed' | 'stopped';

/** What a tool call's card knows of its view. */
export interface ViewSlot {
  /** The call's audit record id. */
  key: string;
  serverName: string;
  state: SlotState;
  /** What the user is told of a view that is not open ('' when nothing). */
  note: string;
  /** The id of the view the card runs now, if one. */
  viewId: string;
  /** When it was last shown or used (a counter, higher is later). */
  used: number;
}

/** The statuses of a call still under way. */
const inFlight: ToolCallStatus[] = ['pending', 'waiting_approval', 'running'];

/** A function that puts a view's text into the composer; false when it refused. */
export type DraftSink = (text: string, serverName: string) => boolean;

export class AppViewsStore {
  #backend: Backend;
  #conversationId: () => string | null;
  #unsubs: Unsubscribe[] = [];
  #stopRoot: (() => void) | undefined;
  #slots = $state<Record<string, ViewSlot>>({});
  /** Calls seen under way in this window (their views open by themselves). */
  #live = new Set<string>();
  #clock = 0;
  #conversation: string | null = null;
  #sink: DraftSink | null = null;
  #draftFrom = $state('');

  /** conversationId returns the open conversation's id (the chat store's). */
  constructor(backend: Backend, conversationId: () => string | null) {
    this.#backend = backend;
    this.#conversationId = conversationId;
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.appViewClosed, (e) => {
        const slot = Object.values(this.#slots).find((s) => s.viewId === e.viewId);
        if (slot) this.#end(slot.key, 'stopped', `The view from ${slot.serverName} was closed: ${e.reason}`);
      }),
    ];
    this.#stopRoot = $effect.root(() => {
      $effect(() => {
        const id = this.#conversationId();
        untrack(() => this.#switchTo(id));
      });
    });
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
    this.#stopRoot?.();
    this.#stopRoot = undefined;
  }

  #switchTo(id: string | null): void {
    if (id === this.#conversation) return;
    this.#conversation = id;
    this.#slots = {};
    this.#live.clear();
  }

  /** A call's view slot, if its view was ever shown in this conversation. */
  slot(key: string): ViewSlot | undefined {
    return this.#slots[key];
  }

  /** How many views are open. */
  get openCount(): number {
    return Object.values(this.#slots).filter((s) => s.state === 'open').length;
  }

  /**
   * Notes a call's status as its card sees it; true when its view should
   * open by itself now: the call was seen under way in this window, has
   * started (running or ended with a result), and its view was never shown.
   */
  follow(key: string, status: ToolCallStatus): boolean {
    if (inFlight.includes(status)) this.#live.add(key);
    if (!this.#live.has(key) || this.#slots[key]) return false;
    return status === 'running' || status === 'done' || status === 'failed';
  }

  /** Shows a call's view; past MAX_OPEN_VIEWS the least recently used one closes, saying so. */
  show(key: string, serverName: string): void {
    const used = ++this.#clock;
    const cur = this.#slots[key];
    this.#slots[key] = { key, serverName, state: 'open', note: '', viewId: cur?.viewId ?? '', used };
    const open = Object.values(this.#slots).filter((s) => s.state === 'open');
    if (open.length <= MAX_OPEN_VIEWS) return;
    const oldest = open.filter((s) => s.key !== key).sort((a, b) => a.used - b.used)[0];
    this.#end(oldest.key, 'closed', `This view was closed to keep at most ${MAX_OPEN_VIEWS} views open; Show view opens it again.`);
  }

  /** Marks a view used now (it stays open longest). */
  touch(key: string): void {
    const s = this.#slots[key];
    if (s && s.state === 'open') s.used = ++this.#clock;
  }

  /** Closes a view (the user's close button, or the view asked); note is what the card says after ('' for nothing). */
  hide(key: string, note = ''): void {
    this.#end(key, 'closed', note);
  }

  /** A limit stopped the view; why is said to the user. */
  stopped(key: string, why: string): void {
    const s = this.#slots[key];
    if (s) this.#end(key, 'stopped', `The view from ${s.serverName} was stopped: ${why}`);
  }

  /** The card runs the view of this id (from OpenAppView), '' when none. */
  bind(key: string, viewId: string): void {
    const s = this.#slots[key];
    if (s) s.viewId = viewId;
  }

  #end(key: string, state: SlotState, note: string): void {
    const s = this.#slots[key];
    if (!s) return;
    s.state = state;
    s.note = note;
    s.viewId = '';
  }

  // ---- drafts (ui/message) ----

  /** The composer takes drafts through sink; the returned function stops it. */
  setComposer(sink: DraftSink): () => void {
    this.#sink = sink;
    return () => {
      if (this.#sink === sink) this.#sink = null;
    };
  }

  /** Puts a view's text in the composer for the user to read and send; false when it could not. */
  offerDraft(text: string, serverName: string): boolean {
    if (!this.#sink || !this.#sink(text, serverName)) return false;
    this.#draftFrom = serverName;
    return true;
  }

  /** The server whose view wrote into the composer, until the message is sent or the note dismissed ('' when none). */
  get draftFrom(): string {
    return this.#draftFrom;
  }

  dismissDraft(): void {
    this.#draftFrom = '';
  }
}
