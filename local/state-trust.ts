// State that is not yours is refused (docs/architecture.md, "Whose state").
// A state folder's name is predictable, so on a shared EVIDEX_HOME (a /tmp
// folder on a multi-user host) another user could make a root's folder first,
// with a daemon.json naming their own listener: a client that trusted it would
// send them its token and its queries, and print their forged evidence. So
// every piece of state is checked before it is used:
//
// - the folder that holds the state folders may be changed only by us (or
//   root): owned by us or root, and, when others may write in it, sticky — so
//   nobody else can rename our state folder away and put theirs in its place;
// - a state folder must be a real folder (not a symlink), ours, and writable
//   by nobody else;
// - every state file is opened without following a symlink and checked on
//   the open descriptor (ours, writable by nobody else) before a byte is read,
//   so a file swapped in between the check and the read is caught too.
//
// A refusal is one line that names the path and what to do, and nothing is
// read from, written to or sent to what was refused.
import type { Stats } from 'node:fs';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, statSync } = process.getBuiltinModule('node:fs');
const { dirname } = process.getBuiltinModule('node:path');

/** Thrown for state evidex will not use; the CLI prints its message as is (code `state_refused`). */
export class StateNotYoursError extends Error {
  readonly code = 'state_refused';
  constructor(message: string) { super(message); this.name = 'StateNotYoursError'; }
}

const myUid = (): number | undefined => process.getuid?.();
const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;

/** Why `st` is not ours alone (null when it is): another owner, or writable by group or others. */
export function notOursAlone(st: Stats): string | null {
  const me = myUid();
  if (me !== undefined && st.uid !== me) return `it belongs to user ${st.uid}, not to you (user ${me})`;
  if ((st.mode & 0o022) !== 0) return `it is writable by group or others (mode ${octal(st.mode)})`;
  return null;
}

/**
 * A folder of evidex's own below a trusted one (a cache's, the text map's):
 * made (0700) unless it exists, then why it is refused — a link, not a
 * folder, or not ours alone (notOursAlone) — or null when it is ours.
 * An error making it other than its being there (a missing parent) is thrown.
 */
export function madeOwnFolder(dir: string): string | null {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(dir);
  return st.isSymbolicLink() ? 'it is a symbolic link' : !st.isDirectory() ? 'it is not a folder' : notOursAlone(st);
}

/** Who may write in the folder holding the state folders (null when only we, or root, may rename what is in it). */
export function othersCanRename(st: Stats): string | null {
  const me = myUid();
  if (me !== undefined && st.uid !== me && st.uid !== 0) return `it belongs to user ${st.uid}, who can rename or remove what is in it`;
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `others can write in it and it is not sticky (mode ${octal(st.mode)})`;
  return null;
}

/**
 * What is at `path` (a link followed when `follow`), null when nothing is.
 * State is read with synchronous calls: a few small reads are what every CLI
 * call does first, and each promise-based one is a round trip to the thread
 * pool, which the first one starts (docs/performance/cli-start.md).
 */
function statOrNull(path: string, follow: boolean): Stats | null {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/**
 * Checks a root's state folder before anything in it is used: its parent
 * (EVIDEX_HOME) can be changed by nobody else, and the folder itself is a
 * real folder, ours, writable by nobody else. False when it does not exist
 * (nothing to trust or distrust yet); throws StateNotYoursError when refused.
 */
export async function checkStateFolder(dir: string): Promise<boolean> {
  const home = dirname(dir);
  // Followed: EVIDEX_HOME (or ~/.cache) may well be a link to a folder elsewhere; that folder is judged.
  const parent = statOrNull(home, true);
  if (parent === null) return false;
  const why = parent.isDirectory() ? othersCanRename(parent) : 'it is not a folder';
  if (why) throw new StateNotYoursError(`refusing to keep evidex state in ${home}: ${why}; set EVIDEX_HOME to a folder of your own`);
  const st = statOrNull(dir, false);
  if (st === null) return false;
  if (st.isSymbolicLink()) throw new StateNotYoursError(`refusing the state folder ${dir}: it is a symbolic link; remove it (evidex makes a new one)`);
  if (!st.isDirectory()) throw new StateNotYoursError(`refusing the state folder ${dir}: it is not a folder; remove it (evidex makes a new one)`);
  const problem = notOursAlone(st);
  if (problem) {
    throw new StateNotYoursError(`refusing the state folder ${dir}: ${problem}; remove it (evidex makes a new one), or set EVIDEX_HOME to a folder of your own`);
  }
  return true;
}

/**
 * The text of a state file if it is ours alone, null when it does not exist.
 * Opened without following a symlink and judged on the open descriptor, so
 * what is read is what was checked. Throws StateNotYoursError when refused.
 */
export async function readStateFile(path: string): Promise<string | null> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw new StateNotYoursError(`refusing the state file ${path}: it is a symbolic link; remove it`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new StateNotYoursError(`refusing the state file ${path}: it is not a regular file; remove it`);
    const problem = notOursAlone(st);
    if (problem) throw new StateNotYoursError(`refusing the state file ${path}: ${problem}; remove it, or set EVIDEX_HOME to a folder of your own`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
