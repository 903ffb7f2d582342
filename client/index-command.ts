// `evidex index` without a running daemon: take the root's lock (the same one a
// daemon takes, so the two never write one index at once), open the index
// in-process, refresh it with progress, report its size.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress, BuildSummary } from '../indexer/api.js';
import { openIndex } from '../indexer/index.js';
import { acquireLock, DaemonRunningError, ensureStateDir, stateDirFor } from '../daemon/state.js';

/** Thrown when a daemon holds the root: the caller asks the daemon to refresh instead. */
export class DaemonBusy extends Error {}

/** Bytes of every file under `dir` (the LMDB environment's size on disk). */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return total;
}

export async function buildInProcess(root: string, onProgress: (p: BuildProgress) => void):
Promise<BuildSummary & { generation: number; indexBytes: number }> {
  const stateDir = stateDirFor(root);
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
