import { describe, expect, it } from 'vitest';
import { isSelected, keyed, setAll, toggleTool, toolKey, type ToolIdentity } from './toolselection';

const tool = (serverId: string, originalName: string, name = `${serverId}__${originalName}`): ToolIdentity => ({ serverId, originalName, name });
const a = tool('s', 'a');
const b = tool('s', 'b');
const c = tool('s', 'c');
const fresh = tool('s', 'new');

describe('tool selection', () => {
  it('null offers everything; off removes some and keeps future tools on', () => {
    expect(isSelected(null, a)).toBe(true);
    const s = toggleTool(null, a, false);
    expect(s).toEqual({ only: null, off: ['s/a'] });
    expect(isSelected(s, a)).toBe(false);
    expect(isSelected(s, fresh)).toBe(true);
    expect(toggleTool(s, a, true)).toBeNull();
  });

  it('only offers just those', () => {
    const s = setAll(null, false, [a, b, c]);
    expect(s).toEqual({ only: ['s/a', 's/b', 's/c'] });
    const t = toggleTool(s, b, false);
    expect(t).toEqual({ only: ['s/a', 's/c'] });
    expect(isSelected(t, fresh)).toBe(false);
    expect(setAll(t, true, [a])).toBeNull();
  });

  it('names tools by server and original name, so a rename does not switch one back on', () => {
    const record = tool('a', 'record');
    const off = toggleTool(null, record, false, [record]);
    expect(off).toEqual({ only: null, off: ['a/record'] });
    // Another server lists "record": a's exposed name changes.
    const renamed = tool('a', 'record', 'a__record_2f9c');
    const other = tool('b', 'record');
    expect(isSelected(off, renamed)).toBe(false);
    expect(isSelected(off, other)).toBe(true);
    expect(toolKey(renamed)).toBe('a/record');
  });

  it('reads and rewrites a selection stored as exposed names', () => {
    const old = { only: ['s__a', 's__b', 'gone'], off: ['s__b'] };
    expect(isSelected(old, a)).toBe(true);
    expect(isSelected(old, b)).toBe(false);
    expect(keyed(old, [a, b, c])).toEqual({ only: ['s/a', 's/b', 'gone'], off: ['s/b'] });
    expect(toggleTool(old, c, true, [a, b, c])).toEqual({ only: ['s/a', 's/b', 'gone', 's/c'] });
  });
});
