// What a server says about a tool (MCP tool annotations), as badges. These
// are the server's claims: a server can get them wrong or lie, so the UI
// says so, and only the user's per-server choice lets a read-only claim
// skip the question (see the approval package).
import type { ToolHints } from './backend';

export type HintKey = 'read-only' | 'destructive' | 'non-destructive' | 'idempotent' | 'open-world' | 'closed-world';

export interface HintBadge {
  key: HintKey;
  label: string;
  /** ok: harmless; danger: may destroy; warn: reaches outside; plain: neither. */
  tone: 'ok' | 'danger' | 'warn' | 'plain';
  /** What the server claims, in words, for the badge's tooltip. */
  title: string;
}

/** The hints in a tool's annotations as the server sent them; undefined when none. */
export function hintsOf(annotations: Record<string, unknown> | undefined): ToolHints | undefined {
  if (!annotations) return undefined;
  const b = (k: string) => (typeof annotations[k] === 'boolean' ? (annotations[k] as boolean) : undefined);
  const h: ToolHints = { readOnly: b('readOnlyHint'), destructive: b('destructiveHint'), idempotent: b('idempotentHint'), openWorld: b('openWorldHint') };
  return Object.values(h).some((v) => v !== undefined) ? h : undefined;
}

/** The server says the tool changes nothing (and does not also say it destroys). */
export function claimsReadOnly(h: ToolHints | undefined): boolean {
  return h?.readOnly === true && h.destructive !== true;
}

/** The badges of a tool's hints, in a fixed order; none for what the server did not say. */
export function hintBadges(h: ToolHints | undefined): HintBadge[] {
  if (!h) return [];
  const out: HintBadge[] = [];
  if (h.readOnly) {
    out.push({
      key: 'read-only',
      label: 'read-only',
      tone: h.destructive ? 'plain' : 'ok',
      title: h.destructive
        ? 'The server says this tool changes nothing, but also that it is destructive; Switchboard treats it as destructive.'
        : "The server says this tool changes nothing. This is the server's claim, not a guarantee.",
    });
  }
  if (h.destructive === true) {
    out.push({ key: 'destructive', label: 'destructive', tone: 'danger', title: 'The server says this tool may delete or overwrite things.' });
  } else if (h.destructive === false && !h.readOnly) {
    out.push({ key: 'non-destructive', label: 'non-destructive', tone: 'plain', title: 'The server says this tool only adds; it deletes and overwrites nothing.' });
  }
  if (h.idempotent) {
    out.push({ key: 'idempotent', label: 'idempotent', tone: 'plain', title: 'The server says calling this tool again with the same arguments has no further effect.' });
  }
  if (h.openWorld === true) {
    out.push({ key: 'open-world', label: 'open world', tone: 'warn', title: 'The server says this tool reaches outside (the web, other services): what it returns may not be trustworthy.' });
  } else if (h.openWorld === false) {
    out.push({ key: 'closed-world', label: 'closed world', tone: 'plain', title: 'The server says this tool works only within its own data.' });
  }
  return out;
}
