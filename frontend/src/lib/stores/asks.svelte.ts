// What servers ask of the user, one store per kind: ElicitationsStore
// (a form to fill in, a page to open) and SamplingsStore (a completion to
// allow). The backend owns the requests; a store mirrors the ones that
// wait (shown one at a time, oldest first), sends the user's answer, and
// keeps a notice when the one shown ends without it (it expired, or the
// server stopped waiting), so the dialog can say so. A server may say the
// step of a page the user was sent to is done: its dialog, if open,
// closes, and a short notice says so.
import {
  Events,
  errorMessage,
  type AskEnded,
  type Backend,
  type ElicitAnswer,
  type ElicitCompleted,
  type ElicitRequest,
  type SamplingDecision,
  type SamplingRequest,
  type Unsubscribe,
} from '../backend';

interface Pending {
  id: string;
  serverName: string;
  serverId: string;
}

/** A request that ended while it was shown, without the user's answer. */
export interface EndedNotice<R> {
  request: R;
  ended: AskEnded;
}

class AskStore<R extends Pending, A> {
  #backend: Backend;
  #unsubs: Unsubscribe[] = [];
  #pending = $state<R[]>([]);
  #answering = $state(false);
  #error = $state('');
  #ended = $state<EndedNotice<R> | null>(null);

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  protected get backend(): Backend {
    return this.#backend;
  }

  get pending(): R[] {
    return this.#pending;
  }
  /** The request shown now: the oldest. */
  get current(): R | undefined {
    return this.#pending[0];
  }
  get count(): number {
    return this.#pending.length;
  }
  get answering(): boolean {
    return this.#answering;
  }
  /** Why the last answer was not taken (shown in the dialog). */
  get error(): string {
    return this.#error;
  }
  /** The shown request that ended unanswered, until dismissed. */
  get ended(): EndedNotice<R> | null {
    return this.#ended;
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = this.subscribe(
      (r) => this.#add([r]),
      (e) => this.#end(e),
    );
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
  }

  /** Asks the backend what waits (a reloaded window shows it again). */
  async load(): Promise<void> {
    try {
      this.#add(await this.fetch());
    } catch (e) {
      this.#error = `Could not load what servers are asking: ${errorMessage(e)}`;
    }
  }

  // The kind's events and bound methods.
  protected subscribe(_add: (r: R) => void, _end: (e: AskEnded) => void): Unsubscribe[] {
    return [];
  }
  protected fetch(): Promise<R[]> {
    return Promise.resolve([]);
  }
  protected send(_id: string, _answer: A): Promise<void> {
    return Promise.resolve();
  }

  /** Drops the waiting requests that match, without an answer (the backend ended them). */
  protected drop(match: (r: R) => boolean): void {
    const cur = this.current;
    this.#pending = this.#pending.filter((p) => !match(p));
    if (cur && this.current !== cur) this.#error = '';
  }

  #add(rs: R[]): void {
    const fresh = rs.filter((r) => !this.#pending.some((p) => p.id === r.id));
    if (fresh.length) this.#pending = [...this.#pending, ...fresh];
  }

  #end(e: AskEnded): void {
    const r = this.#pending.find((p) => p.id === e.id);
    if (!r) return;
    if (e.outcome !== 'answered' && r === this.current) this.#ended = { request: r, ended: e };
    this.#pending = this.#pending.filter((p) => p.id !== e.id);
    if (r === this.current) this.#error = '';
  }

  dismissEnded(): void {
    this.#ended = null;
  }

  /** Sends the user's answer to the current request; false if it was not taken. */
  async answer(a: A): Promise<boolean> {
    const r = this.current;
    if (!r || this.#answering) return false;
    this.#answering = true;
    this.#error = '';
    try {
      await this.send(r.id, a);
      this.#pending = this.#pending.filter((p) => p.id !== r.id);
      return true;
    } catch (e) {
      const msg = errorMessage(e);
      // Ended meanwhile (expired, the server gave up): nothing to answer.
      if (/no longer waiting/i.test(msg)) this.#pending = this.#pending.filter((p) => p.id !== r.id);
      else this.#error = msg;
      return false;
    } finally {
      this.#answering = false;
    }
  }
}

/** A server's requests for input: forms and pages to open. */
export class ElicitationsStore extends AskStore<ElicitRequest, ElicitAnswer> {
  #completed = $state<ElicitCompleted | null>(null);

  /** The step a server said is done, until dismissed (the dialog says "done"). */
  get completed(): ElicitCompleted | null {
    return this.#completed;
  }

  dismissCompleted(): void {
    this.#completed = null;
  }

  protected override subscribe(add: (r: ElicitRequest) => void, end: (e: AskEnded) => void): Unsubscribe[] {
    return [
      this.backend.on(Events.elicitRequested, add),
      this.backend.on(Events.elicitEnded, end),
      this.backend.on(Events.elicitCompleted, (c) => this.#complete(c)),
    ];
  }

  #complete(c: ElicitCompleted): void {
    // Its dialogs (the page to open, or the wait after) close first: the
    // backend ends them right after.
    this.drop((r) => r.serverId === c.serverId && r.elicitationId === c.elicitationId);
    this.#completed = c;
  }
  protected override fetch(): Promise<ElicitRequest[]> {
    return this.backend.pendingElicitations();
  }
  protected override send(id: string, a: ElicitAnswer): Promise<void> {
    return this.backend.answerElicitation(id, a);
  }
}

/** A server's requests for a completion. */
export class SamplingsStore extends AskStore<SamplingRequest, SamplingDecision> {
  protected override subscribe(add: (r: SamplingRequest) => void, end: (e: AskEnded) => void): Unsubscribe[] {
    return [this.backend.on(Events.samplingRequested, add), this.backend.on(Events.samplingEnded, end)];
  }
  protected override fetch(): Promise<SamplingRequest[]> {
    return this.backend.pendingSamplings();
  }
  protected override send(id: string, d: SamplingDecision): Promise<void> {
    return this.backend.answerSampling(id, d);
  }
}

/**
 * Tells the backend whether the page is visible, now and on every change:
 * servers may ask the user for input or a completion only while it is.
 * Returns the function that stops watching.
 */
export function reportVisibility(backend: Backend, doc: Document = document): () => void {
  const report = () => void backend.windowVisible(doc.visibilityState !== 'hidden').catch(() => {});
  report();
  doc.addEventListener('visibilitychange', report);
  return () => doc.removeEventListener('visibilitychange', report);
}
