// Which files' search text lies in the text map (text-map.ts), and when a new
// generation of it is written: at the end of warm-up on a tree whose one-byte
// text is large, and again (compaction) once the text held in the heap beside
// it (files changed since: their new versions are built in the heap as
// always) and the text of the map no file reads any more have grown past a
// share of it. A daemon that runs for days so keeps its text out of the heap.
// Any failure (no room on the disk, an error of LMDB) leaves the text where it
// was, in the heap or the last generation, with one line in the log.
import { lstatSync } from 'node:fs';
import type { SearchText } from './search-text.js';
import { freeIn, NoRoomError, removeStale, TextMapGeneration, type MapPiece, type PieceSource } from './text-map.js';

/**
 * A tree's one-byte search text from which warm-up moves it to a map. Below
 * it the heap's strings stay (the stdlib's ~30 MB: its search rows do not
 * move); site-packages' 130 MB is well above it.
 */
export const TEXT_MAP_MIN_BYTES = 64 << 20;
/** A new generation once heap text beside the map plus dead text in it pass this share of the map's live text. */
const COMPACT_SHARE = 0.25;

export interface TextMapOptions {
  /** Folder of the map's files (the state folder's `text-map/`); emptied when the first generation is written. */
  dir: string;
  /** One-byte text needed for a map (default TEXT_MAP_MIN_BYTES). */
  minBytes?: number;
  /** Where its one line on a failure goes. */
  log?: (line: string) => void;
  /** Told after a generation replaced another, with the files whose text it holds. */
  compacted?: (files: number) => void;
}

/** What a search text is in the map and out of it (characters). */
interface Share { mapped: number; heap: number }

export class MappedText {
  private current: TextMapGeneration | null = null;
  private gen = 0;
  private writing = false;
  private closed = false;
  /** A failure is logged once, and no map is tried again until the text has changed by a share (no retry loop on a full disk). */
  private failedAt = -1;
  /** Why the last write failed (its one log line's reason), null once one succeeds. */
  private failure: string | null = null;
  /** After a write the disk had no room for: where, and how much it needs (tried again once statfs says it is free). */
  private room: { dir: string; needed: number } | null = null;
  private stale = true;
  /** The last status line, and what it was made from (the caller's key: it changes whenever the files' text does). */
  private said: { key: string; line: string } | null = null;

  constructor(private readonly opts: TextMapOptions) {}

  /**
   * Removes what an earlier process left in the map's folder (a daemon killed
   * while it wrote a generation) when this one will not write a map, once:
   * left there, its files would stay for as long as the tree is small. A
   * folder that is missing is not made; one refused is said in the log.
   */
  removeLeftovers(): void {
    // After a failed write its line has said what is wrong with the folder already.
    if (!this.stale || this.current || this.writing || this.failure !== null) return;
    this.stale = false;
    try {
      lstatSync(this.opts.dir);
    } catch {
      return;
    }
    try {
      removeStale(this.opts.dir);
    } catch (e) {
      this.opts.log?.(`text map folder left as it is: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Whether a generation should be written now, from the files in memory. */
  due(texts: ReadonlyMap<number, SearchText>): boolean {
    if (this.writing) return false;
    const { mapped, heap } = shareOf(texts);
    // After a failure, tried again once the disk has room, or once the text has grown or shrunk by a share (a
    // retry of a refused folder, say, at every change would write the same line into the log over and over).
    if (this.failedAt >= 0 && Math.abs(heap - this.failedAt) < COMPACT_SHARE * Math.max(heap, 1)
      && !(this.room !== null && freeIn(this.room.dir) >= this.room.needed)) return false;
    if (!this.current) return heap >= (this.opts.minBytes ?? TEXT_MAP_MIN_BYTES);
    const dead = this.current.textBytes - mapped;
    return heap + dead > COMPACT_SHARE * mapped;
  }

  /** Bytes the current generation holds (0 with none). */
  get mapBytes(): number { return this.current?.textBytes ?? 0; }

  /**
   * Writes a new generation of every one-byte piece of `texts` (heap strings
   * and pieces of the current generation alike), then, in one synchronous
   * step, points the files still in `texts` at it and closes the old one.
   * `moved(fid)` is told of each file whose pieces now lie in the map. A
   * search that yields holds no piece across a yield, only its files'
   * SearchText, and one dropped by a write meanwhile is never read again
   * (the answer starts over, query/pace.ts): so the old generation can go at once.
   */
  async write(texts: ReadonlyMap<number, SearchText>, moved: (fid: number) => void): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    const sources: PieceSource[] = [];
    const owners: Array<[number, SearchText, number]> = [];
    for (const [fid, st] of texts) {
      for (let p = 0; p < st.pieceCount; p++) {
        const src = st.oneBytePiece(p);
        if (src === null || src.length === 0) continue;
        sources.push(src);
        owners.push([fid, st, p]);
      }
    }
    const placed: MapPiece[] = [];
    const old = this.current;
    const t0 = performance.now();
    try {
      if (this.stale) { removeStale(this.opts.dir); this.stale = false; }
      this.current = await TextMapGeneration.write(this.opts.dir, ++this.gen, sources, (i, piece) => { placed[i] = piece; });
      this.failedAt = -1;
      this.failure = null;
      this.room = null;
    } catch (e) {
      this.failedAt = shareOf(texts).heap;
      this.failure = e instanceof Error ? e.message : String(e);
      this.room = e instanceof NoRoomError ? { dir: e.dir, needed: e.needed } : null;
      this.opts.log?.(`search text kept in memory: ${this.failure}`);
      this.writing = false;
      return;
    }
    if (this.closed) { await this.close(); return; }
    let last = -1, files = 0;
    for (let i = 0; i < owners.length; i++) {
      const [fid, st, p] = owners[i];
      if (texts.get(fid) !== st) continue; // changed while the generation was written: its new version stays in the heap
      st.placePiece(p, placed[i]);
      if (fid !== last) { moved(fid); files++; }
      last = fid;
    }
    this.writing = false;
    await old?.close();
    this.opts.log?.(`search text in a text map: ${mib(this.current.textBytes)} of ${files} files' text, generation ${this.current.gen}, written in ${(performance.now() - t0).toFixed(0)} ms`);
    if (old) this.opts.compacted?.(files);
  }

  /**
   * One line on where the search text is, for index/status and `evidex
   * daemon status` (docs/cli.md): the generation, its size and how many
   * files' text is in it and in the heap; or why there is none. `key` names
   * the state of `texts` (it changes whenever they do): the line is counted
   * again only then, so a status request stays cheap on a large tree.
   */
  describe(texts: ReadonlyMap<number, SearchText>, complete: boolean, key: string): string {
    const k = `${key}/${this.gen}/${this.current !== null}/${this.writing}/${complete}/${this.failure ?? ''}`;
    if (this.said?.key === k) return this.said.line;
    const line = this.line(texts, complete);
    this.said = { key: k, line };
    return line;
  }

  private line(texts: ReadonlyMap<number, SearchText>, complete: boolean): string {
    if (this.current) {
      let inMap = 0, inHeap = 0, heapBytes = 0, mappedBytes = 0;
      for (const st of texts.values()) {
        let mapped = false, heap = false;
        for (let p = 0; p < st.pieceCount; p++) {
          const piece = st.pieceAt(p);
          if (typeof piece !== 'string') { mapped = true; mappedBytes += piece.length; } else if (piece.length > 0 && st.oneBytePiece(p) !== null) { heap = true; heapBytes += piece.length; }
        }
        if (mapped) inMap++;
        else if (heap) inHeap++;
      }
      // The two figures compaction is judged by (due): what changed files hold beside the map, and what of it no file reads.
      return `generation ${this.current.gen}, ${mib(this.current.textBytes)}: ${inMap} files' text in it, ${inHeap} in the heap (${mib(heapBytes)}); ${mib(this.current.textBytes - mappedBytes)} of it no longer read`;
    }
    if (this.writing) return `none yet: generation ${this.gen} is being written`;
    if (this.failure !== null) return `none: it could not be written (${this.failure})`;
    if (!complete) return 'none yet: the search text is still being indexed or loaded';
    const min = this.opts.minBytes ?? TEXT_MAP_MIN_BYTES;
    return `none: the search text (${mib(shareOf(texts).heap)}) is below the ${Number.isFinite(min) ? mib(min) : 'infinite'} threshold`;
  }

  /** Closes the map (the store is closing: nothing is read after). */
  async close(): Promise<void> {
    this.closed = true;
    const cur = this.current;
    this.current = null;
    await cur?.close();
  }
}

const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;

/** One-byte-or-not aside: what of the files' text lies in the map, and what in the heap. */
function shareOf(texts: ReadonlyMap<number, SearchText>): Share {
  let mapped = 0, heap = 0;
  for (const st of texts.values()) {
    for (let p = 0; p < st.pieceCount; p++) {
      const piece = st.pieceAt(p);
      if (typeof piece === 'string') heap += piece.length; else mapped += piece.length;
    }
  }
  return { mapped, heap };
}
