// The LMDB index of one repository root (layout in ./FORMAT.md). This module is
// the only code that touches LMDB. Every change goes through commit(): one write
// transaction, after which the in-memory derived state (file table, path order,
// trigram postings, caches) is patched in the same synchronous step, so a query
// — which runs synchronously too — sees the index wholly before or wholly after
// an update.
import { mkdirSync, rmSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { PyDef, PyImport } from '../model.js';
import { decodeText, splitLines } from '../text.js';
import { BlockSignatures } from './block-signatures.js';
import { TrigramLineCounts } from './line-counts.js';
import { Postings } from './postings.js';
import { BLOCK_CHARS, SearchText } from './search-text.js';
import { SymbolIndex, type ImportRef } from './symbols.js';
import { cmp } from './path-order.js';

export { SearchText };

/** Bump whenever a table's key or value layout changes: an index of another version is rebuilt from scratch. */
export const FORMAT_VERSION = 3;

/** LMDB keys longer than this (UTF-8 bytes) are not stored in the lookup tables (LMDB's hard limit is 511). */
const MAX_KEY_BYTES = 400;
/** Appended postings past this many entries trigger a rebuild from `tri` (keeps memory and lookups tight). */
const POSTINGS_REBUILD_AT = 2_000_000;
/** Commits with more file writes than this mark the postings stale instead of patching them. */
const BULK_PUTS = 32;
/** Files whose decoded defs/imports rows stay cached. */
const ROWS_CACHE_FILES = 256;

/** A Map that keeps the `max` most recently used entries. */
class Lru<V> {
  private map = new Map<number, V>();
  constructor(private readonly max: number) {}
  get(k: number): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) { this.map.delete(k); this.map.set(k, v); }
    return v;
  }
  set(k: number, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as number);
  }
  delete(k: number): void { this.map.delete(k); }
}

/** A file a search must scan, with its blocks to scan (see Store.candidateBlocks). */
export interface CandidateFile { f: FileMeta; st: SearchText; from: number; to: number }

export type IndexState = 'empty' | 'building' | 'ready';

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
  mods: string[];     // module names (Python files only), contract §3
  nDefs: number;
  nImports: number;
}

/** An import statement with the targets it resolved to when written (contract §3). */
export interface ImportRec {
  start: number;
  end: number;
  targets: string[];
  raw: PyImport;
}

export interface FileWrite {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
  lines: number;
  text: Uint8Array;       // the file's bytes (decoded with decodeText when read)
  tri: Uint8Array;        // encoded trigram buckets (trigrams.ts)
  py: boolean;
  defs: PyDef[];
  imports: ImportRec[];
  mods: string[];
}

export type StoreOp =
  | { op: 'put'; file: FileWrite }
  | { op: 'touch'; path: string; size: number; mtimeMs: number }   // same content, new stat
  | { op: 'remove'; path: string }                                  // gone: drops the file and any skip record
  | { op: 'skip'; path: string; size: number; mtimeMs: number }    // listed by the walk but not indexable (binary): remembered so an unchanged one is not read again
  | { op: 'resolve'; path: string; mods: string[]; imports: ImportRec[] }; // package layout changed

export interface MetaPatch { state?: IndexState; pkgDirs?: string[] }

interface FileRow { p: string; s: number; m: number; h: string; n: number; py: boolean; mods: string[]; nd: number; ni: number }
type DefRow = [name: string, qualname: string, kind: PyDef['kind'], start: number, end: number];

/** The distinct `sym` keys of a file's definitions (simple names and qualnames): one put per key, not per definition. */
function symKeys(defs: ReadonlyArray<{ name: string; qualname: string }>): Set<string> {
  const keys = new Set<string>();
  for (const d of defs) {
    if (keyOk(d.name)) keys.add(d.name);
    if (keyOk(d.qualname)) keys.add(d.qualname);
  }
  return keys;
}

function keyOk(key: string): boolean {
  return key.length > 0 && Buffer.byteLength(key) <= MAX_KEY_BYTES;
}

export class Store {
  private env: RootDatabase;
  private meta: Database<any, string>;
  private filesDb: Database<FileRow, number>;
  private textDb: Database<Buffer, number>;
  private triDb: Database<Buffer, number>;
  private skipDb: Database<[number, number], string>;
  private defsDb: Database<DefRow[], number>;
  private impsDb: Database<ImportRec[], number>;
  private symDb: Database<number, string>;
  private targetDb: Database<number, string>;

  private files = new Map<number, FileMeta>();
  /** Paths the walk lists but that are not indexable (binary), with the stat they had when judged. */
  readonly skipped = new Map<string, { size: number; mtimeMs: number }>();
  /** Set when a bulk commit skipped patching the postings; the next search rebuilds them. */
  private postingsDirty = false;
  private byPath = new Map<string, number>();
  /** Module name -> ids of the files known by it (from each file's `mods`, kept with the file table; find_importers asks it on every call). */
  private byModule = new Map<string, Set<number>>();
  private order: number[] = [];           // live fids sorted by path (code point order: cmp)
  private rank: Int32Array | null = null; // fid -> position in order; rebuilt lazily
  private orderedFiles: FileMeta[] | null = null; // the files of `order`; rebuilt lazily
  /** Every path in order joined by NUL (which no path holds), as given and lowercased, with each path's offset: one indexOf finds path matches. */
  private joinedPaths: { exact: string; lower: string; exactStarts: Int32Array; lowerStarts: Int32Array } | null = null;
  /**
   * File-level trigram postings, for searches while not every file's search
   * text is in memory (before warm-up ends, or after a bulk update). Freed once
   * it is: the block signatures then filter every file on their own.
   */
  private readonly postings = new Postings();
  /** Definitions by name and imports by target, in memory; complete once `symbolsReady` (warm-up reads the rest). */
  readonly symbols = new SymbolIndex();
  symbolsReady = false;
  /** Every file's search form once warm (lowercased text in blocks: what search_code scans). */
  private textCache = new Map<number, SearchText>();
  /** Signatures of the blocks of every file in textCache (kept in step with it). */
  private readonly sigs = new BlockSignatures((fid) => this.textCache.get(fid)!);
  /** Lines per trigram over every file in textCache (kept in step with it). */
  private readonly lineCounts = new TrigramLineCounts();
  // Definitions and imports are read from LMDB for the files a query touches;
  // small LRUs keep the recently used ones (bounded, so steady memory does not
  // grow with the queries asked).
  private defsCache = new Lru<PyDef[]>(ROWS_CACHE_FILES);
  private impsCache = new Lru<ImportRec[]>(ROWS_CACHE_FILES);

  generation = 0;
  state: IndexState = 'empty';
  lastUpdate: string | null = null;
  pkgDirs: string[] = [];
  private nextFid = 1;
  private totals = { lines: 0, bytes: 0, symbols: 0, imports: 0, py: 0 };

  private constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.env = open({ path: dir, maxDbs: 16 });
    this.meta = this.env.openDB({ name: 'meta', encoding: 'msgpack' });
    this.filesDb = this.env.openDB({ name: 'files', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.textDb = this.env.openDB({ name: 'text', keyEncoding: 'uint32', encoding: 'binary', compression: true });
    this.triDb = this.env.openDB({ name: 'tri', keyEncoding: 'uint32', encoding: 'binary' });
    this.skipDb = this.env.openDB({ name: 'skip', encoding: 'msgpack' });
    this.defsDb = this.env.openDB({ name: 'defs', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.impsDb = this.env.openDB({ name: 'imports', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.symDb = this.env.openDB({ name: 'sym', dupSort: true, encoding: 'ordered-binary' });
    this.targetDb = this.env.openDB({ name: 'target', dupSort: true, encoding: 'ordered-binary' });
  }

  /**
   * Opens (or creates) the index in `dir`. An index written by another format
   * version — or one that predates versioning — is deleted and started afresh:
   * it is derived data, the next refresh rebuilds it.
   */
  static async open(dir: string): Promise<Store> {
    let store = new Store(dir);
    const version = store.meta.get('formatVersion');
    if (version !== FORMAT_VERSION) {
      const empty = version === undefined && store.filesDb.getKeysCount() === 0;
      if (!empty) {
        await store.env.close();
        rmSync(dir, { recursive: true, force: true });
        store = new Store(dir);
      }
      store.env.transactionSync(() => {
        store.meta.putSync('formatVersion', FORMAT_VERSION);
        store.meta.putSync('generation', 0);
        store.meta.putSync('state', 'empty');
        store.meta.putSync('nextFileId', 1);
        store.meta.putSync('pkgDirs', []);
      });
    }
    store.load();
    return store;
  }

  /** Builds the in-memory state from LMDB: file table and path order (postings wait for warm-up or the first search). */
  private load(): void {
    this.generation = this.meta.get('generation') ?? 0;
    this.state = this.meta.get('state') ?? 'empty';
    this.lastUpdate = this.meta.get('lastUpdate') ?? null;
    this.nextFid = this.meta.get('nextFileId') ?? 1;
    this.pkgDirs = this.meta.get('pkgDirs') ?? [];
    this.files.clear(); this.byPath.clear(); this.byModule.clear();
    this.totals = { lines: 0, bytes: 0, symbols: 0, imports: 0, py: 0 };
    for (const { key, value } of this.filesDb.getRange()) this.remember(key, value);
    this.skipped.clear();
    for (const { key, value } of this.skipDb.getRange()) this.skipped.set(key, { size: value[0], mtimeMs: value[1] });
    this.order = [...this.files.values()].sort((a, b) => cmp(a.path, b.path)).map((f) => f.fid);
    this.rank = null;
    this.orderedFiles = null;
    this.symbols.clear();
    this.symbolsReady = false;
    // Built at the first search or by warm-up, not here: it is most of the
    // open time, and a restarted daemon should serve (symbols, reads) first.
    this.postingsDirty = true;
  }

  /** Frees the postings; the next search that needs them rebuilds them from `tri`. */
  private dropPostings(): void {
    this.postings.clear();
    this.postingsDirty = true;
  }

  private rebuildPostings(): void {
    const lists: Array<[number, Uint8Array]> = [];
    for (const { key, value } of this.triDb.getRange()) {
      if (this.files.has(key)) lists.push([key, value]);
    }
    this.postings.build(lists);
    this.postingsDirty = false;
  }

  private remember(fid: number, r: FileRow): FileMeta {
    const f: FileMeta = { fid, path: r.p, pathLower: r.p.toLowerCase(), size: r.s, mtimeMs: r.m, hash: r.h, lines: r.n, py: r.py, mods: r.mods, nDefs: r.nd, nImports: r.ni };
    this.files.set(fid, f);
    this.byPath.set(f.path, fid);
    this.linkModules(f);
    // A new version of a file keeps its place in path order: patch the cached
    // list (a save must not cost a pass over the whole tree); a new path is
    // placed by insertOrder, which drops the cache.
    const at = this.rank?.[fid];
    if (this.orderedFiles && at !== undefined && this.orderedFiles[at]?.fid === fid) this.orderedFiles[at] = f;
    else this.orderedFiles = null;
    this.totals.lines += f.lines; this.totals.bytes += f.size;
    this.totals.symbols += f.nDefs; this.totals.imports += f.nImports; this.totals.py += f.py ? 1 : 0;
    return f;
  }

  private linkModules(f: FileMeta): void {
    for (const m of f.mods) {
      let ids = this.byModule.get(m);
      if (!ids) { ids = new Set(); this.byModule.set(m, ids); }
      ids.add(f.fid);
    }
  }

  private unlinkModules(f: FileMeta): void {
    for (const m of f.mods) {
      const ids = this.byModule.get(m);
      if (ids?.delete(f.fid) && ids.size === 0) this.byModule.delete(m);
    }
  }

  private forget(f: FileMeta): void {
    this.files.delete(f.fid);
    this.byPath.delete(f.path);
    this.unlinkModules(f);
    this.totals.lines -= f.lines; this.totals.bytes -= f.size;
    this.totals.symbols -= f.nDefs; this.totals.imports -= f.nImports; this.totals.py -= f.py ? 1 : 0;
    this.dropCaches(f.fid);
  }

  private dropCaches(fid: number): void {
    const text = this.textCache.get(fid);
    if (text) {
      this.textCache.delete(fid);
      this.sigs.delete(fid);
      this.lineCounts.apply(text, -1);
    }
    this.defsCache.delete(fid); this.impsCache.delete(fid);
  }

  // ---------------------------------------------------------------- writing

  /**
   * Applies ops as ONE write transaction (and one generation), then patches the
   * in-memory state. A throw inside leaves both LMDB and memory untouched.
   */
  commit(ops: readonly StoreOp[], patch: MetaPatch = {}): number {
    const after: Array<() => void> = [];
    const loadText: number[] = [];
    const generation = this.generation + 1;
    const now = new Date().toISOString();
    let nextFid = this.nextFid;
    // A bulk commit (a build step) leaves the postings to be rebuilt once at the
    // next search instead of patching them file by file.
    const puts = ops.filter((o) => o.op === 'put').length;
    const bulk = this.postingsDirty || puts > BULK_PUTS;
    // While every file's search text is in memory, a small commit loads the new
    // versions at once, so it stays complete (a bulk one leaves that to warm-up).
    const keepComplete = puts <= BULK_PUTS && this.textComplete;
    this.env.transactionSync(() => {
      for (const o of ops) {
        const fid = this.byPath.get(o.op === 'put' ? o.file.path : o.path);
        const old = fid === undefined ? undefined : this.files.get(fid);
        switch (o.op) {
          case 'put': {
            const f = o.file;
            const id = fid ?? nextFid++;
            const prevTri = old ? this.triDb.getBinary(id) ?? null : null;
            if (old) this.unlinkKeys(id);
            const row: FileRow = {
              p: f.path, s: f.size, m: f.mtimeMs, h: f.hash, n: f.lines, py: f.py, mods: f.py ? f.mods : [],
              nd: f.defs.length, ni: f.imports.length,
            };
            this.filesDb.putSync(id, row);
            this.textDb.putSync(id, f.text as Buffer);
            this.triDb.putSync(id, f.tri as Buffer);
            if (f.py) {
              this.defsDb.putSync(id, f.defs.map((d): DefRow => [d.name, d.qualname, d.kind, d.start, d.end]));
              this.impsDb.putSync(id, f.imports);
            } else {
              this.defsDb.removeSync(id); this.impsDb.removeSync(id);
            }
            this.linkKeys(id, f.defs, f.imports);
            const skipped = this.skipped.has(f.path);
            if (skipped) this.skipDb.removeSync(f.path);
            const prev = prevTri && !bulk ? Uint8Array.from(prevTri) : null;
            after.push(() => {
              if (old) this.forget(old);
              if (skipped) this.skipped.delete(f.path);
              const m = this.remember(id, row);
              if (!old) this.insertOrder(m);
              if (!bulk) this.postings.add(id, f.tri, prev);
              this.symbols.set(id, f.py ? f.defs : [], f.py ? f.imports : []);
              if (keepComplete) loadText.push(id);
            });
            break;
          }
          case 'touch': {
            if (!old || fid === undefined) break;
            const row = this.filesDb.get(fid);
            if (!row) break;
            row.s = o.size; row.m = o.mtimeMs;
            this.filesDb.putSync(fid, row);
            after.push(() => { this.totals.bytes += o.size - old.size; old.size = o.size; old.mtimeMs = o.mtimeMs; });
            break;
          }
          case 'skip':
          case 'remove': {
            if (o.op === 'skip') {
              this.skipDb.putSync(o.path, [o.size, o.mtimeMs]);
              after.push(() => this.skipped.set(o.path, { size: o.size, mtimeMs: o.mtimeMs }));
            } else if (this.skipped.has(o.path)) {
              this.skipDb.removeSync(o.path);
              after.push(() => this.skipped.delete(o.path));
            }
            if (!old || fid === undefined) break;
            this.unlinkKeys(fid);
            for (const db of [this.filesDb, this.textDb, this.triDb, this.defsDb, this.impsDb]) db.removeSync(fid);
            after.push(() => { this.forget(old); this.removeOrder(old); this.symbols.delete(fid); });
            break;
          }
          case 'resolve': {
            if (!old || fid === undefined || !old.py) break;
            this.unlinkKeys(fid, true);
            const row = this.filesDb.get(fid);
            if (!row) break;
            row.mods = o.mods;
            this.filesDb.putSync(fid, row);
            this.impsDb.putSync(fid, o.imports);
            this.linkKeys(fid, [], o.imports);
            after.push(() => {
              this.unlinkModules(old);
              old.mods = o.mods;
              this.linkModules(old);
              this.impsCache.delete(fid); this.symbols.setImports(fid, o.imports);
            });
            break;
          }
        }
      }
      this.meta.putSync('generation', generation);
      this.meta.putSync('lastUpdate', now);
      this.meta.putSync('nextFileId', nextFid);
      if (patch.state) this.meta.putSync('state', patch.state);
      if (patch.pkgDirs) this.meta.putSync('pkgDirs', patch.pkgDirs);
    });
    // Committed: patch memory before anything else can run.
    for (const fn of after) fn();
    for (const fid of loadText) this.searchText(fid);
    this.generation = generation;
    this.lastUpdate = now;
    this.nextFid = nextFid;
    if (patch.state) this.state = patch.state;
    if (patch.pkgDirs) this.pkgDirs = patch.pkgDirs;
    if (bulk) this.postingsDirty = true;
    else if (this.postings.appended > POSTINGS_REBUILD_AT) this.rebuildPostings();
    return generation;
  }

  /** Adds the lookup-table entries of a file (sym: names and qualnames; target). Module names are looked up in memory (byModule). */
  private linkKeys(fid: number, defs: PyDef[], imports: ImportRec[]): void {
    for (const k of symKeys(defs)) this.symDb.putSync(k, fid);
    for (const imp of imports) for (const t of imp.targets) if (keyOk(t)) this.targetDb.putSync(t, fid);
  }

  /** Removes what linkKeys added for the stored version of a file (reads the old rows inside the transaction). */
  private unlinkKeys(fid: number, keepDefs = false): void {
    if (!keepDefs) {
      const defs = (this.defsDb.get(fid) ?? []).map(([name, qualname]) => ({ name, qualname }));
      for (const k of symKeys(defs)) this.symDb.removeSync(k, fid);
    }
    for (const imp of this.impsDb.get(fid) ?? []) for (const t of imp.targets) if (keyOk(t)) this.targetDb.removeSync(t, fid);
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

  private removeOrder(f: FileMeta): void {
    const i = this.order.indexOf(f.fid);
    if (i >= 0) this.order.splice(i, 1);
    this.rank = null;
    this.orderedFiles = null;
  }

  /** Marks the state without touching files (e.g. `building` before a refresh, `ready` after). */
  setState(state: IndexState, pkgDirs?: string[]): void {
    if (state === this.state && !pkgDirs) return;
    this.commit([], { state, pkgDirs });
  }

  // ---------------------------------------------------------------- reading (synchronous: one consistent view)

  get fileCount(): number { return this.files.size; }
  get counts(): { lines: number; bytes: number; symbols: number; imports: number; py: number } { return { ...this.totals }; }

  fileByPath(path: string): FileMeta | undefined {
    const fid = this.byPath.get(path);
    return fid === undefined ? undefined : this.files.get(fid);
  }
  file(fid: number): FileMeta | undefined { return this.files.get(fid); }
  isLive = (fid: number): boolean => this.files.has(fid);

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

  /** Sorts file ids by path. */
  sortByPath(fids: number[]): number[] {
    const rank = this.pathRank();
    return fids.sort((a, b) => rank[a] - rank[b]);
  }

  /** True when every live file's search text is in memory: the block signatures and line counts then cover the whole index. */
  get textComplete(): boolean { return this.textCache.size === this.files.size; }

  /** See TrigramLineCounts.rarestAt: where to anchor a scan for `q` (lowercased). */
  rarestCharAt(q: string): number { return this.lineCounts.rarestAt(q); }

  /** Lines of the whole index whose lowercased text holds `t` (three UTF-16 units, lowercased), or null when not counted (non-ASCII). Exact only when textComplete. */
  linesWithTrigram(t: string): number | null { return this.lineCounts.count(t); }

  /**
   * Where a query's lines can be: the files (in path order, optionally only
   * those under a path prefix), each with the blocks whose signature holds every
   * bucket, ascending: `blocks[from..to)` (blocks null: every block, from 0 to
   * the file's block count). With no buckets (a query too short for a trigram),
   * every block of every file.
   */
  candidateBlocks(buckets: readonly number[] | null, prefix?: string): { blocks: Int32Array | null; files: CandidateFile[] } {
    const under = (f: FileMeta) => prefix === undefined || f.path.startsWith(prefix);
    if (!buckets) {
      const files = this.ordered().filter(under).map((f) => {
        const st = this.searchText(f.fid);
        return { f, st, from: 0, to: st.blocks.length };
      });
      return { blocks: null, files };
    }
    const rows = this.sigs.queryRows(buckets);
    const files: CandidateFile[] = [];
    if (this.textComplete) {
      // Every file is in the signatures: one pass over them finds every block.
      const { n, fid, block } = this.sigs.match(rows);
      for (let i = 0; i < n;) {
        let j = i + 1;
        while (j < n && fid[j] === fid[i]) j++;
        const f = this.files.get(fid[i])!;
        if (under(f)) files.push({ f, st: this.textCache.get(f.fid)!, from: i, to: j });
        i = j;
      }
      return { blocks: block, files: this.sortByPathOf(files) };
    }
    // Not all in memory yet: the file-level postings pick the files, which are loaded (and signed) as needed.
    if (this.postingsDirty) this.rebuildPostings();
    const all: number[] = [];
    for (const id of this.postings.candidates(buckets, this.isLive, this.nextFid)) {
      const f = this.files.get(id)!;
      if (!under(f)) continue;
      const st = this.searchText(id);
      const from = all.length;
      for (const b of this.sigs.matchFile(id, rows)) all.push(b);
      if (all.length > from) files.push({ f, st, from, to: all.length });
    }
    return { blocks: Int32Array.from(all), files: this.sortByPathOf(files) };
  }

  private sortByPathOf<T extends { f: FileMeta }>(xs: T[]): T[] {
    const rank = this.pathRank();
    return xs.sort((a, b) => rank[a.f.fid] - rank[b.f.fid]);
  }

  private readLines(fid: number): string[] {
    const bytes = this.textDb.getBinary(fid);
    if (!bytes) throw new Error(`internal: no text stored for file id ${fid}`);
    return splitLines(decodeText(bytes));
  }

  /** The file's search form (built from LMDB on first use, dropped when the file changes). */
  searchText(fid: number): SearchText {
    let t = this.textCache.get(fid);
    if (!t) {
      t = SearchText.fromLines(this.readLines(fid));
      this.textCache.set(fid, t);
      this.sigs.set(fid, t);
      this.lineCounts.apply(t, 1);
    }
    return t;
  }

  /**
   * An import statement's lines, joined by "\n" as the file's text gives them:
   * read from the search text once, then kept on the ref (statements are short:
   * ~0.3 MB for the stdlib's 12k). find_importers' big answers (`typing`: ~3k
   * statements) then cost an object per item instead of a text read each.
   */
  importText(r: ImportRef): string {
    if (r.text === undefined) {
      const text = this.searchText(r.fid).textRange(r.start, r.end);
      // textRange's result can be a tree of slices (a piece per uppercase
      // letter of text held lowercased). Kept for the daemon's life, it is
      // flattened first: converting a string to a number makes V8 flatten it,
      // and the collector then drops the pieces — 3.9–4.6 instead of 10.2 MB of
      // heap for site-packages' 66k statements, and cheaper to serialise.
      Number(text);
      r.text = text;
    }
    return r.text;
  }

  defs(fid: number): PyDef[] {
    let d = this.defsCache.get(fid);
    if (!d) {
      d = (this.defsDb.get(fid) ?? []).map(([name, qualname, kind, start, end]) => ({ name, qualname, kind, start, end }));
      this.defsCache.set(fid, d);
    }
    return d;
  }

  imports(fid: number): ImportRec[] {
    let i = this.impsCache.get(fid);
    if (!i) { i = this.impsDb.get(fid) ?? []; this.impsCache.set(fid, i); }
    return i;
  }

  /** Files defining something whose name or qualname is `name`. */
  symbolFiles(name: string): number[] { return keyOk(name) ? [...this.symDb.getValues(name)] : this.scanFiles((f) => f.nDefs > 0); }
  /** Files with an import statement that has `target` among its targets. */
  targetFiles(target: string): number[] { return keyOk(target) ? [...this.targetDb.getValues(target)] : this.scanFiles((f) => f.nImports > 0); }
  /** Files that have `module` among their module names. */
  moduleFiles(module: string): number[] { return [...(this.byModule.get(module) ?? [])]; }

  /** Fallback for keys too long for the lookup tables: callers filter the returned files precisely. */
  private scanFiles(pred: (f: FileMeta) => boolean): number[] {
    return [...this.files.values()].filter(pred).map((f) => f.fid);
  }

  /**
   * Reads every file's search text and symbol rows into memory in small
   * slices, yielding between them (the daemon calls this after each refresh).
   * A commit in between adds its files itself, so they are skipped here; the
   * symbol index is complete, and used, once every file has been visited.
   */
  async warmSearchCache(sliceMs = 8): Promise<void> {
    // Yield first: the caller (a refresh that just finished) should answer, and
    // the daemon start serving, before this ~0.2 s synchronous build runs.
    await new Promise((r) => setImmediate(r));
    if (this.closed || this.stopWarming) return;
    // The postings serve searches while files are missing from memory; none are, nothing to build.
    if (this.postingsDirty && !this.textComplete) this.rebuildPostings();
    await new Promise((r) => setImmediate(r));
    if (this.closed || this.stopWarming) return;
    const fids = [...this.order];
    this.sigs.reserve(estimateSlots(this.files.values()));
    let i = 0;
    while (i < fids.length) {
      const t0 = performance.now();
      while (i < fids.length && performance.now() - t0 < sliceMs) {
        const fid = fids[i++];
        const f = this.files.get(fid);
        if (!f) continue;
        this.searchText(fid);
        if (!this.symbols.has(fid)) {
          this.symbols.set(fid, f.py ? this.defsDb.get(fid)?.map(([name, qualname, kind, start, end]) => ({ name, qualname, kind, start, end })) ?? [] : [], f.py ? this.imports(fid) : []);
        }
        for (const r of this.symbols.importsOf(fid)) this.importText(r);
      }
      await new Promise((r) => setImmediate(r));
      if (this.closed || this.stopWarming) return;
    }
    this.symbolsReady = true;
    // Every file is signed now: the postings are not needed until something makes the cache incomplete again.
    if (this.textComplete) this.dropPostings();
  }

  /**
   * Everything the index holds, keyed by path instead of file id (ids differ
   * between two builds of the same tree): rows, lookup tables and skip records.
   * For tests that compare an updated index with a fresh one.
   */
  dump(): Record<string, unknown> {
    const pathOf = (fid: number): string => this.files.get(fid)?.path ?? `<dangling ${fid}>`;
    const files = this.ordered().map((f) => ({
      path: f.path, size: f.size, hash: f.hash, lines: f.lines, py: f.py, mods: f.mods,
      defs: this.defsDb.get(f.fid) ?? null,
      imports: (this.impsDb.get(f.fid) ?? []).map((i) => [i.start, i.end, i.targets]),
      text: (this.textDb.getBinary(f.fid) ?? Buffer.alloc(0)).toString('base64').length,
      tri: Buffer.from(this.triDb.getBinary(f.fid) ?? []).toString('base64'),
    }));
    const table = (db: Database<number, string>): string[] => {
      const out: string[] = [];
      for (const { key, value } of db.getRange()) out.push(`${String(key)} -> ${pathOf(value)}`);
      return out.sort();
    };
    const rowsOf = (db: Database<any, number>): string[] => [...db.getKeys()].map((fid) => pathOf(fid as number)).sort();
    return {
      state: this.state, pkgDirs: this.pkgDirs, files,
      sym: table(this.symDb), target: table(this.targetDb),
      // Module name -> files, as find_importers reads it (kept in memory from the files' `mods`).
      module: [...this.byModule].flatMap(([m, ids]) => [...ids].map((fid) => `${m} -> ${pathOf(fid)}`)).sort(),
      skip: [...this.skipDb.getRange()].map(({ key, value }) => `${String(key)} ${value[0]}`).sort(),
      rows: { files: rowsOf(this.filesDb), text: rowsOf(this.textDb), tri: rowsOf(this.triDb), defs: rowsOf(this.defsDb), imports: rowsOf(this.impsDb) },
    };
  }

  private closed = false;
  /** Set by the owner before close() so a background warm-up stops at its next slice. */
  stopWarming = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.env.close();
  }
}

/**
 * Block slots the files will need, a little over: every block but a file's
 * last holds at least BLOCK_CHARS characters (at most one per byte), and each
 * file gets an eighth more slots to grow in place (BlockSignatures.set).
 */
function estimateSlots(files: Iterable<FileMeta>): number {
  let n = 0;
  for (const f of files) {
    const blocks = Math.floor(f.size / BLOCK_CHARS) + 1;
    n += blocks + (blocks >>> 3) + 1;
  }
  return n;
}
