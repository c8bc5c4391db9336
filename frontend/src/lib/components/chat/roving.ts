// The conversation list's keyboard model (a "roving tab index"): the list
// is one stop of Tab, held by one row; Up and Down step between the rows
// (across the date groups' headings, which are not rows), Home and End go
// to the first and the last. Kept apart from the components so the rules
// are tested without a DOM.

/** The keys that move in the list. */
export type RovingKey = 'ArrowUp' | 'ArrowDown' | 'Home' | 'End';

/**
 * The row index that key moves to from index, in a list of count rows;
 * Up and Down stop at the ends (they do not wrap). null for any other key,
 * an empty list, or an index not in it.
 */
export function rovingMove(key: string, index: number, count: number): number | null {
  if (count <= 0 || index < 0 || index >= count) return null;
  switch (key) {
    case 'ArrowUp':
      return Math.max(index - 1, 0);
    case 'ArrowDown':
      return Math.min(index + 1, count - 1);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

/**
 * Which row holds the list's tab stop: the row last moved to, while it is
 * listed; else the open chat, when it is listed; else the first row (null
 * for an empty list).
 */
export function tabStop(ids: readonly string[], moved: string | null, open: string | null): string | null {
  if (moved !== null && ids.includes(moved)) return moved;
  if (open !== null && ids.includes(open)) return open;
  return ids[0] ?? null;
}
