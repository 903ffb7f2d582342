// What a daemon start that failed leaves behind. A first start makes the
// state folder (and EVIDEX_HOME above it, the first time) before its daemon
// can say anything; when that daemon exits at start — no room on the disk,
// a crash — the folder held nothing but its log (seen on a full disk: an
// empty folder holding an empty daemon.log, in the way of `daemon list`).
// So a failed first start takes back the folders it made. What the user
// needs to see why stays: the error line names the cause (no_space, or the
// log's last line), and a log holding more than that line is moved to the
// temp folder, which the line names (docs/cli.md, "A start that fails").
import { closeSync, copyFileSync, fstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { files, lockHeld } from '../local/state.js';
import { STATE_MARKERS } from '../local/home.js';

/** The last non-empty line of a daemon log (read from its end: the log grows over the daemon's life). */
export function lastLogLine(path: string): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, 4096));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return buf.toString('utf8').trim().split('\n').pop() ?? '';
    } finally { closeSync(fd); }
  } catch { return ''; }
}

/** Where the log of a failed first start of the daemon whose state folder is `stateDir` is kept. */
export const keptLogPath = (stateDir: string): string => join(tmpdir(), `evidex-failed-start-${basename(stateDir)}.log`);

/**
 * After a first start whose daemon exited: removes `stateDir` and the folders
 * above it up to `made` (the first one the start made) that are empty then,
 * unless a live daemon holds the folder's lock (a racing start's won). A log
 * of more than one line is moved to keptLogPath first (`keepLog`). Returns
 * where the log is now: its own place when the folder stays, the kept copy,
 * or null when it went with the folder.
 */
export async function undoFirstStart(stateDir: string, made: string, keepLog: boolean): Promise<string | null> {
  const log = files(stateDir).log;
  if (await lockHeld(stateDir)) return log;
  const kept = keepLog && lineCount(log) > 1 ? moved(log, keptLogPath(stateDir)) : null;
  rmSync(stateDir, { recursive: true, force: true });
  for (let dir = dirname(stateDir); !relative(made, dir).startsWith('..'); dir = dirname(dir)) {
    dropLoneTag(dir);
    try { rmdirSync(dir); } catch { break; } // not empty: another root's state is there
    if (dir === made) break;
  }
  return kept;
}

/** Removes evidex's markers (its tag; in the home, its .gitignore) from a folder this start made when nothing else is in it (another root's state keeps them). */
function dropLoneTag(dir: string): void {
  try {
    const entries = readdirSync(dir);
    if (entries.length > 0 && entries.every((e) => STATE_MARKERS.includes(e))) for (const e of entries) rmSync(join(dir, e), { force: true });
  } catch { /* gone already, or unreadable: rmdir decides */ }
}

function lineCount(path: string): number {
  try { return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').length; } catch { return 0; }
}

/** `from` moved to `to` (copied when they are on two file systems); null when it could not be (a full disk). */
function moved(from: string, to: string): string | null {
  try {
    try { renameSync(from, to); } catch { copyFileSync(from, to); }
    return to;
  } catch {
    return null;
  }
}
