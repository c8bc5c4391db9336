// Links from a model's reply or a server's result may show one thing and go
// somewhere else. Such a link opens only after the user has seen where it
// really goes; one that shows exactly its own URL opens at once.

/** Direction overrides and invisible marks: they make text read otherwise. */
export const controls = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * Whether opening href, shown to the user as text (undefined: the URL
 * itself), should first ask and show the real URL: when the text is not
 * the URL, or the URL carries a query (data it could take out), a user name
 * (https://bank.example@evil.example) or an internationalised host name
 * (which can look like another), or a direction override (the rest reads
 * backwards).
 */
export function linkNeedsConfirm(href: string, text?: string): boolean {
  if (href.search(controls) >= 0) return true;
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return true;
  }
  if (u.search !== '' || href.includes('?')) return true;
  if (u.username !== '' || u.password !== '') return true;
  if (u.hostname.split('.').some((label) => label.startsWith('xn--'))) return true;
  if (text === undefined) return false;
  const t = text.trim();
  if (t === href) return false;
  if (u.protocol === 'mailto:') return t !== u.pathname && t !== href;
  try {
    return new URL(t).href !== u.href;
  } catch {
    return true;
  }
}

/** The URL as the browser will read it (host names in ASCII) and its host. */
export function describeLink(href: string): { url: string; host: string } {
  try {
    const u = new URL(href);
    return { url: u.href, host: u.protocol === 'mailto:' ? u.pathname : u.host };
  } catch {
    return { url: href, host: '' };
  }
}
