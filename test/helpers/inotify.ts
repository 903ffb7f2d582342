// How many inotify watches a process holds: the `inotify wd:` lines of the
// fdinfo of each of its inotify descriptors (Linux /proc). The watcher tests
// and the benchmark use it to check that folders, not files, are watched.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function inotifyWatches(pid: number | 'self' = 'self'): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try { target = readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { continue; } // closed meanwhile
    if (target !== 'anon_inode:inotify') continue;
    try { n += readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length; } catch { /* closed meanwhile */ }
  }
  return n;
}
