// What the command palette and the shortcuts can do, built from the
// stores each time the palette opens: the actions, the places to go, the
// conversations to switch to and the models to pick.
import { tick } from 'svelte';
import { copyText } from '../../markdown/clicks';
import type { Stores } from '../../stores/root.svelte';
import type { Tab } from '../../stores/ui.svelte';
import type { ShortcutId } from './shortcuts';

export interface Command {
  id: string;
  label: string;
  /** The section it is listed under. */
  group: 'Actions' | 'Go to' | 'Chats' | 'Models';
  /** Further words it is found by (not shown). */
  keywords?: string;
  shortcut?: ShortcutId;
  run: () => void | Promise<void>;
}

/** The most conversations and models listed, so the palette stays quick. */
export const MAX_CHATS = 300;
export const MAX_MODELS = 200;

/** The tabs to go to; a tab the app does not have yet is left out. */
const PLACES: { tab: string; label: string; keywords?: string }[] = [
  { tab: 'chat', label: 'Chat' },
  { tab: 'tools', label: 'Tools and MCP servers', keywords: 'servers mcp' },
  { tab: 'tasks', label: 'Tasks' },
  { tab: 'activity', label: 'Tool activity', keywords: 'audit calls history' },
  { tab: 'logs', label: 'Logs' },
  { tab: 'apps', label: 'Connected apps', keywords: 'clients' },
  { tab: 'settings', label: 'Settings', keywords: 'preferences providers' },
];

/** Focuses the first element matching selector once the DOM has caught up. */
async function focusLater(selector: string): Promise<boolean> {
  await tick();
  const el = document.querySelector<HTMLElement>(selector);
  el?.focus();
  if (el instanceof HTMLInputElement) el.select();
  return !!el;
}

/** Runs a shortcut's action. */
export async function runShortcut(s: Stores, id: ShortcutId): Promise<void> {
  switch (id) {
    case 'palette':
      if (s.keyboard.palette) s.keyboard.closePalette();
      else s.keyboard.openPalette();
      return;
    case 'shortcuts':
      s.keyboard.openHelp();
      return;
    case 'newChat':
      s.openNewChat();
      await focusLater('[data-testid="composer-input"]');
      return;
    case 'search':
      s.ui.show('chat');
      if (s.conversations.showArchived) await s.conversations.setShowArchived(false);
      await focusLater('[data-testid="search-input"]');
      return;
    case 'focusComposer':
      s.ui.show('chat');
      await focusLater('[data-testid="composer-input"]');
      return;
    case 'copyReply': {
      const last = [...s.chat.visible].reverse().find((m) => m.role === 'assistant' && m.content.trim());
      if (!last) s.keyboard.say('There is no reply to copy yet.');
      else s.keyboard.say((await copyText(last.content)) ? 'Copied the last reply.' : 'The clipboard refused the reply.');
      return;
    }
    case 'stop':
      if (s.chat.running) await s.chat.stop();
      return;
    case 'nextChat':
    case 'prevChat': {
      const c = s.conversations.neighbour(s.chat.conversationId, id === 'nextChat' ? 1 : -1);
      if (c) await s.openConversation(c.id);
      return;
    }
    case 'rename':
      startRename(s);
      return;
  }
}

function startRename(s: Stores): void {
  const id = s.chat.conversationId;
  if (!id) {
    s.keyboard.say('A new chat gets its title from the first message.');
    return;
  }
  s.ui.show('chat');
  s.conversations.setRenaming(id);
}

function toggleTheme(s: Stores): Promise<boolean> {
  const shown = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
  return s.settings.setTheme(shown === 'dark' ? 'light' : 'dark');
}

/** Every command, in the order the palette lists them before a query. */
export function buildCommands(s: Stores, tabs: readonly string[]): Command[] {
  const out: Command[] = [];
  const act = (id: string, label: string, run: () => void | Promise<void>, extra: Partial<Command> = {}) =>
    out.push({ id, label, group: 'Actions', run, ...extra });
  const sc = (id: ShortcutId) => () => runShortcut(s, id);

  act('new-chat', 'New chat', sc('newChat'), { shortcut: 'newChat', keywords: 'start conversation' });
  act('search', 'Search conversations', sc('search'), { shortcut: 'search', keywords: 'find messages' });
  act('focus-composer', 'Focus the message box', sc('focusComposer'), { shortcut: 'focusComposer', keywords: 'composer write type' });
  act('copy-reply', 'Copy the last reply', sc('copyReply'), { shortcut: 'copyReply', keywords: 'clipboard answer' });
  if (s.chat.running) act('stop', 'Stop the reply', sc('stop'), { shortcut: 'stop' });
  act('next-chat', 'Next chat', sc('nextChat'), { shortcut: 'nextChat' });
  act('prev-chat', 'Previous chat', sc('prevChat'), { shortcut: 'prevChat' });
  const cur = s.conversations.byId(s.chat.conversationId);
  if (cur) {
    act('rename', 'Rename this chat', () => startRename(s), { shortcut: 'rename', keywords: 'title' });
    act('pin', cur.pinned ? 'Unpin this chat' : 'Pin this chat', () => s.conversations.pin(cur.id, !cur.pinned), { keywords: 'top favourite' });
    act('archive', cur.archived ? 'Unarchive this chat' : 'Archive this chat', () => s.conversations.archive(cur.id, !cur.archived), { keywords: 'hide' });
  }
  act('archived', s.conversations.showArchived ? 'Show the conversations' : 'Show archived chats', () => {
    s.ui.show('chat');
    return s.conversations.setShowArchived(!s.conversations.showArchived);
  });
  act('theme', 'Toggle light and dark theme', () => void toggleTheme(s), { keywords: 'appearance colour color mode' });
  act('shortcuts', 'Keyboard shortcuts', sc('shortcuts'), { shortcut: 'shortcuts', keywords: 'keys help' });

  for (const p of PLACES) {
    if (!tabs.includes(p.tab)) continue;
    out.push({ id: `go-${p.tab}`, label: `Go to ${p.label}`, group: 'Go to', keywords: p.keywords, run: () => s.ui.show(p.tab as Tab) });
  }

  for (const c of s.conversations.ordered.slice(0, MAX_CHATS)) {
    out.push({ id: `chat-${c.id}`, label: c.title || 'New chat', group: 'Chats', keywords: c.pinned ? 'pinned' : undefined, run: () => s.openConversation(c.id) });
  }

  let models = 0;
  for (const p of s.providers.providers) {
    for (const m of s.providers.models(p.id).models) {
      if (models++ >= MAX_MODELS) break;
      out.push({ id: `model-${p.id}-${m}`, label: `Use ${m}`, group: 'Models', keywords: `model ${p.name}`, run: () => s.chat.setModel(p.id, m) });
    }
  }
  return out;
}

/** Loads what the palette lists that may not be loaded yet (the models). */
export function warmCommands(s: Stores): void {
  for (const p of s.providers.providers) void s.providers.loadModels(p.id);
}
