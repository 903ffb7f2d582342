// A small file below the root read to judge its folder (a `.git` file: worktrees.ts; evidex's
// state tag: state-folders.ts). Such a file may be anything — a link, a fifo, a huge file, one
// swapped between two calls — so only a regular file of at most `maxBytes`, without NUL bytes,
// is read: never through a link, never blocking on a fifo, and only when the file opened is the
// one lstat saw.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The text of the file at `abs` when it is a regular file of at most `maxBytes` with no NUL byte, else null. */
export function readSmallFile(abs: string, maxBytes: number): string | null {
  let st: Stats;
  try { st = lstatSync(abs); } catch { return null; }
  if (!st.isFile() || st.size > maxBytes) return null;
  let fd: number;
  try {
    // Swapped for a link or a fifo since the lstat: O_NOFOLLOW refuses the one, O_NONBLOCK keeps the other from waiting for a writer.
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const now = fstatSync(fd);
    if (!now.isFile() || now.dev !== st.dev || now.ino !== st.ino) return null;
    const buf = Buffer.alloc(maxBytes + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n > maxBytes || buf.subarray(0, n).includes(0)) return null;
    return buf.toString('utf8', 0, n);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
