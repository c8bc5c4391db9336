// AppStore holds what the backend said at start: version, paths, and the
// problems the user must see (a database that cannot open, a keyring that
// cannot be reached).
import type { Backend, Info, Problem } from '../backend';

export type AppState = 'loading' | 'ready' | 'failed';

export class AppStore {
  #backend: Backend;
  #state = $state<AppState>('loading');
  #info = $state<Info | null>(null);
  #error = $state('');

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get state(): AppState {
    return this.#state;
  }
  get info(): Info | null {
    return this.#info;
  }
  get error(): string {
    return this.#error;
  }
  get fatal(): Problem | undefined {
    return this.#info?.problems.find((p) => p.fatal);
  }
  get warnings(): Problem[] {
    return this.#info?.problems.filter((p) => !p.fatal) ?? [];
  }

  /** Tells the backend the page is up and loads the first screen's data. */
  async load(): Promise<void> {
    this.#state = 'loading';
    try {
      this.#info = await this.#backend.ready();
      this.#state = 'ready';
    } catch (e) {
      this.#error = e instanceof Error ? e.message : String(e);
      this.#state = 'failed';
    }
  }
}
