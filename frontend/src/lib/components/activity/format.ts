// Pure helpers of the Tool activity view: words for who decided, sizes,
// durations, and the filter the view sends.
import type { ActivityFilter, ToolCallStatus, Who } from '../../backend';

/** What the view says for each Who; the Go side maps decision + decidedBy to it. */
export const whoLabels: Record<Who, string> = {
  user: 'You',
  always: 'Always-allow grant',
  yolo: 'Allow all (yolo)',
  'read-only': 'Read-only setting',
  'app-grant': 'Connected-app grant',
  guard: 'Trifecta guard',
  system: 'Switchboard (cancelled)',
  none: 'No decision',
};

export const statusLabels: Record<ToolCallStatus, string> = {
  pending: 'Pending',
  waiting_approval: 'Waiting',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  denied: 'Denied',
  cancelled: 'Cancelled',
};

export function whoLabel(who: string): string {
  return whoLabels[who as Who] ?? who;
}

/** A decision in a few words: "allow once", "deny", ... ('' for none). */
export function decisionLabel(decision: string): string {
  return decision.replace(/^allow_/, 'allow ').replace(/_/g, ' ');
}

/** Bytes as people read them; "—" for none. */
export function formatBytes(n: number): string {
  if (!n) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A duration in milliseconds as "850 ms", "2.4 s", "3 min 5 s"; "—" for a call that did not run. */
export function formatDuration(ms: number, status: string): string {
  if (!ms && status !== 'done' && status !== 'failed') return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The start of a local day given as yyyy-mm-dd, as RFC 3339; undefined for ''. */
export function dayStart(day: string): string | undefined {
  const d = parseDay(day);
  return d ? d.toISOString() : undefined;
}

/** The end of a local day (the next one's start), as RFC 3339; undefined for ''. */
export function dayEnd(day: string): string | undefined {
  const d = parseDay(day);
  if (!d) return undefined;
  d.setDate(d.getDate() + 1);
  return d.toISOString();
}

function parseDay(day: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** What the filter controls hold. */
export interface ActivityControls {
  serverId: string;
  tool: string;
  who: Who | '';
  status: ToolCallStatus | '';
  from: string; // yyyy-mm-dd or ''
  to: string; // yyyy-mm-dd or '', included
  query: string;
}

export const noControls: ActivityControls = { serverId: '', tool: '', who: '', status: '', from: '', to: '', query: '' };

/** The filter the backend takes: empty controls are left out. */
export function toFilter(c: ActivityControls): ActivityFilter {
  const f: ActivityFilter = {};
  if (c.serverId) f.serverId = c.serverId;
  if (c.tool) f.tool = c.tool;
  if (c.who) f.who = c.who;
  if (c.status) f.status = c.status;
  const since = dayStart(c.from);
  const until = dayEnd(c.to);
  if (since) f.since = since;
  if (until) f.until = until;
  if (c.query.trim()) f.query = c.query.trim();
  return f;
}

/** Whether any control filters. */
export function filtering(c: ActivityControls): boolean {
  return Object.keys(toFilter(c)).length > 0;
}

/** A one-line preview of arguments JSON: whitespace folded. */
export function preview(text: string, max = 120): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max) + '…' : one;
}
