// Batching of bursts of events: log lines are collected and applied once a
// frame, so a flood never freezes the UI; stream deltas, which the backend
// already paces, once the task that brought them is done (afterTask).

/** Runs fn before the next paint (or soon, where there is no paint). */
export type Schedule = (fn: () => void) => void;

export const nextFrame: Schedule = (fn) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => fn());
  else setTimeout(fn, 16);
};

/**
 * afterTask runs fn once the current task is done (a microtask): what a
 * burst of events in one task pushed is applied together, at once, without
 * waiting for a frame. For events their sender already paces (stream
 * deltas, at most one per chat.DefaultDeltaInterval), where a frame's wait
 * would only add lag.
 */
export const afterTask: Schedule = (fn) => queueMicrotask(fn);

/** A FrameBatch collects items and hands them to flush once per frame. */
export class FrameBatch<T> {
  #items: T[] = [];
  #scheduled = false;
  #flush: (items: T[]) => void;
  #schedule: Schedule;

  constructor(flush: (items: T[]) => void, schedule: Schedule = nextFrame) {
    this.#flush = flush;
    this.#schedule = schedule;
  }

  get size(): number {
    return this.#items.length;
  }

  push(...items: T[]): void {
    this.#items.push(...items);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => this.flush());
  }

  /** Applies what is waiting now (also called by the scheduled frame). */
  flush(): void {
    this.#scheduled = false;
    if (this.#items.length === 0) return;
    const items = this.#items;
    this.#items = [];
    this.#flush(items);
  }

  /** Drops what is waiting. */
  clear(): void {
    this.#items = [];
  }
}
