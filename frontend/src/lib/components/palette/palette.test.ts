import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { fuzzyFilter, fuzzyMatch } from './fuzzy';
import { ariaShortcut, chordLabel, isTyping, shortcutFor, SHORTCUTS } from './shortcuts';
import CommandPalette from './CommandPalette.svelte';
import KeyboardLayer from './KeyboardLayer.svelte';
import type { Command } from './commands';
import { settle, startedStores } from '../../test/helpers';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('fuzzyMatch', () => {
  it('matches characters in order, ignoring case and accents, and fails when one is missing', () => {
    expect(fuzzyMatch('nc', 'New chat')?.indices).toEqual([0, 4]);
    expect(fuzzyMatch('CAFE', 'Café notes')).not.toBeNull();
    expect(fuzzyMatch('tahc', 'New chat')).toBeNull();
    expect(fuzzyMatch('', 'anything')).toEqual({ score: 0, indices: [] });
  });

  it('prefers word starts and runs, but never loses a match by preferring', () => {
    // "st" could take the s of "Use" and the t of "settings"; the word
    // "Settings" ranks better for a user typing "set".
    const ranked = fuzzyFilter(['Use gpt-4o test', 'Go to Settings', 'Reset the list'], 'set', (x) => x).map((r) => r.item);
    expect(ranked[0]).toBe('Go to Settings');
    // Jumping to the word start "b" would leave no "a" after it.
    expect(fuzzyMatch('ab', 'xab b')).not.toBeNull();
  });

  it('keeps the given order without a query and ranks with one', () => {
    const items = ['Go to Tools', 'New chat', 'Next chat'];
    expect(fuzzyFilter(items, '', (x) => x).map((r) => r.item)).toEqual(items);
    expect(fuzzyFilter(items, 'next', (x) => x).map((r) => r.item)).toEqual(['Next chat']);
    expect(fuzzyFilter(items, 'chat', (x) => x).map((r) => r.item)).toEqual(['New chat', 'Next chat']);
  });
});

describe('shortcuts', () => {
  it('maps keys to shortcuts with Ctrl elsewhere and Cmd on a Mac', () => {
    expect(shortcutFor(key('k', { ctrlKey: true }), false, false)).toBe('palette');
    expect(shortcutFor(key('k', { metaKey: true }), false, true)).toBe('palette');
    expect(shortcutFor(key('k', { metaKey: true }), false, false)).toBeNull(); // Cmd is not Ctrl off a Mac
    expect(shortcutFor(key('k', { ctrlKey: true }), false, true)).toBeNull();
    expect(shortcutFor(key('O', { ctrlKey: true, shiftKey: true }), false, false)).toBe('newChat');
    expect(shortcutFor(key('n', { ctrlKey: true }), true, false)).toBe('newChat');
    expect(shortcutFor(key('F', { ctrlKey: true, shiftKey: true }), true, false)).toBe('search');
    expect(shortcutFor(key('C', { ctrlKey: true, shiftKey: true }), true, false)).toBe('copyReply');
    expect(shortcutFor(key('c', { ctrlKey: true }), true, false)).toBeNull(); // plain copy stays copy
    expect(shortcutFor(key('ArrowDown', { ctrlKey: true, altKey: true }), false, false)).toBe('nextChat');
    expect(shortcutFor(key('ArrowUp', { ctrlKey: true, altKey: true }), true, false)).toBe('prevChat');
    expect(shortcutFor(key('ArrowUp', { ctrlKey: true }), false, false)).toBeNull();
  });

  it('leaves plain keys to text fields', () => {
    expect(shortcutFor(key('/'), false, false)).toBe('focusComposer');
    expect(shortcutFor(key('/'), true, false)).toBeNull();
    expect(shortcutFor(key('?', { shiftKey: true }), false, false)).toBe('shortcuts');
    expect(shortcutFor(key('?', { shiftKey: true }), true, false)).toBeNull();
    expect(shortcutFor(key('l', { ctrlKey: true }), true, false)).toBe('focusComposer');
    // Escape belongs to the chat view (stop) and to dialogs; F2 to the list.
    expect(shortcutFor(key('Escape'), false, false)).toBeNull();
    expect(shortcutFor(key('F2'), false, false)).toBeNull();
  });

  it('knows a text field from a button', () => {
    const el = (html: string) => {
      const d = document.createElement('div');
      d.innerHTML = html;
      return d.firstElementChild;
    };
    expect(isTyping(el('<input type="text">'))).toBe(true);
    expect(isTyping(el('<input type="search">'))).toBe(true);
    expect(isTyping(el('<textarea></textarea>'))).toBe(true);
    expect(isTyping(el('<input type="checkbox">'))).toBe(false);
    expect(isTyping(el('<button></button>'))).toBe(false);
    expect(isTyping(null)).toBe(false);
  });

  it('writes every chord for its platform', () => {
    const palette = SHORTCUTS.find((s) => s.id === 'palette')!.chords[0];
    expect(chordLabel(palette, false)).toBe('Ctrl+K');
    expect(chordLabel(palette, true)).toBe('⌘K');
    expect(chordLabel({ key: 'ArrowDown', mod: true, alt: true }, false)).toBe('Ctrl+Alt+↓');
    expect(chordLabel({ key: 'o', mod: true, shift: true }, true)).toBe('⇧⌘O');
    expect(chordLabel({ key: '?', shift: true }, false)).toBe('?');
  });

  it('writes the aria-keyshortcuts value for its platform', () => {
    expect(ariaShortcut('palette', false)).toBe('Control+K');
    expect(ariaShortcut('palette', true)).toBe('Meta+K');
    expect(ariaShortcut('newChat', false)).toBe('Control+Shift+O');
    expect(ariaShortcut('nextChat', false)).toBe('Control+Alt+ArrowDown');
  });
});

describe('CommandPalette', () => {
  function open(extra: Partial<Command>[] = []) {
    const ran: string[] = [];
    const cmd = (id: string, label: string, group: Command['group'] = 'Actions', more: Partial<Command> = {}): Command => ({ id, label, group, run: () => void ran.push(id), ...more });
    const commands = [
      cmd('new-chat', 'New chat', 'Actions', { shortcut: 'newChat' }),
      cmd('search', 'Search conversations', 'Actions', { shortcut: 'search' }),
      cmd('go-tools', 'Go to Tools and MCP servers', 'Go to', { keywords: 'servers' }),
      cmd('go-settings', 'Go to Settings', 'Go to'),
      cmd('chat-1', 'Holiday plans', 'Chats'),
      ...extra.map((e, i) => cmd(`x${i}`, `Extra ${i}`, 'Actions', e)),
    ];
    const onclose = vi.fn();
    render(CommandPalette, { props: { commands, onclose, mac: false } });
    const input = screen.getByTestId('palette-input') as HTMLInputElement;
    const selected = () => screen.getAllByTestId('palette-option').find((o) => o.getAttribute('aria-selected') === 'true')?.dataset.command;
    return { ran, onclose, input, selected };
  }

  it('is a modal dialog with the focus in a combobox over a listbox, showing shortcuts', () => {
    const { input } = open();
    const dialog = screen.getByTestId('palette') as HTMLDialogElement;
    expect(dialog.open).toBe(true);
    expect(screen.getByRole('dialog', { name: 'Command palette' })).toBe(dialog);
    expect(document.activeElement).toBe(input);
    expect(input.getAttribute('role')).toBe('combobox');
    const list = screen.getByRole('listbox');
    expect(input.getAttribute('aria-controls')).toBe(list.id);
    const options = screen.getAllByRole('option');
    expect(options).toHaveLength(5);
    expect(input.getAttribute('aria-activedescendant')).toBe(options[0].id);
    expect(options[0].querySelector('kbd')?.textContent).toBe('Ctrl+Shift+O');
  });

  it('moves with the arrows (wrapping), runs with Enter and closes', async () => {
    const { input, ran, onclose, selected } = open();
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(selected()).toBe('search');
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(selected()).toBe('chat-1');
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(ran).toEqual(['chat-1']);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('filters fuzzily, by keywords too, and chooses the best match', async () => {
    const { input, ran, selected } = open();
    await fireEvent.input(input, { target: { value: 'servers' } });
    expect(screen.getAllByTestId('palette-option')[0].dataset.command).toBe('go-tools');
    await fireEvent.input(input, { target: { value: 'gset' } });
    expect(selected()).toBe('go-settings');
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(ran).toEqual(['go-settings']);
    await fireEvent.input(input, { target: { value: 'zzzz' } });
    expect(screen.queryAllByTestId('palette-option')).toEqual([]);
    expect(screen.getByText(/Nothing matches/)).toBeTruthy();
  });

  it('Escape closes without running; Tab keeps the focus in the box', async () => {
    const { input, ran, onclose } = open();
    const tab = new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true });
    input.dispatchEvent(tab);
    expect(tab.defaultPrevented).toBe(true);
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    input.dispatchEvent(esc);
    expect(esc.defaultPrevented).toBe(true); // the chat's Escape (stop) does not see it
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(ran).toEqual([]);
  });
});

describe('KeyboardLayer', () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function setup() {
    const t = await startedStores((be) => {
      const now = Date.now();
      be.conversations = ['One', 'Two', 'Three'].map((title, i) => ({ id: `c${i + 1}`, title, providerId: 'p1', model: 'm1', createdAt: iso(now - i * 1000), updatedAt: iso(now - i * 1000) }));
    });
    render(KeyboardLayer, { context: t.context });
    return t;
  }
  const press = (k: string, mods: Partial<KeyboardEventInit> = {}, target: EventTarget = document.body) => {
    const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...mods });
    target.dispatchEvent(e);
    return e;
  };

  it('opens the palette with Ctrl+K and closes it with Ctrl+K again', async () => {
    const { s } = await setup();
    expect(press('k', { ctrlKey: true }).defaultPrevented).toBe(true);
    await settle();
    expect(s.keyboard.palette).toBe(true);
    expect(screen.getByTestId('palette')).toBeTruthy();
    // The list holds the chats and places.
    const ids = screen.getAllByTestId('palette-option').map((o) => o.dataset.command);
    expect(ids).toEqual(expect.arrayContaining(['new-chat', 'go-settings', 'go-tools', 'chat-c1', 'chat-c3']));
    press('k', { ctrlKey: true }, screen.getByTestId('palette-input'));
    await settle();
    expect(s.keyboard.palette).toBe(false);
  });

  it('steps through chats with Ctrl+Alt+Down and Up, and starts a new chat with Ctrl+Shift+O', async () => {
    const { s } = await setup();
    press('ArrowDown', { ctrlKey: true, altKey: true });
    await settle();
    expect(s.chat.conversationId).toBe('c1');
    press('ArrowDown', { ctrlKey: true, altKey: true });
    await settle();
    expect(s.chat.conversationId).toBe('c2');
    press('ArrowUp', { ctrlKey: true, altKey: true });
    press('ArrowUp', { ctrlKey: true, altKey: true });
    await settle();
    expect(s.chat.conversationId).toBe('c3');
    press('O', { ctrlKey: true, shiftKey: true });
    await settle();
    expect(s.chat.conversationId).toBeNull();
  });

  it('leaves keys alone while another dialog is open, or when a handler took them', async () => {
    const { s } = await setup();
    const other = document.createElement('dialog');
    document.body.append(other);
    other.setAttribute('open', '');
    try {
      expect(press('k', { ctrlKey: true }).defaultPrevented).toBe(false);
      await settle();
      expect(s.keyboard.palette).toBe(false);
    } finally {
      other.remove();
    }
    const taken = new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true, cancelable: true });
    taken.preventDefault();
    document.body.dispatchEvent(taken);
    await settle();
    expect(s.keyboard.palette).toBe(false);
  });

  it('"?" opens the shortcuts list, but not while typing', async () => {
    const { s } = await setup();
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    press('?', { shiftKey: true }, input);
    await settle();
    expect(s.keyboard.help).toBe(false);
    input.remove();
    press('?', { shiftKey: true });
    await settle();
    expect(s.keyboard.help).toBe(true);
    expect(screen.getByTestId('shortcuts-dialog').textContent).toContain('Ctrl+Shift+O');
  });

  it('copies the last reply with Ctrl+Shift+C and says so', async () => {
    const { s, be } = await setup();
    be.messages = { c1: [{ ...(await import('../../backend/fake')).fakeMessage({ id: 1, seq: 1, role: 'user', content: 'q' }) }, (await import('../../backend/fake')).fakeMessage({ id: 2, seq: 2, role: 'assistant', content: 'the answer' })] };
    await s.openConversation('c1');
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    press('C', { ctrlKey: true, shiftKey: true });
    await settle();
    expect(writeText).toHaveBeenCalledWith('the answer');
    expect(screen.getByTestId('keyboard-status').textContent).toBe('Copied the last reply.');
  });
});
