// A fake backend for unit tests: canned answers and events sent by hand.
import type { Backend, Info, Unsubscribe } from './index';

export class FakeBackend implements Backend {
  info: Info = {
    version: 'switchboard test',
    dataDir: '/tmp/switchboard',
    database: '/tmp/switchboard/switchboard.db',
    logDir: '/tmp/switchboard/logs',
    keyring: { backend: 'keyring', persistent: true },
    problems: [],
  };
  readyError: Error | null = null;
  readyCalls = 0;
  private handlers = new Map<string, Set<(p: unknown) => void>>();

  async ready(): Promise<Info> {
    this.readyCalls++;
    if (this.readyError) throw this.readyError;
    return structuredClone(this.info);
  }

  windowChanges = 0;
  async windowChanged(): Promise<void> {
    this.windowChanges++;
  }

  on<T>(event: string, handler: (payload: T) => void): Unsubscribe {
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler as (p: unknown) => void);
    this.handlers.set(event, set);
    return () => set.delete(handler as (p: unknown) => void);
  }

  emit(event: string, payload: unknown): void {
    for (const h of this.handlers.get(event) ?? []) h(payload);
  }

  listeners(event: string): number {
    return this.handlers.get(event)?.size ?? 0;
  }
}
