// Mermaid diagrams in ```mermaid fences. Mermaid is the largest thing the
// app could load, so it is loaded on first use (a chunk of its own) and
// only for a closed fence: half a diagram, while it streams, stays a code
// block. Drawing is asynchronous; until a diagram is drawn its fence shows
// as code, then `diagrams.version` changes and the markdown waiting on it
// is rendered again. Each diagram is drawn once per source and theme (a
// bounded cache), one at a time, with securityLevel 'strict' and text-only
// labels, and its SVG sanitized (purify.ts). A diagram Mermaid refuses shows
// its source and a short error. The theme follows the app's (data-theme on
// <html>); a theme change draws shown diagrams again.
import { sanitizeSvg } from './purify';

/** A diagram longer than this is not drawn (Mermaid's own limit is 50,000). */
export const MAX_DIAGRAM = 20_000;
/** How many drawn diagrams are kept. */
const CACHE = 64;

export type Diagram = { state: 'drawing' } | { state: 'drawn'; svg: string } | { state: 'failed'; error: string };

/** Draws a diagram's source as an SVG string whose root has id. */
export type DiagramRenderer = (id: string, src: string, theme: 'light' | 'dark') => Promise<string>;

/**
 * Reactive: version changes when a diagram is drawn or fails, themes when
 * the app's theme changes (once a diagram has been asked for).
 */
export const diagrams = $state({ version: 0, themes: 0 });

const cache = new Map<string, Diagram>();
let queue: Promise<void> = Promise.resolve();
let counter = 0;
let renderer: DiagramRenderer = mermaidRenderer;
let watching = false;

/** Replaces Mermaid (tests: happy-dom cannot lay out SVG); resets the cache. */
export function useDiagramRenderer(r: DiagramRenderer | undefined) {
  renderer = r ?? mermaidRenderer;
  cache.clear();
}

/** Resolves when every diagram asked for so far is drawn or failed. */
export function diagramsSettled(): Promise<void> {
  return queue;
}

function appTheme(): 'light' | 'dark' {
  return typeof document !== 'undefined' && document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

function watchTheme() {
  if (watching || typeof MutationObserver === 'undefined') return;
  watching = true;
  new MutationObserver(() => diagrams.themes++).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
}

/**
 * The diagram for src in the app's theme: drawn, failed, or (the first
 * time it is asked for) drawing, which it starts.
 */
export function diagram(src: string): Diagram {
  watchTheme();
  if (src.length > MAX_DIAGRAM) return { state: 'failed', error: `longer than ${MAX_DIAGRAM} characters` };
  const theme = appTheme();
  const key = theme + '\n' + src;
  const hit = cache.get(key);
  if (hit) return hit;
  const drawing: Diagram = { state: 'drawing' };
  if (cache.size >= CACHE) cache.delete(cache.keys().next().value!);
  cache.set(key, drawing);
  const id = `sb-diagram-${++counter}`;
  queue = queue.then(async () => {
    let d: Diagram;
    try {
      const svg = sanitizeSvg(await renderer(id, src, theme), id);
      d = svg ? { state: 'drawn', svg } : { state: 'failed', error: 'the drawing was not an SVG' };
    } catch (e) {
      d = { state: 'failed', error: shortError(e) };
    }
    if (cache.get(key) === drawing) cache.set(key, d);
    diagrams.version++;
  });
  return drawing;
}

/** The first line of an error, at most 160 characters. */
function shortError(e: unknown): string {
  const msg = (e instanceof Error ? e.message : String(e)).trim().split('\n')[0] || 'unknown error';
  return msg.length > 160 ? msg.slice(0, 157) + '…' : msg;
}

type Mermaid = typeof import('mermaid').default;
let mermaid: Promise<Mermaid> | undefined;
let mermaidTheme = '';

async function mermaidRenderer(id: string, src: string, theme: 'light' | 'dark'): Promise<string> {
  mermaid ??= import('mermaid').then((m) => m.default);
  const m = await mermaid;
  if (mermaidTheme !== theme) {
    m.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: theme === 'dark' ? 'dark' : 'default',
      htmlLabels: false, // text in <text>, never HTML in a foreignObject
      suppressErrorRendering: true,
      maxTextSize: MAX_DIAGRAM,
      maxEdges: 500,
      fontFamily: 'system-ui, sans-serif',
    });
    mermaidTheme = theme;
  }
  try {
    await m.parse(src); // throws the parser's error, short of drawing anything
    const { svg } = await m.render(id, src);
    return svg;
  } finally {
    // Mermaid draws in a scratch element of the body; a failure can leave it.
    document.getElementById('d' + id)?.remove();
    document.getElementById(id)?.remove();
  }
}
