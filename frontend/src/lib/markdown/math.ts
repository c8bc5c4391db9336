// Finds TeX math in markdown, as a marked extension: `$…$` and `\(…\)`
// inline, `$$…$$` and `\[…\]` displayed (a block of their own, or inline
// in a paragraph). Prices stay text, by the usual (Pandoc's) rules: an
// opening $ is followed by a non-space, a closing $ follows a non-space and
// is not followed by a digit, so "$5 and $10" is no formula. Math that is
// not closed (yet: it may still be streaming) is no formula either, so it
// shows as the text it is until its closing delimiter arrives. Code spans
// and blocks are marked's, and their $ are never math; a backtick before
// the closing $ ends the attempt. \$ is a dollar sign (marked's escape).
import type { MarkedExtension, Tokens } from 'marked';

/** A formula longer than this is left as text (hostile or runaway input). */
export const MAX_TEX = 10_000;

/** A formula found at the start of a string. */
export interface MathMatch {
  /** What it takes of the source, delimiters included. */
  raw: string;
  /** The TeX between the delimiters. */
  tex: string;
  /** Displayed ($$, \[) rather than inline ($, \(). */
  display: boolean;
}

export interface MathToken extends Tokens.Generic {
  type: 'math';
  raw: string;
  tex: string;
  display: boolean;
}

const space = /\s/;
const digit = /\d/;

/** Index of close in src from i on, skipping backslash pairs; -1 if none (or a backtick comes first). */
function findClose(src: string, i: number, close: string): number {
  const limit = Math.min(src.length, i + MAX_TEX + close.length);
  while (i < limit) {
    const c = src[i];
    if (src.startsWith(close, i)) return i;
    if (c === '\\') i += 2;
    else if (c === '`') return -1;
    else i++;
  }
  return -1;
}

/** The inline formula that src starts with, if any. */
export function inlineMath(src: string): MathMatch | undefined {
  if (src.startsWith('$$')) {
    const end = findClose(src, 2, '$$');
    if (end < 0) return undefined;
    const tex = src.slice(2, end);
    return tex.trim() ? { raw: src.slice(0, end + 2), tex: tex.trim(), display: true } : undefined;
  }
  if (src[0] === '$') {
    if (src.length < 3 || space.test(src[1])) return undefined;
    for (let i = 1; ; ) {
      const end = findClose(src, i, '$');
      if (end < 0) return undefined;
      if (!space.test(src[end - 1]) && !digit.test(src[end + 1] ?? '')) {
        return { raw: src.slice(0, end + 1), tex: src.slice(1, end), display: false };
      }
      i = end + 1; // "$a $b$": that $ does not close; look on
    }
  }
  if (src.startsWith('\\(') || src.startsWith('\\[')) {
    const display = src[1] === '[';
    const end = findClose(src, 2, display ? '\\]' : '\\)');
    if (end < 0) return undefined;
    const tex = src.slice(2, end).trim();
    return tex ? { raw: src.slice(0, end + 2), tex, display } : undefined;
  }
  return undefined;
}

const blockOpen = /^ {0,3}(\$\$|\\\[)/;

/**
 * The displayed formula that src starts with as a block of its own: $$ or
 * \[ at a line's start (up to three spaces in), closed by $$ or \] that
 * ends a line.
 */
export function blockMath(src: string): MathMatch | undefined {
  const m = blockOpen.exec(src);
  if (!m) return undefined;
  const open = m[0].length;
  const close = m[1] === '$$' ? '$$' : '\\]';
  const end = findClose(src, open, close);
  if (end < 0) return undefined;
  const after = /^[ \t]*(?:\n|$)/.exec(src.slice(end + close.length));
  if (!after) return undefined; // "$$a$$ and more": a paragraph, with the formula inline
  const tex = src.slice(open, end).trim();
  if (!tex) return undefined;
  return { raw: src.slice(0, end + close.length + after[0].length), tex, display: true };
}

/** The marked extension; render turns a formula into HTML. */
export function mathExtension(render: (tex: string, display: boolean, raw: string) => string): MarkedExtension {
  return {
    extensions: [
      {
        name: 'math',
        level: 'block',
        start(src: string) {
          const m = /^ {0,3}(?:\$\$|\\\[)/m.exec(src);
          return m ? m.index : undefined;
        },
        tokenizer(src: string): MathToken | undefined {
          const m = blockMath(src);
          return m ? { type: 'math', raw: m.raw, tex: m.tex, display: true, block: true } : undefined;
        },
        renderer(token) {
          const t = token as MathToken;
          return t.block ? `<div class="math-block">${render(t.tex, true, t.raw.trim())}</div>\n` : render(t.tex, t.display, t.raw);
        },
      },
      {
        name: 'math',
        level: 'inline',
        start(src: string) {
          const i = src.search(/\$|\\[([]/);
          return i < 0 ? undefined : i;
        },
        tokenizer(src: string): MathToken | undefined {
          const m = inlineMath(src);
          return m ? { type: 'math', raw: m.raw, tex: m.tex, display: m.display } : undefined;
        },
      },
    ],
  };
}
