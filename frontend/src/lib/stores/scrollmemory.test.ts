import { beforeEach, describe, expect, it, vi } from 'vitest';

describe('scroll memory', () => {
  beforeEach(() => {
    sessionStorage.clear();
    vi.resetModules();
  });

  it('remembers per conversation, survives a reload of the page, and drops the oldest past 100', async () => {
    vi.useFakeTimers();
    try {
      const m = await import('./scrollmemory');
      for (let i = 0; i < 105; i++) m.rememberScroll(`c${i}`, { key: i, offset: 12, atBottom: false });
      m.rememberScroll('c7', { key: 'k', offset: 3, atBottom: false }); // left again: the newest
      expect(m.recallScroll('c7')).toEqual({ key: 'k', offset: 3, atBottom: false });
      await vi.advanceTimersByTimeAsync(400);
      vi.resetModules(); // a reload: the page starts again from sessionStorage
      const again = await import('./scrollmemory');
      expect(again.recallScroll('c104')).toEqual({ key: 104, offset: 12, atBottom: false });
      expect(again.recallScroll('c7')?.key).toBe('k');
      expect(again.recallScroll('c0')).toBeUndefined(); // the oldest five, dropped
      expect(again.recallScroll('c4')).toBeUndefined();
      expect(again.recallScroll('c5')?.key).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ignores what it cannot read', async () => {
    sessionStorage.setItem('switchboard.scroll', JSON.stringify([['a', { key: {}, offset: 'x' }], ['b', { key: 1, offset: 2, atBottom: true }], 'junk']));
    const m = await import('./scrollmemory');
    expect(m.recallScroll('a')).toBeUndefined();
    expect(m.recallScroll('b')).toEqual({ key: 1, offset: 2, atBottom: true });
    sessionStorage.setItem('switchboard.scroll', '{not json');
    vi.resetModules();
    expect((await import('./scrollmemory')).recallScroll('b')).toBeUndefined();
  });
});
