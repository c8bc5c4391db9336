import { describe, expect, it } from 'vitest';
import { isSelected, setAll, toggleTool } from './toolselection';

describe('tool selection', () => {
  it('null offers everything; off removes some and keeps future tools on', () => {
    expect(isSelected(null, 'a')).toBe(true);
    const s = toggleTool(null, 'a', false);
    expect(s).toEqual({ only: null, off: ['a'] });
    expect(isSelected(s, 'a')).toBe(false);
    expect(isSelected(s, 'new')).toBe(true);
    expect(toggleTool(s, 'a', true)).toBeNull();
  });

  it('only offers just those', () => {
    const s = setAll(null, false, ['a', 'b', 'c']);
    expect(s).toEqual({ only: ['a', 'b', 'c'] });
    const t = toggleTool(s, 'b', false);
    expect(t).toEqual({ only: ['a', 'c'] });
    expect(isSelected(t, 'new')).toBe(false);
    expect(setAll(t, true, ['a'])).toBeNull();
  });
});
