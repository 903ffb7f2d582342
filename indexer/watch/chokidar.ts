// How the watcher drives chokidar (watch.ts): the options it is opened with,
// the one event of its scan that names no change, and which folders it watches.
import { watch, type FSWatcher, type MatchFunction } from 'chokidar';
import type { Stats } from 'node:fs';
import { underRoot } from '../discover/rules.js';

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

/**
 * Whether chokidar watches folder `abs` (or has begun to: it holds the name from before its first read). Read from
 * `_watched`, the map its own getWatched() copies (declared in its types; chokidar is pinned in package.json):
 * getWatched() sorts every folder's children, 9.5 ms on 5,582 folders, and this is asked after a folder's saves.
 */
export function isWatched(fsw: FSWatcher, abs: string): boolean {
  return fsw._watched.has(abs);
}

/** The folders chokidar watches (absolute paths); the root's parent, which chokidar holds too, left out. */
export function watchedFolders(fsw: FSWatcher, root: string): string[] {
  return [...fsw._watched.keys()].filter((dir) => dir === root || underRoot(root, dir) !== null);
}
