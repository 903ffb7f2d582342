// A file's search blocks, as queries read them: its lines grouped into blocks
// of about BLOCK_CHARS, each within one of the file's chunks (text-chunks.ts,
// the `text` table's rows). The heap holds only where each block is — its
// first line, its chunk, its offset in the chunk's text — not the text: a
// block's text is cut from its chunk when a query needs it, lowercased then
// for a case-insensitive scan (the documented line rule, docs/tools.md).
// Chunks are read through a ChunkReader (the memory index's, with a small
// cache of decoded chunks).
//
// Why blocks: a block is the unit the signatures (block-signatures.ts) filter.
// A block whose signature lacks one of the query's trigrams cannot contain a
// matching line (a match lies within one line, and a line lies within one
// block), so it is skipped without being read; for a query made of common
// trigrams, few blocks hold every one of them even when most files do.
import type { BlockSource } from './block-signatures.js';

/**
 * Target size of a block (UTF-16 units); a block ends at the first line end past
 * it, or at its chunk's end. 256 rather than 1 KB: with signatures tested 32
 * blocks per word, a smaller block costs little to filter and cuts the text
 * scanned for common queries (" self,": 14.7 -> 4 MB over the stdlib).
 */
export const BLOCK_CHARS = 256;

/**
 * One decoded chunk: its lines joined by "\n" (text-chunks.ts, chunkLinesText)
 * and, once a case-insensitive scan asked for it, the same lines lowercased
 * (lowerChunk).
 */
export interface Chunk {
  readonly text: string;
  lower?: string;
  /** Where each line starts in `lower`; null when that is where it starts in `text` (no line changed length). */
  lowerStarts?: Uint32Array | null;
}

/** Reads chunk c of file fid. */
export interface ChunkReader { chunk(fid: number, c: number): Chunk }

/** Where a block's lines are: text[from, to) (reused from block to block by a scan). */
export interface Span { text: string; from: number; to: number }


/** The span cut() fills (one for all files; cut() runs to its end before another can). */
const scratch: Span = { text: '', from: 0, to: 0 };

export class SearchText {
  private constructor(
    readonly fid: number,
    private readonly reader: ChunkReader,
    /** Number of lines. */
    readonly lineCount: number,
    /** Number of blocks. */
    readonly blockCount: number,
    /** Per block, three runs of blockCount: 0-based first line, chunk number, offset of the block's text in its chunk's text. */
    private readonly layout: Uint32Array,
  ) {}

  /**
   * Lays out a file from the texts of its chunks (chunkLinesText of each, in
   * order) and returns, beside it, its blocks lowercased: the caller builds
   * the signatures and line counts from them and keeps only the layout.
   */
  static layOut(fid: number, chunks: readonly string[], reader: ChunkReader): { st: SearchText; lowered: string[] } {
    const first: number[] = [];
    const chunkOf: number[] = [];
    const start: number[] = [];
    const lowered: string[] = [];
    let line = 0;
    for (let c = 0; c < chunks.length; c++) {
      const t = chunks[c];
      let pos = 0;
      for (;;) {
        first.push(line);
        chunkOf.push(c);
        start.push(pos);
        // At least one line, then lines while the block is under BLOCK_CHARS (each line counts its "\n").
        let end = pos, len = 0, nl = -1;
        do {
          nl = t.indexOf('\n', end);
          const lineEnd = nl < 0 ? t.length : nl;
          len += lineEnd - end + 1;
          line++;
          end = lineEnd + 1;
        } while (nl >= 0 && len < BLOCK_CHARS);
        lowered.push(lowerLines(t.slice(pos, end - 1)));
        if (nl < 0) break;
        pos = end;
      }
    }
    const n = first.length;
    const layout = new Uint32Array(3 * n);
    layout.set(first, 0);
    layout.set(chunkOf, n);
    layout.set(start, 2 * n);
    return { st: new SearchText(fid, reader, line, n, layout), lowered };
  }

  /** Number of chunks (the last block's chunk, plus one). */
  get chunkCount(): number { return this.layout[2 * this.blockCount - 1] + 1; }

  /** 0-based index of block b's first line. */
  firstLine(b: number): number { return this.layout[b]; }

  /**
   * Sets `out` to block b's lines in its chunk's text, in original case or
   * lowercased line by line (what a case-insensitive query is looked for in),
   * without cutting a string.
   */
  span(b: number, lower: boolean, out: Span): void {
    const n = this.blockCount, l = this.layout;
    const c = l[n + b];
    const ch = this.reader.chunk(this.fid, c);
    const last = !(b + 1 < n && l[n + b + 1] === c); // the chunk's last block
    if (!lower || lowerChunk(ch) === null) {
      out.text = lower ? ch.lower! : ch.text;
      out.from = l[2 * n + b];
      out.to = last ? out.text.length : l[2 * n + b + 1] - 1;
      return;
    }
    // Lowercasing changed the length of some line: the block's lines start elsewhere in the lowered text.
    const starts = ch.lowerStarts!;
    let b0 = b;
    while (b0 > 0 && l[n + b0 - 1] === c) b0--;
    out.text = ch.lower!;
    out.from = starts[l[b] - l[b0]];
    out.to = last ? out.text.length : starts[l[b + 1] - l[b0]] - 1;
  }

  /** Block b's lines in original case, joined by "\n". */
  blockText(b: number): string { return this.cut(b, false); }

  /** Block b's lines lowercased one by one, joined by "\n". */
  blockLower(b: number): string { return this.cut(b, true); }

  private cut(b: number, lower: boolean): string {
    this.span(b, lower, scratch);
    const text = scratch.text;
    scratch.text = ''; // held by no file: a span kept per file would keep a chunk of each alive
    return text.slice(scratch.from, scratch.to);
  }

  /** Every block lowercased (a compaction of the signatures, or line counts taken away, reads them again). */
  lowered(): BlockSource {
    const blocks: string[] = [];
    for (let b = 0; b < this.blockCount; b++) blocks.push(this.blockLower(b));
    return { blocks };
  }

  /**
   * Lines start..end (1-based, inclusive) in original case, joined by "\n":
   * the file's text over those lines. Reads no further than maxChars + 1
   * characters (a caller that keeps maxChars can tell there was more), and
   * only the chunks those lines are in. Throws outside 1..lineCount.
   */
  textRange(start: number, end: number, maxChars = Infinity): string {
    if (!(start >= 1 && start <= end && end <= this.lineCount)) throw new Error(`internal: lines ${start}-${end} outside 1-${this.lineCount}`);
    const first = this.layout;
    const n = this.blockCount;
    // The block holding line `start`: the last whose first line is <= start-1.
    let lo = 0, hi = n - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid] <= start - 1) lo = mid; else hi = mid - 1; }
    let out = '';
    let line = start - 1; // 0-based: the next line to read
    for (let b = lo; ; b++) {
      const text = this.blockText(b);
      const next = b + 1 < n ? first[b + 1] : this.lineCount; // first line of the next block
      let a = 0;
      for (let l = first[b]; l < line; l++) a = text.indexOf('\n', a) + 1;
      const stop = Math.min(end, next); // this block gives lines line..stop-1
      let e = text.length;
      if (stop < next) {
        e = a;
        for (let l = line; l < stop; l++) e = text.indexOf('\n', e) + 1;
        e -= 1; // the "\n" that ends line stop-1
      }
      const sep = line === start - 1 ? '' : '\n';
      const room = maxChars + 1 - out.length - sep.length;
      out += sep + text.slice(a, Math.min(e, a + Math.max(0, room)));
      line = stop;
      if (line >= end || out.length > maxChars) return out;
    }
  }
}

/**
 * Lines joined by "\n", lowercased one by one. For pure-ASCII text
 * lowercasing the joined string is the same thing (ASCII maps unit by unit)
 * and much cheaper; otherwise line by line, as docs/tools.md says
 * (toLowerCase is context-sensitive for a few characters, e.g. final sigma).
 */
export function lowerLines(joined: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(joined)) return joined.toLowerCase();
  return joined.split('\n').map((l) => l.toLowerCase()).join('\n');
}

/**
 * Fills in the chunk's lowercased text (lowerLines) and, when some line
 * changed length ("İ" lowercases to two units), where each line starts in it.
 * Returns lowerStarts.
 */
export function lowerChunk(ch: Chunk): Uint32Array | null {
  if (ch.lowerStarts !== undefined) return ch.lowerStarts;
  const text = ch.text;
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) {
    ch.lower = text.toLowerCase();
    ch.lowerStarts = null;
    return null;
  }
  const lines = text.split('\n');
  let same = true;
  for (let i = 0; i < lines.length; i++) {
    const low = lines[i].toLowerCase();
    if (low.length !== lines[i].length) same = false;
    lines[i] = low;
  }
  ch.lower = lines.join('\n');
  if (same) { ch.lowerStarts = null; return null; }
  const starts = new Uint32Array(lines.length);
  for (let i = 1; i < lines.length; i++) starts[i] = starts[i - 1] + lines[i - 1].length + 1;
  ch.lowerStarts = starts;
  return starts;
}
