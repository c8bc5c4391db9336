import { describe, expect, it } from 'vitest';
import { rovingMove, tabStop } from './roving';

describe('rovingMove', () => {
  it.each([
    ['ArrowDown', 0, 3, 1],
    ['ArrowDown', 2, 3, 2], // stops at the end
    ['ArrowUp', 2, 3, 1],
    ['ArrowUp', 0, 3, 0], // stops at the top
    ['Home', 2, 3, 0],
    ['End', 0, 3, 2],
    ['ArrowDown', 0, 1, 0],
  ])('%s from %i of %i goes to %i', (key, from, count, want) => {
    expect(rovingMove(key, from, count)).toBe(want);
  });

  it('ignores other keys, an empty list and an index out of it', () => {
    expect(rovingMove('Enter', 0, 3)).toBeNull();
    expect(rovingMove('ArrowLeft', 1, 3)).toBeNull();
    expect(rovingMove('ArrowDown', 0, 0)).toBeNull();
    expect(rovingMove('ArrowDown', -1, 3)).toBeNull();
    expect(rovingMove('ArrowUp', 3, 3)).toBeNull();
  });
});

describe('tabStop', () => {
  const ids = ['a', 'b', 'c'];
  it('is the row last moved to, while it is listed', () => {
    expect(tabStop(ids, 'c', 'b')).toBe('c');
  });
  it('else the open chat', () => {
    expect(tabStop(ids, null, 'b')).toBe('b');
    expect(tabStop(ids, 'gone', 'b')).toBe('b');
  });
  it('else the first row, or none', () => {
    expect(tabStop(ids, null, null)).toBe('a');
    expect(tabStop(ids, 'gone', 'new-chat-not-listed')).toBe('a');
    expect(tabStop([], 'a', 'a')).toBeNull();
  });
});
