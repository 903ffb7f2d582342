// How many lines hold each all-ASCII trigram, exactly: for every three-unit
// ASCII string t, the number of lines L of the index with
// L.toLowerCase().includes(t). That is
// search_code's `total` for a three-character case-insensitive query (path
// matches aside), which is what the commonest short queries ("elf", "Non",
// "f.a") would otherwise pay for by visiting every one of their 10^5 lines.
// Kept for every file whose search text is in memory; exact only while that is
// every indexed file (the store knows when).
import type { BlockSource } from './block-signatures.js';

const ASCII_CODES = 1 << 21;
/** Lines up to this many UTF-16 units dedupe their trigrams in TrigramLineCounts' set; a longer one in a set made for it. */
const SET_LINE = 2048;
/** Slots of that set: a power of two, at least twice the trigrams of the longest such line. */
const SET_SLOTS = 4096;
/** A count in TrigramLineCounts.ascii that means "this many or more: see `over`". */
const OVER = 0xffff;
/** The code's bits in a slot of that set. */
const CODE_MASK = (1 << 21) - 1;

export class TrigramLineCounts {
  /**
   * Counts by the trigram's 21-bit code (3 x 7 bits). Trigrams with a non-ASCII
   * unit are not counted (a query holding one is scanned instead): a table of
   * them would grow with the repository's alphabet (CJK text has millions).
   * 16 bits each (4 MB, not 8): a count from OVER up is kept in `over`
   * (a few hundred trigrams, "   " or "elf", on site-packages' 3.7M lines).
   */
  private readonly ascii = new Uint16Array(ASCII_CODES);
  private readonly over = new Map<number, number>();
  /**
   * The codes the current line has counted, so a line counts a trigram once:
   * a small open-addressed set whose slots hold a code (21 bits) and the
   * stamp of the line that put it there (the 11 bits above), so it is cleared
   * only when the stamps wrap. Sized for lines of up to SET_LINE units; a
   * longer line gets a set of its own for its time. (A table of a stamp per
   * code, 4 MB, was here before: this is 16 KB.)
   */
  private readonly set = new Int32Array(SET_SLOTS);
  private line = 0;
  /** Occurrences of each ASCII unit (a search anchors on the query's rarest character). */
  private readonly chars = new Float64Array(128);

  /** Adds (sign 1) or takes away (sign -1) the lines of one file. */
  apply(src: BlockSource, sign: 1 | -1): void {
    for (let b = 0; b < src.blockCount; b++) {
      const text = src.block(b);
      let start = 0;
      while (start <= text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        this.countLine(text, start, end, sign);
        start = end + 1;
      }
    }
  }

  /**
   * Index of the character of `q` (lowercased) that occurs least often in the
   * text; a non-ASCII one counts as rarest. Ties go to the earliest.
   */
  rarestAt(q: string): number {
    let best = 0, bestN = Infinity;
    for (let i = 0; i < q.length; i++) {
      const c = q.charCodeAt(i);
      const n = c < 128 ? this.chars[c] : 0;
      if (n < bestN) { best = i; bestN = n; }
    }
    return best;
  }

  /** Lines holding `t`, a lowercased string of exactly three UTF-16 units; null when t is not all ASCII (not counted). */
  count(t: string): number | null {
    const a = t.charCodeAt(0), b = t.charCodeAt(1), c = t.charCodeAt(2);
    if ((a | b | c) >= 128) return null;
    const k = (a << 14) | (b << 7) | c;
    const n = this.ascii[k];
    return n === OVER ? this.over.get(k)! : n;
  }

  /** Adds sign to the count of code k. */
  private bump(k: number, sign: 1 | -1): void {
    const n = this.ascii[k];
    if (n !== OVER && (sign > 0 ? n < OVER - 1 : true)) { this.ascii[k] = n + sign; return; }
    const total = (n === OVER ? this.over.get(k)! : n) + sign;
    if (total >= OVER) { this.ascii[k] = OVER; this.over.set(k, total); } else { this.ascii[k] = total; this.over.delete(k); }
  }

  private countLine(text: string, start: number, end: number, sign: 1 | -1): void {
    if (end - start < 3) return;
    let set = this.set, stamp: number;
    if (end - start > SET_LINE) {
      // A set of its own, fresh (every stamp 0), big enough for the line's distinct codes (at most ASCII_CODES).
      set = new Int32Array(1 << (32 - Math.clz32(2 * Math.min(end - start, ASCII_CODES) - 1)));
      stamp = 1 << 21;
    } else {
      if (++this.line === 1 << 11) { this.set.fill(0); this.line = 1; }
      stamp = this.line << 21;
    }
    const mask = set.length - 1;
    let a = text.charCodeAt(start), b = text.charCodeAt(start + 1);
    if (a < 128) this.chars[a] += sign;
    if (b < 128) this.chars[b] += sign;
    for (let i = start + 2; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) this.chars[c] += sign;
      if ((a | b | c) < 128) {
        const k = (a << 14) | (b << 7) | c;
        const entry = stamp | k;
        let h = (k ^ (k >>> 9)) & mask;
        for (;;) {
          const e = set[h];
          if (e === entry) break;
          if ((e & ~CODE_MASK) !== stamp) { set[h] = entry; this.bump(k, sign); break; }
          h = (h + 1) & mask;
        }
      }
      a = b; b = c;
    }
  }
}
