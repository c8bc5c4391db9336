// Where the user was in each conversation's messages, so that coming back
// to a chat shows the same place: the first row in view and how far into
// it, or "at the bottom" (then new replies keep showing). Kept in memory
// and in sessionStorage (a reload of the window keeps it, a restart does
// not), at most MAX conversations, the least recently left dropped first.

/** A place in a list of rows. */
export interface ScrollSpot {
  /** The key of the first row in view. */
  key: string | number;
  /** Pixels from that row's top to the top of the view. */
  offset: number;
  atBottom: boolean;
}

const KEY = 'switchboard.scroll';
const MAX = 100;
let spots: Map<string, ScrollSpot> | null = null;

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function load(): Map<string, ScrollSpot> {
  if (spots) return spots;
  spots = new Map();
  try {
    const raw = storage()?.getItem(KEY);
    const list = raw ? (JSON.parse(raw) as [string, ScrollSpot][]) : [];
    if (Array.isArray(list)) {
      for (const e of list.slice(-MAX)) {
        if (Array.isArray(e) && typeof e[0] === 'string' && valid(e[1])) spots.set(e[0], e[1]);
      }
    }
  } catch {
    /* unreadable: start empty */
  }
  return spots;
}

function valid(s: unknown): s is ScrollSpot {
  const v = s as ScrollSpot;
  return !!v && (typeof v.key === 'string' || typeof v.key === 'number') && Number.isFinite(v.offset) && typeof v.atBottom === 'boolean';
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;

/** Remembers where the user is in conversation id. */
export function rememberScroll(id: string, spot: ScrollSpot): void {
  const m = load();
  m.delete(id);
  m.set(id, spot);
  while (m.size > MAX) m.delete(m.keys().next().value!);
  // Scrolling fires often: write the storage once it settles.
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    try {
      storage()?.setItem(KEY, JSON.stringify([...m]));
    } catch {
      /* full or refused: kept in memory only */
    }
  }, 300);
}

/** Where the user was in conversation id, if known. */
export function recallScroll(id: string): ScrollSpot | undefined {
  return load().get(id);
}

/** Forgets everything (tests). */
export function forgetScrolls(): void {
  spots = new Map();
  clearTimeout(saveTimer);
  storage()?.removeItem(KEY);
}
