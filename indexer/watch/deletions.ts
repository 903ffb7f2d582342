// A batch that brings a deletion to many paths gone is held until the
// deletion settles. `rm -rf repo && git clone … repo` deletes file by file for as
// long as the tree takes (8 s for Effect's 3,535 files on a busy machine),
// and the root itself last; the watcher used to write the removals batch by
// batch meanwhile, so the catch-up of the folder cloned there found no rows
// to keep and parsed every file again (Effect: `3194 parsed, 341 unchanged`).
// Held, the removals are written only once no event has come for
// DELETION_QUIET_MS and the root is still the folder watched; when the root
// went with them, the daemon closes the watcher (daemon/root-watch.ts) and
// they are never written: a folder put back there keeps every row whose
// content it still has (compared by hash). Nothing is lost either way:
// update() looks at each path on disk when it finally runs.
//
// A deletion is counted across batches (GoneRun): `rm` run once per file, a
// few milliseconds apart, lands one path per batch, and a batch-by-batch count
// rarely reached 8 (lexical, 300 files so: 49 generations, 43 of one file).
//
// Meanwhile answers come from the index as it was, marked `catching_up` (the
// held paths are changes seen and not written), as for any batch not yet
// written; a call waits up to a second for them first.
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { FolderCheck } from './folders.js';
import type { Timers } from './rechecks.js';

/** Paths gone from disk in one deletion that make it a mass deletion: a single delete or an atomic save (its temp file gone) stays below. */
export const MASS_DELETION_GONE = 8;
/**
 * Paths seen gone less than this apart are one deletion, however many
 * batches they came in. A tool deletes file after file milliseconds apart,
 * more on a busy machine (`rm` per file with `sleep 0.01`: 10-50 ms); a
 * person's deletions, or an editor's saves (each leaving its temp file gone),
 * are seconds apart, so they rarely add up to MASS_DELETION_GONE.
 */
export const DELETION_GAP_MS = 1_000;
/** The deletion has settled once no event has come for this long. */
export const DELETION_QUIET_MS = 500;
/** A tree whose events never stop gets its removals written after this long anyway. */
export const DELETION_HOLD_MAX_MS = 30_000;
/** How long to wait, once the root is seen gone or replaced, for the daemon to close the watcher (its backstop check runs every second). */
export const ROOT_VERDICT_MS = 2_000;

const isGone = (root: string, path: string): boolean => {
  try { lstatSync(join(root, path)); return false; } catch { return true; }
};

/**
 * The paths seen gone in the deletion under way, across batches: those seen
 * less than DELETION_GAP_MS after the one before (a pause longer than that
 * starts a new count), still gone from disk (a checkout that put one back
 * takes it out of the count), up to MASS_DELETION_GONE. A hold's end counts
 * as a path seen gone: a deletion that paused long enough to end a hold, and
 * goes on, is held again at its next path, not after MASS_DELETION_GONE more.
 */
export class GoneRun {
  private readonly gone = new Set<string>();
  private lastGone = -Infinity;

  constructor(private readonly timers: Timers) {}

  /**
   * Counts those of `paths` (relative to `root`) gone from disk now (a stat each, until the count is reached); whether
   * the count is reached with one of them (a batch that takes nothing away is never held for an earlier deletion).
   */
  reached(root: string, paths: readonly string[]): boolean {
    const now = this.timers.now();
    if (now - this.lastGone > DELETION_GAP_MS) this.gone.clear();
    for (const p of this.gone) if (!isGone(root, p)) this.gone.delete(p);
    let added = false;
    for (const p of paths) {
      if (added && this.gone.size >= MASS_DELETION_GONE) break;
      if (!this.gone.has(p) && isGone(root, p)) { this.gone.add(p); this.lastGone = now; added = true; }
    }
    return added && this.gone.size >= MASS_DELETION_GONE;
  }

  /** A hold of this deletion ended now. */
  settled(): void { if (this.gone.size > 0) this.lastGone = this.timers.now(); }
}

/** When the watcher last saw an event, and waits for the events to stop (or for the watcher to close). */
export class DeletionHold {
  private lastEvent = -Infinity;
  private wake: (() => void) | null = null;
  private readonly run: GoneRun;
  /** Paths of the batch being held (0: none held). */
  holding = 0;

  constructor(private readonly timers: Timers) {
    this.run = new GoneRun(timers);
  }

  /**
   * Whether a batch is to be held: with the paths gone before it in the same deletion (GoneRun), many are gone, or it
   * re-walks the tree for ignore files that are all gone (a root .gitignore deleted first: the re-walk would find the
   * tree half deleted and remove the rest).
   */
  goesOn(root: string, paths: readonly string[], refresh: boolean, ignoreFiles: readonly string[]): boolean {
    if (this.run.reached(root, [...paths, ...ignoreFiles])) return true;
    return refresh && ignoreFiles.length > 0 && ignoreFiles.every((f) => !existsSync(join(root, f)));
  }

  /** An event came (any: a deletion still running names more paths). */
  saw(): void { this.lastEvent = this.timers.now(); }

  /** Resolves once no event has come for DELETION_QUIET_MS (at most DELETION_HOLD_MAX_MS from now), or `closed()` once end() is called. */
  async quiet(closed: () => boolean): Promise<void> {
    const start = this.timers.now();
    while (!closed()) {
      const now = this.timers.now();
      const left = Math.min(DELETION_QUIET_MS - (now - this.lastEvent), DELETION_HOLD_MAX_MS - (now - start));
      if (left <= 0) return;
      await this.sleep(left);
    }
  }

  /**
   * Holds a batch (`paths`, many of them gone) until no event has come for DELETION_QUIET_MS; then the paths
   * `pending` gathered meanwhile join it (`pending` is emptied). When the root is then gone or another folder,
   * the owner is told (`onRootTouched`) and given ROOT_VERDICT_MS to close the watcher, which drops the batch.
   */
  async hold(
    paths: string[], pending: Set<string>, closed: () => boolean, rootCheck: () => FolderCheck,
    opts: { onRootTouched?: () => void; log?: (line: string) => void },
  ): Promise<void> {
    this.holding = paths.length;
    opts.log?.(`watch: a deletion is under way (${paths.length} paths in the batch): held until it settles`);
    try {
      await this.quiet(closed);
      const had = new Set(paths);
      for (const p of pending) if (!had.has(p)) paths.push(p);
      pending.clear();
      const root = closed() ? 'same' : rootCheck();
      if (root === 'gone' || root === 'replaced') {
        opts.log?.(`watch: the root is ${root}: the ${paths.length} held paths are written only if this watcher is kept ${ROOT_VERDICT_MS} ms`);
        opts.onRootTouched?.();
        await this.sleep(ROOT_VERDICT_MS);
      }
    } finally {
      this.holding = 0;
      this.run.settled();
    }
  }

  /** Waits `ms`, or until end() is called. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = this.timers.after(ms, () => { this.wake = null; resolve(); });
      this.wake = () => { t.cancel(); this.wake = null; resolve(); };
    });
  }

  /** The watcher is closing: a wait ends now. */
  end(): void { this.wake?.(); }
}
