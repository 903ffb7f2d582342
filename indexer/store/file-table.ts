// The file table in memory: every indexed file's row (loaded whole at open),
// looked up by id, path and module name, kept in path order (path-order.ts),
// with the totals index/status reports. Every tool and every build step asks
// it, so it answers from memory without touching LMDB; the store patches it
// after each commit, in the same synchronous step.
import type { FileRow, ResolutionCounts } from './tables.js';
import { cmp } from './path-order.js';

/** One indexed file, as held in memory for every file (the `files` table). */
export interface FileMeta {
  fid: number;
  path: string;
  pathLower: string;  // for case-insensitive path matching
  size: number;       // bytes on disk when indexed
  mtimeMs: number;
  hash: string;       // sha-1 of the bytes, hex
  lines: number;
  py: boolean;
  ts: boolean;        // TypeScript or JavaScript
  mods: string[];     // module names (Python files only), docs/tools.md, Python rules
  nDefs: number;
  nImports: number;
  /** TS/JS only: its statements by resolution outcome (tables.ts, ResolutionCounts). */
  tr: ResolutionCounts | undefined;
}

export interface Totals {
  lines: number; bytes: number; symbols: number; imports: number; py: number; ts: number;
  /** TypeScript/JavaScript statements by resolution outcome, over every file. */
  tsImports: ResolutionCounts;
}

const noTotals = (): Totals => ({ lines: 0, bytes: 0, symbols: 0, imports: 0, py: 0, ts: 0, tsImports: [0, 0, 0, 0] });

export class FileTable {
  private readonly files = new Map<number, FileMeta>();
  /** Paths the walk lists but that are not indexable (binary), with the stat they had when judged. */
  readonly skipped = new Map<string, { size: number; mtimeMs: number }>();
  private readonly byPath = new Map<string, number>();
  /**
   * Module name -> ids of the files known by it, in the order they came (from
   * each file's `mods`; find_importers asks it on every call). Arrays, not
   * Sets: nearly every name has one file, and a Set costs ~100 bytes more.
   */
  private readonly byModule = new Map<string, number[]>();
  private order: number[] = [];           // live fids sorted by path (code point order: cmp)
  private rank: Int32Array | null = null; // fid -> position in order; rebuilt lazily
  private orderedFiles: FileMeta[] | null = null; // the files of `order`; rebuilt lazily
  /** Every path in order joined by NUL (which no path holds), as given and lowercased, with each path's offset: one indexOf finds path matches. */
  private joinedPaths: { exact: string; lower: string; exactStarts: Int32Array; lowerStarts: Int32Array } | null = null;
  /** The next unused file id (ids are never reused); every live id is below it. */
  nextFid = 1;
  private totals: Totals = noTotals();

  /** Fills the table from the stored rows (replacing what it held). */
  load(rows: Iterable<[number, FileRow]>, skips: Iterable<[string, number, number]>, nextFid: number): void {
    this.nextFid = nextFid;
    this.files.clear(); this.byPath.clear(); this.byModule.clear();
    this.totals = noTotals();
    for (const [fid, row] of rows) this.remember(fid, row);
    this.skipped.clear();
    for (const [path, size, mtimeMs] of skips) this.skipped.set(path, { size, mtimeMs });
    this.order = [...this.files.values()].sort((a, b) => cmp(a.path, b.path)).map((f) => f.fid);
    this.rank = null;
    this.orderedFiles = null;
  }

  // ---------------------------------------------------------------- patching (after a commit)

  /** Puts the file's new row in place of `old` (its previous version), or adds it in path order when new. */
  put(fid: number, row: FileRow, old: FileMeta | undefined): FileMeta {
    if (old) this.forget(old);
    const f = this.remember(fid, row);
    if (!old) this.insertOrder(f);
    return f;
  }

  /** Drops a file. */
  remove(f: FileMeta): void {
    this.forget(f);
    const i = this.order.indexOf(f.fid);
    if (i >= 0) this.order.splice(i, 1);
    this.rank = null;
    this.orderedFiles = null;
  }

  /** Same content, new stat. */
  touch(f: FileMeta, size: number, mtimeMs: number): void {
    this.totals.bytes += size - f.size;
    f.size = size;
    f.mtimeMs = mtimeMs;
  }

  /** A file's imports were resolved again: its new module names (Python) or outcome counts (TypeScript). */
  resolved(f: FileMeta, row: FileRow): void {
    this.unlinkModules(f);
    this.count(f, -1);
    f.mods = row.mods;
    f.tr = row.tr;
    this.count(f, 1);
    this.linkModules(f);
  }

  private remember(fid: number, r: FileRow): FileMeta {
    const f: FileMeta = {
      fid, path: r.p, pathLower: r.p.toLowerCase(), size: r.s, mtimeMs: r.m, hash: r.h, lines: r.n, py: r.py, ts: r.ts === true,
      mods: r.mods, nDefs: r.nd, nImports: r.ni, tr: r.tr,
    };
    this.files.set(fid, f);
    this.byPath.set(f.path, fid);
    this.linkModules(f);
    // A new version of a file keeps its place in path order: patch the cached
    // list (a save must not cost a pass over the whole tree); a new path is
    // placed by insertOrder, which drops the cache.
    const at = this.rank?.[fid];
    if (this.orderedFiles && at !== undefined && this.orderedFiles[at]?.fid === fid) this.orderedFiles[at] = f;
    else this.orderedFiles = null;
    this.count(f, 1);
    return f;
  }

  private forget(f: FileMeta): void {
    this.files.delete(f.fid);
    this.byPath.delete(f.path);
    this.unlinkModules(f);
    this.count(f, -1);
  }

  /** Adds (sign 1) or takes away (-1) a file's share of the totals. */
  private count(f: FileMeta, sign: 1 | -1): void {
    const t = this.totals;
    t.lines += sign * f.lines; t.bytes += sign * f.size;
    t.symbols += sign * f.nDefs; t.imports += sign * f.nImports; t.py += f.py ? sign : 0; t.ts += f.ts ? sign : 0;
    if (f.tr) for (let i = 0; i < 4; i++) t.tsImports[i] += sign * f.tr[i];
  }

  private linkModules(f: FileMeta): void {
    for (const m of f.mods) {
      const ids = this.byModule.get(m);
      if (!ids) this.byModule.set(m, [f.fid]);
      else if (!ids.includes(f.fid)) ids.push(f.fid);
    }
  }

  private unlinkModules(f: FileMeta): void {
    for (const m of f.mods) {
      const ids = this.byModule.get(m);
      const at = ids?.indexOf(f.fid) ?? -1;
      if (at < 0) continue;
      if (ids!.length === 1) this.byModule.delete(m); else ids!.splice(at, 1);
    }
  }

  private insertOrder(f: FileMeta): void {
    let lo = 0, hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(this.files.get(this.order[mid])!.path, f.path) < 0) lo = mid + 1; else hi = mid;
    }
    this.order.splice(lo, 0, f.fid);
    this.rank = null;
    this.orderedFiles = null;
  }

  // ---------------------------------------------------------------- reading

  get size(): number { return this.files.size; }
  get counts(): Totals { return { ...this.totals, tsImports: [...this.totals.tsImports] }; }

  get(fid: number): FileMeta | undefined { return this.files.get(fid); }
  byPathOf(path: string): FileMeta | undefined {
    const fid = this.byPath.get(path);
    return fid === undefined ? undefined : this.files.get(fid);
  }
  /** A field, not a method: handed to hot loops as is, without a closure per query. */
  readonly isLive = (fid: number): boolean => this.files.has(fid);
  /** Every file, in no particular order. */
  all(): IterableIterator<FileMeta> { return this.files.values(); }

  /** Ids of the files that have `module` among their module names (a new array). */
  moduleFiles(module: string): number[] { return [...(this.byModule.get(module) ?? [])]; }
  /** Every module name with the files known by it. */
  modules(): IterableIterator<[string, readonly number[]]> { return this.byModule.entries(); }

  /** Live file ids in path order (a copy: the caller may keep it across commits). */
  idsInOrder(): number[] { return [...this.order]; }

  /** Live files in path order (shared: do not modify). */
  ordered(): readonly FileMeta[] {
    if (!this.orderedFiles) {
      this.orderedFiles = this.order.map((fid) => this.files.get(fid)!);
      this.joinedPaths = null;
    }
    return this.orderedFiles;
  }

  /** Live files under folder `dir` (`''` is the root), in path order: a binary search, as a folder's files are contiguous in path order. */
  filesUnder(dir: string): FileMeta[] {
    // Over `order` itself, not ordered(): that array is rebuilt after a change, and a save asks this of every file it names.
    const order = this.order;
    const at = (i: number) => this.files.get(order[i])!;
    if (dir === '') return order.map((fid) => this.files.get(fid)!);
    const prefix = `${dir}/`;
    let lo = 0, hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(at(mid).path, prefix) < 0) lo = mid + 1; else hi = mid;
    }
    const out: FileMeta[] = [];
    for (let i = lo; i < order.length && at(i).path.startsWith(prefix); i++) out.push(at(i));
    return out;
  }

  /** Files (in path order) whose path holds `q`; compared with the lowercased path when not caseSensitive (q is then lowercased already). */
  filesWithPathContaining(q: string, caseSensitive: boolean): FileMeta[] {
    const files = this.ordered();
    if (!this.joinedPaths) {
      // Offsets per form: a lowercased path can be longer than the path ("İ" is two units lowercased).
      const startsOf = (paths: string[]): Int32Array => {
        const starts = new Int32Array(paths.length + 1);
        let at = 0;
        paths.forEach((p, i) => { starts[i] = at; at += p.length + 1; });
        starts[paths.length] = at;
        return starts;
      };
      const exact = files.map((f) => f.path);
      const lower = files.map((f) => f.pathLower);
      this.joinedPaths = { exact: exact.join('\0'), lower: lower.join('\0'), exactStarts: startsOf(exact), lowerStarts: startsOf(lower) };
    }
    const starts = caseSensitive ? this.joinedPaths.exactStarts : this.joinedPaths.lowerStarts;
    const hay = caseSensitive ? this.joinedPaths.exact : this.joinedPaths.lower;
    const out: FileMeta[] = [];
    if (q.includes('\0')) return out;
    let lo = 0;
    for (let pos = hay.indexOf(q); pos >= 0;) {
      // The path holding pos: the last whose start is <= pos (searching on from the previous one).
      let hi = files.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= pos) lo = mid; else hi = mid - 1; }
      out.push(files[lo]);
      lo++;
      if (lo >= files.length) break;
      pos = hay.indexOf(q, starts[lo]);
    }
    return out;
  }

  /** fid -> position in path order (valid for live ids). */
  pathRank(): Int32Array {
    if (!this.rank) {
      const rank = new Int32Array(this.nextFid + 1);
      this.order.forEach((fid, i) => { rank[fid] = i; });
      this.rank = rank;
    }
    return this.rank;
  }

  /** Sorts file ids by path, in place. */
  sortByPath(fids: number[]): number[] {
    const rank = this.pathRank();
    return fids.sort((a, b) => rank[a] - rank[b]);
  }

  /** Sorts items that carry a file by the file's path, in place. */
  sortByPathOf<T extends { f: FileMeta }>(xs: T[]): T[] {
    const rank = this.pathRank();
    return xs.sort((a, b) => rank[a.f.fid] - rank[b.f.fid]);
  }

  /** Ids of the files `pred` accepts (the fallback for lookup keys too long for LMDB: callers filter the files precisely). */
  matching(pred: (f: FileMeta) => boolean): number[] {
    return [...this.files.values()].filter(pred).map((f) => f.fid);
  }
}
