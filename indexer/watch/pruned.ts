// The folders chokidar was told to skip because the ignore rules excluded
// them when it met them (it never watches inside such a folder). When the
// rules change — any ignore source, at any moment, the start-up catch-up
// included — the ones the rules now let in are handed back to be watched
// (chokidar's add) instead of restarting the whole watch: a restart leaves
// every folder unwatched until its new scan ends, so a save anywhere in that
// window would be missed, and it costs a scan of the whole tree. Folders that
// become excluded keep their watch until the next restart; their events are
// filtered by the rules. (Measured: a tree of 203 folders held 208 inotify
// watches, and still 208 after `big/`, 151 of its folders, was excluded; 7
// after a restart.) chokidar's unwatch closes only the one folder it is given
// and keeps that name on an ignore list that every later event is matched
// against and that only add() of that very name clears: releasing a subtree
// would mean unwatching each of its folders, and re-adding each when the
// rules let it in again — a growing list per event instead of idle watches.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';

export class PrunedFolders {
  private readonly skipped = new Set<string>();

  constructor(private readonly root: string) {}

  /** chokidar met this folder (relative to the root) and the rules excluded it. */
  add(rel: string): void {
    this.skipped.add(rel);
  }

  /** A new chokidar instance judges every folder again. */
  clear(): void {
    this.skipped.clear();
  }

  /**
   * The skipped folders that `ignored` no longer excludes and that are still
   * folders, forgotten here (the caller watches them). One gone is forgotten
   * too: when it comes back, chokidar meets it as a new entry of its parent.
   */
  takeVisible(ignored: (rel: string) => boolean): string[] {
    const visible: string[] = [];
    for (const rel of this.skipped) {
      if (ignored(rel)) continue;
      this.skipped.delete(rel);
      let isDir = false;
      try { isDir = lstatSync(join(this.root, rel)).isDirectory(); } catch { isDir = false; }
      if (isDir) visible.push(rel);
    }
    return visible.sort();
  }
}
