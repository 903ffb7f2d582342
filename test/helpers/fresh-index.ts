// What a fresh build of a tree holds, for tests that compare an index kept
// current by updates (or repaired after a kill) with one built from nothing.
import { openEvidexIndex } from '../../indexer/index.js';

/** Builds `root` from nothing in `stateDir` and returns everything the index holds (Store.dump). */
export async function freshDump(root: string, stateDir: string): Promise<Record<string, unknown>> {
  const idx = await openEvidexIndex(root, { stateDir });
  await idx.refresh();
  const d = idx.store.dump();
  await idx.close();
  return d;
}
