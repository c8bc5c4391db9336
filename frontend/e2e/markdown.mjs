// Markdown people paste, in Chromium against the real backend: the fake
// provider echoes the message ("You said: …"), streamed, so the reply has
// inline and displayed math, prices, a table and a Mermaid flowchart. KaTeX
// and Mermaid load on first use; the formulas keep their MathML, the
// diagram is an SVG with its labels, drawn again in the dark theme; a
// diagram that tries to link or restyle the app stays inert; one that does
// not parse shows its source and a short error. Screenshots light and dark.
import assert from 'node:assert/strict';
import { WAIT, ensureProvider, send, setTheme, turnDone, until } from './helpers.mjs';
import { checkA11y } from './a11y.mjs';

const rich = [
  'Here is the maths: the energy is $E = mc^2$ and the roots are \\(x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\\). It costs $5 and $10, not more.',
  '',
  '$$',
  '\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}',
  '$$',
  '',
  '| Model | Tokens/s | Cost |',
  '| --- | ---: | ---: |',
  '| fast | 3000 | $0.10 |',
  '| slow | 40 | $0.01 |',
  '',
  '```mermaid',
  'flowchart LR',
  '  Q[Question] --> M{Model}',
  '  M -->|tool call| T[MCP server]',
  '  T --> M',
  '  M --> A[Answer]',
  '```',
  '',
  'Done.',
].join('\n');

const hostile = [
  'Hostile:',
  '',
  '```mermaid',
  'flowchart LR',
  '  A[Click me] --> B',
  '  click A "javascript:alert(1)" "tip"',
  '  click B href "https://example.com"',
  '  style A fill:#f00,position:fixed,top:0',
  '  classDef evil fill:#0f0,position:fixed,top:0,left:0',
  '  class B evil',
  '```',
  '',
  '```mermaid',
  'flowchart LR',
  '  A -->',
  '```',
].join('\n');

export function register({ test, withPage, shot, fake }) {
  test('markdown: math, a table and a Mermaid flowchart render in the reply, light and dark', async () => {
    await withPage(async (page) => {
      await ensureProvider(page, fake.url);
      await setTheme(page, 'light');
      // Nothing of KaTeX or Mermaid is loaded before a message needs it.
      const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /katex|mermaid/i.test(n)));
      assert.deepEqual(await loaded(), [], 'KaTeX and Mermaid load on first use');

      await send(page, rich);
      const reply = await turnDone(page);
      const text = reply.getByTestId('message-text');
      await until(async () => (await text.locator('.diagram svg').count()) === 1, 'the flowchart drawn');
      assert.ok((await loaded()).some((n) => /katex/i.test(n)), 'KaTeX loaded');
      assert.ok((await loaded()).some((n) => /mermaid/i.test(n)), 'Mermaid loaded');

      const got = await text.evaluate((el) => ({
        katex: el.querySelectorAll('.katex').length,
        display: el.querySelectorAll('.math-block .katex-display').length,
        mathml: el.querySelectorAll('.katex math').length,
        errors: el.querySelectorAll('.math-error, .diagram-error').length,
        th: [...el.querySelectorAll('table th')].map((t) => t.textContent.trim()),
        cells: [...el.querySelectorAll('table td')].map((t) => t.textContent.trim()),
        prices: el.textContent.includes('It costs $5 and $10, not more.'),
        svgRole: el.querySelector('.diagram svg')?.getAttribute('aria-roledescription'),
        labels: [...el.querySelectorAll('.diagram svg text')].map((t) => t.textContent.trim()).filter(Boolean),
        fontLoaded: document.fonts.check('16px KaTeX_Main'),
        mathWidth: el.querySelector('.katex-display')?.getBoundingClientRect().width ?? 0,
      }));
      assert.equal(got.katex, 3, 'two inline formulas and one displayed');
      assert.equal(got.display, 1);
      assert.equal(got.mathml, 3, 'the MathML is kept, for screen readers');
      assert.equal(got.errors, 0);
      assert.deepEqual(got.th, ['Model', 'Tokens/s', 'Cost']);
      assert.deepEqual(got.cells, ['fast', '3000', '$0.10', 'slow', '40', '$0.01']);
      assert.ok(got.prices, 'prices stay text');
      assert.match(got.svgRole ?? '', /flowchart/);
      for (const l of ['Question', 'Model', 'MCP server', 'Answer', 'tool call']) assert.ok(got.labels.includes(l), `label ${l} in ${got.labels}`);
      assert.ok(got.mathWidth > 50, 'the displayed formula has a size');

      await text.locator('.diagram-block').scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await shot(page, 'markdown-light');
      await checkA11y(page, 'chat with math and a diagram, light');

      // Dark: the diagram is drawn again in the dark theme.
      const lightSvg = await text.locator('.diagram svg').getAttribute('id');
      await setTheme(page, 'dark');
      await until(async () => (await text.locator('.diagram svg').getAttribute('id').catch(() => lightSvg)) !== lightSvg, 'the flowchart drawn again in the dark theme');
      const fill = await text.locator('.diagram svg .node rect, .diagram svg .node polygon').first().evaluate((e) => getComputedStyle(e).fill);
      const [r, g, b] = fill.match(/\d+/g).map(Number);
      assert.ok(r + g + b < 3 * 128, `a dark node fill in the dark theme, got ${fill}`);
      await text.locator('.diagram-block').scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await shot(page, 'markdown-dark');
      await checkA11y(page, 'chat with math and a diagram, dark');
      await setTheme(page, 'light');
    });
  });

  test('markdown: a hostile diagram stays inert and a broken one shows its source', async () => {
    await withPage(async (page) => {
      await ensureProvider(page, fake.url);
      await send(page, hostile);
      const reply = await turnDone(page);
      const text = reply.getByTestId('message-text');
      await until(async () => (await text.locator('.diagram svg').count()) === 1 && (await text.locator('.diagram-error').count()) === 1,
        async () => `one diagram drawn, one refused; the reply shows: ${(await text.innerText()).slice(0, 600)}`);
      const got = await text.evaluate((el) => {
        const svg = el.querySelector('.diagram svg');
        const css = [...svg.querySelectorAll('style')].map((s) => s.textContent).join('\n');
        return {
          labels: [...svg.querySelectorAll('text')].map((t) => t.textContent.trim()).filter(Boolean),
          dangerous: svg.querySelectorAll('a, script, foreignObject, use, image, [href], [onclick], [onload]').length,
          styles: [...svg.querySelectorAll('[style]')].map((e) => e.getAttribute('style')).filter((s) => /position|url\(/i.test(s)),
          cssBad: /position\s*:\s*fixed|url\(http/i.test(css),
          cover: [...document.querySelectorAll('body *')].some((e) => getComputedStyle(e).position === 'fixed' && e.closest('.diagram')),
          error: el.querySelector('.diagram-error').textContent,
          source: el.querySelector('.diagram-error').closest('.code-block').querySelector('code').textContent,
        };
      });
      assert.deepEqual(got, { labels: ['Click me', 'B'], dangerous: 0, styles: [], cssBad: false, cover: false, error: got.error, source: 'flowchart LR\n  A -->' });
      assert.match(got.error, /^Diagram not drawn: .{3,}/);
      assert.ok(got.error.length < 200, got.error);
      await text.locator('.diagram-error').scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await shot(page, 'markdown-hostile');
    });
  });
}
