// Folders in view that chokidar does not watch. chokidar lists a folder and
// only then watches it: a folder made in between raises no event on either
// side and is never watched, so no save in it is ever seen, although the
// re-walk that follows every scan indexes it. That window is hit when the tree
// is being filled while chokidar scans it — the daemon re-indexing a root that
// `git clone` is still checking out, a checkout at a daemon's start — and the
// busier the machine, the wider it is (CI, under load: a save in a re-cloned
// root's `email/` never reached the index). So after each full re-walk the
// watcher lists the folders it watches and adds the subfolders missing from
// the watch (watch/additions.ts, lookBelow): a readdir per watched folder, no stat,
// after the re-walk's turn in the write queue (it holds no write back).
// chokidar meets a folder made while it runs the same way (reads it, then
// watches it: a checkout's nested folders), so each new folder's subtree is
// looked at again when the watcher walks it again (watch/rechecks.ts).
// chokidar's throttle forgets a change the same way (watch/additions.ts): a
// folder touched by a rename is listed again after chokidar's window.
import type { FSWatcher } from 'chokidar';
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { underRoot } from '../discover/rules.js';
import { isWatched, watchedFolders } from './chokidar.js';

/** Folders listed at once: libuv's thread pool (4 threads) kept busy, not flooded. */
const LISTINGS_AT_ONCE = 8;

/** A folder's entry as the watcher's `ignored` judges it (a Dirent answers what a Stats does). */
export type EntryKind = Pick<Dirent, 'isDirectory' | 'isSymbolicLink' | 'isFile'>;

/** Which watched folders are listed (relative to the root): all, those at or below `below`, or exactly those `at`. */
export type LookScope = { below?: readonly string[]; at?: readonly string[] };

/**
 * The folders found missing from the watch, each added once: one that chokidar
 * still does not list after it was added (it has not read it yet, or cannot)
 * is not added again, or each second look at it would add it once more, and
 * look again, for as long as that lasts. Once chokidar lists it, it is
 * forgotten here (missed again later, it is added again).
 */
export class MissedFolders {
  private readonly added = new Set<string>();

  constructor(private readonly root: string) {}

  /** A new chokidar instance: nothing was added to it. */
  clear(): void {
    this.added.clear();
  }

  /**
   * The subfolders of the watched folders in `scope` that are not watched
   * themselves, that `ignored` lets in and that were not found before, relative
   * to the root, sorted. Links are chokidar's to judge (it never follows them);
   * a folder gone meanwhile is skipped.
   */
  async find(fsw: FSWatcher, ignored: (abs: string, entry: EntryKind) => boolean, scope: LookScope = {}): Promise<string[]> {
    const { root } = this;
    for (const rel of this.added) if (isWatched(fsw, join(root, rel))) this.added.delete(rel);
    let dirs: string[];
    if (scope.at) dirs = scope.at.map((rel) => join(root, rel)).filter((dir) => isWatched(fsw, dir));
    else {
      const tops = scope.below?.map((rel) => join(root, rel));
      dirs = watchedFolders(fsw, root).filter((dir) => !tops || tops.some((top) => dir === top || dir.startsWith(`${top}/`)));
    }
    const missed: string[] = [];
    const look = async (): Promise<void> => {
      for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
        let entries: Dirent[];
        try { entries = await readdir(dir, { withFileTypes: true }); } catch { continue; }
        for (const e of entries) {
          const abs = join(dir, e.name);
          const rel = underRoot(root, abs)!;
          if (e.isDirectory() && !isWatched(fsw, abs) && !this.added.has(rel) && !ignored(abs, e)) {
            missed.push(rel);
            this.added.add(rel); // at once: a look running beside this one does not find it too
          }
        }
      }
    };
    await Promise.all(Array.from({ length: LISTINGS_AT_ONCE }, look));
    return missed.sort();
  }
}

/** The log line that names them (the first five): made while chokidar scanned their parent, or re-read it (its throttle forgot them). */
export function missedLine(rels: string[], when: 'scanned' | 're-read' = 'scanned'): string {
  return `watcher: ${rels.length} folder(s) made while chokidar ${when} their parent were not watched; watching them now: ${rels.slice(0, 5).join(' ')}${rels.length > 5 ? ` +${rels.length - 5}` : ''}`;
}
