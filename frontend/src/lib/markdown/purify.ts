// Sanitizers for what KaTeX and Mermaid produce. The markdown's own HTML is
// sanitized strictly (render.ts: no style, no SVG, no MathML); a formula and
// a diagram need more, so each has a DOMPurify instance of its own, with its
// own hooks, and its output is put back into the markdown's sanitized HTML
// afterwards (render.ts's slots). Nothing here runs script or loads
// anything: no <a>, <use>, <image> or foreignObject, no href at all, no
// event attributes (DOMPurify), and style limited to plain declarations (no
// url(), no escapes, no @-rules, no fixed or absolute positioning); the
// page's CSP (no inline script, nothing loaded from elsewhere) is a second
// wall behind this one.
import DOMPurify, { type DOMPurify as Purifier } from 'dompurify';

/** A style value we refuse: could load, escape the filters, or cover the app. */
const badStyle = /url\s*\(|\\|expression|@|javascript:|position\s*:\s*(fixed|absolute|sticky)|behavior|-moz-binding|<|&/i;

const forbidTags = ['script', 'a', 'use', 'image', 'img', 'foreignobject', 'iframe', 'object', 'embed', 'form', 'input', 'textarea',
  'button', 'animate', 'set', 'animatemotion', 'animatetransform', 'feimage', 'video', 'audio', 'link', 'meta', 'base'];
const forbidAttr = ['href', 'xlink:href', 'src', 'srcset', 'action', 'formaction', 'background', 'ping'];

function styleHook(_node: Element, data: { attrName: string; attrValue: string; keepAttr: boolean }) {
  if (data.attrName === 'style' && badStyle.test(data.attrValue)) data.keepAttr = false;
}

let mathPurifier: Purifier | undefined;
let svgPurifier: Purifier | undefined;

function purifier(): Purifier {
  const p = DOMPurify(window);
  p.addHook('uponSanitizeAttribute', styleHook);
  return p;
}

/** Sanitizes KaTeX's HTML (spans with inline styles, MathML, a few SVG paths). */
export function sanitizeMath(html: string): string {
  mathPurifier ??= purifier();
  // DOMPurify refuses <semantics> and <annotation> (with what they hold,
  // see KEEP_CONTENT): KaTeX's MathML is unwrapped from the one, and the
  // TeX source in the other, only a copy, goes.
  html = html.replace(/<annotation encoding="application\/x-tex">[^<]*<\/annotation>/g, '').replace(/<\/?semantics>/g, '');
  return mathPurifier.sanitize(html, {
    USE_PROFILES: { html: true, mathMl: true, svg: true },
    KEEP_CONTENT: false, // a refused element goes with what it holds
    FORBID_TAGS: [...forbidTags, 'style'],
    FORBID_ATTR: forbidAttr,
  });
}

/**
 * Keeps of a stylesheet only the rules scoped to the element with id
 * (every selector starts with #id) and their keyframes, each free of
 * anything badStyle refuses; "" when the stylesheet cannot be read.
 */
export function scopeCss(css: string, id: string): string {
  let rules: CSSRuleList;
  try {
    const sheet = new CSSStyleSheet(); // parsed, never applied
    sheet.replaceSync(css);
    rules = sheet.cssRules;
  } catch {
    return '';
  }
  const scope = '#' + id;
  const out: string[] = [];
  for (const rule of Array.from(rules)) {
    const text = rule.cssText;
    if (badStyle.test(text.replace(/^@keyframes\b/, ''))) continue;
    if ('selectorText' in rule && typeof rule.selectorText === 'string') {
      const scoped = rule.selectorText.split(',').every((s) => {
        const t = s.trim();
        return t.startsWith(scope) && (t.length === scope.length || /[\s.:>[#~+]/.test(t[scope.length]));
      });
      if (scoped) out.push(text);
    } else if (/^@keyframes\s+[\w-]+\s*\{/.test(text)) {
      out.push(text);
    }
  }
  return out.join('\n');
}

/**
 * Sanitizes a Mermaid SVG whose root has id: SVG elements only, and its
 * <style> cut down to rules scoped to that SVG (scopeCss), so a diagram's
 * classDef or style lines cannot restyle the app.
 */
export function sanitizeSvg(svg: string, id: string): string {
  if (!svgPurifier) {
    svgPurifier = purifier();
    svgPurifier.addHook('uponSanitizeElement', (node, data) => {
      if (data.tagName === 'style' && node.parentNode) {
        const root = (node as Element).closest?.('svg');
        node.textContent = root?.id === currentId ? scopeCss(node.textContent ?? '', currentId) : '';
      }
    });
  }
  currentId = id;
  // Mermaid wraps a node with a click or link in an <a> that also places
  // it (transform): it becomes a plain <g> in the same place, unlinked.
  svg = svg
    .replace(/<a\b([^>]*)>/g, (_, attrs: string) => {
      const t = /\stransform="([^"<>]*)"/.exec(attrs);
      const c = /\sclass="([^"<>]*)"/.exec(attrs);
      return `<g${t ? ` transform="${t[1]}"` : ''}${c ? ` class="${c[1]}"` : ''}>`;
    })
    .replace(/<\/a>/g, '</g>');
  const out = svgPurifier.sanitize(svg, {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['style'],
    // What a refused element holds is kept (and sanitized), but for a
    // foreignObject's, which goes with it.
    ADD_FORBID_CONTENTS: ['foreignObject', 'foreignobject'],
    FORBID_TAGS: forbidTags,
    FORBID_ATTR: forbidAttr,
  });
  return out.trimStart().startsWith('<svg') ? out : '';
}

let currentId = '';
