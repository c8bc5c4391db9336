// Completer asks a server for values of one argument as the user types
// (MCP completion/complete): of a prompt's argument or a resource
// template's variable, with the arguments already filled in so the
// server can narrow its values. Asks are debounced and the latest one
// wins; a failed ask shows no values (completion is only a hint).
import type { Backend, CompletionRef } from '../backend';

/** How long typing must pause before the server is asked. */
export const COMPLETE_DELAY_MS = 150;
/** The most values shown. */
export const COMPLETE_SHOWN = 8;

export class Completer {
  #backend: Backend;
  #serverId: string;
  #ref: CompletionRef;
  #delay: number;
  #values = $state.raw<string[]>([]);
  #arg = $state('');
  #more = $state(false);
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(backend: Backend, serverId: string, ref: CompletionRef, opts: { delay?: number } = {}) {
    this.#backend = backend;
    this.#serverId = serverId;
    this.#ref = ref;
    this.#delay = opts.delay ?? COMPLETE_DELAY_MS;
  }

  /** The values for arg (the argument last asked about), at most COMPLETE_SHOWN. */
  get values(): string[] {
    return this.#values;
  }
  get arg(): string {
    return this.#arg;
  }
  /** The server has more values than shown. */
  get more(): boolean {
    return this.#more;
  }

  /** Asks for values of arg as typed so far; filled holds the other arguments' values. */
  ask(arg: string, value: string, filled: Record<string, string>): void {
    clearTimeout(this.#timer);
    const n = ++this.#seq;
    if (this.#arg !== arg) {
      this.#arg = arg;
      this.#values = [];
    }
    const others = Object.fromEntries(Object.entries(filled).filter(([k, v]) => k !== arg && v !== ''));
    this.#timer = setTimeout(async () => {
      try {
        const c = await this.#backend.completeArgument(this.#serverId, this.#ref, arg, value, others);
        if (n !== this.#seq) return;
        // A value equal to what is typed suggests nothing.
        const vals = c.values.filter((v) => v !== value);
        this.#values = vals.slice(0, COMPLETE_SHOWN);
        this.#more = !!c.hasMore || vals.length > COMPLETE_SHOWN;
      } catch {
        if (n === this.#seq) this.#values = [];
      }
    }, this.#delay);
  }

  /** Hides the values (an argument lost focus, a value was chosen). */
  clear(): void {
    clearTimeout(this.#timer);
    this.#seq++;
    this.#values = [];
    this.#more = false;
  }

  dispose(): void {
    this.clear();
  }
}
