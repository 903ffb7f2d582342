// A root's state folder (docs/architecture.md), shared by the daemon and every
// client: where it lives, daemon.json — the file that lets any local client
// the owner runs find and reach the daemon —, the lock that makes one daemon
// per root (a client takes it too, for an in-process `evidex index` or before
// `daemon prune` removes a folder), and whether the processes they name are
// alive (processes.ts). Everything here is owner-only (folders 0700, files
// 0600) because daemon.json holds the token, and state that is not the
// user's alone is refused before it is read (state-trust.ts). The daemon
// makes the token (daemon/token.ts).
import { COMPILE_CACHE, HOME_GITIGNORE, STATE_TAG, stateRoot, stateTagText } from './home.js';
import { isPidAlive, processStartTime } from './processes.js';
import { canonicalRoot, type RealRoot } from './root.js';
import { checkStateFolder, readStateFile } from './state-trust.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { createHash, randomBytes } = process.getBuiltinModule('node:crypto');
// fs.promises is read where it is used: reading it loads fs/promises.
const fs = process.getBuiltinModule('node:fs');
const { lstatSync, readdirSync } = fs;
const { basename, dirname, join, resolve } = process.getBuiltinModule('node:path');

export interface DaemonInfo {
  pid: number;
  port: number;
  url: string;
  token: string;
  root: string;
}

export { stateRoot };

/** One subfolder per root: a readable name plus a short hash of the real path (e.g. `myrepo-3f9a1c2b`). */
export function stateDirFor(root: string | RealRoot, env: NodeJS.ProcessEnv = process.env): string {
  const real = canonicalRoot(root);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 8);
  const name = (basename(real) || 'root').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return join(stateRoot(env), `${name}-${hash}`);
}

/**
 * Where the state folders of one home keep compiled code they can share (the
 * TypeScript compiler's V8 code cache, indexer/typescript/compile-cache.ts):
 * a folder of the home beside them, never taken for a root's (it has no
 * root.json). Null for a state folder that is not one of the home's (a test's
 * temp folder), which then keeps none.
 */
export function compileCacheDirFor(stateDir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const home = resolve(stateRoot(env));
  return resolve(dirname(resolve(stateDir))) === home ? join(home, COMPILE_CACHE) : null;
}

/** The live process holding the folder's lock (a daemon, or an in-process `evidex index`), or null. */
async function liveLockHolder(stateDir: string): Promise<LockHolder | null> {
  const h = await readLockHolder(files(stateDir).lock).catch(() => null);
  return h && h !== 'missing' && holderAlive(h) ? h : null;
}

/**
 * True when the daemon described by daemon.json (pid) is alive: it must hold the
 * root's lock, and the lock's start time must match the running process.
 */
export async function daemonAlive(stateDir: string, pid: number): Promise<boolean> {
  return (await liveLockHolder(stateDir))?.pid === pid;
}

/** True when a live process holds the folder's lock. */
export async function lockHeld(stateDir: string): Promise<boolean> {
  return (await liveLockHolder(stateDir)) !== null;
}

export const files = (stateDir: string) => ({
  daemonJson: join(stateDir, 'daemon.json'),
  /** `{"root": REAL_PATH}`: whose folder this is, kept after the daemon exits (daemon list and prune read it). */
  rootRecord: join(stateDir, 'root.json'),
  token: join(stateDir, 'token'),
  lock: join(stateDir, 'daemon.lock'),
  log: join(stateDir, 'daemon.log'),
  /** `evidex mcp --http`'s bearer token and port, kept across its starts (client/mcp/http-state.ts). */
  mcpHttp: join(stateDir, 'mcp-http.json'),
});

/**
 * Creates the state folder (and its parent) owner-only. One that exists is
 * used only when it is the user's alone: otherwise StateNotYoursError, and
 * nothing is written (state-trust.ts). Returns the first folder it made
 * (the state folder, or EVIDEX_HOME above it), undefined when it was there.
 */
export async function ensureStateDir(stateDir: string): Promise<string | undefined> {
  await checkStateFolder(stateDir);
  const made = await fs.promises.mkdir(stateDir, { recursive: true, mode: 0o700 });
  await checkStateFolder(stateDir);
  // Tagged every time, not only when made: a folder an earlier evidex made has no tag yet.
  const home = resolve(dirname(resolve(stateDir))) === resolve(stateRoot()) ? dirname(resolve(stateDir)) : undefined;
  for (const dir of home === undefined ? [stateDir] : [home, stateDir]) await tagStateFolder(dir);
  // The tag first: a watcher that sees the home's files sees it before the ignore file.
  if (home !== undefined) await writeMarker(join(home, HOME_GITIGNORE.name), HOME_GITIGNORE.text, () => fs.promises.lstat(join(home, HOME_GITIGNORE.name)).then(() => true, () => false));
  return made;
}

/**
 * Writes evidex's tag (local/home.ts, STATE_TAG) in a folder of its state unless it is there:
 * the indexer leaves every folder holding it out as a whole (indexer/discover/state-folders.ts),
 * so a home or state folder inside the tree a daemon watches is never indexed, and never read
 * as a change each time the daemon writes its log there.
 */
async function tagStateFolder(dir: string): Promise<void> {
  const tag = join(dir, STATE_TAG.name);
  await writeMarker(tag, stateTagText(), () => fs.promises.lstat(tag).then((st) => st.isFile(), () => false));
}

/** Writes one of the files that mark evidex's state unless `there()` says it is there, best-effort on a full disk. */
async function writeMarker(path: string, text: string, there: () => Promise<boolean>): Promise<void> {
  if (await there()) return;
  try {
    await writeFileAtomic(path, text);
  } catch (e) {
    // A full disk: what follows fails on it with its own no_space line, and the next command writes
    // the file once there is room; an ENOSPC here would be the one raw line a user saw instead.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOSPC' && code !== 'EDQUOT') throw e;
  }
}

/** Bytes of every file under `dir` (symlinks not followed): an index's size, or what removing a state folder frees. */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : lstatSync(p).size;
  }
  return total;
}

/** Writes a file owner-only and atomically: a reader sees the old content or the new, never a half-written file. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await fs.promises.open(tmp, 'wx', 0o600);
  try {
    try {
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, path);
  } catch (e) {
    // A full disk fails the write: the half-written temporary goes, not left beside the file.
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

// ---- which root a state folder belongs to -----------------------------------

/** Records the root a state folder belongs to (the folder name holds only a hash of it); written only when it differs. */
export async function writeRootRecord(stateDir: string, root: string): Promise<void> {
  if (await readRootRecord(stateDir).catch(() => null) === root) return;
  await writeFileAtomic(files(stateDir).rootRecord, `${JSON.stringify({ root })}\n`);
}

async function readRootRecord(stateDir: string): Promise<string | null> {
  try {
    const v = JSON.parse(await readStateFile(files(stateDir).rootRecord) ?? 'null') as { root?: unknown } | null;
    return typeof v?.root === 'string' && v.root !== '' ? v.root : null;
  } catch {
    return null;
  }
}

/** The root a state folder belongs to: its root.json, else its daemon.json; null when neither says. */
export async function stateFolderRoot(stateDir: string): Promise<string | null> {
  return (await readRootRecord(stateDir)) ?? (await readDaemonInfo(stateDir).catch(() => null))?.root ?? null;
}

/**
 * The state folders under `$EVIDEX_HOME`: its subfolders (not symlinks) that
 * hold a root.json or daemon.json. Anything else there is not evidex's and is
 * never listed, so `daemon prune` cannot remove it.
 */
export async function listStateDirs(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const home = stateRoot(env);
  let entries;
  try {
    entries = await fs.promises.readdir(home, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!e.isDirectory()) continue;
    const dir = join(home, e.name);
    const has = async (p: string) => fs.promises.lstat(p).then((st) => st.isFile(), () => false);
    if (await has(files(dir).rootRecord) || await has(files(dir).daemonJson)) out.push(dir);
  }
  return out;
}

// ---- the lock's holder ------------------------------------------------------

export interface LockHolder { pid: number; start: string | null }

/** True when the process that wrote this lock is still the one running under its pid. */
export function holderAlive(h: LockHolder): boolean {
  if (!isPidAlive(h.pid)) return false;
  if (h.start === null) return true;
  const now = processStartTime(h.pid);
  return now === null || now === h.start;
}

// ---- daemon.json ------------------------------------------------------------

export async function writeDaemonInfo(stateDir: string, info: DaemonInfo): Promise<void> {
  await writeFileAtomic(files(stateDir).daemonJson, `${JSON.stringify(info, null, 2)}\n`);
}

function isDaemonInfo(v: unknown): v is DaemonInfo {
  const o = v as Record<string, unknown>;
  return !!o && typeof o === 'object' && Number.isInteger(o.pid) && Number.isInteger(o.port)
    && typeof o.url === 'string' && typeof o.token === 'string' && typeof o.root === 'string';
}

/**
 * daemon.json's content, or null when it is missing or malformed (a torn file
 * is as good as none). One that is not the user's alone is refused
 * (StateNotYoursError): its token and address are never used.
 */
export async function readDaemonInfo(stateDir: string): Promise<DaemonInfo | null> {
  const text = await readStateFile(files(stateDir).daemonJson);
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return isDaemonInfo(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Removes daemon.json if it still describes this pid (a newer daemon's file is
 * left alone). The daemon itself also removes its token file; a client clearing
 * a stale daemon.json does not, since a new daemon may have just written it.
 */
export async function removeDaemonInfo(stateDir: string, pid: number, opts: { token?: boolean } = {}): Promise<void> {
  const info = await readDaemonInfo(stateDir).catch(() => null);
  if (info && info.pid !== pid) return;
  await fs.promises.rm(files(stateDir).daemonJson, { force: true });
  if (opts.token) await fs.promises.rm(files(stateDir).token, { force: true });
}

// ---- the one-daemon-per-root lock -------------------------------------------

/** The daemon process's exit status when another daemon already serves its root (not a failure to start). */
export const EXIT_ALREADY_RUNNING = 3;
/** The daemon process's exit status when its state folder's disk has no room for what a start writes (lock, token, daemon.json, log). */
export const EXIT_NO_SPACE = 4;

export class DaemonRunningError extends Error {
  constructor(readonly pid: number, root: string) {
    super(`a daemon for ${root} is already running (pid ${pid})`);
    this.name = 'DaemonRunningError';
  }
}

export interface Lock { path: string; release(): Promise<void> }

/** The lock's holder (`PID START` or a bare `PID`), null when garbled or empty, 'missing' when absent. */
export async function readLockHolder(path: string): Promise<LockHolder | null | 'missing'> {
  const text = await readStateFile(path);
  if (text === null) return 'missing';
  const [pidText, start] = text.trim().split(/\s+/);
  const pid = Number.parseInt(pidText ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? { pid, start: start || null } : null;
}

/**
 * Takes the root's lock: an O_EXCL file holding our pid. A lock left by a dead
 * process is taken over by renaming it aside (atomic: of two racing starters only
 * one moves that file) and retrying. Throws DaemonRunningError when a live daemon holds it.
 * Whoever takes the lock is about to write the folder's index, so it also
 * records whose folder this is (root.json).
 */
export async function acquireLock(stateDir: string, root: string): Promise<Lock> {
  const path = files(stateDir).lock;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fh = await fs.promises.open(path, 'wx', 0o600);
      try {
        await fh.writeFile(`${process.pid} ${processStartTime(process.pid) ?? ''}\n`);
      } catch (e) {
        // A lock that could not be written (a full disk) is not left behind half made.
        await fh.close();
        await fs.promises.rm(path, { force: true });
        throw e;
      }
      await fh.close();
      try {
        await writeRootRecord(stateDir, root);
      } catch (e) {
        await fs.promises.rm(path, { force: true });
        throw e;
      }
      return {
        path,
        release: async () => {
          const h = await readLockHolder(path).catch(() => null);
          if (h && h !== 'missing' && h.pid === process.pid) await fs.promises.rm(path, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = await readLockHolder(path);
    if (holder === 'missing') continue;
    if (holder === null) {
      // Empty or garbled: a starter may be between open and write. Give it a moment; if still so, it is stale.
      const st = await fs.promises.stat(path).catch(() => null);
      if (st && Date.now() - st.mtimeMs < 2000) { await new Promise((r) => setTimeout(r, 100)); continue; }
    } else if (holder.pid === process.pid) {
      throw new Error(`this process (pid ${holder.pid}) already holds the lock for ${root}`);
    } else if (holderAlive(holder)) {
      throw new DaemonRunningError(holder.pid, root);
    }
    const aside = `${path}.stale.${process.pid}`;
    try {
      await fs.promises.rename(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // someone else moved it first
      throw e;
    }
    // If what we moved is not the stale lock we judged (a racer replaced it meanwhile), put it back.
    const moved = await readLockHolder(aside);
    if (moved !== 'missing' && moved !== null && (holder === null || moved.pid !== holder.pid) && holderAlive(moved)) {
      await fs.promises.rename(aside, path).catch(() => undefined);
      throw new DaemonRunningError(moved.pid, root);
    }
    await fs.promises.rm(aside, { force: true });
  }
  throw new Error(`could not take the daemon lock ${path} (it keeps changing)`);
}
