import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { ConversationsStore, groupByDate } from './conversations.svelte';

const iso = (ms: number) => new Date(ms).toISOString();

describe('groupByDate', () => {
  it('groups by Today, Yesterday, Previous 7 days and Older, newest first', () => {
    const now = new Date(2026, 4, 20, 15, 0).getTime();
    const at = (d: number, h = 10) => new Date(2026, 4, 20 - d, h).getTime();
    const c = (id: string, t: number) => ({ id, title: id, providerId: '', model: '', createdAt: new Date(t).toISOString(), updatedAt: new Date(t).toISOString() });
    const groups = groupByDate([c('old', at(30)), c('y', at(1, 23)), c('t1', at(0, 1)), c('t2', at(0, 14)), c('w', at(6))], now);
    expect(groups.map((g) => [g.label, g.items.map((i) => i.id)])).toEqual([
      ['Today', ['t2', 't1']],
      ['Yesterday', ['y']],
      ['Previous 7 days', ['w']],
      ['Older', ['old']],
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
});
