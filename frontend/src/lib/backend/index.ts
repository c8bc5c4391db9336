// The one wrapper over the Go backend: bound methods (UI -> Go) and events
// (Go -> UI). Stores use a Backend; tests pass a fake one.
import type { Info } from './types';

export type { Info, Problem, KeyringStatus } from './types';

export type Unsubscribe = () => void;

export interface Backend {
  ready(): Promise<Info>;
  /** Tells the backend the window was resized, so the size is remembered. */
  windowChanged(): Promise<void>;
  /** Subscribes to a backend event; call the returned function to stop. */
  on<T = unknown>(event: string, handler: (payload: T) => void): Unsubscribe;
}

// What Wails injects into the page (window.go for bindings, window.runtime
// for events). Only this file touches them.
interface WailsWindow {
  go?: { app?: { App?: Record<string, (...args: unknown[]) => Promise<unknown>> } };
  runtime?: {
    EventsOnMultiple(name: string, cb: (...data: unknown[]) => void, max: number): () => void;
  };
}

function bound(name: string): (...args: unknown[]) => Promise<unknown> {
  const w = window as unknown as WailsWindow;
  const fn = w.go?.app?.App?.[name];
  if (!fn) {
    return () => Promise.reject(new Error(`The Switchboard backend is not connected (method ${name} is missing). Restart the app.`));
  }
  return fn;
}

/** The backend of the running app. */
export const wails: Backend = {
  ready: () => bound('Ready')() as Promise<Info>,
  windowChanged: () => bound('WindowChanged')() as Promise<void>,
  on(event, handler) {
    const w = window as unknown as WailsWindow;
    if (!w.runtime) return () => {};
    return w.runtime.EventsOnMultiple(event, (payload) => handler(payload as never), -1);
  },
};
