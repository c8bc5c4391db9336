// In a file of its own: the highlighter must start unloaded.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { tick } from 'svelte';
import Markdown from '../components/chat/Markdown.svelte';
import { highlighter, loadHighlighter } from './highlight.svelte';

describe('lazy highlighting', () => {
  it('shows code plain at once, then highlighted when the highlighter has loaded', async () => {
    expect(highlighter.version).toBe(0);
    const { container } = render(Markdown, { props: { text: '```js\nconst a = "x";\n```\n\nafter', openURL: () => {} } });
    expect(container.querySelector('code')!.textContent).toBe('const a = "x";');
    expect(container.querySelector('.hljs-keyword')).toBeNull();
    await loadHighlighter(); // already started by the render
    await tick();
    expect(container.querySelector('code .hljs-keyword')!.textContent).toBe('const');
    expect(container.querySelector('code')!.textContent).toBe('const a = "x";');
    expect(container.textContent).toContain('after');
  });

  it('shows code without a language as escaped plain text', () => {
    const { container } = render(Markdown, { props: { text: '```\nplain <b>\n```', openURL: () => {} } });
    expect(container.querySelector('code')!.innerHTML).toBe('plain &lt;b&gt;');
  });
});
