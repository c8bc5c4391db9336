// Fuzzy matching for the command palette: the query's characters must
// appear in the text in order (case and accents ignored); a match scores
// higher when its characters start words, follow one another, or come
// early. Small and predictable: the palette holds hundreds of entries,
// not millions.

export interface FuzzyMatch {
  score: number;
  /** Indexes into the text of the matched characters, for highlighting. */
  indices: number[];
}

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** Matches query against text; null when some character is missing. An empty query matches with score 0. */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | null {
  const q = fold(query.replace(/\s+/g, ''));
  if (!q) return { score: 0, indices: [] };
  // fold keeps one character per character for the scripts we fold (it
  // only drops combining marks after NFD); when it does not, match
  // without highlighting positions.
  const t = fold(text);
  const sameLength = t.length === text.length;
  const indices: number[] = [];
  let score = 0;
  let prev = -2;
  let from = 0;
  for (let qi = 0; qi < q.length; qi++) {
    const ch = q[qi];
    // Prefer an occurrence that follows the previous one or starts a word,
    // as long as the rest of the query still fits after it; else the next.
    let at = t.indexOf(ch, from);
    for (let i = at; i >= 0; i = t.indexOf(ch, i + 1)) {
      if (i === prev + 1 || wordStart(t, i)) {
        if (fits(q, qi + 1, t, i + 1)) at = i;
        break;
      }
    }
    if (at < 0) return null;
    score += 1;
    if (at === prev + 1) score += 3;
    if (wordStart(t, at)) score += 2;
    if (at === 0) score += 2;
    indices.push(at);
    prev = at;
    from = at + 1;
  }
  score -= Math.min(indices[0], 10) * 0.1 + t.length * 0.01;
  return { score, indices: sameLength ? indices : [] };
}

/** Whether q[qi:] is a subsequence of t[ti:]. */
function fits(q: string, qi: number, t: string, ti: number): boolean {
  for (; qi < q.length; qi++) {
    ti = t.indexOf(q[qi], ti);
    if (ti < 0) return false;
    ti++;
  }
  return true;
}

function wordStart(t: string, i: number): boolean {
  return i === 0 || /[\s\-_/:.·(]/.test(t[i - 1]);
}

/**
 * The items whose text matches query, best first; ties keep the given
 * order. An empty query returns every item in order.
 */
export function fuzzyFilter<T>(items: T[], query: string, text: (item: T) => string): { item: T; match: FuzzyMatch }[] {
  const out: { item: T; match: FuzzyMatch; i: number }[] = [];
  items.forEach((item, i) => {
    const match = fuzzyMatch(query, text(item));
    if (match) out.push({ item, match, i });
  });
  if (query.trim()) out.sort((a, b) => b.match.score - a.match.score || a.i - b.i);
  return out.map(({ item, match }) => ({ item, match }));
}
