// The bounds a view lives within: its height, how fast it may send
// messages, how large one may be. A view is a server's page: it may ask for
// a height of a billion pixels or post ten thousand messages a second.

/** The least and most height (px) of a view in its card. */
export const MIN_HEIGHT = 60;
export const MAX_HEIGHT = 720;

/** The height a view asked for, within min..max; null when it is no number. */
export function clampHeight(h: unknown, min = MIN_HEIGHT, max = MAX_HEIGHT): number | null {
  if (typeof h !== 'number' || Number.isNaN(h)) return null;
  return Math.round(Math.min(max, Math.max(min, h)));
}

/**
 * A token bucket: capacity tokens at once, refilled at perSecond. take
 * says whether n more (a message, or a message's bytes) may pass now.
 */
export class TokenBucket {
  #tokens: number;
  #last: number;
  readonly capacity: number;
  readonly perSecond: number;
  #now: () => number;

  constructor(capacity: number, perSecond: number, now: () => number = () => performance.now()) {
    this.capacity = capacity;
    this.perSecond = perSecond;
    this.#now = now;
    this.#tokens = capacity;
    this.#last = now();
  }

  take(n = 1): boolean {
    const t = this.#now();
    this.#tokens = Math.min(this.capacity, this.#tokens + ((t - this.#last) / 1000) * this.perSecond);
    this.#last = t;
    if (this.#tokens < n) return false;
    this.#tokens -= n;
    return true;
  }
}

/**
 * About how many bytes data would take as JSON, counted until it passes
 * limit (then the count so far is returned, the rest unread) or holds more
 * than maxNodes values (Infinity). It never serialises: a 20 MB string costs
 * one read of its length, which is why it runs before the SDK's parsing.
 */
export function messageSize(data: unknown, limit: number, maxNodes = 100_000): number {
  let size = 0;
  let nodes = 0;
  const stack: unknown[] = [data];
  while (stack.length) {
    const v = stack.pop();
    if (++nodes > maxNodes) return Infinity;
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'bigint') size += 8;
    else if (v === null || v === undefined || typeof v === 'boolean') size += 5;
    else if (v instanceof ArrayBuffer) size += v.byteLength;
    else if (ArrayBuffer.isView(v)) size += v.byteLength;
    else if (typeof Blob !== 'undefined' && v instanceof Blob) size += v.size;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (let i = 0; i < v.length && stack.length <= maxNodes; i++) stack.push(v[i]);
    } else if (typeof v === 'object') {
      for (const k in v) {
        size += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
        if (stack.length > maxNodes) return Infinity;
      }
    }
    if (size > limit) return size;
  }
  return size;
}

/** Bytes as a short text: "20.0 MB", "512 KB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'too many parts';
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${Math.round(n / (1 << 10))} KB`;
  return `${n} bytes`;
}
