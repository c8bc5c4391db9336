import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { ConversationsStore, groupByDate } from './conversations.svelte';

const iso = (ms: number) => new Date(ms).toISOString();

describe('groupByDate', () => {
  const c = (id: string, t: number, extra: object = {}) => ({ id, title: id, providerId: '', model: '', createdAt: new Date(t).toISOString(), updatedAt: new Date(t).toISOString(), ...extra });
  const shape = (gs: ReturnType<typeof groupByDate>) => gs.map((g) => [g.label, g.items.map((i) => i.id)]);

  it('puts pinned first, then Today, Yesterday, Previous 7 and 30 days, then one group a month, newest first', () => {
    // Local dates: the grouping follows the user's calendar, whatever the zone.
    const now = new Date(2026, 4, 20, 15, 0).getTime();
    const at = (d: number, h = 10) => new Date(2026, 4, 20 - d, h).getTime();
    const groups = groupByDate(
      [
        c('old', at(30)),
        c('y', at(1, 23)),
        c('t1', at(0, 1)),
        c('t2', at(0, 14)),
        c('w', at(6)),
        c('w8', at(8)),
        c('april', new Date(2026, 3, 2, 9).getTime()),
        c('lastyear', new Date(2025, 11, 31, 23, 59).getTime()),
        c('pinnedOld', new Date(2024, 0, 1).getTime(), { pinned: true }),
        c('pinnedNew', at(0, 2), { pinned: true }),
      ],
      now,
    );
    expect(shape(groups)).toEqual([
      ['Pinned', ['pinnedNew', 'pinnedOld']],
      ['Today', ['t2', 't1']],
      ['Yesterday', ['y']],
      ['Previous 7 days', ['w']],
      ['Previous 30 days', ['w8', 'old']],
      ['April 2026', ['april']],
      ['December 2025', ['lastyear']],
    ]);
  });

  it('splits days at local midnight, not every 24 hours', () => {
    // Just after midnight, a chat from 23:59 is Yesterday's; one just
    // after midnight 7 calendar days back is in the 7 days, one just
    // before is not. The week holds a DST change in Europe (29 March
    // 2026), where 7 × 24 hours would reach back to 23:00 on the 22nd:
    // TZ=Europe/Berlin npx vitest run … checks it there.
    const now = new Date(2026, 2, 30, 0, 5).getTime();
    const groups = groupByDate(
      [
        c('justBefore', new Date(2026, 2, 29, 23, 59).getTime()),
        c('now', now),
        c('week', new Date(2026, 2, 23, 0, 1).getTime()),
        c('beforeWeek', new Date(2026, 2, 22, 23, 30).getTime()),
      ],
      now,
    );
    expect(shape(groups)).toEqual([
      ['Today', ['now']],
      ['Yesterday', ['justBefore']],
      ['Previous 7 days', ['week']],
      ['Previous 30 days', ['beforeWeek']],
    ]);
  });

  it('counts a future date as Today and an unreadable one as Older', () => {
    const now = new Date(2026, 4, 20, 15, 0).getTime();
    const groups = groupByDate([c('future', now + 3_600_000), { ...c('bad', now), updatedAt: 'garbage' }], now);
    expect(shape(groups)).toEqual([
      ['Today', ['future']],
      ['Older', ['bad']],
    ]);
  });
});

describe('ConversationsStore', () => {
  it('searches after a pause in typing', async () => {
    vi.useFakeTimers();
    try {
      const be = new FakeBackend();
      be.searchHits = [{ conversationId: 'c1', conversationTitle: 'One', role: 'user', seq: 3, messageId: 3, createdAt: iso(1), snippet: [{ text: 'a ' }, { text: 'hit', match: true }] }];
      const s = new ConversationsStore(be);
      s.setQuery('h');
      s.setQuery('hi');
      s.setQuery('hit');
      expect(s.searching).toBe(true);
      await vi.advanceTimersByTimeAsync(300);
      expect(be.callsOf('searchMessages')).toEqual([['hit']]);
      expect(s.hits).toHaveLength(1);
      s.setQuery('');
      expect(s.hits).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('renames and deletes', async () => {
    const be = new FakeBackend();
    be.conversations = [{ id: 'c1', title: 'One', providerId: '', model: '', createdAt: iso(1), updatedAt: iso(1)}];
    const s = new ConversationsStore(be);
    await s.load();
    await s.rename('c1', '  Better  ');
    expect(be.callsOf('renameConversation')).toEqual([['c1', 'Better']]);
    expect(s.byId('c1')!.title).toBe('Better');
    await s.remove('c1');
    expect(s.list).toEqual([]);
  });

  it('pins, archives and unarchives, keeping the list and the archive apart', async () => {
    const be = new FakeBackend();
    const now = Date.now();
    be.conversations = [
      { id: 'a', title: 'A', providerId: '', model: '', createdAt: iso(now - 3000), updatedAt: iso(now - 3000) },
      { id: 'b', title: 'B', providerId: '', model: '', createdAt: iso(now - 2000), updatedAt: iso(now - 2000) },
      { id: 'z', title: 'Z', providerId: '', model: '', createdAt: iso(1), updatedAt: iso(1), archived: true },
    ];
    const s = new ConversationsStore(be);
    await s.load();
    expect(s.list.map((c) => c.id)).toEqual(['a', 'b']);
    expect(s.archived.map((c) => c.id)).toEqual(['z']);
    expect(s.byId('z')?.title).toBe('Z'); // a reload may reopen an archived chat

    await s.pin('a', true);
    expect(be.callsOf('pinConversation')).toEqual([['a', true]]);
    expect(s.groups.map((g) => [g.label, g.items.map((c) => c.id)])).toEqual([
      ['Pinned', ['a']],
      ['Today', ['b']],
    ]);
    expect(s.ordered.map((c) => c.id)).toEqual(['a', 'b']);

    await s.archive('b', true);
    expect(be.callsOf('archiveConversation')).toEqual([['b', true]]);
    expect(s.list.map((c) => c.id)).toEqual(['a']);
    expect(s.archived.map((c) => c.id)).toEqual(['b', 'z']);
    // The backend agrees: a fresh load shows the same.
    const fresh = new ConversationsStore(be);
    await fresh.load();
    expect(fresh.list.map((c) => [c.id, !!c.pinned])).toEqual([['a', true]]);

    await s.archive('z', false);
    expect(s.list.map((c) => c.id).sort()).toEqual(['a', 'z']);
    expect(s.archived.map((c) => c.id)).toEqual(['b']);

    // An event about an archived chat (a new title) does not put it back in the list.
    s.upsert({ ...s.archived[0], title: 'B2' });
    expect(s.list.map((c) => c.id).sort()).toEqual(['a', 'z']);
    expect(s.archived[0].title).toBe('B2');
  });

  it('steps to the next and previous chat in the order shown, wrapping', async () => {
    const be = new FakeBackend();
    const now = Date.now();
    be.conversations = ['x', 'y', 'z'].map((id, i) => ({ id, title: id, providerId: '', model: '', createdAt: iso(now - i * 1000), updatedAt: iso(now - i * 1000) }));
    const s = new ConversationsStore(be);
    await s.load();
    expect(s.neighbour('x', 1)?.id).toBe('y');
    expect(s.neighbour('z', 1)?.id).toBe('x');
    expect(s.neighbour('x', -1)?.id).toBe('z');
    expect(s.neighbour(null, 1)?.id).toBe('x');
    expect(s.neighbour(null, -1)?.id).toBe('z');
    await s.pin('z', true);
    expect(s.neighbour('z', 1)?.id).toBe('x'); // pinned ones come first
  });
});
