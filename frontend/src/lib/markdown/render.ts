// Renders one markdown block to safe HTML: marked (GFM, tables), raw HTML
// escaped so it shows as text, code highlighted with a language label and a
// copy button, images turned into links, math (math.ts, KaTeX) and Mermaid
// diagrams, and DOMPurify over the result.
//
// The block's HTML is sanitized strictly (no style, SVG or MathML); a
// formula's or a diagram's HTML, sanitized by its own rules (purify.ts), is
// left out of it as an empty slot element and put in afterwards. The slots
// carry a nonce and markdown cannot make elements with attributes, so a
// model cannot forge one.
//
// Highlighting, KaTeX and Mermaid come on first use; a block rendered
// without one of them says so (pending), and is rendered again once it has
// arrived (stream.ts). A block with a diagram depends on the theme (themed).
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { highlightCode } from './highlight.svelte';
import { highlighter } from './highlight.svelte';
import { escapeHtml } from './escape';
import { mathExtension } from './math';
import { renderTex } from './katex.svelte';
import { diagram } from './diagram.svelte';

export { escapeHtml };

/** A rendered block. */
export interface Rendered {
  html: string;
  /** Rendered without something still loading (the highlighter, KaTeX, a diagram). */
  pending: boolean;
  /** Shows a diagram, drawn in the app's theme of the moment. */
  themed: boolean;
}

// The state of the block being rendered (rendering is synchronous).
let slots: string[] = [];
let pending = false;
let themed = false;
const nonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
const slotRe = new RegExp(`<span data-sb-slot="${nonce}-(\\d+)"></span>`, 'g');

function slot(html: string): string {
  slots.push(html);
  return `<span data-sb-slot="${nonce}-${slots.length - 1}"></span>`;
}

function highlight(code: string, lang: string): string {
  const html = highlightCode(code, lang);
  if (html !== undefined) return html;
  if (lang && highlighter.version === 0 && !highlighter.failed) pending = true;
  return escapeHtml(code);
}

/** Whether a fenced code token's closing fence has arrived. */
export function fenceClosed(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return true; // indented code: complete as far as it goes
  const lines = raw.replace(/\n+$/, '').split('\n');
  if (lines.length < 2) return false;
  const last = lines[lines.length - 1].trim();
  const fence = open[1];
  return last.length >= fence.length && [...last].every((c) => c === fence[0]);
}

function codeBlock(label: string, lang: string, inner: string, extra = ''): string {
  const cls = lang ? ` language-${escapeHtml(lang)}` : '';
  return (
    `<div class="code-block"><div class="code-head"><span class="code-lang">${escapeHtml(label)}</span>` +
    `<button type="button" class="code-copy" data-copy-code="">Copy</button></div>` +
    `<pre><code class="hljs${cls}">${inner}</code></pre>${extra}</div>`
  );
}

function mermaidBlock(code: string, raw: string): string | undefined {
  if (!fenceClosed(raw)) return undefined; // still streaming: plain code
  themed = true;
  const d = diagram(code);
  if (d.state === 'drawn') {
    // The source stays, hidden, for the copy button.
    return (
      `<div class="code-block diagram-block"><div class="code-head"><span class="code-lang">mermaid</span>` +
      `<button type="button" class="code-copy" data-copy-code="">Copy</button></div>` +
      `<div class="diagram" role="img" aria-label="Diagram">${slot(d.svg)}</div>` +
      `<pre hidden><code>${escapeHtml(code)}</code></pre></div>`
    );
  }
  if (d.state === 'failed') {
    return codeBlock('mermaid', 'mermaid', escapeHtml(code), `<div class="diagram-error" role="note">Diagram not drawn: ${escapeHtml(d.error)}</div>`);
  }
  pending = true;
  return undefined;
}

const md = new Marked({ gfm: true, breaks: false });
md.use(
  mathExtension((tex, display, raw) => {
    const m = renderTex(tex, display, raw);
    if (m.pending) pending = true;
    return m.pending ? m.html : slot(m.html);
  }),
);
md.use({
  renderer: {
    // Raw HTML from a model or a tool is shown as text, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    code({ text, lang, raw }: Tokens.Code) {
      const language = (lang ?? '').trim().split(/\s+/)[0].toLowerCase();
      const code = text.replace(/\n$/, '');
      if (language === 'mermaid') {
        const html = mermaidBlock(code, raw);
        if (html !== undefined) return html;
        return codeBlock('mermaid', 'mermaid', escapeHtml(code));
      }
      return codeBlock(language || 'text', language, highlight(code, language));
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      // Only web and mail links; anything else (javascript:, file:) is just text.
      if (!/^(https?:|mailto:)/i.test(href)) return text;
      const t = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(href)}"${t} rel="noreferrer noopener">${text}</a>`;
    },
    // A model's image would load a remote URL; show it as a link instead.
    image({ href, text }: Tokens.Image) {
      if (!/^https?:/i.test(href)) return escapeHtml(`[image: ${text || href}]`);
      return `<a href="${escapeHtml(href)}" class="md-image" rel="noreferrer noopener">[image: ${escapeHtml(text || href)}]</a>`;
    },
  },
});

/** Sanitizes an HTML string; every {@html} goes through this. */
export function sanitize(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'img', 'video', 'audio', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset'],
  });
}

/** Renders a block of markdown to sanitized HTML, and says what it waited on. */
export function renderBlock(src: string): Rendered {
  slots = [];
  pending = false;
  themed = false;
  try {
    let html = sanitize(md.parse(src, { async: false }));
    if (slots.length) {
      const filled = slots;
      html = html.replace(slotRe, (_, i: string) => filled[Number(i)] ?? '');
    }
    return { html, pending, themed };
  } finally {
    slots = [];
  }
}

/** Markdown to sanitized HTML. */
export function renderMarkdown(src: string): string {
  return renderBlock(src).html;
}
