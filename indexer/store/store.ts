// The index of one repository root, as the builder and the tools see it. It
// composes the LMDB tables (tables.ts), the file table in memory
// (file-table.ts), the other in-memory structures (memory.ts) and the query
// planner (plan.ts), which the tools ask directly (`store.plan`) where their
// answers are. Every change goes through commit(): one write transaction (a
// large one: several of bounded size, commit-parts.ts), after which the
// in-memory state is patched in the same synchronous step, so a query — which
// runs synchronously too — sees the index wholly before or wholly after an
// update.
import { FileTable, type FileMeta, type Totals } from './file-table.js';
import { MemoryIndex, type CommitMode, type ImportSpan } from './memory.js';
import { QueryPlanner, type CandidateFile, type DefinitionHit, type DefinitionQuery, type Hits, type Window } from './plan.js';
import type { TextMapOptions } from './mapped-text.js';
import type { SearchText } from './search-text.js';
import { decodeText } from '../text.js';
import { targetName } from '../typescript/targets.js';
import { CommitRoom } from './commit-room.js';
import { commitParts } from './commit-parts.js';
import { noSpace, roomLeft } from '../write-failure.js';
import { Tables, type FileWrite, type ImportRec, type IndexState, type ResolutionCounts, type TsResolution } from './tables.js';

export { FORMAT_VERSION, UNRESOLVED_AT } from './tables.js';
export type { CandidateFile, DefinitionHit, DefinitionQuery, FileMeta, FileWrite, Hits, ImportRec, ImportSpan, IndexState, ResolutionCounts, TsResolution, Window };

export type StoreOp =
  | { op: 'put'; file: FileWrite }
  | { op: 'touch'; path: string; size: number; mtimeMs: number }   // same content, new stat
  | { op: 'remove'; path: string }                                  // gone: drops the file and any skip record
  | { op: 'skip'; path: string; size: number; mtimeMs: number }    // listed by the walk but not indexable (binary): remembered so an unchanged one is not read again
  | { op: 'resolve'; path: string; mods: string[]; imports: ImportRec[]; tsres?: TsResolution }; // resolved again (package layout, configs, files that appeared)

export interface MetaPatch { state?: IndexState; pkgDirs?: string[] }

/** Representative names of an index (see IndexHandle.sample). */
export interface IndexSample { symbols: string[]; modules: string[]; paths: string[] }

export class Store {
  private readonly files = new FileTable();
  private readonly memory: MemoryIndex;
  /**
   * Where a query's answers are (plan.ts): the tools ask it directly. It
   * reads the same file table and memory as the store, never writes, and
   * answers in one synchronous step like every read here.
   */
  readonly plan: QueryPlanner;

  generation = 0;
  state: IndexState = 'empty';
  lastUpdate: string | null = null;
  pkgDirs: string[] = [];
  private closed = false;
  /** LMDB says `building` for a commit in parts that stopped between them (see commit), while `state` is what the index is. */
  private partsMarked = false;
  /** Whether the disk has room for a commit (asked before LMDB is). */
  private readonly room: CommitRoom;
  /** Set by the owner before close() so a background warm-up stops at its next slice. */
  stopWarming = false;

  private constructor(private readonly tables: Tables, private readonly dir: string, private readonly stateDir: string, textMap?: TextMapOptions) {
    this.memory = new MemoryIndex(tables, this.files, textMap);
    this.plan = new QueryPlanner(this.files, this.memory, tables);
    this.room = new CommitRoom(tables.pageSize, { free: () => roomLeft(dir), pages: () => tables.pages() });
  }

  /**
   * Opens (or creates) the index in `dir` (see Tables.open for another format
   * version), with the file table loaded. With `textMap`, the search text of a
   * large tree is moved out of the heap at the end of warm-up (mapped-text.ts).
   * `stateDir` (default `dir`): the folder a commit the disk has no room for names.
   */
  static async open(dir: string, textMap?: TextMapOptions, stateDir = dir): Promise<Store> {
    const store = new Store(await Tables.open(dir), dir, stateDir, textMap);
    const meta = store.tables.readMeta();
    store.generation = meta.generation;
    store.state = meta.state;
    store.lastUpdate = meta.lastUpdate;
    store.pkgDirs = meta.pkgDirs;
    store.files.load(store.tables.fileRows(), store.tables.skipRows(), meta.nextFileId);
    store.memory.reset();
    return store;
  }

  // ---------------------------------------------------------------- writing

  /**
   * Applies ops as one generation: written in LMDB as one write transaction,
   * or, when large, as several of bounded size one after another
   * (commit-parts.ts says why), then patched into memory, all in one
   * synchronous step, so a query sees all of it or none. A throw before the
   * first transaction lands leaves LMDB and memory untouched; one in a later
   * transaction leaves the parts written before it, in LMDB and in memory
   * alike (whole files each), the generation counted, and LMDB marked
   * `building` until a later commit lands whole. Refused with
   * no_space, before LMDB is called, when the disk visibly lacks room for
   * it or for a part (commit-room.ts says why).
   */
  commit(ops: readonly StoreOp[], patch: MetaPatch = {}): number {
    const { tables, files, memory } = this;
    this.checkRoom(ops);
    const parts = commitParts(ops, (o) => (o.op === 'put' ? o.file : null));
    const after: Array<() => void> = [];
    const loadText: number[] = [];
    const generation = this.generation + 1;
    const now = new Date().toISOString();
    let nextFid = files.nextFid;
    const mode = memory.commitMode(ops.filter((o) => o.op === 'put').length);
    // A commit in parts is marked building in LMDB by its first part, so a stop between parts leaves the index to be
    // repaired as an interrupted build is (Builder.reconcile resolves every import again: those of other files that the
    // parts written may have changed); its last part (or the next commit that lands) writes the state back.
    const split = parts.length > 1;
    const first: MetaPatch = patch.state === 'building' || split ? { state: 'building' } : {};
    const last: MetaPatch = { state: patch.state ?? (split || this.partsMarked ? this.state : undefined), pkgDirs: patch.pkgDirs };
    let landed = 0;
    try {
      for (const [i, part] of parts.entries()) {
        if (i > 0) this.checkRoom(part);
        const done: Array<() => void> = [];
        let fid = nextFid;
        tables.transaction(() => {
          for (const o of part) fid = this.write(o, fid, mode, done, loadText);
          const end = i === parts.length - 1 ? last : i === 0 ? first : {};
          tables.putMeta({ generation, lastUpdate: now, nextFileId: fid, state: end.state, pkgDirs: end.pkgDirs });
        });
        this.room.landed();
        nextFid = fid;
        after.push(...done);
        landed++;
      }
    } finally {
      // What landed is patched into memory before anything else can run, a failed part or not.
      if (landed > 0) {
        for (const fn of after) fn();
        files.nextFid = nextFid;
        memory.committed(loadText, mode);
        this.generation = generation;
        this.lastUpdate = now;
        if (landed === parts.length) {
          this.partsMarked = false;
          if (patch.state) this.state = patch.state;
          if (patch.pkgDirs) this.pkgDirs = patch.pkgDirs;
        } else if (patch.state === 'building') this.state = 'building';
        else this.partsMarked = true;
      }
    }
    return generation;
  }

  /**
   * Writes one operation inside a transaction (`fid`: the id a new file
   * takes); what memory must do once the transaction lands goes on `done`,
   * the files whose search text is then read on `loadText`. Returns the id
   * the next new file takes.
   */
  private write(o: StoreOp, fid: number, mode: CommitMode, done: Array<() => void>, loadText: number[]): number {
    const { tables, files, memory } = this;
    const old = files.byPathOf(o.op === 'put' ? o.file.path : o.path);
    switch (o.op) {
      case 'put': {
        const f = o.file;
        const id = old?.fid ?? fid++;
        // The old version's buckets, so the postings can be patched (a bulk commit rebuilds them instead).
        const prevTri = old && !mode.bulk ? tables.tri(id) ?? null : null;
        const row = tables.putFile(id, f, old !== undefined);
        const skipped = files.skipped.has(f.path);
        if (skipped) tables.removeSkip(f.path);
        const prev = prevTri ? Uint8Array.from(prevTri) : null;
        done.push(() => {
          if (old) memory.fileChanged(old.fid);
          if (skipped) files.skipped.delete(f.path);
          files.put(id, row, old);
          memory.filePut(id, f.tri, prev, mode, f.lang !== null ? f.defs : [], f.lang !== null ? f.imports : []);
          if (mode.keepComplete) loadText.push(id);
        });
        break;
      }
      case 'touch': {
        if (!old || !tables.touchFile(old.fid, o.size, o.mtimeMs)) break;
        done.push(() => files.touch(old, o.size, o.mtimeMs));
        break;
      }
      case 'skip':
      case 'remove': {
        if (o.op === 'skip') {
          tables.putSkip(o.path, o.size, o.mtimeMs);
          done.push(() => files.skipped.set(o.path, { size: o.size, mtimeMs: o.mtimeMs }));
        } else if (files.skipped.has(o.path)) {
          tables.removeSkip(o.path);
          done.push(() => files.skipped.delete(o.path));
        }
        if (!old) break;
        tables.removeFile(old.fid);
        done.push(() => { files.remove(old); memory.fileRemoved(old.fid); });
        break;
      }
      case 'resolve': {
        const row = old && (old.py || old.ts) ? tables.resolveFile(old.fid, o.mods, o.imports, o.tsres) : null;
        if (!old || !row) break;
        done.push(() => { files.resolved(old, row); memory.importsResolved(old.fid, o.imports); });
        break;
      }
    }
    return fid;
  }

  /**
   * LMDB says `building` while the index is whole (`state` says what it is): a
   * commit in parts was cut short (see commit). Any commit that lands writes the
   * state back, one of no operations too: a retry that finds nothing left to
   * write makes one, or a restart would repair the index as an interrupted build.
   */
  get markedBuilding(): boolean { return this.partsMarked; }

  /** Throws no_space when the disk visibly has no room for `ops` (commit-room.ts). */
  private checkRoom(ops: readonly StoreOp[]): void {
    const puts: FileWrite[] = [];
    for (const o of ops) if (o.op === 'put') puts.push(o.file);
    if (!this.room.fits(puts, ops.length)) throw noSpace(this.stateDir);
  }

  /** Marks the state without touching files (e.g. `building` before a refresh, `ready` after). */
  setState(state: IndexState, pkgDirs?: string[]): void {
    if (state === this.state && !pkgDirs) return;
    this.commit([], { state, pkgDirs });
  }

  // ---------------------------------------------------------------- reading (synchronous: one consistent view)

  get fileCount(): number { return this.files.size; }
  get counts(): Totals { return this.files.counts; }
  /** Paths the walk lists but that are not indexable (binary), with the stat they had when judged. */
  get skipped(): ReadonlyMap<string, { size: number; mtimeMs: number }> { return this.files.skipped; }

  fileByPath(path: string): FileMeta | undefined { return this.files.byPathOf(path); }
  file(fid: number): FileMeta | undefined { return this.files.get(fid); }
  /** Live files in path order (shared: do not modify). */
  ordered(): readonly FileMeta[] { return this.files.ordered(); }
  /** Live files under folder `dir` (`''` is the root), in path order. */
  filesUnder(dir: string): FileMeta[] { return this.files.filesUnder(dir); }
  /** Files (in path order) whose path holds `q`; compared with the lowercased path when not caseSensitive (q is then lowercased already). */
  filesWithPathContaining(q: string, caseSensitive: boolean): FileMeta[] { return this.files.filesWithPathContaining(q, caseSensitive); }
  /** Ids of the files that have `module` among their module names. */
  moduleFiles(module: string): number[] { return this.files.moduleFiles(module); }

  /**
   * Every target some import statement is looked up by (any order): Python
   * module names, `./path` and `:specifier` (typescript/targets.ts). From the
   * symbol index once warm-up has read every file, from the `target` table's
   * keys until then: the symbol index holds only the files read so far, and
   * near misses drawn from it changed as warm-up went on.
   */
  importTargets(): Iterable<string> { return this.memory.symbolsReady ? this.memory.symbols.targets() : this.tables.targetKeys(); }

  /** Every module name some file is known by (any order). */
  *moduleNames(): Generator<string> { for (const [m] of this.files.modules()) yield m; }

  /** The file's search form: its lines, what snippets are cut from (see MemoryIndex.searchText). */
  searchText(fid: number): SearchText { return this.memory.searchText(fid); }
  /** An import statement's lines joined by "\n" (see MemoryIndex.importText). */
  importText(r: ImportSpan): string { return this.memory.importText(r); }
  /** The file's import statements as stored (the builder re-resolves them from their raw form). */
  imports(fid: number): ImportRec[] { return this.memory.imports(fid); }
  /** The file's text as indexed (decoded, not split); undefined for an id with no text. */
  text(fid: number): string | undefined {
    const bytes = this.tables.text(fid);
    return bytes === undefined ? undefined : decodeText(bytes);
  }
  /** What a TypeScript/JavaScript file's resolution rested on (FORMAT.md, `tsres`). */
  tsResolution(fid: number): TsResolution | undefined { return this.tables.tsResolution(fid); }
  /** Every stored TsResolution, by file id. */
  tsResolutions(): Iterable<[number, TsResolution]> { return this.tables.tsResolutions(); }

  /** Up to `n` each of the definition names, imported module names and paths, spread evenly over each list. */
  sample(n: number): IndexSample {
    const sym = this.memory.symbols;
    const paths = this.files.ordered().map((f) => f.path);
    return {
      symbols: spread(sym.names(), sym.nameCount, n),
      // As a caller names them: a TypeScript statement's `./path` and `:package` targets without their marks.
      modules: [...new Set(spread(sym.targets(), sym.targetCount, n).map(targetName))],
      paths: spread(paths, paths.length, n),
    };
  }

  // ---------------------------------------------------------------- memory state

  /** True when every live file's search text is in memory (searches then need no postings). */
  get textComplete(): boolean { return this.memory.textComplete; }
  /** Whether a warm-up pass would write a text map generation (see MemoryIndex.textMapDue). */
  get textMapDue(): boolean { return this.memory.textMapDue; }
  /** Bytes of search text in the text map (0 with none). */
  get textMapBytes(): number { return this.memory.textMapBytes; }
  /** One line on where the search text is (a text map's generation, or why there is none); null without a map folder. */
  get textMapState(): string | null { return this.memory.textMapState(String(this.generation), this.state === 'ready'); }

  /**
   * Whether definitions and importers are answered from the in-memory symbol
   * index (true once warm-up has read every file) or from the LMDB rows. Tests
   * set it to false to run the rows path on a warm index; the answers are the
   * same either way.
   */
  get symbolsReady(): boolean { return this.memory.symbolsReady; }
  set symbolsReady(ready: boolean) { this.memory.symbolsReady = ready; }

  /** Loads every file's search text and symbol rows in small slices, yielding between them; `mayCompact`: whether a text map compaction may be written now (see MemoryIndex.warm). */
  warmSearchCache(sliceMs = 8, mayCompact?: () => boolean): Promise<void> {
    return this.memory.warm(sliceMs, () => this.closed || this.stopWarming, mayCompact);
  }

  /**
   * Everything the index holds, keyed by path instead of file id (ids differ
   * between two builds of the same tree): rows, lookup tables and skip records.
   * For tests that compare an updated index with a fresh one.
   */
  dump(): Record<string, unknown> {
    const pathOf = (fid: number): string => this.files.get(fid)?.path ?? `<dangling ${fid}>`;
    const { files, sym, target, skip, rows } = this.tables.dump(this.files.ordered(), pathOf);
    return {
      state: this.state, pkgDirs: this.pkgDirs, files, sym, target,
      // Module name -> files, as find_importers reads it (kept in memory from the files' `mods`).
      module: [...this.files.modules()].flatMap(([m, ids]) => [...ids].map((fid) => `${m} -> ${pathOf(fid)}`)).sort(),
      skip, rows,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tables.close();
    await this.memory.close();
  }
}

/** n of `size` items, those at k·size/n for k = 0..n-1 (all of them when size <= n), so the pick spans the list. */
function spread(items: Iterable<string>, size: number, n: number): string[] {
  if (size <= n) return [...items];
  const out: string[] = [];
  let i = 0;
  let next = 0;
  for (const item of items) {
    if (i++ !== next) continue;
    out.push(item);
    if (out.length === n) break;
    next = Math.floor((out.length * size) / n);
  }
  return out;
}
