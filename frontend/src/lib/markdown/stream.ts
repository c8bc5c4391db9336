// A MarkdownStream renders a message that grows while it streams: the text
// is split into blocks, finished blocks are rendered once and cached, and
// only the last (still growing) block is rendered again on each update.
// A block rendered while something it needs was still loading (pending) is
// rendered again when the epoch changes (something arrived); one showing a
// diagram (themed) when the theme changes. Other finished blocks stay.
import { splitBlocks, type Block } from './blocks';
import { renderBlock, type Rendered } from './render';

export interface RenderedBlock {
  key: string;
  html: string;
}

/** Renders a block; a plain string counts as pending (rendered again on a new epoch). */
export type BlockRenderer = (src: string) => string | Rendered;

export class MarkdownStream {
  #cache = new Map<string, Rendered>();
  #text = '';
  #blocks: Block[] = [];
  #render: BlockRenderer;
  #epoch = 0;
  #theme = 0;
  /** How many times a block was rendered (for tests). */
  renders = 0;

  constructor(render: BlockRenderer = renderBlock) {
    this.#render = render;
  }

  /**
   * Renders text; final means no more text will come, so every block is
   * finished. A new epoch (a lazily loaded library or diagram arrived)
   * drops the pending blocks from the cache, a new theme the themed ones.
   */
  update(text: string, final: boolean, epoch = 0, theme = 0): RenderedBlock[] {
    if (epoch !== this.#epoch || theme !== this.#theme) {
      const epochChanged = epoch !== this.#epoch;
      const themeChanged = theme !== this.#theme;
      this.#epoch = epoch;
      this.#theme = theme;
      for (const [src, r] of this.#cache) if ((epochChanged && r.pending) || (themeChanged && r.themed)) this.#cache.delete(src);
    }
    if (text.startsWith(this.#text) && this.#blocks.length > 0) {
      // Appended: only the last block can have changed.
      const last = this.#blocks[this.#blocks.length - 1];
      this.#blocks = [...this.#blocks.slice(0, -1), ...splitBlocks(text, last.start)];
    } else {
      this.#blocks = splitBlocks(text);
    }
    this.#text = text;
    return this.#blocks.map((b, i) => {
      const finished = final || i < this.#blocks.length - 1;
      return { key: String(i), html: finished ? this.#cached(b.src) : this.#fresh(b.src).html };
    });
  }

  #fresh(src: string): Rendered {
    this.renders++;
    const r = this.#render(src);
    return typeof r === 'string' ? { html: r, pending: true, themed: false } : r;
  }

  #cached(src: string): string {
    let r = this.#cache.get(src);
    if (r === undefined) {
      r = this.#fresh(src);
      this.#cache.set(src, r);
    }
    return r.html;
  }
}
