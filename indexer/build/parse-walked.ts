// The parsing of an update's walked folders (Builder.update): in the worker
// pool when they hold many files, else on this thread in slices that yield,
// so the daemon answers meanwhile either way (issue 31).
import type { ParseResult, ParseTask } from './messages.js';
import { parseOne } from './parse-worker.js';
import { parseAll } from './pool.js';
import type { ReadSlabs } from './read-slabs.js';
import { Slices } from './slices.js';

/** From this many files on, the pool: starting its workers costs tens of ms, parsing this many here costs more. */
export const POOL_FILES = 200;

/** A file to parse, and the place its result takes among the update's results. */
export interface WalkedTask { slot: number; task: ParseTask & { size: number } }

/** Each task's result, by its slot (`slabs`: where those parsed on this thread keep their bytes; `onRead`: how many are read so far). */
export async function parseWalked(
  toParse: readonly WalkedTask[], maxBytes: number, workers: number, compileCache: string | null, slabs?: ReadSlabs, onRead?: (done: number) => void,
): Promise<Map<number, ParseResult>> {
  const out = new Map<number, ParseResult>();
  if (toParse.length >= POOL_FILES) {
    const slotOf = new Map(toParse.map((p) => [p.task.path, p.slot]));
    await parseAll(toParse.map((p) => p.task), maxBytes, workers, (results) => {
      for (const r of results) out.set(slotOf.get(r.path)!, r);
      onRead?.(out.size);
    }, compileCache);
    return out;
  }
  // One file is faster here than a round trip to a worker.
  const slices = new Slices();
  for (const { slot, task } of toParse) {
    await slices.next();
    out.set(slot, parseOne(task, maxBytes, slabs));
    onRead?.(out.size);
  }
  return out;
}
