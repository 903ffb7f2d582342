// A folder put at the root's path is usually still being filled: a clone
// checks its files out after making the folder. A catch-up that walked it at
// once removed from the index every file not checked out yet, and parsed each
// again when it landed: re-cloning a 29,649-file tree (the clone took 2.3 s)
// removed 25,453 files and took 96 s to have them all back. So a re-index
// walks again, after a pause, until two walks in a row list the same files
// (paths, sizes and times) or it has walked `maxWalks` times; tool calls wait
// for a re-index anyway, and a tree that never stops changing is caught up
// with as it is then, the watcher taking the rest.
//
// A clone that is still fetching holds nothing but `.git` for as long as the
// network takes (minutes), and two walks of it agree at once: the catch-up
// then removed every file. Git writes `.git/index` only once the checkout is
// done (holding `.git/index.lock` while it writes the work tree), so a walk
// made while the root holds only a `.git` without an index, or while
// `.git/index.lock` is held, is of a clone not checked out yet: it never
// agrees with another, and counts towards `maxUnfinished`, not `maxWalks`.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WalkEntry } from '../discover/walk.js';

export interface SettleWalks {
  /** Waits between two walks. */
  between: () => Promise<void>;
  /** Walks at most this many times in all, walks of a clone not checked out yet aside. */
  maxWalks: number;
  /** Walks of a clone not checked out yet (cloneUnfinished) made at most: then the tree is caught up with as it is. */
  maxUnfinished: number;
}

/**
 * The last of `walk()`'s listings of `root`, once two in a row agree (or `settle.maxWalks` were made), neither
 * of a clone not checked out yet (or `settle.maxUnfinished` walks of one were made); one walk without `settle`.
 */
export async function walkUntilSettled<W extends { files: WalkEntry[] }>(root: string, walk: (again: boolean) => Promise<W>, settle?: SettleWalks, signal?: AbortSignal): Promise<W> {
  let last = await walk(false);
  if (settle === undefined) return last;
  let unfinished = cloneUnfinished(root);
  let walks = unfinished ? 0 : 1, waited = unfinished ? 1 : 0;
  while (walks < settle.maxWalks && waited < settle.maxUnfinished) {
    await settle.between();
    signal?.throwIfAborted();
    const next = await walk(true);
    // Asked after the walk: a walk that ended before the checkout did may have missed files.
    const was = unfinished;
    unfinished = cloneUnfinished(root);
    const same = !was && !unfinished && sameListing(last.files, next.files);
    last = next;
    if (unfinished) waited++;
    else walks++;
    if (same) break;
  }
  return last;
}

/**
 * Whether `root` looks like a clone whose work tree is not checked out yet: it holds a `.git` folder
 * and nothing else, and that has no `index`; or git holds `.git/index.lock` (a checkout writing the
 * work tree, or any command writing the index, for as long as it takes).
 */
export function cloneUnfinished(root: string): boolean {
  const git = join(root, '.git');
  try {
    if (!lstatSync(git).isDirectory()) return false;
    if (existsSync(join(git, 'index.lock'))) return true;
    return !existsSync(join(git, 'index')) && readdirSync(root).every((name) => name === '.git');
  } catch {
    return false; // no .git (or the root gone meanwhile: the walk's own business)
  }
}

function sameListing(a: readonly WalkEntry[], b: readonly WalkEntry[]): boolean {
  if (a.length !== b.length) return false;
  const before = new Map(a.map((e) => [e.path, e]));
  return b.every((e) => {
    const o = before.get(e.path);
    return o !== undefined && o.size === e.size && o.mtimeMs === e.mtimeMs;
  });
}
