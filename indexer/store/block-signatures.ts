// Bit-sliced signatures of every search block in memory (the BitFunnel layout).
// Each block of every file's search text (search-text.ts) gets a slot; a slot's
// signature is a bloom filter of ROWS bits over the trigram buckets its lines
// hold. The bits are stored by row, not by slot: row r is one bit string over
// all slots, so "which blocks hold bits r1, r2, ..." is an AND of a few long
// bit strings, 32 blocks per machine word: cheaper than intersecting per-file
// postings and then probing a bloom filter per block, which costs most when
// few blocks match.
//
// A file's blocks occupy consecutive slots, so matching slots come out grouped
// by file and, within a file, in block order. A file that changes is re-added
// in place when it still fits its slots, else at the end; freed slots read as
// all zero (they never match) until a compaction re-packs the live files.
import { bucketOf } from './trigrams.js';

/** Rows per signature (bloom bits per block): ~150 distinct trigrams in a 256-character block fill about a quarter. */
export const SIG_ROWS_LOG2 = 9;
export const SIG_ROWS = 1 << SIG_ROWS_LOG2;

/** Row (bloom bit) of a trigram bucket: a multiplicative hash, top bits (the bucket itself is mostly 7-bit fields). */
export function rowOf(bucket: number): number {
  return Math.imul(bucket, 0x9e3779b1) >>> (32 - SIG_ROWS_LOG2);
}

/** The blocks a file is split into: block(b) is its lowercased lines joined by "\n", as search-text.ts holds them. */
export interface BlockSource { readonly blockCount: number; block(b: number): string }

interface Placement { base: number; n: number; cap: number }

/**
 * Slots given to a file of n blocks: a 32nd more and one, room to grow in
 * place (a file being edited often gains a block; one that outgrows its room
 * moves to the end, and the slots it leaves are re-packed with the rest once
 * free slots outnumber live ones). Kept small: a slot costs 64 bytes of rows
 * whether an edit ever uses it or not.
 */
export function capacityFor(n: number): number {
  return n + (n >>> 5) + 1;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

export class BlockSignatures {
  /** Words per row (each word holds 32 slots); rows are laid out one after another. */
  private stride = 0;
  private rows = new Uint32Array(0);
  /** Set bits per row: the query tests its rarest row first. */
  private readonly rowCount = new Uint32Array(SIG_ROWS);
  /** Per slot: owning file id (-1 for a free slot) and block index within the file. */
  private slotFid = new Int32Array(0);
  private slotBlock = new Int32Array(0);
  /** Slots handed out so far (free ones included), those holding a live block, and the spare slots of placed files (room to grow in place). */
  private used = 0;
  private live = 0;
  private spare = 0;
  private compacting = false;
  private readonly placed = new Map<number, Placement>();
  /** Scratch for one query's matches: parallel file id / block arrays. */
  private hitFid = new Int32Array(1024);
  private hitBlock = new Int32Array(1024);
  private acc = new Uint32Array(0);
  private live32 = new Int32Array(0);

  /** How many times the slots were re-packed (for tests and logs). */
  compactions = 0;

  /**
   * @param sourceOf the blocks of a file held here (a compaction re-reads them)
   * @param minFreeToCompact free slots tolerated before compacting, however few are live
   */
  constructor(private readonly sourceOf: (fid: number) => BlockSource, private readonly minFreeToCompact = 1 << 14) {}

  has(fid: number): boolean { return this.placed.has(fid); }
  get fileCount(): number { return this.placed.size; }

  /** Records (or replaces) the signatures of a file's blocks. */
  set(fid: number, src: BlockSource): void {
    const n = src.blockCount;
    const old = this.placed.get(fid);
    let p: Placement;
    if (old && n <= old.cap) {
      this.clearSlots(old.base, old.n);
      for (let s = old.base + n; s < old.base + old.cap; s++) this.slotFid[s] = -1;
      p = { base: old.base, n, cap: old.cap };
      this.spare += old.n - n;
    } else {
      if (old) this.free(fid, old);
      const cap = capacityFor(n);
      if (this.used + cap > this.stride * 32) this.grow(this.used + cap);
      p = { base: this.used, n, cap };
      this.used += cap;
      this.spare += cap - n;
      for (let s = p.base; s < p.base + cap; s++) this.slotFid[s] = -1;
    }
    this.placed.set(fid, p);
    this.live += n - (old && old.base === p.base ? old.n : 0);
    for (let b = 0; b < n; b++) {
      this.slotFid[p.base + b] = fid;
      this.slotBlock[p.base + b] = b;
      this.fill(p.base + b, src.block(b));
    }
    this.maybeCompact();
  }

  /** Forgets a file's blocks (their slots stay empty until a compaction). */
  delete(fid: number): void {
    const p = this.placed.get(fid);
    if (p) this.free(fid, p);
  }

  /** Rows of a query's buckets, rarest first (fewest blocks): what match() takes. */
  queryRows(buckets: readonly number[]): number[] {
    return [...new Set(buckets.map(rowOf))].sort((a, b) => this.rowCount[a] - this.rowCount[b]);
  }

  /**
   * Every block whose signature holds all `rows`, as parallel arrays: entries
   * 0..n-1 give a file id and a block of it. A file's entries are consecutive,
   * its blocks ascending (files come in slot order, not path order). The arrays
   * are reused by the next call.
   */
  match(rows: readonly number[]): { n: number; fid: Int32Array; block: Int32Array } {
    const words = (this.used + 31) >>> 5;
    const r = this.rows;
    const stride = this.stride;
    // The two rarest rows are ANDed densely (tight typed-array loops); the words
    // still nonzero after them are listed, and the other rows touch only those.
    if (this.acc.length < words) { this.acc = new Uint32Array(this.stride); this.live32 = new Int32Array(this.stride); }
    const acc = this.acc;
    const first = rows[0] * stride;
    const second = (rows.length > 1 ? rows[1] : rows[0]) * stride;
    const nz = this.live32;
    let m = 0;
    for (let g = 0; g < words; g++) {
      const w = r[first + g] & r[second + g];
      acc[g] = w;
      if (w !== 0) nz[m++] = g;
    }
    for (let i = 2; i < rows.length && m > 0; i++) {
      const at = rows[i] * stride;
      let k = 0;
      for (let j = 0; j < m; j++) {
        const g = nz[j];
        const w = acc[g] & r[at + g];
        acc[g] = w;
        if (w !== 0) nz[k++] = g;
      }
      m = k;
    }
    let n = 0;
    for (let j = 0; j < m; j++) {
      const g = nz[j];
      let w = acc[g];
      while (w !== 0) {
        const low = w & -w;
        const s = (g << 5) + 31 - Math.clz32(low);
        w ^= low;
        if (n === this.hitFid.length) this.growHits();
        this.hitFid[n] = this.slotFid[s];
        this.hitBlock[n] = this.slotBlock[s];
        n++;
      }
    }
    return { n, fid: this.hitFid, block: this.hitBlock };
  }

  /** The blocks of one file whose signature holds all `rows`, ascending (empty for a file not held). */
  matchFile(fid: number, rows: readonly number[]): Int32Array {
    const p = this.placed.get(fid);
    if (!p) return new Int32Array(0);
    const out: number[] = [];
    for (let b = 0; b < p.n; b++) {
      const s = p.base + b;
      const word = s >>> 5, bit = 1 << (s & 31);
      let ok = true;
      for (let i = 0; ok && i < rows.length; i++) ok = (this.rows[rows[i] * this.stride + word] & bit) !== 0;
      if (ok) out.push(b);
    }
    return Int32Array.from(out);
  }

  /** Sets the bits of one slot from the trigrams of its block's lines (trigrams never span "\n"). */
  private fill(slot: number, text: string): void {
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    const r = this.rows;
    const stride = this.stride;
    let a = -1, b = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) { a = b = -1; continue; }
      if (a >= 0) {
        const row = rowOf(bucketOf(a, b, c));
        const at = row * stride + word;
        if ((r[at] & bit) === 0) { r[at] |= bit; this.rowCount[row]++; }
      }
      a = b; b = c;
    }
  }

  private free(fid: number, p: Placement): void {
    this.clearSlots(p.base, p.n);
    for (let s = p.base; s < p.base + p.cap; s++) this.slotFid[s] = -1;
    this.live -= p.n;
    this.spare -= p.cap - p.n;
    this.placed.delete(fid);
  }

  /** Zeroes slots base..base+n-1 in every row. */
  private clearSlots(base: number, n: number): void {
    if (n === 0) return;
    const r = this.rows;
    const stride = this.stride;
    const first = base >>> 5, last = (base + n - 1) >>> 5;
    for (let w = first; w <= last; w++) {
      const lo = w === first ? base & 31 : 0;
      const hi = w === last ? ((base + n - 1) & 31) + 1 : 32;
      const mask = hi - lo === 32 ? 0xffffffff : ((1 << (hi - lo)) - 1) << lo;
      for (let row = 0; row < SIG_ROWS; row++) {
        const at = row * stride + w;
        const hit = r[at] & mask;
        if (hit !== 0) { this.rowCount[row] -= popcount(hit); r[at] &= ~mask; }
      }
    }
  }

  /** Makes room for `slots` slots in all (warm-up reserves its estimate at once instead of growing step by step). */
  reserve(slots: number): void {
    if (slots > this.stride * 32) this.grow(slots);
  }

  /**
   * Gives back the room reserved past the slots in use, less a 32nd to grow
   * in (warm-up's estimate counts a block per BLOCK_CHARS bytes, and blocks
   * run past that to their line end: on site-packages it reserved a fifth
   * more than it used). Copies the rows once, when that gives back a 16th or
   * more (warm-up runs again after a bulk update); the old ones are garbage.
   */
  fit(): void {
    const stride = Math.max(64, ((this.used + (this.used >>> 5)) + 31) >>> 5);
    if (stride + (stride >>> 4) < this.stride) this.resize(stride);
  }

  private grow(slots: number): void {
    // By a quarter, not double: the rows are the daemon's largest array (39 MB for
    // 124 MB of source), and doubling could leave almost half of it unused.
    this.resize(Math.max(64, Math.ceil(this.stride * 1.25), (slots + 31) >>> 5));
  }

  /** Re-lays the rows and slot maps for `stride` words per row (at least the slots in use). */
  private resize(stride: number): void {
    const keep = Math.min(stride, this.stride);
    const rows = new Uint32Array(SIG_ROWS * stride);
    for (let row = 0; row < SIG_ROWS; row++) rows.set(this.rows.subarray(row * this.stride, row * this.stride + keep), row * stride);
    this.rows = rows;
    this.stride = stride;
    const fid = new Int32Array(stride * 32).fill(-1);
    fid.set(this.slotFid.subarray(0, keep * 32));
    this.slotFid = fid;
    const block = new Int32Array(stride * 32);
    block.set(this.slotBlock.subarray(0, keep * 32));
    this.slotBlock = block;
    // The query scratch is sized by the stride (match() regrows it when short).
    if (this.acc.length > stride) { this.acc = new Uint32Array(stride); this.live32 = new Int32Array(stride); }
  }

  private growHits(): void {
    const f = new Int32Array(this.hitFid.length * 2); f.set(this.hitFid); this.hitFid = f;
    const b = new Int32Array(this.hitBlock.length * 2); b.set(this.hitBlock); this.hitBlock = b;
  }

  /**
   * Re-packs the live files once free slots outnumber live ones (files that
   * grew or went away): rare, and bounded by the text held, like a warm-up.
   */
  private maybeCompact(): void {
    // Holes left by files that moved or went away; a compaction removes them all
    // (not the spare room of placed files, which it hands out again).
    const holes = this.used - this.live - this.spare;
    if (this.compacting || holes <= Math.max(this.live, this.minFreeToCompact)) return;
    this.compacting = true;
    this.compactions++;
    const fids = [...this.placed.entries()].sort((a, b) => a[1].base - b[1].base).map(([fid]) => fid);
    this.rows.fill(0);
    this.rowCount.fill(0);
    this.slotFid.fill(-1);
    this.used = 0;
    this.live = 0;
    this.spare = 0;
    this.placed.clear();
    try {
      for (const fid of fids) this.set(fid, this.sourceOf(fid));
    } finally {
      this.compacting = false;
    }
  }
}
