// How many inotify watches a process holds, and on which inodes: the
// `inotify wd:` lines of the fdinfo of each of its inotify descriptors (Linux
// /proc). The watcher tests and the benchmark use it to check that folders,
// not files, are watched, and which folders are.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The `inotify wd:` lines of every inotify descriptor of the process. */
function watchLines(pid: number | 'self'): string[] {
  const lines: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try { target = readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { continue; } // closed meanwhile
    if (target !== 'anon_inode:inotify') continue;
    try { lines.push(...readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:'))); } catch { /* closed meanwhile */ }
  }
  return lines;
}

export function inotifyWatches(pid: number | 'self' = 'self'): number {
  return watchLines(pid).length;
}

/** The inodes the process's inotify watches are on (each line's `ino:`, hexadecimal there). */
export function inotifyWatchedInodes(pid: number | 'self' = 'self'): Set<number> {
  return new Set(watchLines(pid).map((l) => parseInt(/ ino:([0-9a-f]+) /.exec(l)![1], 16)));
}
