// Where the uppercase letters of an all-ASCII block are, kept small. Code has
// a few capitals in a hundred characters (site-packages: 4.24M in 112M
// characters of such blocks), so a bit per character (14.8 MB there) is mostly
// zeros; a byte per capital, the gap since the one before, is 4.9 MB. A block
// dense in capitals (a table of constants) keeps the bit set, which is then
// the shorter of the two. Either form is bytes packed four to an Int32 word
// (little end first), so it sits in the file's one layout array (search-text.ts).
//
// The gap form: a byte v in 1..254 puts a capital at `next + v - 1`, where
// `next` is the unit after the previous capital (0 at the start); 255 moves
// `next` on by 254 with no capital; 0 ends the list. The bit-set form: a first
// byte of 0 (a gap list is never empty, so it cannot start with its end), then
// from the next word, bit i of word (i >>> 5) set when unit i is a capital.

const GAP_MAX = 253; // the largest gap one byte holds (v - 1)
const SKIP = 255;

/** The case data of `text` (all ASCII) as words: the gap form or the bit set, whichever is shorter. */
export function encodeCase(text: string): number[] {
  const gaps: number[] = [];
  let next = 0;
  for (let k = 0; k < text.length; k++) {
    const u = text.charCodeAt(k);
    if (u < 65 || u > 90) continue;
    let gap = k - next;
    while (gap > GAP_MAX) { gaps.push(SKIP); gap -= SKIP - 1; }
    gaps.push(gap + 1);
    next = k + 1;
  }
  gaps.push(0);
  const bitWords = 1 + ((text.length + 31) >>> 5);
  if (((gaps.length + 3) >>> 2) <= bitWords) return packBytes(gaps);
  const words = new Array<number>(bitWords).fill(0);
  for (let k = 0; k < text.length; k++) {
    const u = text.charCodeAt(k);
    if (u >= 65 && u <= 90) words[1 + (k >>> 5)] |= 1 << (k & 31);
  }
  return words;
}

function packBytes(bytes: readonly number[]): number[] {
  const words = new Array<number>((bytes.length + 3) >>> 2).fill(0);
  for (let j = 0; j < bytes.length; j++) words[j >>> 2] |= bytes[j] << ((j & 3) << 3);
  return words;
}

/**
 * Walks a block's capitals in ascending order, from the case data at word
 * `off` of `words` (either form), one at a time: a reader that stops at the
 * last capital it needs does not decode the rest of the block.
 */
export class CapitalReader {
  /** Position of the current capital: -1 before the first (start), Infinity past the last. */
  at = Infinity;
  private words: Int32Array = EMPTY;
  private off = 0;
  /** The bit-set form, of this many words; 0: the gap form. */
  private bitWords = 0;
  /** Gap form: the next byte to read, and the unit after the current capital. */
  private j = 0;
  private next = 0;

  /**
   * Points before the first capital of the case data at word `off` of
   * `words`, for a block `length` units long. Reads nothing yet: a search
   * points a reader at every candidate block, and most hold no match.
   */
  start(words: Int32Array, off: number, length: number): void {
    this.words = words;
    this.off = off;
    this.bitWords = (words[off] & 255) === 0 ? (length + 31) >>> 5 : 0;
    this.j = 0;
    this.next = 0;
    this.at = -1;
  }

  /** Moves to the next capital. */
  advance(): void {
    const { words, off } = this;
    if (this.bitWords > 0) {
      const i = this.at + 1;
      let w = i >>> 5;
      if (w >= this.bitWords) { this.at = Infinity; return; }
      let word = words[off + 1 + w] & (-1 << (i & 31)); // the bits from unit i on
      while (word === 0) {
        if (++w >= this.bitWords) { this.at = Infinity; return; }
        word = words[off + 1 + w];
      }
      this.at = (w << 5) + 31 - Math.clz32(word & -word); // the lowest set bit
      return;
    }
    for (;;) {
      const v = (words[off + (this.j >>> 2)] >>> ((this.j & 3) << 3)) & 255;
      this.j++;
      if (v === 0) { this.at = Infinity; return; }
      if (v === SKIP) { this.next += SKIP - 1; continue; }
      this.at = this.next + v - 1;
      this.next = this.at + 1;
      return;
    }
  }

  /** Moves to the first capital at or after unit i (never back). */
  seek(i: number): void {
    while (this.at < i) this.advance();
  }

  /**
   * Whether units pos .. pos + upper.length - 1 are capitals exactly where
   * upper[k] is 1. Candidates must come in ascending order: the reader moves
   * on to pos, and only looks ahead past it.
   */
  capitalsAre(pos: number, upper: Uint8Array, anyUpper: boolean): boolean {
    if (this.bitWords > 0) {
      const { words, off } = this;
      for (let k = 0; k < upper.length; k++) {
        const i = pos + k;
        if (((words[off + 1 + (i >>> 5)] >>> (i & 31)) & 1) !== upper[k]) return false;
      }
      return true;
    }
    this.seek(pos);
    if (this.at >= pos + upper.length) return !anyUpper; // no capital in the window
    const { at, j, next } = this;
    let ok = true;
    for (let k = 0; k < upper.length && ok; k++) {
      const isUpper = this.at === pos + k;
      if (isUpper) this.advance();
      ok = (isUpper ? 1 : 0) === upper[k];
    }
    this.at = at; this.j = j; this.next = next;
    return ok;
  }
}

const EMPTY = new Int32Array(1);
