// Renders one markdown block to safe HTML: marked (GFM, tables), raw HTML
// escaped so it shows as text, code highlighted with a language label and a
// copy button, images turned into links, and DOMPurify over the result.
// Highlighting comes once the highlighter has loaded (highlight.svelte.ts).
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { highlightCode } from './highlight.svelte';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function highlight(code: string, lang: string): string {
  return highlightCode(code, lang) ?? escapeHtml(code);
}

const md = new Marked({ gfm: true, breaks: false });
md.use({
  renderer: {
    // Raw HTML from a model or a tool is shown as text, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? '').trim().split(/\s+/)[0].toLowerCase();
      const label = language || 'text';
      const cls = language ? ` language-${escapeHtml(language)}` : '';
      return (
        `<div class="code-block"><div class="code-head"><span class="code-lang">${escapeHtml(label)}</span>` +
        `<button type="button" class="code-copy" data-copy-code="">Copy</button></div>` +
        `<pre><code class="hljs${cls}">${highlight(text.replace(/\n$/, ''), language)}</code></pre></div>`
      );
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

/** Markdown to sanitized HTML. */
export function renderMarkdown(src: string): string {
  return sanitize(md.parse(src, { async: false }));
}
