// What a fresh build of a tree holds, for tests that compare an index kept
// current by updates (or repaired after a kill) with one built from nothing.
import { openEvidexIndex, type EvidexIndex } from '../../indexer/index.js';

/** Builds `root` from nothing in `stateDir` and returns everything the index holds (Store.dump). */
export async function freshDump(root: string, stateDir: string): Promise<Record<string, unknown>> {
  const idx = await openEvidexIndex(root, { stateDir });
  await idx.refresh();
  const d = idx.store.dump();
  await idx.close();
  return d;
}

/**
 * One index of `root` for a test file's many cases: opened, built and warmed
 * by the first `index()`, the same one after; `close()` closes it if it was.
 */
export function indexOnce(root: string, stateDir: string): { index(): Promise<EvidexIndex>; close(): Promise<void> } {
  let idx: Promise<EvidexIndex> | null = null;
  return {
    index: () => (idx ??= (async () => {
      const i = await openEvidexIndex(root, { stateDir });
      await i.refresh();
      await i.warm();
      return i;
    })()),
    close: async () => { await (await idx)?.close(); },
  };
}
