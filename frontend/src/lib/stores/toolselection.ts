// A conversation's tool selection (chat.ToolSelection) and its changes.
// null, or only: null, means every enabled tool, including tools that
// appear later, minus those in off; only: [...] means just those.
//
// Tools are named by key, "serverId/originalName" (chat.ToolKey): exposed
// names change when two servers' names collide, and a selection keyed by
// them would let a server switch a tool back on. An entry without "/" is an
// exposed name stored by an older version; it still counts for the tool
// that has that name now, and any change rewrites the selection in keys.
import type { ToolSelection } from '../backend';

/** What a tool is named by in a selection. */
export interface ToolIdentity {
  name: string;
  serverId: string;
  originalName: string;
}

/** The key a selection names t by. */
export function toolKey(t: ToolIdentity): string {
  return `${t.serverId}/${t.originalName || t.name}`;
}

function names(list: string[], t: ToolIdentity): boolean {
  return list.includes(toolKey(t)) || list.includes(t.name);
}

export function isSelected(sel: ToolSelection | null, t: ToolIdentity): boolean {
  if (!sel) return true;
  return (sel.only === null || names(sel.only, t)) && !names(sel.off ?? [], t);
}

/** sel with every exposed name of a tool in tools replaced by its key. */
export function keyed(sel: ToolSelection | null, tools: ToolIdentity[]): ToolSelection | null {
  if (!sel) return null;
  const byName = new Map(tools.map((t) => [t.name, toolKey(t)]));
  const rekey = (list: string[]) => [...new Set(list.map((n) => (n.includes('/') ? n : (byName.get(n) ?? n))))];
  const out: ToolSelection = { only: sel.only === null ? null : rekey(sel.only) };
  if (sel.off?.length) out.off = rekey(sel.off);
  return out;
}

/** The selection with one tool switched on or off; tools are all the tools, to rewrite old entries. */
export function toggleTool(sel: ToolSelection | null, t: ToolIdentity, on: boolean, tools: ToolIdentity[] = [t]): ToolSelection | null {
  const cur = keyed(sel, tools);
  const key = toolKey(t);
  if (!cur || cur.only === null) {
    const off = new Set(cur?.off ?? []);
    if (on) off.delete(key);
    else off.add(key);
    return off.size ? { only: null, off: [...off] } : null;
  }
  const only = new Set(cur.only);
  if (on) only.add(key);
  else only.delete(key);
  return { only: [...only] };
}

/** "Every enabled tool" on (null), or off: just the ones selected now. */
export function setAll(sel: ToolSelection | null, all: boolean, tools: ToolIdentity[]): ToolSelection | null {
  return all ? null : { only: tools.filter((t) => isSelected(sel, t)).map(toolKey) };
}
