import { describe, expect, it, vi } from 'vitest';
import { render, fireEvent } from '@testing-library/svelte';
import { splitBlocks } from './blocks';
import { renderMarkdown } from './render';
import { highlighter, loadHighlighter } from './highlight.svelte';
import { MarkdownStream } from './stream';
import { handleMarkdownClick } from './clicks';
import Markdown from '../components/chat/Markdown.svelte';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('splitBlocks', () => {
  it('splits at blank lines', () => {
    expect(splitBlocks('# Title\n\nOne\ntwo\n\n- a\n- b').map((b) => b.src)).toEqual(['# Title', 'One\ntwo', '- a\n- b']);
  });

  it('never splits inside a code fence', () => {
    const text = 'Intro\n\n```py\na = 1\n\n\nb = 2\n```\n\nAfter';
    expect(splitBlocks(text).map((b) => b.src)).toEqual(['Intro', '```py\na = 1\n\n\nb = 2\n```', 'After']);
  });

  it('keeps an indented continuation with its list item', () => {
    expect(splitBlocks('1. one\n\n   more of one\n2. two').length).toBe(1);
  });

  it('can rescan from a block start', () => {
    const text = 'a\n\nb\n\nc';
    const all = splitBlocks(text);
    expect(splitBlocks(text, all[1].start)).toEqual(all.slice(1));
  });
});

describe('renderMarkdown', () => {
  it('shows raw HTML from a model as text', () => {
    const html = renderMarkdown('Hello <b>bold</b> <script>alert(1)</script>\n\n<div onclick="x()">block</div>\n\n<img src=x onerror=alert(1)>');
    const el = dom(html);
    expect(el.querySelector('b, script, div[onclick], img')).toBeNull();
    expect(el.textContent).toContain('<b>bold</b>');
    expect(el.textContent).toContain('<script>alert(1)</script>');
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('sanitizes what markdown itself produces', () => {
    const el = dom(renderMarkdown('[click](javascript:alert(1)) and ![img](https://example.com/x.png)'));
    for (const a of el.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
    expect(el.querySelector('img')).toBeNull(); // images become links, nothing loads
    expect(el.textContent).toContain('[image: img]');
  });

  it('renders code plain until the highlighter loads, then highlighted', async () => {
    const src = '```python\ndef f():\n    return "<x>"\n```';
    if (highlighter.version === 0) {
      const plain = dom(renderMarkdown(src)); // starts loading it
      expect(plain.querySelector('code')!.textContent).toBe('def f():\n    return "<x>"');
      expect(plain.querySelector('.hljs-keyword')).toBeNull();
    }
    await loadHighlighter();
    expect(highlighter.version).toBe(1);
    const el = dom(renderMarkdown(src));
    expect(el.querySelector('.code-lang')!.textContent).toBe('python');
    expect(el.querySelector('button[data-copy-code]')).not.toBeNull();
    expect(el.querySelector('code.hljs.language-python .hljs-keyword')).not.toBeNull();
    expect(el.querySelector('code')!.textContent).toBe('def f():\n    return "<x>"');
  });

  it('renders tables', () => {
    const el = dom(renderMarkdown('| a | b |\n| - | -: |\n| 1 | 2 |'));
    expect(el.querySelectorAll('table th').length).toBe(2);
    expect(el.querySelector('td')!.textContent).toBe('1');
  });
});

describe('MarkdownStream', () => {
  it('caches finished blocks and renders only the last one again', () => {
    const render = vi.fn((src: string) => `<p>${src}</p>`);
    const s = new MarkdownStream(render);
    s.update('one', false);
    s.update('one\n\ntw', false);
    expect(render.mock.calls.map((c) => c[0])).toEqual(['one', 'one', 'tw']);
    render.mockClear();
    s.update('one\n\ntwo\n\nthr', false);
    s.update('one\n\ntwo\n\nthree', false);
    // 'one' is cached; 'two' rendered once when it finished; the last block each time.
    expect(render.mock.calls.map((c) => c[0])).toEqual(['two', 'thr', 'three']);
    render.mockClear();
    const blocks = s.update('one\n\ntwo\n\nthree', true);
    expect(render.mock.calls.map((c) => c[0])).toEqual(['three']); // final: cached from now on
    expect(blocks.map((b) => b.html)).toEqual(['<p>one</p>', '<p>two</p>', '<p>three</p>']);
    render.mockClear();
    s.update('one\n\ntwo\n\nthree', true);
    expect(render).not.toHaveBeenCalled();
  });

  it('renders every block again when the epoch changes (the highlighter arrived)', () => {
    const render = vi.fn((src: string) => src);
    const s = new MarkdownStream(render);
    s.update('one\n\ntwo', true, 0);
    render.mockClear();
    s.update('one\n\ntwo', true, 0);
    expect(render).not.toHaveBeenCalled();
    s.update('one\n\ntwo', true, 1);
    expect(render.mock.calls.map((c) => c[0])).toEqual(['one', 'two']);
  });

  it('starts over when the text is replaced', () => {
    const s = new MarkdownStream((src) => src);
    s.update('abc\n\ndef', true);
    expect(s.update('xyz', true).map((b) => b.html)).toEqual(['xyz']);
  });
});

describe('links and copy', () => {
  it('opens http links in the system browser and never navigates', () => {
    const el = dom(renderMarkdown('See [docs](https://example.com/a?b=1) or <https://x.org>.'));
    document.body.appendChild(el);
    const openURL = vi.fn();
    const a = el.querySelector('a')!;
    const e = new MouseEvent('click', { bubbles: true, cancelable: true });
    Object.defineProperty(e, 'target', { value: a });
    expect(handleMarkdownClick(e, openURL)).toBe(true);
    expect(e.defaultPrevented).toBe(true);
    expect(openURL).toHaveBeenCalledWith('https://example.com/a?b=1', 'docs'); // the text, to compare
    el.remove();
  });

  it('the Markdown component intercepts link clicks', async () => {
    const openURL = vi.fn();
    const { container } = render(Markdown, { props: { text: 'a [link](https://example.com) <i>raw</i>', openURL } });
    expect(container.querySelector('i')).toBeNull();
    await fireEvent.click(container.querySelector('a')!);
    expect(openURL).toHaveBeenCalledWith('https://example.com', 'link');
  });

  it('copies a code block', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { container } = render(Markdown, { props: { text: '```js\nlet a = 1;\n```', openURL: () => {} } });
    await fireEvent.click(container.querySelector('[data-copy-code]')!);
    expect(writeText).toHaveBeenCalledWith('let a = 1;');
  });
});
