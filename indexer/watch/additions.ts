// Folders the watcher adds to chokidar's watch because chokidar does not watch
// them itself. chokidar watches a folder once it has read its parent and seen
// it there; three ways it does not:
//   - the rules excluded the folder when chokidar met it, and let it in since
//     (watch/pruned.ts);
//   - it was made while chokidar read its parent for the first time (after the
//     listing, before the watch: a clone or checkout filling the tree while
//     chokidar scans it), which raises no event (watch/unwatched.ts): looked
//     for after every full re-walk, and below each new folder at its second
//     look (watch/rechecks.ts);
//   - it was made while chokidar re-read its parent and chokidar's throttle
//     forgot the change. A change in a folder whose re-read runs is counted
//     and the folder read once more when the read ends, but the count lives in
//     a timer of 1 s from the read's start (`_throttle('readdir', folder,
//     1000)`): a read that outlasts it (a busy disk or thread pool) ends with
//     no second read, and the folder made meanwhile is never watched — its
//     own raw event brings its files to the index once, and then no save in
//     it was ever seen. So every folder whose watch reports a rename (an
//     entry came or went: folders are made so, saves by rename too) is listed
//     again once chokidar's window is over, and a subfolder missing from the
//     watch is added. A readdir of that folder (no stat), at most one queued
//     per folder; nothing when the tree is idle.
// Each folder added is read and watched by chokidar a little later (as a new
// folder), so it is walked again once its watch is surely in place
// (`recheck`, watch/rechecks.ts): a save in it before then is caught so.
import type { FSWatcher } from 'chokidar';
import { join } from 'node:path';
import { underRoot } from '../discover/rules.js';
import { PrunedFolders } from './pruned.js';
import { Rechecks, realTimers } from './rechecks.js';
import { MissedFolders, missedLine, type EntryKind, type LookScope } from './unwatched.js';

/**
 * How long after a rename in a folder it is listed again. chokidar's throttle
 * timer for the read the rename may have joined was set at or before it, for
 * 1 s, so it has fired by then (timers of one length fire in the order they
 * were set); the rest lets the second read it may have started first end, so
 * that the watcher rarely adds a folder chokidar is adding too (harmless: one
 * more listener on that folder's watch).
 */
export const REREAD_LOOK_MS = 1_500;

export interface AdditionsOptions {
  root: string;
  /** The watcher's chokidar filter (`ignored`). */
  ignored(abs: string, entry: EntryKind): boolean;
  /** Whether the rules exclude folder `rel` now. */
  isIgnoredFolder(rel: string): boolean;
  /** The chokidar instance to add to, or null while none may be added to (not started yet, or closed). */
  current(): FSWatcher | null;
  /** Walk folder `rel` again once its watch is surely in place. */
  recheck(rel: string): void;
  log?(line: string): void;
}

export class WatchAdditions {
  private readonly pruned: PrunedFolders;
  private readonly missed: MissedFolders;
  private readonly rereads: Rechecks;

  constructor(private readonly opts: AdditionsOptions) {
    this.pruned = new PrunedFolders(opts.root);
    this.missed = new MissedFolders(opts.root);
    this.rereads = new Rechecks((at) => void this.look({ at }, 're-read'), [REREAD_LOOK_MS], 100, realTimers, true);
  }

  /** A new chokidar instance: it judges every folder again, and nothing was added to it. */
  reset(): void {
    this.pruned.clear();
    this.missed.clear();
    this.rereads.clear();
  }

  /** chokidar met folder `rel` and the rules excluded it. */
  skipped(rel: string): void {
    this.pruned.add(rel);
  }

  /** The rules may have changed: the skipped folders they now let in are added. */
  newlyVisible(): void {
    const fsw = this.opts.current();
    if (fsw) this.add(fsw, this.pruned.takeVisible((rel) => this.opts.isIgnoredFolder(rel)));
  }

  /** Folders made while chokidar first read their parent: looked for in the whole watch (after a re-walk) or below `under`. */
  lookBelow(under?: string[]): void {
    void this.look(under ? { below: under } : {}, 'scanned');
  }

  /** The watch of folder `abs` reported a rename: it is listed again after chokidar's re-read window. */
  renamedIn(abs: string): void {
    const rel = underRoot(this.opts.root, abs);
    if (rel !== null) this.rereads.add(rel);
  }

  close(): void {
    this.rereads.clear();
  }

  private async look(scope: LookScope, when: 'scanned' | 're-read'): Promise<void> {
    const fsw = this.opts.current();
    const missed = fsw ? await this.missed.find(fsw, this.opts.ignored, scope) : [];
    if (fsw && missed.length > 0 && this.opts.current() === fsw) {
      this.opts.log?.(missedLine(missed, when));
      this.add(fsw, missed);
    }
  }

  private add(fsw: FSWatcher, rels: string[]): void {
    for (const rel of rels) {
      fsw.add(join(this.opts.root, rel));
      this.opts.recheck(rel);
    }
  }
}
