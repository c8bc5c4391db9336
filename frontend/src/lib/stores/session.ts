// What the page keeps across a reload of the window (not across restarts
// of the app): the conversation that was open and the text not yet sent.
// The window reloads its page when a server's view froze it or the page
// crashed; everything saved lives in the backend, and this is the rest.
// sessionStorage may be unavailable or full: then nothing is kept.

const CONVERSATION = 'switchboard.openConversation';
const DRAFT = 'switchboard.draft';
const MAX_DRAFT = 200_000; // characters

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function put(key: string, value: string | null): void {
  const st = storage();
  try {
    if (value === null) st?.removeItem(key);
    else st?.setItem(key, value);
  } catch {
    /* full or refused: not kept */
  }
}

/** Remembers the open conversation (null: a new chat). */
export function rememberConversation(id: string | null): void {
  put(CONVERSATION, id);
}

/** The conversation open before a reload, if any. */
export function recallConversation(): string | null {
  return storage()?.getItem(CONVERSATION) ?? null;
}

export interface Draft {
  conversationId: string | null;
  text: string;
}

/** Remembers the unsent text of a conversation (empty text forgets it). */
export function rememberDraft(d: Draft): void {
  put(DRAFT, d.text && d.text.length <= MAX_DRAFT ? JSON.stringify(d) : null);
}

/** The unsent text kept before a reload, if any. */
export function recallDraft(): Draft | null {
  const raw = storage()?.getItem(DRAFT);
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as Partial<Draft>;
    if (typeof d.text !== 'string' || (d.conversationId !== null && typeof d.conversationId !== 'string')) return null;
    return { conversationId: d.conversationId ?? null, text: d.text };
  } catch {
    return null;
  }
}
