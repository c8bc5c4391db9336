// The accessibility check of the end-to-end tests: axe-core (the npm
// devDependency, read from node_modules, so no network) run in the page as
// it is now. checkA11y fails on any serious or critical violation and lists
// each one readably: the rule, what it means, and where (the first few
// elements' selectors and axe's summary of what to fix).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets run: WCAG 2.x A and AA, and axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Impacts that fail a check; minor and moderate ones are only counted. */
const FAILING = new Set(['serious', 'critical']);

/** How many elements of one violation the message shows. */
const SHOWN_NODES = 5;

/**
 * Runs axe on page and throws when it finds a serious or critical
 * violation; label names the screen in the message ("tools panel, dark").
 * Returns {violations, failing} (axe's results, all impacts, and the
 * failing ones) when there are none to fail on. Frames are skipped: a
 * server's view is its own page, sandboxed, and not the app's to fix.
 *
 * axe is injected with page.evaluate, which the page's
 * Content-Security-Policy (no inline script) does not apply to.
 */
export async function checkA11y(page, label) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(axeSource);
  }
  const violations = await page.evaluate(async (tags) => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      iframes: false,
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '', html: n.html })),
    }));
  }, TAGS);
  const failing = violations.filter((v) => FAILING.has(v.impact));
  if (failing.length) {
    throw new Error(`accessibility (${label}): ${failing.length} serious or critical ${failing.length === 1 ? 'violation' : 'violations'}\n${formatViolations(failing)}`);
  }
  return { violations, failing };
}

/** One paragraph per violation: "[serious] color-contrast: ... (n elements)" and its elements. */
export function formatViolations(violations) {
  return violations.map((v) => {
    const head = `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} ${v.nodes.length === 1 ? 'element' : 'elements'})`;
    const nodes = v.nodes.slice(0, SHOWN_NODES).map((n) => {
      const why = n.summary.split('\n').map((l) => l.trim()).filter(Boolean).join(' / ');
      return `      at ${n.target}\n         ${n.html.slice(0, 160)}\n         ${why.slice(0, 300)}`;
    });
    if (v.nodes.length > SHOWN_NODES) nodes.push(`      … and ${v.nodes.length - SHOWN_NODES} more`);
    return [head, ...nodes].join('\n');
  }).join('\n');
}
