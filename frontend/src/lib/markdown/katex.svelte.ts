// KaTeX (script, stylesheet and fonts) is loaded on first use, like the
// highlighter: a formula rendered before it arrives shows as its source,
// and `mathLib.version` changes once it is ready, so the markdown waiting on
// it is rendered again. Formulas are rendered once per source (a bounded
// cache): a streaming message renders its last block on every delta, and
// its finished formulas must cost nothing then.
import type { KatexOptions } from 'katex';
import { sanitizeMath } from './purify';
import { escapeHtml } from './escape';

type Katex = typeof import('katex').default;

let katex: Katex | undefined;
let loading: Promise<void> | undefined;

/** Reactive: version goes from 0 to 1 when KaTeX has loaded. */
export const mathLib = $state({ version: 0, failed: false });

/** Loads KaTeX and its stylesheet once; later calls return the same promise. */
export function loadKatex(): Promise<void> {
  loading ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(
    ([m]) => {
      katex = m.default;
      mathLib.version++;
    },
    () => {
      mathLib.failed = true; // formulas stay source text
    },
  );
  return loading;
}

const options: KatexOptions = {
  throwOnError: true,
  output: 'htmlAndMathml',
  trust: false, // no \href, \url, \includegraphics, \html*
  strict: 'ignore',
  maxSize: 50, // em, for \rule and \kern
  maxExpand: 500, // macro expansions: a recursive \def stops here
};

/** How many rendered formulas are kept. */
const CACHE = 1000;
const cache = new Map<string, string>();

/** A formula as HTML, and whether it is still to come (KaTeX loading). */
export interface MathHtml {
  html: string;
  pending: boolean;
}

/**
 * Renders tex (raw is how it was written, delimiters included) as
 * sanitized HTML. Until KaTeX has loaded, and for ever if it cannot, the
 * formula shows as raw; a formula KaTeX refuses shows as raw too, with its
 * error as a tooltip. Never throws.
 */
export function renderTex(tex: string, display: boolean, raw: string): MathHtml {
  const key = (display ? 'D' : 'I') + tex;
  const hit = cache.get(key);
  if (hit !== undefined) return { html: hit, pending: false };
  if (!katex) {
    if (!mathLib.failed) void loadKatex();
    return { html: `<span class="math-source">${escapeHtml(raw)}</span>`, pending: !mathLib.failed };
  }
  let html: string;
  try {
    html = sanitizeMath(katex.renderToString(tex, { ...options, displayMode: display }));
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    html = `<span class="math-error" title="${escapeHtml(why.slice(0, 300))}">${escapeHtml(raw)}</span>`;
  }
  if (cache.size >= CACHE) cache.delete(cache.keys().next().value!);
  cache.set(key, html);
  return { html, pending: false };
}
