// What chokidar is told to skip (its `ignored`, asked for every entry it
// meets, first without stats and then with them). Only folders are pruned by
// the rules here, and chokidar then never watches inside them; files are
// filtered when a batch is built, because a file's rules can change with an
// ignore file. Nothing but folders gets a watch of its own unless polling: a
// folder's inotify watch names its entries (docs/architecture.md, "The
// watcher").
import type { Stats } from 'node:fs';
import { isPathTooLong } from '../discover/path-limits.js';
import { inGitDir, underRoot, type RepoRules } from '../discover/rules.js';
import type { EntryKind } from './unwatched.js';
import { isNestedGitFile, isWorktreeTop } from './worktree-events.js';

/** Whether the rules exclude folder `rel` now (rules that cannot say, a folder gone meanwhile: not excluded). */
export function isIgnoredFolder(rules: RepoRules, rel: string): boolean {
  try { return rules.isIgnored(rel, true); } catch { return false; }
}

export interface SkipsOptions {
  root: string;
  rules: RepoRules;
  /** Whether chokidar watches files too (polling) or folders only (fs.watch). */
  watchFiles(): boolean;
  /** chokidar met folder `rel` and the rules excluded it (watched once they let it in: watch/additions.ts). */
  skipped(rel: string): void;
}

/** The `ignored` function chokidar is opened with (and the watcher's look for unwatched folders judges by). */
export function chokidarSkips(opts: SkipsOptions): (abs: string, stats?: Stats | EntryKind) => boolean {
  const { root, rules } = opts;
  return (abs, stats) => {
    const rel = underRoot(root, abs);
    if (rel === null) return false; // the root itself
    if (inGitDir(rel)) return !(opts.watchFiles() && isNestedGitFile(rel, stats));
    if (stats?.isDirectory()) {
      // A folder past the path limits is not watched either: the raw event that named it brings it to update(), which counts it left out.
      if (!isIgnoredFolder(rules, rel)) return isPathTooLong(rules.realRoot, rel);
      // A work tree keeps its own watch alone: its `.git` file's going, or its own, is heard.
      if (isWorktreeTop(rules, rel)) return false;
      opts.skipped(rel);
      return true;
    }
    // Symlinks stay chokidar's, which reports them without following; FIFOs, sockets and devices are never indexed.
    return !opts.watchFiles() && stats !== undefined && !stats.isSymbolicLink();
  };
}
