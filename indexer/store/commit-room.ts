// Whether the state folder's disk has room for a write transaction of the
// main index, asked of statfs before LMDB is. lmdb 3.5.6's bundled liblmdb
// reports a page write that failed (ENOSPC on a full disk) by sprintf'ing a
// message into a 100-byte malloc that it can outrun, corrupting malloc's heap:
// the process aborts later, far from the write (docs/design.md, "The search
// text in a memory map"). A commit the disk may have no room for is
// therefore refused with no_space before LMDB is called; only a disk that
// fills between the check and the write (another writer) still meets LMDB's
// own error path. Refusing is the safe side: a refused batch is kept and
// retried until it lands.
//
// What a commit may take is counted in pages (commitPages): every page it
// may allocate (new rows and text, the leaves and branches copy-on-write
// copies, the main table, the freelist), and among them those that must be
// one contiguous run (a value of two or more overflow pages, the freelist's
// own records once they pass a page). LMDB takes a single page from its
// freelist whenever one is reusable, but a run only if a free run that long
// happens to be there, so runs are asked of the disk and single pages of the
// free pages first. The free pages a commit can reuse are not all those the
// file has (CommitRoom says which); they are counted (LMDB's stats of every
// table: ~100-200 µs, against a few µs for the statfs) only when the disk's
// own room could be short.
import type { FileCounts, FileWrite } from './tables.js';

/** A `files` row, its keys in the per-file tables, a skip record: all but the path's own bytes (msgpack field names, node headers). */
const ROW_BYTES = 256;
/** A definition's `defs` entry and two `sym` keys beside its names' bytes (twice: defs row and sym key). */
const DEF_BYTES = 48;
/** An import target's `target` key beside its bytes (node header, the file id). */
const TARGET_BYTES = 24;
/** Pages of new rows per estimated byte: B-tree leaves split half full (measured against LMDB's own page counts: docs/design.md). */
const PAGE_FACTOR = 1.25;
/**
 * Whole pages any commit may allocate besides its rows: the leaf and branch
 * pages of the `meta` table, the main table and the freelist's tree it
 * copies, the leaf of each table a first row lands in. A commit of one
 * small file allocated 9 pages, of a 300-line file 20, of the state mark 3.
 */
const BASE_PAGES = 16;
/** Tables keyed by file id (files, text, tri, defs, imports, tsres): a leaf of each an operation may copy. */
const FILE_TABLES = 6;
/** A page header and a node header, with room for a compressed value's own header. */
const VALUE_OVERHEAD = 48;

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

/** Pages LMDB takes for a value of `bytes` (with its key): 0 on a leaf page, else its overflow pages, one contiguous run. */
function overflowPages(bytes: number, pageSize: number): number {
  const nodeMax = (Math.floor((pageSize - 16) / 2) & ~1) - 2; // LMDB's me_nodemax: half a page less its header and an index slot
  return bytes + VALUE_OVERHEAD <= nodeMax ? 0 : Math.ceil((bytes + VALUE_OVERHEAD) / pageSize);
}

/** The pages of a put's values that must each be one run of two or more pages (a one-page overflow takes any free page). */
function runPages(f: FileWrite, pageSize: number): number {
  let defs = 0;
  for (const d of f.defs) defs += d.name.length + d.qualname.length + 24;
  let imports = 0;
  for (const imp of f.imports) {
    imports += jsonLength(imp.raw) + 32;
    for (const t of imp.targets) imports += t.length + 4;
  }
  let mods = 0;
  for (const m of f.mods) mods += m.length + 2;
  let n = 0;
  for (const bytes of [f.text.length, f.tri.length, defs, imports, f.tsres ? jsonLength(f.tsres) : 0, ROW_BYTES + f.path.length + mods]) {
    const pages = overflowPages(bytes, pageSize);
    if (pages >= 2) n += pages;
  }
  return n;
}

/** Pages a commit may allocate (`all`), and how many of them are in contiguous runs (`runs`, among `all`). */
export interface CommitPages { all: number; runs: number }

/**
 * The pages a commit of `puts` among `ops` operations may allocate. Without
 * `counts` (far from a full disk), the leaves it copies are counted per
 * operation and per lookup key it adds, and COUNT_PAGES_WITHIN stands for
 * the keys of the versions it replaces or removes, not known here; with
 * them, a put or removal may copy every lookup-table page, and no commit
 * copies more pages than the file's trees hold.
 */
export function commitPages(puts: readonly FileWrite[], ops: number, pageSize: number, counts?: FileCounts): CommitPages {
  let bytes = ROW_BYTES * (ops - puts.length);
  let keys = 0;
  let runs = 0;
  for (const f of puts) {
    bytes += putBytes(f);
    keys += 2 * f.defs.length;
    for (const imp of f.imports) keys += imp.targets.length;
    runs += runPages(f, pageSize);
  }
  let copied = FILE_TABLES * ops + keys;
  if (counts) copied = Math.min(counts.used, copied + (ops > 0 ? counts.keyed : 0));
  let all = Math.ceil((bytes * PAGE_FACTOR) / pageSize) + BASE_PAGES + copied;
  // The freelist's records: the pages this commit frees (no more than the file has and it takes), and those LMDB keeps loaded, each one record.
  const record = overflowPages(8 * ((counts?.file ?? 0) + all + 4), pageSize);
  if (record >= 2) {
    runs += 2 * record;
    all += 2 * record;
  }
  return { all, runs };
}

/**
 * How far the disk's free bytes must exceed a commit's pages for the commit
 * to go without counting the data file's free pages.
 */
export const COUNT_PAGES_WITHIN = 64 << 20;

/** What CommitRoom asks: the disk's free bytes for this writer (a statfs), and the data file's pages (Tables.pages). */
export interface RoomProbes {
  free(): number;
  pages(): FileCounts;
}

/** A counted commit: the data file's free pages and size before it, and the pages it may allocate. */
interface Counted { free: number; file: number; all: number }

/**
 * Whether each commit of one index fits, the disk asked every time, the
 * data file's pages only near a full disk. Of the free pages, LMDB never
 * reuses those the last commit freed (readers of its snapshot may still
 * read them), and which those are is not told by the stats: the free pages
 * before the last commit less those it reused are. It reused no more than
 * it allocated less what it grew the file by, so a commit counts on
 *   free before the last commit - (pages the last commit may allocate - pages it grew the file by)
 * and on none after a commit that did not count (far from a full disk), or
 * at open (the last commit was another process's). A refused commit changes
 * nothing: the next goes by the last that landed.
 */
export class CommitRoom {
  /** The last commit that landed, if it was counted. */
  private last: Counted | null = null;
  /** The commit last checked, for landed(). */
  private checked: Counted | null = null;
  /** Bytes the last check asked of the disk (its pages far from a full disk; near one, those the free pages cannot take). */
  asked = 0;

  constructor(private readonly pageSize: number, private readonly probes: RoomProbes) {}

  /** Whether a commit of `puts` among `ops` operations fits; call landed() once it has. */
  fits(puts: readonly FileWrite[], ops: number): boolean {
    const free = this.probes.free();
    this.asked = commitPages(puts, ops, this.pageSize).all * this.pageSize;
    if (this.asked <= free - COUNT_PAGES_WITHIN) {
      this.checked = null;
      return true;
    }
    const counts = this.probes.pages();
    const need = commitPages(puts, ops, this.pageSize, counts);
    this.checked = { free: counts.free, file: counts.file, all: need.all };
    this.asked = (need.runs + Math.max(0, need.all - need.runs - this.reusable(counts))) * this.pageSize;
    return this.asked <= free;
  }

  /** The commit last checked has landed: the next goes by it. */
  landed(): void {
    this.last = this.checked;
  }

  /** Free pages the next commit can reuse, no more: see the class. */
  private reusable(now: FileCounts): number {
    const last = this.last;
    if (!last) return 0;
    const reused = Math.max(0, last.all - (now.file - last.file));
    return Math.max(0, Math.min(now.free, last.free - reused));
  }
}
