// A conversation's tool selection (chat.ToolSelection) and its changes.
// null, or only: null, means every enabled tool, including tools that
// appear later, minus those in off; only: [...] means just those.
import type { ToolSelection } from '../backend';

export function isSelected(sel: ToolSelection | null, name: string): boolean {
  if (!sel) return true;
  return (sel.only === null || sel.only.includes(name)) && !(sel.off ?? []).includes(name);
}

/** The selection with one tool switched on or off. */
export function toggleTool(sel: ToolSelection | null, name: string, on: boolean): ToolSelection | null {
  if (!sel || sel.only === null) {
    const off = new Set(sel?.off ?? []);
    if (on) off.delete(name);
    else off.add(name);
    return off.size ? { only: null, off: [...off] } : null;
  }
  const only = new Set(sel.only);
  if (on) only.add(name);
  else only.delete(name);
  return { only: [...only] };
}

/** "Every enabled tool" on (null), or off: just the ones selected now. */
export function setAll(sel: ToolSelection | null, all: boolean, names: string[]): ToolSelection | null {
  return all ? null : { only: names.filter((n) => isSelected(sel, n)) };
}
