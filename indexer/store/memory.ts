// What queries read from memory besides the file table, all derived from the
// LMDB tables: each file's search text (search-text.ts) with its block
// signatures (block-signatures.ts) and per-trigram line counts
// (line-counts.ts), the file-level trigram postings (postings.ts) that stand
// in while not every file's text is loaded, the symbol index (symbols.ts), and
// small caches of decoded rows. It owns when each is built, patched after a
// commit, and dropped, and the background warm-up that loads them all;
// plan.ts decides from them where a query's answers are.
import type { Definition } from '../model.js';
import { decodeText, ownString, splitLines } from '../text.js';
import { BlockSignatures, capacityFor } from './block-signatures.js';
import type { FileMeta, FileTable } from './file-table.js';
import { TrigramLineCounts } from './line-counts.js';
import { MappedText, type TextMapOptions } from './mapped-text.js';
import type { Due } from './in-slices.js';
import { Postings, PostingsBuild } from './postings.js';
import { BLOCK_CHARS, SearchText } from './search-text.js';
import { SymbolIndex, type ImportRef } from './symbols.js';
import type { ImportRec, Tables } from './tables.js';

/** Appended postings past this many entries trigger a rebuild from `tri` (keeps memory and lookups tight). */
const POSTINGS_REBUILD_AT = 2_000_000;
/** Commits with more file writes than this mark the postings stale instead of patching them. */
const BULK_PUTS = 32;
/** Files read, then filled, per step of a postings rebuild in slices (~2 ms a step on the Python stdlib). */
const POSTINGS_STEP = 64;
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

/** An import statement's place, whether it re-exports, and its text once read (ImportRef, or a statement read from the rows). */
export type ImportSpan = Pick<ImportRef, 'fid' | 'seq' | 'start' | 'end' | 'reexport' | 'text'>;

/** How a commit of this many file writes treats the in-memory state (see MemoryIndex.commitMode). */
export interface CommitMode { bulk: boolean; keepComplete: boolean }

export class MemoryIndex {
  /**
   * File-level trigram postings, for searches while not every file's search
   * text is in memory (before warm-up ends, or after a bulk update). Freed once
   * it is: the block signatures then filter every file on their own.
   */
  private readonly postings = new Postings();
  /** Set when a bulk commit skipped patching the postings; the next search rebuilds them. */
  private postingsDirty = false;
  /** A rebuild of the postings under way in slices (shared by the searches that wait for it; a commit drops it). */
  private rebuilding: { build: PostingsBuild; next: number; read: boolean } | null = null;
  /** Definitions by name and imports by target, in memory; complete once `symbolsReady` (warm-up reads the rest). */
  readonly symbols = new SymbolIndex();
  /**
   * Whether the symbol index holds every file: definitions and importers are
   * then answered from it, else from the LMDB rows (plan.ts). Set by warm-up;
   * a test sets it to false to force the rows path on a warm index.
   */
  symbolsReady = false;
  /** Every file's search form once warm (lowercased text in blocks: what search_code scans). */
  private readonly textCache = new Map<number, SearchText>();
  /** Signatures of the blocks of every file in textCache (kept in step with it); read by plan.ts. */
  readonly sigs = new BlockSignatures((fid) => this.textCache.get(fid)!);
  /** Lines per trigram over every file in textCache (kept in step with it); read by plan.ts. */
  readonly lineCounts = new TrigramLineCounts();
  // Definitions and imports are read from LMDB for the files a query touches;
  // small LRUs keep the recently used ones (bounded, so steady memory does not
  // grow with the queries asked).
  private readonly defsCache = new Lru<Definition[]>(ROWS_CACHE_FILES);
  private readonly impsCache = new Lru<ImportRec[]>(ROWS_CACHE_FILES);

  /** Where the one-byte search text of a large tree lies out of the heap (none for a store opened without a map folder). */
  private readonly mapped: MappedText | null;

  constructor(private readonly tables: Tables, private readonly files: FileTable, textMap?: TextMapOptions) {
    this.mapped = textMap ? new MappedText(textMap) : null;
  }

  /** After open: nothing derived yet. The postings are built by the first search that needs them, not here: that is most of the open time, and a restarted daemon should serve (symbols, reads) first. */
  reset(): void {
    this.rebuilding = null;
    this.symbols.clear();
    this.symbolsReady = false;
    this.postingsDirty = true;
  }

  /** True when every live file's search text is in memory: the block signatures and line counts then cover the whole index. */
  get textComplete(): boolean { return this.textCache.size === this.files.size; }

  /** The file's search form when it is in memory, without loading it. */
  loadedText(fid: number): SearchText | undefined { return this.textCache.get(fid); }

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

  private readLines(fid: number): string[] {
    const bytes = this.tables.text(fid);
    if (!bytes) throw new Error(`internal: no text stored for file id ${fid}`);
    return splitLines(decodeText(bytes));
  }

  /**
   * An import statement's lines, joined by "\n" as the file's text gives them:
   * read from the search text once, then kept on the ref (statements are short:
   * ~0.3 MB for the stdlib's 12k). find_importers' big answers (`typing`: ~3k
   * statements) then cost an object per item instead of a text read each.
   */
  importText(r: ImportSpan): string {
    if (r.text === undefined) {
      const st = this.searchText(r.fid);
      const text = st.textRange(r.start, r.end);
      // textRange's result can be a tree of slices (a piece per uppercase
      // letter of text held lowercased). Kept for the daemon's life, it is
      // flattened first: converting a string to a number makes V8 flatten it,
      // and the collector then drops the pieces — 3.9–4.6 instead of 10.2 MB of
      // heap for site-packages' 66k statements, and cheaper to serialise.
      // Flat, it can still be a view into the string it was cut from: a heap
      // piece (kept anyway), or a block read out of the text map, which the
      // view would keep: then it gets a copy of its own.
      Number(text);
      r.text = st.mapped ? ownString(text) : text;
    }
    return r.text;
  }

  /** The file's definitions from its LMDB row (cached for recently used files). */
  defs(fid: number): Definition[] {
    let d = this.defsCache.get(fid);
    if (!d) {
      d = this.tables.defs(fid);
      this.defsCache.set(fid, d);
    }
    return d;
  }

  /** The file's import statements from its LMDB row (cached for recently used files). */
  imports(fid: number): ImportRec[] {
    let i = this.impsCache.get(fid);
    if (!i) { i = this.tables.imports(fid); this.impsCache.set(fid, i); }
    return i;
  }

  /**
   * Ids of the files that may hold every bucket (see Postings.candidates).
   * Stale postings are rebuilt first, in steps that yield when `due`: on a
   * cold daemon that rebuild is the first search's, and in one step it held
   * every other client up as long (0.3 s on 6,500 files). Searches that
   * need the postings meanwhile carry the same rebuild on.
   */
  *postingsCandidates(buckets: readonly number[], due: Due): Generator<void, number[], void> {
    while (this.postingsDirty) {
      const r = (this.rebuilding ??= { build: new PostingsBuild(), next: 0, read: false });
      if (this.rebuildSteps(r, due)) break;
      yield;
    }
    return this.postings.candidates(buckets, this.files.isLive, this.files.nextFid);
  }

  /** Runs steps of the rebuild `r` until `due` (one at least); true once it is done and in place. */
  private rebuildSteps(r: NonNullable<MemoryIndex['rebuilding']>, due: Due): boolean {
    do {
      if (!r.read) {
        const rows = this.tables.triRowsFrom(r.next, POSTINGS_STEP);
        for (const [fid, bytes] of rows) if (this.files.isLive(fid)) r.build.add(fid, bytes);
        if (rows.length < POSTINGS_STEP) r.read = true;
        else r.next = rows[rows.length - 1][0] + 1;
      } else if (r.build.fill(POSTINGS_STEP)) {
        this.postings.install(r.build);
        this.postingsDirty = false;
        this.rebuilding = null;
        return true;
      }
    } while (!due());
    return false;
  }

  private rebuildPostings(): void {
    this.rebuilding = null;
    this.postings.build(this.tables.triRows(this.files.isLive));
    this.postingsDirty = false;
  }

  /** Frees the postings; the next search that needs them rebuilds them from `tri`. */
  private dropPostings(): void {
    this.rebuilding = null;
    this.postings.clear();
    this.postingsDirty = true;
  }

  // ---------------------------------------------------------------- patching (after a commit)

  /**
   * A bulk commit (a build step) leaves the postings to be rebuilt once at the
   * next search instead of patching them file by file. While every file's
   * search text is in memory, a small commit loads the new versions at once,
   * so it stays complete (a bulk one leaves that to warm-up).
   */
  commitMode(puts: number): CommitMode {
    return { bulk: this.postingsDirty || puts > BULK_PUTS, keepComplete: puts <= BULK_PUTS && this.textComplete };
  }

  /** A file's new version was written (`prevTri`: the old version's buckets, when the postings are patched). */
  filePut(fid: number, tri: Uint8Array, prevTri: Uint8Array | null, mode: CommitMode, defs: readonly Definition[], imports: readonly ImportRec[]): void {
    if (!mode.bulk) this.postings.add(fid, tri, prevTri);
    this.symbols.set(fid, defs, imports);
  }

  /** The file's text or rows changed or are gone: what was derived from them goes. */
  fileChanged(fid: number): void {
    const text = this.textCache.get(fid);
    if (text) {
      this.textCache.delete(fid);
      this.sigs.delete(fid);
      this.lineCounts.apply(text, -1);
    }
    this.defsCache.delete(fid); this.impsCache.delete(fid);
  }

  fileRemoved(fid: number): void {
    this.fileChanged(fid);
    this.symbols.delete(fid);
  }

  /** The file's import targets were re-resolved (its package layout, or what its TypeScript resolution rested on, changed). */
  importsResolved(fid: number, imports: readonly ImportRec[]): void {
    this.impsCache.delete(fid);
    this.symbols.setImports(fid, imports);
  }

  /** Once the commit's file patches are in: loads the texts that keep memory complete, and settles the postings. */
  committed(loadText: readonly number[], mode: CommitMode): void {
    // A rebuild under way read rows this commit changed: the next search starts it again.
    this.rebuilding = null;
    for (const fid of loadText) this.searchText(fid);
    if (mode.bulk) this.postingsDirty = true;
    else if (this.postings.appended > POSTINGS_REBUILD_AT) this.rebuildPostings();
  }

  // ---------------------------------------------------------------- warm-up

  /**
   * Reads every file's search text and symbol rows into memory in small
   * slices, yielding between them (the daemon calls this after each refresh).
   * A commit in between adds its files itself, so they are skipped here; the
   * symbol index is complete, and used, once every file has been visited.
   * `stopped` is asked after every yield (the store closing, or its owner
   * asking it to stop). `mayCompact` is asked at the end, when a new text map
   * generation is due and one exists already: false leaves the compaction to
   * a later pass (the first generation is always written).
   */
  async warm(sliceMs: number, stopped: () => boolean, mayCompact: () => boolean = () => true): Promise<void> {
    // Yield first: the caller (a refresh that just finished) should answer, and
    // the daemon start serving, before the first slice runs.
    await new Promise((r) => setImmediate(r));
    if (stopped()) return;
    // The postings, which serve searches while files are missing from memory,
    // are not built here but by the first search that needs them
    // (postingsCandidates): dropped at the end of warm-up, their arrays and the
    // `tri` rows read for them (~50 MB on site-packages) would stay resident
    // as garbage in a daemon that nobody searched meanwhile, since an idle
    // heap is not collected.
    const fids = this.files.idsInOrder();
    this.sigs.reserve(estimateSlots(this.files.all()));
    let i = 0;
    while (i < fids.length) {
      const t0 = performance.now();
      while (i < fids.length && performance.now() - t0 < sliceMs) {
        const fid = fids[i++];
        const f = this.files.get(fid);
        if (!f) continue;
        this.searchText(fid);
        if (!this.symbols.has(fid)) {
          const rows = f.py || f.ts;
          this.symbols.set(fid, rows ? this.tables.defs(fid) : [], rows ? this.imports(fid) : []);
        }
        for (const r of this.symbols.importsOf(fid)) this.importText(r);
      }
      await new Promise((r) => setImmediate(r));
      if (stopped()) return;
    }
    this.symbolsReady = true;
    this.sigs.fit();
    this.symbols.fit();
    // Every file is signed now: the postings are not needed until something makes the cache incomplete again.
    if (this.textComplete) this.dropPostings();
    if (this.textComplete && !stopped()) await this.mapText(mayCompact);
  }

  /** Whether the text map wants a new generation (the first, or a compaction: mapped-text.ts); warm() writes it. */
  get textMapDue(): boolean { return this.mapped !== null && this.textComplete && this.mapped.due(this.textCache); }

  /** Bytes of search text in the current text map generation (0 with none). */
  get textMapBytes(): number { return this.mapped?.mapBytes ?? 0; }

  /** Where the search text is (mapped-text.ts, describe); null for a store opened without a map folder. `key` changes whenever the files' text does; `built`: the index is (an empty one being built has all of its no text loaded). */
  textMapState(key: string, built: boolean): string | null {
    return this.mapped?.describe(this.textCache, built && this.textComplete, `${key}/${this.textCache.size}`) ?? null;
  }

  /**
   * Moves the one-byte search text out of the heap into a new text map
   * generation when one is due. The import statements' text read so far may
   * be views into the heap pieces it replaces: each moved file's get copies of
   * their own, or the pieces would stay alive through them.
   */
  private async mapText(mayCompact: () => boolean): Promise<void> {
    if (!this.textMapDue) { this.mapped?.removeLeftovers(); return; }
    if (this.mapped!.mapBytes > 0 && !mayCompact()) return;
    await this.mapped!.write(this.textCache, (fid) => {
      for (const r of this.symbols.importsOf(fid)) if (r.text !== undefined) r.text = ownString(r.text);
    });
  }

  /** The store is closing: the text map is unmapped (nothing reads it after). */
  async close(): Promise<void> { await this.mapped?.close(); }
}

/**
 * Block slots the files will need, a little over: every block but a file's
 * last holds at least BLOCK_CHARS characters (at most one per byte), and each
 * file gets room to grow in place (capacityFor). What is over is given back
 * at the end of warm-up (BlockSignatures.fit).
 */
function estimateSlots(files: Iterable<FileMeta>): number {
  let n = 0;
  for (const f of files) n += capacityFor(Math.floor(f.size / BLOCK_CHARS) + 1);
  return n;
}
