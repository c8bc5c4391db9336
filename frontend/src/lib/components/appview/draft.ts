// How a view's draft (ui/message) joins what the user is writing: it never
// replaces the user's own words, only the view's previous draft when the
// user left it as it was, and the composer never grows past
// MAX_COMPOSER_CHARS this way.

/** The longest text a view's drafts may leave in the composer. */
export const MAX_COMPOSER_CHARS = 50_000;

/** The composer's text before a view's drafts (base) and with them (merged). */
export interface Drafted {
  base: string;
  merged: string;
}

/**
 * The composer's text with a view's draft in it: after what the user wrote
 * (a blank line between), in place of the view's previous draft if the
 * text is still as that left it (prev); null when it would be too long.
 */
export function applyDraft(text: string, draft: string, prev: Drafted | null): Drafted | null {
  const base = prev && text === prev.merged ? prev.base : text;
  const merged = base.trim() ? `${base.replace(/\s+$/, '')}\n\n${draft}` : draft;
  return merged.length > MAX_COMPOSER_CHARS ? null : { base, merged };
}
