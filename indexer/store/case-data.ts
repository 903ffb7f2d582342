// Where the uppercase letters of an all-ASCII block are, kept small. Code has
// a few capitals in a hundred characters (site-packages: 4.24M in 112M
// characters of such blocks), so a bit per character (14 MB there) is mostly
// zeros; a byte per capital, the gap since the one before, is ~4 MB. A block
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
 * The positions of a block's capitals, ascending, decoded into a buffer that
 * is reused (one per reader: a case-sensitive search, or textRange).
 */
export class Capitals {
  positions = new Int32Array(64);
  count = 0;

  /** Decodes the case data at word `off` of `words`, of a block `length` units long. */
  load(words: Int32Array, off: number, length: number): void {
    this.count = 0;
    if ((words[off] & 255) === 0) {
      for (let w = 0; w < (length + 31) >>> 5; w++) {
        for (let word = words[off + 1 + w]; word !== 0;) {
          const bit = word & -word; // the lowest set bit
          word ^= bit;
          this.push((w << 5) + 31 - Math.clz32(bit));
        }
      }
      return;
    }
    let next = 0;
    for (let j = 0; ; j++) {
      const v = (words[off + (j >>> 2)] >>> ((j & 3) << 3)) & 255;
      if (v === 0) return;
      if (v === SKIP) { next += SKIP - 1; continue; }
      next += v - 1;
      this.push(next);
      next++;
    }
  }

  private push(i: number): void {
    if (this.count === this.positions.length) {
      const grown = new Int32Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    this.positions[this.count++] = i;
  }
}
