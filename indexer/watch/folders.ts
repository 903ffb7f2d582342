// Which folder stands at a watched name. A folder deleted or moved away and
// made again under the same name before chokidar re-reads its parent
// (`rm -rf d && mkdir d`, checkouts that turn a folder into a file and back)
// keeps chokidar's dead watch, as chokidar sees no new name. The folder's own
// watch reports the folder itself gone; the watcher then compares what stands
// at that name with the folder as it was watched (inode and birth time: a new
// folder often gets the inode number just freed), and restarts chokidar when
// it is another folder, now or whenever one comes back while chokidar still
// holds the name. This also tells a child named like its folder (`foo/foo`)
// from the folder itself, which would otherwise restart the watcher on every
// write (it still does on a file system that keeps no birth time).
import { lstatSync, type Stats } from 'node:fs';

/** Which folder this is: its inode and birth time, or null where the file system keeps no birth time (the inode alone is reused at once). */
function folderId(st: Stats): string | null {
  return st.birthtimeMs > 0 ? `${st.ino}:${st.birthtimeMs}` : null;
}

/** How long after a folder's own watch reports it gone to look whether it is back (chokidar's re-read of the parent settles first). */
export const REPLACED_FOLDER_CHECK_MS = 100;

/** What stands at a watched folder's name now, compared with the folder chokidar watched there. */
export type FolderCheck = 'same' | 'gone' | 'replaced' | 'unwatched';

/** The identity of every folder chokidar watches (absolute paths), and the names whose folder is gone while chokidar still holds them. */
export class WatchedFolders {
  private readonly ids = new Map<string, string | null>();
  private readonly dead = new Set<string>();

  /** Records every folder chokidar now watches (a stat each, once per start or restart). */
  reset(dirs: Iterable<string>): void {
    this.ids.clear();
    this.dead.clear();
    for (const dir of dirs) {
      try { this.ids.set(dir, folderId(lstatSync(dir))); } catch { /* gone since: its events say so */ }
    }
  }

  /** chokidar reported a new folder (with its stat). */
  added(abs: string, st: Stats): void {
    this.ids.set(abs, folderId(st));
    this.dead.delete(abs);
  }

  /** chokidar forgot a folder. */
  removed(abs: string): void {
    this.ids.delete(abs);
    this.dead.delete(abs);
  }

  /** The folder at this name went away while chokidar still holds the name: one coming back there is another folder. */
  isDead(abs: string): boolean {
    return this.dead.has(abs);
  }

  /**
   * A watched folder's name was touched as a whole: the same folder is still
   * there (the event named a child of that name), another folder is (its watch
   * died), or none is (dead until chokidar forgets the name, which it reports
   * as unlinkDir, or a folder comes back under it).
   */
  check(abs: string): FolderCheck {
    const watched = this.ids.get(abs);
    if (watched === undefined) return 'unwatched';
    let st: Stats | null = null;
    try { st = lstatSync(abs); } catch { st = null; }
    if (st?.isDirectory() && watched !== null && folderId(st) === watched) { this.dead.delete(abs); return 'same'; }
    if (!st?.isDirectory()) { this.dead.add(abs); return 'gone'; }
    return 'replaced';
  }
}
