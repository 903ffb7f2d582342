// Whether the state folder's disk has room for a write transaction of the
// main index, asked of statfs before LMDB is. lmdb 3.5.6's bundled liblmdb
// reports a page write that failed (ENOSPC on a full disk) by sprintf'ing a
// message into a 100-byte malloc that it can outrun, corrupting malloc's heap:
// the process aborts later, far from the write (docs/design.md, "The search
// text in a memory map"). A commit the disk visibly has no room for is
// therefore refused with no_space before LMDB is called; only a disk that
// fills between the check and the write (another writer) still meets LMDB's
// own error path.
//
// The estimate is of the pages the commit adds to the data file: bytes of
// rows, text, trigram buckets and lookup keys, times a factor for B-tree
// pages that are not full and the pages copy-on-write copies, plus a few
// whole pages (meta, branch and freelist pages). Pages LMDB's freelist holds
// inside the file are reused first and need no new room on the disk; they
// are counted (LMDB's stats of every table: ~100-200 µs, against a few µs
// for the statfs) only when the disk's own room could be short.
import type { FileWrite } from './tables.js';

/** A `files` row, its keys in the per-file tables, a skip record: all but the path's own bytes (msgpack field names, node headers). */
const ROW_BYTES = 256;
/** A definition's `defs` entry and two `sym` keys beside its names' bytes (twice: defs row and sym key). */
const DEF_BYTES = 48;
/** An import target's `target` key beside its bytes (node header, the file id). */
const TARGET_BYTES = 24;
/**
 * Pages written per estimated byte: B-tree leaves split half full, and a
 * page a commit touches is copied whole. Measured on a tmpfs (the data
 * file's growth against the estimate with BASE_PAGES; docs/design.md): 200
 * files rewritten in place grew it by 0.75 of the estimate, a 1 MB file of
 * 25,000 definitions by 0.70, 200 new small files by 0.73, one small file by
 * 0.74. So the estimate is above every growth measured, by at most 1.42
 * times: a disk with half as much room again as a commit takes writes it.
 */
const PAGE_FACTOR = 1.25;
/** Whole pages any commit may add: two meta pages aside, the branch pages above the leaves it writes, the main table, the freelist. */
const BASE_PAGES = 8;

/** Bytes an operation adds to the tables before PAGE_FACTOR: a put's text, trigram buckets, rows and lookup keys; any other op's row (`put` null). */
export function opBytes(put: FileWrite | null): number {
  return put ? putBytes(put) : ROW_BYTES;
}

function putBytes(f: FileWrite): number {
  let n = ROW_BYTES + 2 * f.path.length + f.text.length + f.tri.length;
  for (const d of f.defs) n += 2 * (d.name.length + d.qualname.length) + DEF_BYTES;
  for (const imp of f.imports) {
    n += jsonLength(imp.raw) + 32;
    for (const t of imp.targets) n += 2 * t.length + TARGET_BYTES;
  }
  if (f.tsres) n += jsonLength(f.tsres);
  return n;
}

/**
 * The length of `v`'s JSON text, its strings' escapes aside, counted without
 * writing it: what an import statement or a TsResolution adds to the
 * estimate (the rows hold them as msgpack, no longer than that; PAGE_FACTOR
 * was measured with these lengths).
 */
export function jsonLength(v: unknown): number {
  switch (typeof v) {
    case 'string': return v.length + 2;
    case 'number': return digits(v);
    case 'boolean': return v ? 4 : 5;
    case 'object': {
      if (v === null) return 4;
      if (Array.isArray(v)) {
        let n = 1 + Math.max(1, v.length); // brackets and commas
        for (const x of v) n += x === undefined ? 4 : jsonLength(x);
        return n;
      }
      let n = 1;
      let fields = 0;
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        n += k.length + 3 + jsonLength(x); // "k": and the value
        fields++;
      }
      return n + Math.max(1, fields); // braces and commas
    }
    default: return 0;
  }
}

/** The characters of a number as JSON writes it (an integer's counted, any other's written). */
function digits(x: number): number {
  if (!Number.isSafeInteger(x)) return Number.isFinite(x) ? String(x).length : 4;
  let n = x < 0 ? 2 : 1;
  for (let a = Math.abs(x); a >= 10; a = Math.floor(a / 10)) n++;
  return n;
}

/** Bytes of new pages a commit of `puts` among `ops` operations may add to the data file (pages of `pageSize`). */
export function commitBytes(puts: readonly FileWrite[], ops: number, pageSize: number): number {
  let bytes = ROW_BYTES * (ops - puts.length);
  for (const f of puts) bytes += putBytes(f);
  return Math.ceil(bytes * PAGE_FACTOR) + BASE_PAGES * pageSize;
}

/** Whether `needed` bytes of new pages fit: in the file's free pages (`reusable`), else in `free` bytes of the disk. */
export function roomFor(needed: number, reusable: number, free: number): boolean {
  return needed <= reusable || needed - reusable <= free;
}

/**
 * How far the disk's free bytes must exceed a commit's estimate for the
 * commit to go without counting the data file's free pages. Within it,
 * every commit counts them, so the next one knows how many there were
 * before it (roomFor's `reusable`).
 */
export const COUNT_PAGES_WITHIN = 64 << 20;

/** What CommitRoom asks: the disk's free bytes for this writer (a statfs), and the bytes of the data file's free pages (Tables.pages). */
export interface RoomProbes {
  free(): number;
  reusable(): number;
}

/**
 * Whether each commit of one index fits (commitBytes, roomFor), the disk
 * asked every time, the data file's free pages only near a full disk.
 * LMDB never reuses the pages the last commit freed (the other meta page
 * still points at them), so a commit counts on no more free pages than
 * there were before the last one; after a last commit that did not count
 * them, on none. That commit saw COUNT_PAGES_WITHIN more free than its
 * estimate, so counting none refuses only a commit larger than that or a
 * disk others filled since: the safe side, since LMDB on a full disk
 * corrupts the heap.
 */
export class CommitRoom {
  /** Bytes of the data file's free pages before the last commit: unknown at open (counted as the file has them), 0 when it did not count them. */
  private reusableBefore = Infinity;
  /** What the last check counted, for landed(). */
  private counted = 0;

  constructor(private readonly pageSize: number, private readonly probes: RoomProbes) {}

  /** Whether a commit of `puts` among `ops` operations fits; call landed() once it has. */
  fits(puts: readonly FileWrite[], ops: number): boolean {
    const needed = commitBytes(puts, ops, this.pageSize);
    const free = this.probes.free();
    if (needed <= free - COUNT_PAGES_WITHIN) {
      this.counted = 0;
      return true;
    }
    this.counted = this.probes.reusable();
    return roomFor(needed, Math.min(this.counted, this.reusableBefore), free);
  }

  /** The commit last checked has landed: its count is the one the next commit goes by. */
  landed(): void {
    this.reusableBefore = this.counted;
  }
}
