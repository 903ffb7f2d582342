// The in-memory form of one file, what queries read: its lines grouped into
// blocks of about BLOCK_CHARS, each block held as one flat string (lines joined
// by "\n") in original case and lowercased line by line (contract semantics;
// the same string when the block has nothing to lowercase), with a bloom filter
// of the trigram buckets its lines hold. No array of line strings is kept: per-
// string headers would cost more than the text itself.
//
// Why blocks: the file-level trigram postings leave whole files as candidates;
// for a query made of common trigrams ("ate, ar") most files pass, yet few of
// their blocks hold every trigram. A block whose bloom lacks one of the query's
// buckets cannot contain a matching line (a match lies within one line, and a
// line lies within one block), so it is skipped without being scanned.
import { bucketOf } from './trigrams.js';

/** Target size of a block (UTF-16 units); a block ends at the first line end past it. */
export const BLOCK_CHARS = 1024;
/**
 * Bloom bits per block: ~600 distinct trigrams in 1 KB of code fill about a quarter of them.
 * Smaller blocks than 4 KB halved the text scanned for common queries ("else:": 12 → 5.5 MB
 * over the stdlib) at the same bloom bytes per text byte (1/4).
 */
const BLOOM_BITS_LOG2 = 11;
const BLOOM_WORDS = (1 << BLOOM_BITS_LOG2) >>> 5;

/** Bloom bit of a bucket: a multiplicative hash, top bits (the bucket itself is mostly 7-bit fields). */
export function bloomBit(bucket: number): number {
  return Math.imul(bucket, 0x9e3779b1) >>> (32 - BLOOM_BITS_LOG2);
}

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
    private readonly canon: Array<string | null>,
    /**
     * Case bits of every all-ASCII block, one array per file (a typed array per
     * block costs more in headers than in bits): bit i of block b, at word
     * caseOff[b] + (i >>> 5), is set when unit i was an uppercase ASCII letter.
     */
    private readonly caseBits: Uint32Array,
    /** Per block: first word of its case bits, -1 when canon[b] is a string. */
    private readonly caseOff: Int32Array,
    /** Number of lines. */
    readonly lineCount: number,
    /** 0-based index of each block's first line. */
    readonly firstLine: Uint32Array,
    /** BLOOM_WORDS words per block; null for a one-block file (the file-level postings already filtered it). */
    private readonly bloom: Uint32Array | null,
  ) {}

  /** Builds from the file's lines (contract §1 splitting). */
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
      const c = lines.slice(start, i).join('\n');
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
    let bloom: Uint32Array | null = null;
    if (blocks.length > 1) {
      bloom = new Uint32Array(blocks.length * BLOOM_WORDS);
      for (let b = 0; b < blocks.length; b++) fillBloom(blocks[b], bloom, b * BLOOM_WORDS);
    }
    return new SearchText(blocks, canon, Uint32Array.from(caseWords), Int32Array.from(caseOff), lines.length, Uint32Array.from(first), bloom);
  }

  /** Bloom masks of a query's buckets, in the order given (put the rarest first): [word, mask] pairs, for mayHold(). */
  static queryMask(buckets: readonly number[]): Int32Array {
    const bits = [...new Set(buckets.map(bloomBit))];
    const out = new Int32Array(bits.length * 2);
    bits.forEach((bit, i) => {
      out[2 * i] = bit >>> 5;
      out[2 * i + 1] = 1 << (bit & 31);
    });
    return out;
  }

  /** False when block b certainly holds no line with every bucket of the mask. */
  mayHold(b: number, mask: Int32Array | null): boolean {
    const bloom = this.bloom;
    if (!bloom || !mask) return true;
    const base = b * BLOOM_WORDS;
    for (let i = 0; i < mask.length; i += 2) if ((bloom[base + mask[i]] & mask[i + 1]) === 0) return false;
    return true;
  }

  /**
   * Where search in block b happens for a case-sensitive query: the text whose
   * "\n" positions are line ends, and the next position at or after `from` where
   * `q` occurs in original case (-1 when none).
   */
  caseSensitive(b: number, q: string): { hay: string; find: (from: number) => number } {
    const c = this.canon[b];
    if (c !== null) return { hay: c, find: (from) => c.indexOf(q, from) };
    const low = this.blocks[b];
    const bits = this.caseBits;
    const off = this.caseOff[b];
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(q)) return { hay: low, find: () => -1 }; // an ASCII block holds no non-ASCII query
    const ql = q.toLowerCase();
    const upper = Array.from(q, (ch) => ch >= 'A' && ch <= 'Z');
    const find = (from: number): number => {
      for (let pos = low.indexOf(ql, from); pos >= 0; pos = low.indexOf(ql, pos + 1)) {
        let ok = true;
        for (let k = 0; k < upper.length && ok; k++) {
          const i = pos + k;
          ok = ((bits[off + (i >>> 5)] >>> (i & 31)) & 1) === (upper[k] ? 1 : 0);
        }
        if (ok) return pos;
      }
      return -1;
    };
    return { hay: low, find };
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
    for (let i = a; i < e; i++) {
      if (((bits[off + (i >>> 5)] >>> (i & 31)) & 1) === 0) continue;
      out += low.slice(run, i) + String.fromCharCode(low.charCodeAt(i) - 32);
      run = i + 1;
    }
    return out + low.slice(run, e);
  }

  /** Lines start..end (1-based, inclusive) in original case. Throws outside 1..lineCount. */
  lineRange(start: number, end: number): string[] {
    if (!(start >= 1 && start <= end && end <= this.lineCount)) throw new Error(`internal: lines ${start}-${end} outside 1-${this.lineCount}`);
    const out: string[] = [];
    const first = this.firstLine;
    // The block holding line `start`: the last whose first line is <= start-1.
    let lo = 0, hi = first.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid] <= start - 1) lo = mid; else hi = mid - 1; }
    let line = first[lo];
    for (let b = lo; b < first.length && line < end; b++) {
      const text = this.blocks[b]; // "\n" positions are the same in both cases
      let at = 0;
      for (line = first[b]; line < end; line++) {
        const nl = text.indexOf('\n', at);
        if (line >= start - 1) out.push(this.canonSlice(b, at, nl < 0 ? text.length : nl));
        if (nl < 0) { line++; break; }
        at = nl + 1;
      }
    }
    return out;
  }
}

/**
 * lines[a..b) lowercased one by one and joined by "\n". For pure-ASCII text
 * lowercasing the joined string is the same thing (ASCII maps unit by unit)
 * and much cheaper; otherwise lowercase line by line, as the contract says
 * (toLowerCase is context-sensitive for a few characters, e.g. final sigma).
 */
function lowerJoin(joined: string, lines: readonly string[], a: number, b: number): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(joined)) return joined.toLowerCase();
  const lower: string[] = [];
  for (let i = a; i < b; i++) lower.push(lines[i].toLowerCase());
  return lower.join('\n');
}

/** Sets the bloom bit of every trigram of each line of `text` (trigrams never span "\n"). */
function fillBloom(text: string, bloom: Uint32Array, base: number): void {
  let a = -1, b = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) { a = b = -1; continue; }
    if (a >= 0) {
      const bit = bloomBit(bucketOf(a, b, c));
      bloom[base + (bit >>> 5)] |= 1 << (bit & 31);
    }
    a = b; b = c;
  }
}
