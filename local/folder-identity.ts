// Which folder stands at a path: the daemon holds its root and its state
// folder by identity, not by name, so a folder deleted and made again, or
// moved away with another put in its place, is told from the one it started
// with (daemon/root-watch.ts, daemon/state-claim.ts).
//
// Identity is device, inode and birth time: a new folder very often gets the
// inode number the deleted one just freed, and only the birth time tells them
// apart. On a file system that keeps no birth time (it reads 0), a folder made
// again with a reused inode looks the same; the events that come with its
// making are then what gives it away.
import { lstatSync } from 'node:fs';

/** The identity of the folder at `path` itself (a symlink there is no folder), or null when no folder is there. */
export function folderIdentityAt(path: string): string | null {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? `${st.dev}:${st.ino}:${st.birthtimeMs}` : null;
  } catch {
    return null;
  }
}
