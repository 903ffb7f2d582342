// Indexes opened in this one process by a build's own code: this build's
// dist/, or another's (`--against OTHER/dist`, e.g. main's built elsewhere),
// so the in-process benches (tools-inproc, ts-inproc, text-map-speed) can
// alternate their rounds between builds and a loaded machine's drift falls on
// both alike. Each index gets a fresh state folder of its own, is built and
// warmed before it is timed, and is closed and removed after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvidexIndex } from '../../indexer/index.js';

/** This build's dist/ folder (the one these benches run from). */
export const OWN_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** An index opened by some build, with the state folder it owns. */
export interface InProcessIndex { idx: EvidexIndex; state: string }

/** Opens `root`'s index with `dist`'s code in a new state folder (named from `prefix`), built and warmed. */
export async function openWith(dist: string, root: string, prefix: string, textMapMinBytes?: number): Promise<InProcessIndex> {
  const { openEvidexIndex } = await import(join(dist, 'indexer', 'index.js')) as typeof import('../../indexer/index.js');
  const state = mkdtempSync(join(tmpdir(), prefix));
  const idx = await openEvidexIndex(root, { stateDir: state, textMapMinBytes });
  await idx.refresh();
  await idx.warm();
  return { idx, state };
}

/** Closes each index and removes its state folder. */
export async function closeAll(opened: Iterable<InProcessIndex>): Promise<void> {
  for (const o of opened) {
    await o.idx.close();
    rmSync(o.state, { recursive: true, force: true });
  }
}

/** The minimum and the median of `xs` (on a busy machine the minimum is the steadier figure). */
export function minMedian(xs: readonly number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  return [s[0], s[Math.floor(s.length / 2)]];
}
