// `evidex index` without a running daemon: take the root's lock (the same one a
// daemon takes, so the two never write one index at once), open the index
// in-process, refresh it with progress, report its size.
import { join } from 'node:path';
import type { BuildProgress, BuildSummary } from '../indexer/api.js';
import { openIndex } from '../indexer/index.js';
import { acquireLock, DaemonRunningError, ensureStateDir, folderBytes, lockHeld, stateDirFor } from '../local/state.js';
import { checkUnnamedRoot } from './index-guard.js';
import { canonicalRoot, RealRoot } from '../local/root.js';

/** Thrown when a daemon holds the root: the caller asks the daemon to refresh instead. */
export class DaemonBusy extends Error {}

/** `unnamedRoot`: the root was not named with --repo (index-guard.ts may refuse it). */
export async function buildInProcess(given: string | RealRoot, onProgress: (p: BuildProgress) => void, opts: { unnamedRoot?: boolean } = {}):
Promise<BuildSummary & { generation: number; indexBytes: number }> {
  const root = canonicalRoot(given);
  const stateDir = stateDirFor(RealRoot.trusted(root));
  // Checked before the state folder is made, so a refusal leaves nothing behind; a root whose
  // daemon runs (someone named it) goes on to DaemonBusy below instead.
  if (opts.unnamedRoot && !(await lockHeld(stateDir))) await checkUnnamedRoot(root);
  await ensureStateDir(stateDir);
  let lock;
  try {
    lock = await acquireLock(stateDir, root);
  } catch (e) {
    if (e instanceof DaemonRunningError) throw new DaemonBusy(e.message);
    throw e;
  }
  try {
    const index = await openIndex(root, { stateDir });
    try {
      const summary = await index.refresh(onProgress);
      return { ...summary, generation: index.status().generation, indexBytes: folderBytes(join(stateDir, 'index')) };
    } finally {
      await index.close();
    }
  } finally {
    await lock.release();
  }
}
