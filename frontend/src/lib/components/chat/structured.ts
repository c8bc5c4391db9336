// How a tool's structured content is laid out: a table when it is a list of
// flat records (or one flat record, as key/value rows), a tree otherwise.

export interface Table {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** At most this many columns make a table; a wider record is a tree. */
const MAX_COLUMNS = 12;

const flat = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The table value makes, or null when it is better shown as a tree. */
export function tableOf(value: unknown): Table | null {
  if (Array.isArray(value)) {
    if (value.length === 0 || !value.every((r) => isRecord(r) && Object.values(r).every(flat))) return null;
    const columns: string[] = [];
    for (const r of value as Record<string, unknown>[]) {
      for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
      if (columns.length > MAX_COLUMNS) return null;
    }
    return { columns, rows: value as Record<string, unknown>[] };
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0 || !entries.every(([, v]) => flat(v))) return null;
    return { columns: ['field', 'value'], rows: entries.map(([field, v]) => ({ field, value: v })) };
  }
  return null;
}

/** Whether text is value serialized (servers send it as text too, for older clients). */
export function isSameJSON(text: string | undefined, value: unknown): boolean {
  if (!text || value == null) return false;
  try {
    return JSON.stringify(canonical(JSON.parse(text))) === JSON.stringify(canonical(value));
  } catch {
    return false;
  }
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isRecord(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}

/**
 * Whether the texts already say all value does: value holds only strings
 * (no numbers, booleans or nulls), each found in the texts, as
 * server-filesystem's {"content": <the file>}. The backend tells the model
 * the same way (mcpconn's textHoldsStructured).
 */
export function textHolds(texts: string[], value: unknown): boolean {
  if (texts.length === 0 || value == null) return false;
  const all = texts.join('\n');
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return all.includes(v);
    if (Array.isArray(v)) return v.every(walk);
    if (isRecord(v)) return Object.values(v).every(walk);
    return false;
  };
  return walk(value);
}
