import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { ActivityRow } from '../backend';
import { ActivityStore, activityPageSize } from './activity.svelte';

function row(i: number, over: Partial<ActivityRow> = {}): ActivityRow {
  return {
    id: `c${i}`,
    conversationId: 'conv',
    conversationTitle: 'Trip',
    messageId: 7,
    serverId: i % 2 ? 'web' : 'fs',
    serverName: i % 2 ? 'Web' : 'Files',
    tool: i % 2 ? 'fetch' : 'read_file',
    arguments: `{"n":${i}}`,
    status: 'done',
    decision: 'allow_once',
    decidedBy: 'user',
    who: 'user',
    isError: false,
    error: '',
    requestedAt: new Date(1_700_000_000_000 - i * 1000).toISOString(),
    durationMs: i,
    resultSize: 10,
    ...over,
  };
}

describe('ActivityStore', () => {
  it('loads a page, filters at once, debounces the search, and pages on', async () => {
    vi.useFakeTimers();
    const be = new FakeBackend();
    const total = 250; // more than two pages
    be.activityRows = Array.from({ length: total }, (_, i) => row(i));
    const a = new ActivityStore(be, { debounceMs: 200 });
    await a.refresh();
    expect(a.rows).toHaveLength(activityPageSize);
    expect(a.hasMore).toBe(true);
    expect(a.facets?.total).toBe(total);

    for (let i = 0; a.hasMore && i < 10; i++) await a.loadMore();
    expect(a.rows).toHaveLength(total);
    expect(new Set(a.rows.map((r) => r.id)).size).toBe(total);
    expect(a.hasMore).toBe(false);

    a.set({ serverId: 'web' });
    await vi.waitFor(() => expect(a.rows.every((r) => r.serverId === 'web')).toBe(true));
    expect(be.callsOf('listActivity').at(-1)).toEqual([{ serverId: 'web', limit: activityPageSize }]);

    const before = be.callsOf('listActivity').length;
    a.setQuery('"n":1');
    a.setQuery('"n":13');
    expect(be.callsOf('listActivity')).toHaveLength(before); // still typing
    await vi.advanceTimersByTimeAsync(250);
    expect(be.callsOf('listActivity')).toHaveLength(before + 1);
    expect(a.rows.map((r) => r.id).sort()).toEqual(['c13', 'c131', 'c133', 'c135', 'c137', 'c139']);

    a.clear();
    await vi.waitFor(() => expect(a.rows).toHaveLength(activityPageSize));
    vi.useRealTimers();
  });

  it('drops a page that arrives after a newer filter', async () => {
    const be = new FakeBackend();
    be.activityRows = [row(1), row(2)];
    // The first answer is slow: it arrives after the second.
    const list = be.listActivity.bind(be);
    let release = () => {};
    const slow = new Promise<void>((r) => (release = r));
    let first = true;
    be.listActivity = async (f) => {
      const page = await list(f);
      if (first) {
        first = false;
        await slow;
      }
      return page;
    };
    const a = new ActivityStore(be);
    a.set({ tool: 'fetch' });
    a.set({ tool: 'read_file' });
    await vi.waitFor(() => expect(a.loading).toBe(false));
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(a.rows.map((r) => r.tool)).toEqual(['read_file']);
  });

  it('opens a call, says when it cannot, and reports an export', async () => {
    const be = new FakeBackend();
    be.activityRows = [row(1)];
    be.toolCallRecords = { conv: [{ ...row(1), callId: 'x', result: null } as never] };
    const a = new ActivityStore(be);
    await a.select('c1');
    expect(a.detail?.id).toBe('c1');
    await a.select('gone');
    expect(a.detail).toBeNull();
    expect(a.detailError).toMatch(/Could not read this call/);

    be.activityExport = { path: '/tmp/a.csv', calls: 1 };
    await a.export('csv');
    expect(a.exportNote).toBe('Exported 1 call to /tmp/a.csv');
    be.failures.saveActivityExport = 'disk full';
    await a.export('jsonl');
    expect(a.exportNote).toBe('Could not export: disk full');

    be.failures.listActivity = 'database is locked';
    await a.refresh();
    expect(a.error).toBe('Could not read the tool activity: database is locked');
    expect(a.rows).toEqual([]);
  });
});
