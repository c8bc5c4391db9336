// In a file of its own: KaTeX must start unloaded.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { tick } from 'svelte';
import { blockMath, inlineMath, MAX_TEX } from './math';
import { renderBlock, renderMarkdown } from './render';
import { loadKatex, mathLib } from './katex.svelte';
import { MarkdownStream } from './stream';
import Markdown from '../components/chat/Markdown.svelte';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

/** The TeX of each formula in src, as the renderer finds them (source text before KaTeX loads). */
function formulas(src: string): string[] {
  return [...dom(renderMarkdown(src)).querySelectorAll('.katex annotation, [data-tex]')].map((e) => e.textContent ?? '');
}

describe('before KaTeX has loaded', () => {
  it('shows a formula as its source, then rendered once KaTeX arrives', async () => {
    expect(mathLib.version).toBe(0);
    const r = renderBlock('Energy: $E = mc^2$.');
    expect(r.pending).toBe(true);
    expect(dom(r.html).querySelector('.math-source')!.textContent).toBe('$E = mc^2$');
    const { container } = render(Markdown, { props: { text: 'Energy: $E = mc^2$.\n\nNo math here.', openURL: () => {} } });
    expect(container.querySelector('.katex')).toBeNull();
    await loadKatex(); // already started
    await tick();
    expect(container.querySelector('.katex .katex-html')).not.toBeNull();
    expect(container.querySelector('.math-source')).toBeNull();
    expect(container.textContent).toContain('No math here.');
  });
});

describe('the math tokenizer', () => {
  it('finds inline and displayed formulas', () => {
    expect(inlineMath('$x^2$ rest')).toEqual({ raw: '$x^2$', tex: 'x^2', display: false });
    expect(inlineMath('$$\\sum_i i$$ rest')).toEqual({ raw: '$$\\sum_i i$$', tex: '\\sum_i i', display: true });
    expect(inlineMath('\\(a+b\\) rest')).toEqual({ raw: '\\(a+b\\)', tex: 'a+b', display: false });
    expect(inlineMath('\\[a+b\\] rest')).toEqual({ raw: '\\[a+b\\]', tex: 'a+b', display: true });
    expect(blockMath('$$\nx = 1\n$$\nafter')).toEqual({ raw: '$$\nx = 1\n$$\n', tex: 'x = 1', display: true });
    expect(blockMath('\\[\nx\n\\]')).toEqual({ raw: '\\[\nx\n\\]', tex: 'x', display: true });
  });

  it('leaves prices alone', () => {
    for (const s of ['$5 and $10', '$5, $6 or $7.50', '$ 5$', '$x $', '$5$10', '$', '$$', 'US$5 and US$6']) {
      expect(inlineMath(s), s).toBeUndefined();
    }
    expect(formulas('It costs $5 and $10, or $20.\n\nNot $ x$ nor $x $ either.')).toEqual([]);
    const el = dom(renderMarkdown('It costs $5 and $10.'));
    expect(el.textContent!.trim()).toBe('It costs $5 and $10.');
  });

  it('skips a $ that does not close and keeps looking', () => {
    expect(inlineMath('$a $b$')).toEqual({ raw: '$a $b$', tex: 'a $b', display: false });
  });

  it('treats \\$ as a dollar sign, outside and inside a formula', () => {
    expect(formulas('a \\$x$ b')).toEqual([]);
    expect(dom(renderMarkdown('a \\$x$ b')).textContent!.trim()).toBe('a $x$ b');
    expect(inlineMath('$a\\$b$')).toEqual({ raw: '$a\\$b$', tex: 'a\\$b', display: false });
  });

  it('never looks into code spans or code blocks', () => {
    expect(formulas('Run `echo $x$` now')).toEqual([]);
    expect(formulas('```sh\necho $a$ $$b$$\n```')).toEqual([]);
    expect(formulas('    $$x$$ indented code')).toEqual([]);
    expect(inlineMath('$a `b$` c')).toBeUndefined(); // a backtick first: a code span, not math
    expect(dom(renderMarkdown('Run `echo $x$` now')).querySelector('code')!.textContent).toBe('echo $x$');
  });

  it('leaves unclosed math as text', () => {
    expect(inlineMath('$x^2 + ')).toBeUndefined();
    expect(inlineMath('$$\\sum_i')).toBeUndefined();
    expect(blockMath('$$\n\\sum_i\n')).toBeUndefined();
    expect(blockMath('$$a$$ and more')).toBeUndefined(); // a paragraph with the formula inline
    const el = dom(renderMarkdown('$$\n\\frac{a}{'));
    expect(el.querySelector('.katex')).toBeNull();
    expect(el.textContent).toContain('$$');
  });

  it('leaves a formula past MAX_TEX as text', () => {
    expect(inlineMath('$' + 'x'.repeat(MAX_TEX + 10) + '$')).toBeUndefined();
  });
});

describe('rendering math', () => {
  it('renders inline and displayed math, in paragraphs, lists and tables', async () => {
    await loadKatex();
    const el = dom(renderMarkdown('Inline $a^2 + b^2 = c^2$ and \\(x\\).'));
    expect(el.querySelectorAll('p .katex').length).toBe(2);
    // (happy-dom parses <math> as HTML, so DOMPurify drops it here; the
    // browser end-to-end test checks the MathML is kept.)
    expect(el.querySelector('.katex .katex-html')).not.toBeNull();
    expect(el.textContent).not.toContain('$');
    const block = dom(renderMarkdown('$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$'));
    expect(block.querySelector('.math-block .katex-display')).not.toBeNull();
    const mid = dom(renderMarkdown('The sum\n$$\n\\sum_{i=1}^n i\n$$\nis known.'));
    expect(mid.querySelector('.katex-display')).not.toBeNull();
    expect(mid.textContent).toContain('The sum');
    expect(mid.textContent).toContain('is known.');
    expect(dom(renderMarkdown('- item $x_1$\n- two')).querySelector('li .katex')).not.toBeNull();
    expect(dom(renderMarkdown('| a | b |\n| - | - |\n| $x$ | 2 |')).querySelector('td .katex')).not.toBeNull();
    expect(dom(renderMarkdown('**bold $y$**')).querySelector('strong .katex')).not.toBeNull();
  });

  it('shows a formula KaTeX refuses as its source, with the error as a tooltip', async () => {
    await loadKatex();
    let html = '';
    expect(() => (html = renderMarkdown('Bad: $\\frac{1}{$ and $\\undefinedmacro{x}$ ok'))).not.toThrow();
    const errs = dom(html).querySelectorAll('.math-error');
    expect([...errs].map((e) => e.textContent)).toEqual(['$\\frac{1}{$', '$\\undefinedmacro{x}$']);
    expect(errs[0].getAttribute('title')).toMatch(/KaTeX parse error/);
    expect(dom(html).textContent).toContain('ok');
  });
});

describe('streaming math', () => {
  it('never throws and never shows half a formula rendered', async () => {
    await loadKatex();
    const text = 'Consider $x^2 + y^2$ here.\n\n$$\n\\int_0^\\infty e^{-x}\\,dx = 1\n$$\n\nAnd \\(a\\) then $$b$$ done, at $5 and $10.';
    const s = new MarkdownStream();
    let lastKatex = 0;
    for (let i = 1; i <= text.length; i++) {
      const prefix = text.slice(0, i);
      const blocks = s.update(prefix, false, mathLib.version);
      const el = dom(blocks.map((b) => b.html).join(''));
      const n = el.querySelectorAll('.katex').length;
      // A formula appears only once closed, and what has appeared stays.
      expect(n, JSON.stringify(prefix)).toBeGreaterThanOrEqual(lastKatex);
      expect(el.querySelector('.math-error'), prefix).toBeNull();
      lastKatex = n;
    }
    expect(lastKatex).toBe(4);
  });

  it('renders a formula once, however often its block is rendered again', async () => {
    await loadKatex();
    const s = new MarkdownStream();
    const base = 'Uniquely $\\sqrt{12345}$ and';
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) s.update(base + ' word'.repeat(i), false, mathLib.version);
    // 200 renders of the block, but KaTeX ran once: well under a millisecond a render.
    expect((performance.now() - t0) / 200).toBeLessThan(5);
  });
});
