// @vitest-environment jsdom
// Sanitizing is tested in jsdom, not happy-dom: happy-dom's NodeIterator
// skips the rest of a tree after DOMPurify removes a node (so a <script>
// after a removed element survives there, never in a browser), and it
// parses <math> as HTML. The browser end-to-end test (e2e/markdown.mjs)
// checks the same in Chromium.
import { afterEach, describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { tick } from 'svelte';
import { renderBlock, renderMarkdown } from './render';
import { loadKatex } from './katex.svelte';
import { sanitizeMath, sanitizeSvg, scopeCss } from './purify';
import { diagramsSettled, useDiagramRenderer, type DiagramRenderer } from './diagram.svelte';
import Markdown from '../components/chat/Markdown.svelte';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

/** Every attribute value in el (but titles, which are text), to look for what must not be there. */
function attrValues(el: Element): string[] {
  return [...el.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => a.name !== 'title').map((a) => `${e.localName}@${a.name}=${a.value}`));
}

const dangerous = 'script, style:not(svg style), a, use, img, image, iframe, foreignObject, [onerror], [onclick], [onload], [href], [xlink\\:href]';

describe('math, sanitized', () => {
  it('keeps the MathML and KaTeX HTML of a formula', async () => {
    await loadKatex();
    const el = dom(renderMarkdown('Pythagoras: $a^2 + b^2 = c^2$ and $$\\sqrt{x}$$'));
    expect(el.querySelectorAll('.katex math').length).toBe(2); // for screen readers
    expect(el.querySelector('.katex math mi')!.textContent).toBe('a');
    expect(el.querySelector('annotation, semantics')).toBeNull();
    expect(el.querySelector('.katex-html [style*="height"]')).not.toBeNull();
    expect(el.querySelector('.katex-display svg path')).not.toBeNull(); // the root sign
  });

  it('keeps formulas that try to inject inert', async () => {
    await loadKatex();
    const hostile = [
      '$\\href{javascript:alert(1)}{click}$',
      '$\\url{javascript:alert(1)}$',
      '$\\htmlClass{x}{y} \\htmlStyle{position:fixed}{z} \\htmlData{onerror=alert(1)}{w}$',
      '$\\includegraphics{http://example.com/x.png}$',
      '$$\\text{<script>alert(1)</script><img src=x onerror=alert(1)>}$$',
      '$\\color{red;background:url(http://x)}{a}$',
      '$\\def\\a{\\a\\a}\\a$', // expands for ever: stopped by maxExpand
      '$x$<script>alert(1)</script>$y$',
      '$\\text{</span><img src=x onerror=alert(1)>}$',
    ];
    for (const src of hostile) {
      const el = dom(renderMarkdown(src));
      expect(el.querySelector(dangerous), src).toBeNull();
      for (const v of attrValues(el)) expect(v, src).not.toMatch(/javascript:|url\(|position:\s*fixed/i);
    }
  });

  it('sanitizes the HTML itself, in case KaTeX let something through', () => {
    const el = dom(
      sanitizeMath(
        '<span class="katex" style="background:url(http://x/a.png)"><span style="height:1em">a</span>' +
          '<svg><a href="javascript:alert(1)"><path d="M0 0" onclick="alert(1)"/></a><use href="#x"/><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>' +
          '<math><mi xlink:href="javascript:alert(1)">x</mi></math>' +
          '<script>alert(1)</script><style>body{display:none}</style><span style="position: fixed; inset: 0">cover</span>' +
          '<span style="color: \\72 ed">escaped</span></span>',
      ),
    );
    expect(el.querySelector('script, style, a, use, img, foreignObject, [onclick], [onerror], [href], [xlink\\:href]')).toBeNull();
    expect(el.querySelector('.katex')!.getAttribute('style')).toBeNull();
    expect(el.querySelector('.katex > span')!.getAttribute('style')).toBe('height:1em');
    expect(el.innerHTML).not.toMatch(/position|javascript|url\(|\\72/);
    expect(el.querySelector('svg path')).toBeNull(); // it was in an <a>: gone with it
    expect(el.querySelector('math mi')!.textContent).toBe('x');
    const ok = dom(sanitizeMath('<span class="katex"><svg width="1em" viewBox="0 0 10 10"><path d="M0 0h10"/><line x1="0" y1="0" x2="1" y2="1"/></svg></span>'));
    expect(ok.querySelector('svg path')).not.toBeNull(); // KaTeX draws roots and arrows with these
    expect(ok.querySelector('svg line')).not.toBeNull();
  });

  it('keeps the markdown around a formula strict', async () => {
    await loadKatex();
    const el = dom(renderMarkdown('$x$ <img src=x onerror=alert(1)> [a](javascript:alert(1)) $y$'));
    expect(el.querySelector(dangerous)).toBeNull();
    expect(el.querySelectorAll('.katex').length).toBe(2);
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>'); // raw HTML shows as text
  });

  it('cannot be forged: a slot-like element in the text stays text', async () => {
    await loadKatex();
    const el = dom(renderMarkdown('$x$ <span data-sb-slot="00-0"></span>'));
    expect(el.querySelector('[data-sb-slot]')).toBeNull();
    expect(el.textContent).toContain('<span data-sb-slot="00-0"></span>');
  });
});

const ID = 'sb-test';

describe('diagrams, sanitized', () => {
  it('keeps an SVG drawing and the style rules scoped to it', () => {
    const svg = sanitizeSvg(
      `<svg id="${ID}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" role="graphics-document document" aria-roledescription="flowchart-v2">` +
        `<style>#${ID}{font-family:sans-serif;fill:#333;}#${ID} .node rect{fill:#eee;stroke:#999;}#${ID} .edge,#${ID} .x{stroke:red}@keyframes dash{to{stroke-dashoffset:0;}}</style>` +
        `<defs><marker id="${ID}_arrow" viewBox="0 0 10 10"><path d="M0 0L10 5L0 10z"/></marker></defs>` +
        `<g class="node"><rect width="40" height="20" style="fill:#fff"/><text x="5" y="15">Start</text></g>` +
        `<path class="edge" d="M40 10L60 10" marker-end="url(#${ID}_arrow)"/></svg>`,
      ID,
    );
    const el = dom(svg);
    expect(el.querySelector('svg g.node rect')!.getAttribute('style')).toBe('fill:#fff');
    expect(el.querySelector('text')!.textContent).toBe('Start');
    expect(el.querySelector('path.edge')!.getAttribute('marker-end')).toBe(`url(#${ID}_arrow)`);
    const css = el.querySelector('svg style')!.textContent!;
    expect(css).toContain(`#${ID} .node rect`);
    expect(css).toContain(`#${ID} .edge`);
    expect(css).toContain('@keyframes dash');
  });

  it('keeps a hostile SVG inert and its styles inside it', () => {
    const svg = sanitizeSvg(
      `<svg id="${ID}" xmlns="http://www.w3.org/2000/svg" onload="alert(1)">` +
        `<style>#${ID} .ok{fill:red} body{display:none} #${ID}x{fill:blue} #${ID} .a, .b{color:red} ` +
        `#${ID} .bg{background:url(http://evil.example/t.png)} @import url(http://evil.example/x.css); #${ID} .esc{fill:\\72 ed} ` +
        `#${ID} .cover{position:fixed;inset:0} :root{--x:1}</style>` +
        `<script>alert(1)</script><a href="javascript:alert(1)"><text>link</text></a>` +
        `<foreignObject><div><img src=x onerror=alert(1)></div></foreignObject>` +
        `<image href="http://evil.example/p.png"/><use href="http://evil.example/s.svg#x"/>` +
        `<rect style="position:fixed;top:0;left:0;width:100vw;height:100vh" onclick="alert(1)"/>` +
        `<animate attributeName="href" to="javascript:alert(1)"/><set attributeName="onclick" to="alert(1)"/>` +
        `<text>ok</text></svg>`,
      ID,
    );
    const el = dom(svg);
    expect(el.querySelector(dangerous)).toBeNull();
    expect(el.querySelector('animate, set, text + a')).toBeNull();
    expect(el.querySelector('svg')!.getAttribute('onload')).toBeNull();
    expect(el.querySelector('rect')!.getAttribute('style')).toBeNull();
    expect([...el.querySelectorAll('text')].map((t) => t.textContent)).toEqual(['link', 'ok']); // a link's node stays, unlinked
    const css = el.querySelector('svg style')!.textContent!;
    expect(css).toContain(`#${ID} .ok`);
    expect(css).not.toMatch(/body|#sb-testx|\.b\b|url\(|@import|\\|position|:root/);
  });

  it('scopes style rules by their selectors, every one of them', () => {
    expect(scopeCss(`#${ID} a{fill:red}#${ID}.b{fill:red}`, ID)).toContain('fill');
    expect(scopeCss(`#${ID}-other a{fill:red}`, ID)).toBe('');
    expect(scopeCss(`#${ID} a, div{fill:red}`, ID)).toBe('');
    expect(scopeCss(`@media screen{#${ID} a{fill:red}}`, ID)).toBe('');
  });

  it('returns nothing for what is not an SVG', () => {
    expect(sanitizeSvg('<div>not a drawing</div>', ID)).toBe('');
    expect(sanitizeSvg('<script>alert(1)</script>', ID)).toBe('');
  });
});

describe('mermaid fences', () => {
  const calls: { id: string; src: string; theme: string }[] = [];
  const fake: DiagramRenderer = async (id, src, theme) => {
    calls.push({ id, src, theme });
    if (src.includes('bad')) throw new Error('Parse error on line 2:\nbad -> x\n^^^ expecting ...');
    if (src.includes('evil')) return `<svg id="${id}"><script>alert(1)</script><a href="javascript:alert(1)"><text>x</text></a><text onclick="alert(1)">evil</text><style>body{display:none}</style></svg>`;
    return `<svg id="${id}" data-theme="${theme}"><style>#${id} text{fill:${theme === 'dark' ? '#eee' : '#111'}}</style><text>${src.length}</text></svg>`;
  };
  afterEach(() => {
    useDiagramRenderer(undefined);
    calls.length = 0;
    delete document.documentElement.dataset.theme;
  });

  it('keeps an open fence as code and draws nothing', () => {
    useDiagramRenderer(fake);
    const r = renderBlock('```mermaid\nflowchart LR\n  A --> B\n');
    expect(calls).toEqual([]);
    expect(r.pending).toBe(false);
    expect(dom(r.html).querySelector('pre code')!.textContent).toBe('flowchart LR\n  A --> B');
    expect(dom(r.html).querySelector('svg')).toBeNull();
  });

  it('draws a closed fence once, and shows it when drawn', async () => {
    useDiagramRenderer(fake);
    const src = '```mermaid\nflowchart LR\n  A --> B\n```';
    const first = renderBlock(src);
    expect(first.pending).toBe(true); // code until drawn
    expect(dom(first.html).querySelector('pre code')!.textContent).toBe('flowchart LR\n  A --> B');
    await diagramsSettled();
    const drawn = renderBlock(src);
    expect(drawn.pending).toBe(false);
    expect(drawn.themed).toBe(true);
    const el = dom(drawn.html);
    expect(el.querySelector('.diagram svg text')!.textContent).toBe(String('flowchart LR\n  A --> B'.length));
    expect(el.querySelector('pre[hidden] code')!.textContent).toBe('flowchart LR\n  A --> B'); // for Copy
    renderBlock(src);
    expect(calls.length).toBe(1); // cached by source
  });

  it('shows a diagram that fails with its source and a short error', async () => {
    useDiagramRenderer(fake);
    const src = '```mermaid\nflowchart LR\n  bad -> x\n```';
    renderBlock(src);
    await diagramsSettled();
    const el = dom(renderBlock(src).html);
    expect(el.querySelector('svg')).toBeNull();
    expect(el.querySelector('pre code')!.textContent).toBe('flowchart LR\n  bad -> x');
    expect(el.querySelector('.diagram-error')!.textContent).toBe('Diagram not drawn: Parse error on line 2:');
  });

  it('keeps a hostile drawing inert', async () => {
    useDiagramRenderer(fake);
    const src = '```mermaid\nflowchart LR\n  evil\n```';
    renderBlock(src);
    await diagramsSettled();
    const el = dom(renderBlock(src).html);
    expect(el.querySelector('.diagram svg')).not.toBeNull();
    expect(el.querySelector(dangerous)).toBeNull();
    expect(el.querySelector('svg style')!.textContent).toBe('');
  });

  it('in the component: code while streaming, the drawing once closed, again on a theme change', async () => {
    useDiagramRenderer(fake);
    const open = 'Here:\n\n```mermaid\nflowchart TD\n  X --> Y';
    const { container, rerender } = render(Markdown, { props: { text: open, streaming: true, openURL: () => {} } });
    expect(container.querySelector('svg')).toBeNull();
    expect(calls).toEqual([]);
    await rerender({ text: open + '\n```\n\nDone.', streaming: true, openURL: () => {} });
    expect(container.querySelector('pre code')!.textContent).toBe('flowchart TD\n  X --> Y'); // until drawn
    await diagramsSettled();
    await tick();
    expect(container.querySelector('.diagram svg')!.getAttribute('data-theme')).toBe('light');
    expect(container.textContent).toContain('Done.');
    await rerender({ text: open + '\n```\n\nDone.', streaming: false, openURL: () => {} });
    document.documentElement.dataset.theme = 'dark';
    await new Promise((r) => setTimeout(r, 0)); // the MutationObserver
    await tick();
    await diagramsSettled();
    await tick();
    expect(container.querySelector('.diagram svg')!.getAttribute('data-theme')).toBe('dark');
    expect(calls.map((c) => c.theme)).toEqual(['light', 'dark']);
  });
});
