// Folders in view that chokidar does not watch. chokidar lists a folder and
// only then watches it: a folder made in between raises no event on either
// side and is never watched, so no save in it is ever seen, although the
// re-walk that follows every scan indexes it. That window is hit when the tree
// is being filled while chokidar scans it — the daemon re-indexing a root that
// `git clone` is still checking out, a checkout at a daemon's start — and the
// busier the machine, the wider it is (CI, under load: a save in a re-cloned
// root's `email/` never reached the index). So after each full re-walk the
// watcher lists the folders it watches and adds the subfolders missing from
// the watch (watch.ts, watchMissed): a readdir per watched folder, no stat,
// after the re-walk's turn in the write queue (it holds no write back).
// chokidar meets a folder made while it runs the same way (reads it, then
// watches it: a checkout's nested folders), so each new folder's subtree is
// looked at again when the watcher walks it again (watch/rechecks.ts).
import type { FSWatcher } from 'chokidar';
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { underRoot } from '../discover/rules.js';

/** Folders listed at once: libuv's thread pool (4 threads) kept busy, not flooded. */
const LISTINGS_AT_ONCE = 8;

/** A folder's entry as the watcher's `ignored` judges it (a Dirent answers what a Stats does). */
export type EntryKind = Pick<Dirent, 'isDirectory' | 'isSymbolicLink' | 'isFile'>;

/** The folders chokidar watches (absolute paths); the root's parent, which chokidar lists too, left out. */
export function watchedFolders(fsw: FSWatcher, root: string): string[] {
  return Object.keys(fsw.getWatched()).filter((dir) => dir === root || underRoot(root, dir) !== null);
}

/**
 * The subfolders of the folders chokidar watches (all, or those at or below
 * the folders `under`, relative to the root) that are not watched themselves
 * and that `ignored` lets in, relative to the root, sorted. Links are
 * chokidar's to judge (it never follows them); a folder gone meanwhile is skipped.
 */
export async function unwatchedFolders(fsw: FSWatcher, root: string, ignored: (abs: string, entry: EntryKind) => boolean, under?: readonly string[]): Promise<string[]> {
  const watched = new Set(watchedFolders(fsw, root));
  const tops = under?.map((rel) => join(root, rel));
  const dirs = [...watched].filter((dir) => !tops || tops.some((top) => dir === top || dir.startsWith(`${top}/`)));
  const missed: string[] = [];
  const look = async (): Promise<void> => {
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      let entries: Dirent[];
      try { entries = await readdir(dir, { withFileTypes: true }); } catch { continue; }
      for (const e of entries) {
        const abs = join(dir, e.name);
        if (e.isDirectory() && !watched.has(abs) && !ignored(abs, e)) missed.push(underRoot(root, abs)!);
      }
    }
  };
  await Promise.all(Array.from({ length: LISTINGS_AT_ONCE }, look));
  return missed.sort();
}

/** The log line that names them (the first five). */
export function missedLine(rels: string[]): string {
  return `watcher: ${rels.length} folder(s) made while chokidar scanned their parent were not watched; watching them now: ${rels.slice(0, 5).join(' ')}${rels.length > 5 ? ` +${rels.length - 5}` : ''}`;
}
