// The in-memory form of one file, what queries read: its lines grouped into
// blocks of about BLOCK_CHARS, each block held as one flat string (lines joined
// by "\n") in original case and lowercased line by line (the documented line rule, docs/tools.md;
// the same string when the block has nothing to lowercase). No array of line
// strings is kept: per-string headers would cost more than the text itself.
//
// Why blocks: a block is the unit the signatures (block-signatures.ts) filter.
// A block whose signature lacks one of the query's trigrams cannot contain a
// matching line (a match lies within one line, and a line lies within one
// block), so it is skipped without being scanned; for a query made of common
// trigrams, few blocks hold every one of them even when most files do.
import { ownString } from '../text.js';

/**
 * Target size of a block (UTF-16 units); a block ends at the first line end past it.
 * 256 rather than 1 KB: with signatures tested 32 blocks per word, a smaller block
 * costs little to filter and cuts the text scanned for common queries (" self,":
 * 14.7 -> 4 MB over the stdlib).
 */
export const BLOCK_CHARS = 256;

export class SearchText {
  private constructor(
    /** Lowercased lines of each block, joined by "\n" (no trailing "\n"). */
    readonly blocks: string[],
    /**
     * The same lines in original case: === blocks[b] when lowercasing changes
     * nothing, null for an all-ASCII block, which is rebuilt from blocks[b] and
     * its case bits (ASCII lowercases unit by unit, in place), so the daemon
     * does not hold the text twice.
     */
    readonly canon: Array<string | null>,
    /**
     * Case bits of every all-ASCII block, one array per file (a typed array per
     * block costs more in headers than in bits): bit i of block b, at word
     * caseOff[b] + (i >>> 5), is set when unit i was an uppercase ASCII letter.
     */
    readonly caseBits: Uint32Array,
    /** Per block: first word of its case bits, -1 when canon[b] is a string. */
    readonly caseOff: Int32Array,
    /** Number of lines. */
    readonly lineCount: number,
    /** 0-based index of each block's first line. */
    readonly firstLine: Uint32Array,
  ) {}

  /** Builds from the file's lines (docs/tools.md, Evidence). */
  static fromLines(lines: readonly string[]): SearchText {
    const blocks: string[] = [];
    const canon: Array<string | null> = [];
    const caseWords: number[] = [];
    const caseOff: number[] = [];
    const first: number[] = [];
    let i = 0;
    while (i < lines.length) {
      const start = i;
      let len = 0;
      while (i < lines.length && (i === start || len < BLOCK_CHARS)) len += lines[i++].length + 1;
      first.push(start);
      // A one-line block would be a view into the file's whole text (see ownString).
      const c = i - start === 1 ? ownString(lines[start]) : lines.slice(start, i).join('\n');
      const l = lowerJoin(c, lines, start, i);
      blocks.push(l === c ? c : l);
      // eslint-disable-next-line no-control-regex
      if (l !== c && !/[^\x00-\x7f]/.test(c)) {
        const off = caseWords.length;
        for (let w = 0; w < (c.length + 31) >>> 5; w++) caseWords.push(0);
        for (let k = 0; k < c.length; k++) {
          const u = c.charCodeAt(k);
          if (u >= 65 && u <= 90) caseWords[off + (k >>> 5)] |= 1 << (k & 31);
        }
        canon.push(null);
        caseOff.push(off);
      } else {
        canon.push(l === c ? l : c);
        caseOff.push(-1);
      }
    }
    return new SearchText(blocks, canon, Uint32Array.from(caseWords), Int32Array.from(caseOff), lines.length, Uint32Array.from(first));
  }

  /** Original-case text of block b between offsets a and e. */
  private canonSlice(b: number, a: number, e: number): string {
    const c = this.canon[b];
    if (c !== null) return c.slice(a, e);
    const low = this.blocks[b];
    const bits = this.caseBits;
    const off = this.caseOff[b];
    let out = '';
    let run = a;
    // Only the set bits (uppercase letters, a few in a hundred characters of code) are visited, word by word.
    for (let w = a >>> 5; a < e && w <= (e - 1) >>> 5; w++) {
      for (let word = bits[off + w]; word !== 0;) {
        const bit = word & -word; // the lowest set bit
        word ^= bit;
        const i = (w << 5) + 31 - Math.clz32(bit);
        if (i < a) continue;
        if (i >= e) break;
        out += low.slice(run, i) + String.fromCharCode(low.charCodeAt(i) - 32);
        run = i + 1;
      }
    }
    return out + low.slice(run, e);
  }

  /**
   * Lines start..end (1-based, inclusive) in original case, joined by "\n":
   * the file's text over those lines. A block holds its lines joined the same
   * way, so this is one slice per block, not one string per line. Reads no
   * further than maxChars + 1 characters (a caller that keeps maxChars can tell
   * there was more). Throws outside 1..lineCount.
   */
  textRange(start: number, end: number, maxChars = Infinity): string {
    if (!(start >= 1 && start <= end && end <= this.lineCount)) throw new Error(`internal: lines ${start}-${end} outside 1-${this.lineCount}`);
    const first = this.firstLine;
    // The block holding line `start`: the last whose first line is <= start-1.
    let lo = 0, hi = first.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid] <= start - 1) lo = mid; else hi = mid - 1; }
    let out = '';
    let line = start - 1; // 0-based: the next line to read
    for (let b = lo; ; b++) {
      // Line ends are found in the text that is sliced: a separate original-case
      // string can differ in length from the lowercased one ("İ" lowercases to two
      // units); an all-ASCII block (canon null) cannot.
      const text = this.canon[b] ?? this.blocks[b];
      const next = b + 1 < first.length ? first[b + 1] : this.lineCount; // first line of the next block
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
      out += sep + this.canonSlice(b, a, Math.min(e, a + Math.max(0, room)));
      line = stop;
      if (line >= end || out.length > maxChars) return out;
    }
  }
}

/**
 * lines[a..b) lowercased one by one and joined by "\n". For pure-ASCII text
 * lowercasing the joined string is the same thing (ASCII maps unit by unit)
 * and much cheaper; otherwise lowercase line by line, as docs/tools.md says
 * (toLowerCase is context-sensitive for a few characters, e.g. final sigma).
 */
function lowerJoin(joined: string, lines: readonly string[], a: number, b: number): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(joined)) return joined.toLowerCase();
  const lower: string[] = [];
  for (let i = a; i < b; i++) lower.push(lines[i].toLowerCase());
  return lower.join('\n');
}

/**
 * A case-sensitive query, prepared once and then pointed at one block after
 * another (no closure or regex per block: a short query visits every block).
 * at() returns the string to scan, whose "\n" positions are the block's line
 * ends; find() then gives the next occurrence of the query in original case.
 */
export class ExactFinder {
  private readonly lower: string;
  /** Per query unit: 1 when it is an uppercase ASCII letter. */
  private readonly upper: Uint8Array;
  private readonly ascii: boolean;
  /**
   * No ASCII letter and nothing but ASCII: then a line holds the query exactly
   * when its lowercased form does (lowercasing maps those units to themselves,
   * and no other character lowercases to them; checked over every code point),
   * so the lowercased block is scanned as is. Line numbers come out right either
   * way: lowercasing never adds or drops a "\n".
   */
  private readonly caseless: boolean;
  private bits: Uint32Array = new Uint32Array(0);
  private off = -1;
  private mode: 'indexOf' | 'bits' | 'none' = 'indexOf';
  private hayQuery = '';

  constructor(readonly q: string) {
    this.lower = q.toLowerCase();
    // eslint-disable-next-line no-control-regex
    this.ascii = !/[^\x00-\x7f]/.test(q);
    this.caseless = this.ascii && !/[A-Za-z]/.test(q);
    this.upper = Uint8Array.from(q, (ch) => (ch >= 'A' && ch <= 'Z' ? 1 : 0));
  }

  /** Points the finder at block b of st; returns the string to scan. */
  at(st: SearchText, b: number): string {
    const c = st.canon[b];
    if (this.caseless) { this.mode = 'indexOf'; this.hayQuery = this.q; return st.blocks[b]; }
    if (c !== null) { this.mode = 'indexOf'; this.hayQuery = this.q; return c; }
    // An all-ASCII block: search its lowercased text, then check the case bits.
    if (!this.ascii) { this.mode = 'none'; return ''; } // holds no non-ASCII query
    this.mode = 'bits';
    this.hayQuery = this.lower;
    this.bits = st.caseBits;
    this.off = st.caseOff[b];
    return st.blocks[b];
  }

  /** Next position at or after `from` where the query occurs in original case, or -1. */
  readonly find = (hay: string, from: number): number => {
    if (this.mode === 'none') return -1;
    const ql = this.hayQuery;
    if (this.mode === 'indexOf') return hay.indexOf(ql, from);
    const { bits, off, upper } = this;
    for (let pos = hay.indexOf(ql, from); pos >= 0; pos = hay.indexOf(ql, pos + 1)) {
      let ok = true;
      for (let k = 0; k < upper.length && ok; k++) {
        const i = pos + k;
        ok = ((bits[off + (i >>> 5)] >>> (i & 31)) & 1) === upper[k];
      }
      if (ok) return pos;
    }
    return -1;
  };
}
