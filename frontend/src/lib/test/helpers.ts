// Helpers for unit tests: a manual frame scheduler and stores over a fake backend.
import { vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { ApprovalRequest } from '../backend';
import { Stores, STORES } from '../stores/root.svelte';

/** A Schedule that runs callbacks only when told to. */
export function manualFrames() {
  const queue: (() => void)[] = [];
  return {
    schedule: (fn: () => void) => void queue.push(fn),
    get pending() {
      return queue.length;
    },
    run() {
      const fns = queue.splice(0);
      for (const f of fns) f();
    },
  };
}

/** Stores over a FakeBackend, started, plus the context to mount components with. */
export async function startedStores(setup?: (be: FakeBackend) => void) {
  sessionStorage.clear(); // a new start of the app, not a reload of its page
  const be = new FakeBackend();
  be.providers = [{ id: 'p1', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
  setup?.(be);
  const frames = manualFrames();
  const s = new Stores(be, { schedule: frames.schedule });
  await s.start();
  return { be, s, frames, context: new Map<unknown, unknown>([[STORES, s]]) };
}

/** Lets pending promise callbacks run (under vi.useFakeTimers too, where time does not pass). */
export async function settle(times = 5) {
  for (let i = 0; i < times; i++) await Promise.resolve();
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  else await new Promise((r) => setTimeout(r, 0));
}

/** An approval request with defaults. */
export const req = (id: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id,
  conversationId: 'c1',
  serverId: 'files',
  tool: 'write_file',
  serverName: 'Files',
  description: 'Writes a file.',
  fingerprint: 'fp',
  arguments: { path: '/tmp/x' },
  ...extra,
});
