// A folder put at the root's path is usually still being filled: a clone
// checks its files out after making the folder. A catch-up that walked it at
// once removed from the index every file not checked out yet, and parsed each
// again when it landed: re-cloning a 29,649-file tree (the clone took 2.3 s)
// removed 25,453 files and took 96 s to have them all back. So a re-index
// walks again, after a pause, until two walks in a row list the same files
// (paths, sizes and times) or it has walked `maxWalks` times; tool calls wait
// for a re-index anyway, and a tree that never stops changing is caught up
// with as it is then, the watcher taking the rest.
import type { WalkEntry } from '../discover/walk.js';

export interface SettleWalks {
  /** Waits between two walks. */
  between: () => Promise<void>;
  /** Walks at most this many times in all. */
  maxWalks: number;
}

/** The last of `walk()`'s listings, once two in a row agree (or `settle.maxWalks` were made); one walk without `settle`. */
export async function walkUntilSettled<W extends { files: WalkEntry[] }>(walk: (again: boolean) => Promise<W>, settle?: SettleWalks, signal?: AbortSignal): Promise<W> {
  let last = await walk(false);
  for (let n = 1; settle && n < settle.maxWalks; n++) {
    await settle.between();
    signal?.throwIfAborted();
    const next = await walk(true);
    const same = sameListing(last.files, next.files);
    last = next;
    if (same) break;
  }
  return last;
}

function sameListing(a: readonly WalkEntry[], b: readonly WalkEntry[]): boolean {
  if (a.length !== b.length) return false;
  const before = new Map(a.map((e) => [e.path, e]));
  return b.every((e) => {
    const o = before.get(e.path);
    return o !== undefined && o.size === e.size && o.mtimeMs === e.mtimeMs;
  });
}
