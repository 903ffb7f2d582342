// The one-byte search text of a large tree kept out of the heap: written into
// a separate LMDB environment of the daemon's own (derived data, written
// fresh by each process, never read back from before) as raw values, each
// read once as a Buffer over its memory map, not a copy (lmdb-in-place.ts
// says how, on every Node line). Pages of a map are file-backed: they are not
// the daemon's anonymous memory, and the kernel can drop and re-read them.
//
// Two hazards of a view over a map, and how they are closed here:
// - a remap (lmdb-js grows the map as the file grows) unmaps the old view:
//   a generation is written and closed first, then opened read-only, and
//   nothing ever writes to it again, so its map is never resized;
// - a freed page reused by a later write: there is no later write; a new
//   generation is a new file (compaction, memory.ts), and the old one is
//   closed only once nothing reads it (its segments say so: closed() makes a
//   read throw instead of touching unmapped memory).
// docs/design.md ("The search text in a memory map") says why; FORMAT.md
// gives the layout.
import { readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { madeOwnFolder } from '../../local/state-trust.js';
import { readInPlace } from './lmdb-in-place.js';

/**
 * The least a segment is padded to: longer than lmdb-js's read buffer can
 * be (16 MiB, grown to twice a smaller value), which getBinaryFast needed to
 * read in place. lmdb-in-place.ts reads a value of any size in place, so this
 * no longer has to be; it stays until a smaller one is measured (the small
 * disk tests' sizes assume it).
 */
export const MIN_SEGMENT_BYTES = (32 << 20) + (64 << 10);
/**
 * Target size of a segment (a piece longer than this gets a segment of its
 * own): writing one holds it twice in anonymous memory for a moment (the
 * buffer filled here, LMDB's dirty pages), so no longer than the padding.
 */
const SEGMENT_BYTES = MIN_SEGMENT_BYTES;
/** Bytes copied into a segment between two yields while it is filled. */
const FILL_STEP_BYTES = 4 << 20;
/** Room asked for besides the segments: LMDB's pages, the meta pages, the lock file. */
const SLACK_BYTES = 4 << 20;

/** One value of a generation: a view over the map, null once the generation is closed. */
export class Segment {
  constructor(public bytes: Buffer | null) {}
}

/** Where a piece of search text lies in a map: `length` bytes from `at` of `seg`, one byte a character (latin1). */
export interface MapPiece { readonly seg: Segment; readonly at: number; readonly length: number }

/** A piece of search text to place: a heap string of one-byte characters, or a piece of an older generation. */
export type PieceSource = string | MapPiece;

/** Piece p's characters from..to as a string of its own (a copy out of the map). */
export function mapSlice(piece: MapPiece, from: number, to: number): string {
  const bytes = piece.seg.bytes;
  if (!bytes) throw new Error('internal: search text read from a closed text map');
  return (bytes as unknown as Latin1).latin1Slice(piece.at + from, piece.at + to);
}

/** Buffer's latin1 decoder without toString's argument checks (Node's own, on every Buffer; not in its types). */
interface Latin1 { latin1Slice(start: number, end: number): string }

/** A generation that did not fit on its disk: `needed` bytes in `dir`, so it is worth another try once they are free. */
export class NoRoomError extends Error {
  constructor(message: string, readonly dir: string, readonly needed: number) { super(message); this.name = 'NoRoomError'; }
}

/** Bytes free to us on the disk of `dir` (0 when it cannot be told). */
export function freeIn(dir: string): number {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return 0;
  }
}

/** One generation: its file, its segments, open read-only. */
export class TextMapGeneration {
  private constructor(
    private readonly file: string,
    private readonly env: RootDatabase<Uint8Array, number>,
    /** Its number: the n-th this process wrote (attempts that failed count). */
    readonly gen: number,
    readonly segments: Segment[],
    /** Characters of text written (the segments' padding aside). */
    readonly textBytes: number,
  ) {}

  /**
   * Writes `sources` into a new generation `gen` under `dir`, in order, and
   * opens it; `placed(i, piece)` is told where source i went, once the
   * generation is open (nothing is told if anything fails: the caller keeps
   * its pieces). Throws when the disk lacks room for it (checked first) or a
   * write fails; what was written is removed. A write that fails because the
   * disk filled meanwhile (LMDB says only EIO) throws NoRoomError too.
   * `opened(file)` (tests) is told once the file is open, before a segment is written.
   */
  static async write(dir: string, gen: number, sources: readonly PieceSource[], placed: (i: number, piece: MapPiece) => void, opened?: (file: string) => void): Promise<TextMapGeneration> {
    ownFolder(dir);
    // Segments first as (index, at): the pieces' order is kept, and a segment is closed when the next piece does not fit.
    const where = new Int32Array(2 * sources.length);
    const sizes: number[] = [];
    let used = 0;
    for (let i = 0; i < sources.length; i++) {
      const len = sources[i].length;
      if (sizes.length === 0 || (used + len > SEGMENT_BYTES && used > 0)) { sizes.push(0); used = 0; }
      where[2 * i] = sizes.length - 1;
      where[2 * i + 1] = used;
      used += len;
      sizes[sizes.length - 1] = used;
    }
    // A value under the threshold would be copied on every read: the last (or only) segment is padded to it.
    const padded = sizes.map((s) => Math.max(s, MIN_SEGMENT_BYTES));
    const total = padded.reduce((a, b) => a + b, 0);
    const needed = total + SLACK_BYTES;
    const room = freeIn(dir);
    if (room < needed) throw new NoRoomError(`no room for the text map: ${mb(needed)} needed, ${mb(room)} free in ${dir}`, dir, needed);
    const file = join(dir, `${process.pid}-${gen}.mdb`);
    try {
      // Whatever has this name (a link, say) is removed, not opened through.
      removeFiles(file);
      const writer = open<Uint8Array, number>({ path: file, noSubdir: true, keyEncoding: 'uint32', encoding: 'binary', compression: false, noSync: true, noMetaSync: true });
      try {
        opened?.(file);
        let buf: Buffer | null = null;
        let i = 0;
        for (let s = 0; s < padded.length; s++) {
          if (!buf || buf.length < padded[s]) buf = Buffer.alloc(padded[s]);
          else buf.fill(0, 0, padded[s]);
          for (let copied = 0; i < sources.length && where[2 * i] === s; i++) {
            const src = sources[i];
            const at = where[2 * i + 1];
            if (typeof src === 'string') buf.write(src, at, src.length, 'latin1');
            else readable(src).copy(buf, at, src.at, src.at + src.length);
            // Yield within a segment too: filling one in one step held the daemon up ~50 ms (a cold start under load).
            if ((copied += src.length) >= FILL_STEP_BYTES) { copied = 0; await new Promise((r) => setImmediate(r)); }
          }
          // LMDB must not meet a full disk itself: its report of a failed page write overflows the buffer it
          // formats it into and corrupts the heap (docs/design.md). Checked before each segment, it is met only
          // when another process fills the disk between this check and the write.
          const left = freeIn(dir);
          if (left < padded[s] + SLACK_BYTES) throw new NoRoomError(`no room for the text map: the disk filled while it was written (${mb(needed)} needed, ${mb(left)} free in ${dir} before segment ${s + 1} of ${padded.length})`, dir, needed);
          // Written by lmdb-js's write thread, not this one: a segment's put in one synchronous step took 60-70 ms.
          await writer.put(s, buf.subarray(0, padded[s]));
          // Yield between segments: a compaction runs beside the daemon's requests.
          await new Promise((r) => setImmediate(r));
        }
      } finally {
        await writer.close();
      }
      if (statSync(file).size < total) throw new Error(`the text map ${file} came out short`);
      // Read-only, never written again: its map is never resized under the views.
      const env = open<Uint8Array, number>({ path: file, noSubdir: true, readOnly: true, keyEncoding: 'uint32', encoding: 'binary', compression: false });
      const segments: Segment[] = [];
      try {
        // Views over the map, made once each and kept (a copy would be anonymous memory): lmdb-in-place.ts.
        for (const view of readInPlace(env, file, padded.map((_, s) => s), padded, padded.length)) segments.push(new Segment(view));
      } catch (e) {
        await env.close();
        throw e;
      }
      for (let k = 0; k < sources.length; k++) placed(k, { seg: segments[where[2 * k]], at: where[2 * k + 1], length: sources[k].length });
      return new TextMapGeneration(file, env, gen, segments, sizes.reduce((a, b) => a + b, 0));
    } catch (e) {
      removeFiles(file);
      if (e instanceof NoRoomError) throw e;
      // Room is judged with this file gone: what another writer took meanwhile.
      const left = freeIn(dir);
      if (left < needed) throw new NoRoomError(`no room for the text map: the disk filled while it was written (${mb(needed)} needed, ${mb(left)} free in ${dir}; ${e instanceof Error ? e.message : String(e)})`, dir, needed);
      throw e;
    }
  }

  /** Unmaps the generation and removes its file: only once no piece of it is read again (a read then throws). */
  async close(): Promise<void> {
    for (const s of this.segments) s.bytes = null;
    await this.env.close();
    removeFiles(this.file);
  }
}

/**
 * Removes everything an earlier process left in `dir` (derived data, never
 * trusted from before), once `dir` is known to be a real folder of ours
 * alone: never through a link to a folder elsewhere. Throws when it is not.
 */
export function removeStale(dir: string): void {
  ownFolder(dir);
  // A file another live process has mapped stays valid for it once unlinked (Linux keeps it until unmapped).
  // rm does not follow a link it removes: an entry that is one goes, not what it points at.
  for (const n of readdirSync(dir)) rmSync(join(dir, n), { force: true, recursive: true });
}

/**
 * Makes the map's folder if it is missing (inside the state folder, which
 * must exist: a state folder removed while the daemon runs is not made
 * again), and refuses it, with one line, when it is not a real folder of
 * ours alone (a link, a file, a fifo, another user's, writable by others):
 * nothing is written into it or removed from it then.
 */
export function ownFolder(dir: string): void {
  let why: string | null;
  try {
    why = madeOwnFolder(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`the state folder ${dirname(dir)} is gone`);
    throw e;
  }
  if (why) throw new Error(`refusing the text map folder ${dir}: ${why}; remove it (evidex makes a new one)`);
}

function readable(p: MapPiece): Buffer {
  if (!p.seg.bytes) throw new Error('internal: text map generation closed before it was copied');
  return p.seg.bytes;
}

function removeFiles(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}-lock`, { force: true });
}

const mb = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
