// Splits markdown into top-level blocks at blank lines, never inside a
// fenced code block, and not before an indented line (a list item's second
// paragraph or indented code stays with what it belongs to). A finished
// block never changes as text is appended, so its HTML can be cached.

export interface Block {
  /** The block's markdown. */
  src: string;
  /** Offset of the block in the text. */
  start: number;
}

const fenceRe = /^ {0,3}(`{3,}|~{3,})/;

/** Splits text (from offset from, which must start a block) into blocks. */
export function splitBlocks(text: string, from = 0): Block[] {
  const blocks: Block[] = [];
  let fence = ''; // the open fence's marker, '' outside one
  let blockStart = -1; // -1: between blocks
  let lastContentEnd = from; // end of the last non-blank line of the block
  let sawBlank = false;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(pos, end);
    const blank = line.trim() === '';
    if (fence) {
      const m = fenceRe.exec(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = '';
      lastContentEnd = end;
    } else if (blank) {
      if (blockStart !== -1) sawBlank = true;
    } else {
      const indented = line.startsWith(' ') || line.startsWith('\t');
      if (blockStart !== -1 && sawBlank && !indented) {
        blocks.push({ src: text.slice(blockStart, lastContentEnd), start: blockStart });
        blockStart = -1;
      }
      if (blockStart === -1) blockStart = pos;
      sawBlank = false;
      const m = fenceRe.exec(line);
      if (m) fence = m[1];
      lastContentEnd = end;
    }
    pos = nl === -1 ? text.length : nl + 1;
  }
  if (blockStart !== -1) blocks.push({ src: text.slice(blockStart, Math.max(lastContentEnd, text.length)), start: blockStart });
  return blocks;
}
