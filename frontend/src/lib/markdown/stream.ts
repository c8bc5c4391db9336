// A MarkdownStream renders a message that grows while it streams: the text
// is split into blocks, finished blocks are rendered once and cached, and
// only the last (still growing) block is rendered again on each update.
import { splitBlocks, type Block } from './blocks';
import { renderMarkdown } from './render';

export interface RenderedBlock {
  key: string;
  html: string;
}

export class MarkdownStream {
  #cache = new Map<string, string>();
  #text = '';
  #blocks: Block[] = [];
  #render: (src: string) => string;
  #epoch = 0;
  /** How many times a block was rendered (for tests). */
  renders = 0;

  constructor(render: (src: string) => string = renderMarkdown) {
    this.#render = render;
  }

  /**
   * Renders text; final means no more text will come, so every block is
   * finished. A new epoch (the highlighter's version) drops the cache, so
   * blocks rendered before it are rendered again.
   */
  update(text: string, final: boolean, epoch = 0): RenderedBlock[] {
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#cache.clear();
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
      return { key: String(i), html: finished ? this.#cached(b.src) : this.#fresh(b.src) };
    });
  }

  #fresh(src: string): string {
    this.renders++;
    return this.#render(src);
  }

  #cached(src: string): string {
    let html = this.#cache.get(src);
    if (html === undefined) {
      html = this.#fresh(src);
      this.#cache.set(src, html);
    }
    return html;
  }
}
