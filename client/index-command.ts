// `evidex index` without a running daemon: take the root's lock (the same one a
// daemon takes, so the two never write one index at once), open the index
// in-process, refresh it with progress, report its size and what it left out.
import { join } from 'node:path';
import type { BuildProgress, BuildSummary, LeftOutFolder, UnresolvedImports, UnresolvedQuery } from '../indexer/api.js';
import type { LeftOutCounts } from '../indexer/discover/left-out.js';
import { openIndex } from '../indexer/index.js';
import { asWriteFailure } from '../indexer/write-failure.js';
import { acquireLock, DaemonRunningError, ensureStateDir, folderBytes, lockHeld, readDaemonInfo, stateDirFor } from '../local/state.js';
import { checkUnnamedRoot } from './index-guard.js';
import { canonicalRoot, RealRoot } from '../local/root.js';

/**
 * Thrown when another process holds the root's lock: a daemon (the caller asks
 * it to refresh instead), or another `evidex index` building in its own
 * process, or a daemon still starting (the caller waits: whileHeld).
 */
export class DaemonBusy extends Error {
  constructor(message: string, readonly pid: number, readonly stateDir: string) { super(message); }
}

/** Thrown when the build was stopped (buildInProcess's `signal`): `files` is what the index holds, what it parsed included. */
export class BuildStopped extends Error {
  constructor(readonly files: number) { super('the build was stopped'); }
}

/** How often a waiting `evidex index` looks at the lock and daemon.json (two small file reads). */
const HOLDER_POLL_MS = 100;

/**
 * What holds the lock `busy` met: 'daemon' once a daemon.json names it (a
 * daemon serves: ask it); otherwise this waits until the lock is free or a
 * daemon is listening, and says which ('free': build here, finding what the
 * other build wrote unchanged). `onWait` is called before each wait.
 */
export async function whileHeld(busy: DaemonBusy, onWait: () => void): Promise<'daemon' | 'free'> {
  for (;;) {
    if (await readDaemonInfo(busy.stateDir)) return 'daemon';
    if (!(await lockHeld(busy.stateDir))) return 'free';
    onWait();
    await new Promise((r) => setTimeout(r, HOLDER_POLL_MS));
  }
}

/**
 * `unnamedRoot`: the root was not named with --repo (index-guard.ts may refuse it);
 * `unresolved`: list these TS/JS statements that resolved nowhere, from the index just refreshed;
 * `folder`: where the command was typed (root-relative, with its "/"), said to be left out when it is (index/refresh's `folder`);
 * `signal`: stops the build (Ctrl-C): what it parsed is committed, the index closed and the lock released, then it rejects.
 */
export async function buildInProcess(given: string | RealRoot, onProgress: (p: BuildProgress) => void, opts: { unnamedRoot?: boolean; unresolved?: UnresolvedQuery; folder?: string; signal?: AbortSignal } = {}):
Promise<BuildSummary & { generation: number; indexBytes: number; leftOut: LeftOutCounts; secretPaths: string[]; worktreePaths?: string[]; unresolved?: UnresolvedImports; left_out_folder?: Omit<LeftOutFolder, 'note'> }> {
  const root = canonicalRoot(given);
  const stateDir = stateDirFor(RealRoot.trusted(root));
  // Checked before the state folder is made, so a refusal leaves nothing behind; a root whose
  // daemon runs (someone named it) goes on to DaemonBusy below instead.
  if (opts.unnamedRoot && !(await lockHeld(stateDir))) await checkUnnamedRoot(root);
  let lock;
  try {
    await ensureStateDir(stateDir);
    lock = await acquireLock(stateDir, root);
  } catch (e) {
    if (e instanceof DaemonRunningError) throw new DaemonBusy(e.message, e.pid, stateDir);
    // Even the lock needs room on the state folder's disk (the index's own writes say so themselves).
    throw asWriteFailure(e, stateDir);
  }
  try {
    const index = await openIndex(root, { stateDir });
    try {
      // The stop's own error becomes BuildStopped; any other failure (a full disk) is said as itself, stop or not.
      const stopped = (e: unknown) => opts.signal?.aborted === true && (e === opts.signal.reason || (e instanceof Error && e.name === 'AbortError'));
      const summary = await index.refresh(onProgress, opts.signal).catch((e: unknown) => { throw stopped(e) ? new BuildStopped(index.status().files) : e; });
      const { generation, leftOut, secretPaths, worktreePaths } = index.status();
      const unresolved = opts.unresolved ? { unresolved: await index.unresolvedImports(opts.unresolved) } : {};
      const leftOutFolder = opts.folder === undefined ? null : await index.leftOutFolder(opts.folder);
      return { ...summary, generation, leftOut, secretPaths, worktreePaths, indexBytes: folderBytes(join(stateDir, 'index')), ...unresolved, ...(leftOutFolder ? { left_out_folder: leftOutFolder } : {}) };
    } finally {
      await index.close();
    }
  } finally {
    await lock.release();
  }
}
