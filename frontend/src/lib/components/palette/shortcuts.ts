// The app's keyboard shortcuts: one table, read by the key handler, the
// palette's entries, the tooltips and the "Keyboard shortcuts" list, so
// they never disagree. "Mod" is Cmd on a Mac and Ctrl elsewhere.
//
// The keys avoid what the window's web view or a browser keeps for itself:
// Ctrl+N, Ctrl+T, Ctrl+W and Ctrl+Tab never reach a page in Chromium, so
// a new chat is Mod+Shift+O (Mod+N works too in the app's window), and the
// next and previous chats are Mod+Alt+Down and Up.

export type ShortcutId = 'palette' | 'newChat' | 'search' | 'stop' | 'copyReply' | 'focusComposer' | 'nextChat' | 'prevChat' | 'shortcuts' | 'rename';

/** One key combination. */
export interface Chord {
  key: string; // KeyboardEvent.key, compared case-insensitively
  mod?: boolean;
  shift?: boolean;
  alt?: boolean;
}

export interface Shortcut {
  id: ShortcutId;
  label: string;
  /** The first is the one shown. */
  chords: Chord[];
  /**
   * 'anywhere': fires while typing too (it has a modifier); 'outside': only
   * when focus is not in a text field; 'local': shown only, the element
   * with focus handles it.
   */
  where: 'anywhere' | 'outside' | 'local';
}

export const SHORTCUTS: Shortcut[] = [
  { id: 'palette', label: 'Command palette', chords: [{ key: 'k', mod: true }], where: 'anywhere' },
  { id: 'newChat', label: 'New chat', chords: [{ key: 'o', mod: true, shift: true }, { key: 'n', mod: true }], where: 'anywhere' },
  { id: 'search', label: 'Search conversations', chords: [{ key: 'f', mod: true, shift: true }, { key: 'f', mod: true }], where: 'anywhere' },
  { id: 'focusComposer', label: 'Focus the message box', chords: [{ key: 'l', mod: true }, { key: '/' }], where: 'anywhere' },
  { id: 'copyReply', label: 'Copy the last reply', chords: [{ key: 'c', mod: true, shift: true }], where: 'anywhere' },
  { id: 'stop', label: 'Stop the reply', chords: [{ key: 'Escape' }], where: 'local' }, // the chat view's: dialogs take Escape first
  { id: 'nextChat', label: 'Next chat', chords: [{ key: 'ArrowDown', mod: true, alt: true }], where: 'anywhere' },
  { id: 'prevChat', label: 'Previous chat', chords: [{ key: 'ArrowUp', mod: true, alt: true }], where: 'anywhere' },
  { id: 'rename', label: 'Rename the chat (in the list)', chords: [{ key: 'F2' }], where: 'local' },
  { id: 'shortcuts', label: 'Keyboard shortcuts', chords: [{ key: '?', shift: true }], where: 'outside' },
];

/** Whether shortcuts should say Cmd (a Mac) rather than Ctrl. */
export function isMac(platform: string = typeof navigator === 'undefined' ? '' : navigator.platform || navigator.userAgent): boolean {
  return /Mac|iPhone|iPad/.test(platform);
}

type KeyLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>;

/** Whether e is chord (on a Mac, Mod is Cmd; elsewhere Ctrl). */
export function matches(e: KeyLike, c: Chord, mac: boolean): boolean {
  const mod = mac ? e.metaKey : e.ctrlKey;
  const other = mac ? e.ctrlKey : e.metaKey;
  if (!!c.mod !== mod || other || !!c.alt !== e.altKey) return false;
  // "?" and "/" come with whatever Shift the keyboard layout needs.
  if (c.key === '?' || c.key === '/') return e.key === c.key;
  if (!!c.shift !== e.shiftKey) return false;
  return e.key.toLowerCase() === c.key.toLowerCase();
}

/** Whether the element takes text, so that plain keys are typing. */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const h = el as HTMLElement;
  if (h.isContentEditable) return true;
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  if (el.tagName === 'INPUT') {
    const t = (el as HTMLInputElement).type;
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(t);
  }
  return false;
}

/**
 * The shortcut e is, if any. typing says focus is in a text field: then a
 * plain key ("/", "?") is text, not a shortcut.
 */
export function shortcutFor(e: KeyLike, typing: boolean, mac: boolean): ShortcutId | null {
  for (const s of SHORTCUTS) {
    if (s.where === 'local') continue;
    for (const c of s.chords) {
      if (!matches(e, c, mac)) continue;
      const plain = !c.mod && !c.alt && c.key !== 'Escape';
      if (typing && (plain || s.where === 'outside')) continue;
      return s.id;
    }
  }
  return null;
}

/** How a chord is written: "Ctrl+Shift+O", "⌘⇧O". */
export function chordLabel(c: Chord, mac: boolean): string {
  const names: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', Escape: 'Esc' };
  const key = names[c.key] ?? (c.key.length === 1 ? c.key.toUpperCase() : c.key);
  if (mac) return `${c.alt ? '⌥' : ''}${c.shift && c.key !== '?' ? '⇧' : ''}${c.mod ? '⌘' : ''}${key}`;
  return [c.mod && 'Ctrl', c.alt && 'Alt', c.shift && c.key !== '?' && 'Shift', key].filter(Boolean).join('+');
}

/** The label of a shortcut's first chord ("" for an unknown id). */
export function shortcutLabel(id: ShortcutId, mac: boolean = isMac()): string {
  const s = SHORTCUTS.find((x) => x.id === id);
  return s ? chordLabel(s.chords[0], mac) : '';
}

/** A shortcut's first chord as aria-keyshortcuts writes it ("Control+K", "Meta+K"); "" for an unknown id. */
export function ariaShortcut(id: ShortcutId, mac: boolean = isMac()): string {
  const c = SHORTCUTS.find((x) => x.id === id)?.chords[0];
  if (!c) return '';
  const key = c.key.length === 1 ? c.key.toUpperCase() : c.key;
  return [c.mod && (mac ? 'Meta' : 'Control'), c.alt && 'Alt', c.shift && c.key !== '?' && 'Shift', key].filter(Boolean).join('+');
}

/** "New chat (Ctrl+Shift+O)", for a title attribute. */
export function withShortcut(text: string, id: ShortcutId, mac: boolean = isMac()): string {
  return `${text} (${shortcutLabel(id, mac)})`;
}
