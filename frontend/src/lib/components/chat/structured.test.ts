import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import ToolResultView from './ToolResultView.svelte';
import type { ToolResult } from '../../backend';
import { isSameJSON, tableOf, textHolds } from './structured';

describe('structured content layout', () => {
  it('a list of flat records is a table, one flat record key/value rows, the rest a tree', () => {
    expect(tableOf([{ a: 1, b: 'x' }, { a: 2, c: null }])).toEqual({ columns: ['a', 'b', 'c'], rows: [{ a: 1, b: 'x' }, { a: 2, c: null }] });
    expect(tableOf({ temperature: 36, conditions: 'drizzle' })).toEqual({
      columns: ['field', 'value'],
      rows: [{ field: 'temperature', value: 36 }, { field: 'conditions', value: 'drizzle' }],
    });
    expect(tableOf([{ a: { nested: 1 } }])).toBeNull();
    expect(tableOf({ a: [1] })).toBeNull();
    expect(tableOf([])).toBeNull();
    expect(tableOf([1, 2])).toBeNull();
    expect(tableOf('x')).toBeNull();
    expect(tableOf([Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`k${i}`, i]))])).toBeNull();
  });

  it('knows the text that is the structured content serialized', () => {
    expect(isSameJSON('{"b": 2, "a": [1]}', { a: [1], b: 2 })).toBe(true);
    expect(isSameJSON('It is 21°C', { t: 21 })).toBe(false);
    expect(isSameJSON('{"a":1}', { a: 2 })).toBe(false);
    expect(isSameJSON(undefined, { a: 1 })).toBe(false);
  });
});

describe('ToolResultView structured content', () => {
  const openURL = () => {};
  it('a kept result without a content list shows as empty instead of breaking the page', () => {
    for (const result of [{ content: null }, {}, { content: 'text' }] as unknown as ToolResult[]) {
      const { unmount } = render(ToolResultView, { props: { openURL, result } });
      expect(screen.getByTestId('tool-result')).toBeTruthy();
      unmount();
    }
  });
  it('shows the weather as a table once, not its JSON text again', () => {
    render(ToolResultView, {
      props: {
        openURL,
        result: {
          content: [{ type: 'text', text: '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}' }],
          structuredContent: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
        },
      },
    });
    const table = screen.getByTestId('tool-structured-table');
    expect([...table.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['temperature', '36', 'conditions', 'Light rain / drizzle', 'humidity', '82']);
    expect(screen.getByTestId('tool-result').textContent?.match(/drizzle/g)).toHaveLength(1);
    expect(screen.queryByTestId('tool-structured-warning')).toBeNull();
  });

  it('keeps a text that says something else, shows nesting as a tree, and the schema warning', () => {
    render(ToolResultView, {
      props: {
        openURL,
        result: {
          content: [{ type: 'text', text: 'Two cities.' }],
          structuredContent: { cities: [{ name: 'Oslo' }] },
          structuredWarning: "the structured content does not match the tool's output schema: missing temperature",
        },
      },
    });
    expect(screen.getByTestId('tool-result').textContent).toContain('Two cities.');
    expect(screen.getByTestId('tool-structured-tree').textContent).toContain('Oslo');
    expect(screen.getByTestId('tool-structured-warning').textContent).toContain('does not match');
  });
});

describe('structured content the text already holds', () => {
  it('holds only strings found in the text', () => {
    expect(textHolds(['hello from the filesystem'], { content: 'hello from the filesystem' })).toBe(true);
    expect(textHolds(['hello'], { content: 'hello', size: 5 })).toBe(false);
    expect(textHolds(['hello'], { content: 'bye' })).toBe(false);
    expect(textHolds([], { content: '' })).toBe(false);
  });

  it('is folded under the text', () => {
    render(ToolResultView, {
      props: { openURL: () => {}, result: { content: [{ type: 'text', text: 'hello from the filesystem' }], structuredContent: { content: 'hello from the filesystem' } } },
    });
    expect(screen.getByTestId('tool-structured-folded').hasAttribute('open')).toBe(false);
    expect(screen.getByTestId('tool-result').textContent).toContain('hello from the filesystem');
  });
});
