// Words and times for the Connected apps view and "Share with…".
import type { ClientApp, ClientGrant } from '../../backend';
import { timeSet } from '../../stores/clients.svelte';

/** "just now", "5 minutes ago", "3 days ago"; '' for Go's zero time. */
export function ago(t: string | undefined, now = Date.now()): string {
  if (!t || !timeSet(t)) return '';
  const s = Math.max(0, Math.round((now - Date.parse(t)) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} minute${m === 1 ? '' : 's'} ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} hour${h === 1 ? '' : 's'} ago`;
  const d = Math.round(h / 24);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

/** When a grant ends, in words: "never expires", "expires in 6 days", "expired". */
export function expiry(g: Pick<ClientGrant, 'expiresAt' | 'expired'>, now = Date.now()): string {
  if (g.expired) return 'expired';
  if (!g.expiresAt || !timeSet(g.expiresAt)) return 'never expires';
  const ms = Date.parse(g.expiresAt) - now;
  if (ms <= 0) return 'expired';
  const h = Math.round(ms / 3_600_000);
  if (h < 1) return 'expires within the hour';
  if (h < 48) return `expires in ${h} hour${h === 1 ? '' : 's'}`;
  return `expires in ${Math.round(h / 24)} days`;
}

/** True when the client's token is refused (revoked). */
export function revoked(c: Pick<ClientApp, 'revokedAt'>): boolean {
  return timeSet(c.revokedAt);
}

/** A time as the user reads it: "4 Mar 2026, 15:06". */
export function when(t: string | undefined): string {
  return t && timeSet(t) ? new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
}
