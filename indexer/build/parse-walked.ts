// Where files are parsed: in the worker pool when they are many, else on this
// thread in slices that yield, so the daemon answers meanwhile either way
// (issue 31). A refresh that finds a few files changed (the start-up check
// after an offline edit) would otherwise wait longer for a worker to start
// and load its parsers than the parse itself takes.
import type { Worker } from 'node:worker_threads';
import type { ParseResult, ParseTask } from './messages.js';
import { parseOne } from './parse-worker.js';
import { parseAll } from './pool.js';
import type { ReadSlabs } from './read-slabs.js';
import { Slices } from './slices.js';

/** From this many files on, the pool: starting its workers costs tens of ms, parsing this many here costs more. */
export const POOL_FILES = 200;

/** A file to parse, and the place its result takes among the update's results. */
export interface WalkedTask { slot: number; task: ParseTask & { size: number } }

/**
 * Parses `tasks`, handing each result (or chunk of results) to `onResults` as
 * parseAll does: in the pool when they are POOL_FILES or more, or when
 * workers were `started` for them ahead (a build from nothing), else here.
 * `slabs`: where those parsed here keep their bytes (parseOne). Once `signal`
 * aborts, nothing more is started; what was started is still handed over.
 */
export async function parseTasks(
  tasks: Array<ParseTask & { size: number }>, maxBytes: number, workers: number, onResults: (results: ParseResult[]) => void,
  compileCache: string | null, started: Worker[] = [], slabs?: ReadSlabs, signal?: AbortSignal,
): Promise<void> {
  if (tasks.length >= POOL_FILES || started.length > 0) return parseAll(tasks, maxBytes, workers, onResults, compileCache, started, signal);
  // One file is faster here than a round trip to a worker.
  const slices = new Slices();
  for (const task of tasks) {
    await slices.next();
    if (signal?.aborted) return;
    onResults([parseOne(task, maxBytes, slabs)]);
  }
}

/** Each task's result, by its slot (`slabs`: where those parsed on this thread keep their bytes; `onRead`: how many are read so far). */
export async function parseWalked(
  toParse: readonly WalkedTask[], maxBytes: number, workers: number, compileCache: string | null, slabs?: ReadSlabs, onRead?: (done: number) => void,
): Promise<Map<number, ParseResult>> {
  const out = new Map<number, ParseResult>();
  let next = 0;
  // Results come back in task order here, in completion order from the pool: a path names its slot there.
  const slotOf = toParse.length >= POOL_FILES ? new Map(toParse.map((p) => [p.task.path, p.slot])) : null;
  await parseTasks(toParse.map((p) => p.task), maxBytes, workers, (results) => {
    for (const r of results) out.set(slotOf ? slotOf.get(r.path)! : toParse[next++]!.slot, r);
    onRead?.(out.size);
  }, compileCache, [], slabs);
  return out;
}
