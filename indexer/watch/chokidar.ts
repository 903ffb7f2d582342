// How the watcher drives chokidar (watch.ts): the options it is opened with,
// and the one event of its scan that names no change.
import { watch, type FSWatcher, type MatchFunction } from 'chokidar';
import type { Stats } from 'node:fs';

/** A chokidar instance on `root`: folders only (their watches name every entry) unless polling, symlinks never followed. */
export function openChokidar(root: string, ignored: MatchFunction, polling: boolean, pollMs = 500): FSWatcher {
  return watch(root, {
    ignoreInitial: true,
    ignored,
    // No awaitWriteFinish (it adds >= 200 ms) and no atomic (it holds unlinks back 100 ms):
    // update() re-checks each path on disk, which already makes write+rename end right.
    awaitWriteFinish: false,
    atomic: false,
    followSymlinks: false,
    alwaysStat: true,
    usePolling: polling,
    interval: pollMs,
    binaryInterval: pollMs,
    persistent: true,
  });
}

/**
 * True for the `add` chokidar reports for every symlink its scan meets,
 * ignoreInitial or not (paulmillr/chokidar#804, #1270): nothing changed, and
 * taken for a change it marked every daemon start on a tree with a symlink as
 * catching up. A link really made during the scan in a folder already watched
 * has its raw event too, and a re-walk follows every scan (start, restart,
 * the fall-back to polling), so nothing is missed.
 */
export function isScanLinkAdd(scanned: boolean, event: string, stats: Stats | undefined): boolean {
  return !scanned && event === 'add' && stats?.isSymbolicLink() === true;
}

/** Out of inotify watches (or file handles): the watcher falls back to polling. */
export const isWatchLimitError = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
};
