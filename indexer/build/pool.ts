// A small pool of parse workers (worker_threads) for full builds and catch-ups.
// Tasks go out in chunks, two chunks in flight per worker so a worker never
// idles while the main thread is busy writing; results come back as they finish.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ParseRequest, ParseResponse, ParseResult, ParseTask, ParseWorkerData } from './messages.js';

export const CHUNK_FILES = 24;
// Small chunks bound the tree-sitter trees a worker holds before it can collect
// them (see parse-worker.ts): 1 MiB chunks peaked ~40 MiB higher on the stdlib.
const CHUNK_BYTES = 256 << 10;
export const IN_FLIGHT_PER_WORKER = 2;

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/** Cuts files into chunks as they come: a chunk closes at CHUNK_FILES files or CHUNK_BYTES bytes. */
class ChunkCutter {
  private files = 0;
  private bytes = 0;
  private closed = 0;

  /** Adds a file of `size` bytes to the open chunk; true when that closes it. */
  add(size: number): boolean {
    this.files++;
    this.bytes += size;
    if (this.files < CHUNK_FILES && this.bytes < CHUNK_BYTES) return false;
    this.closed++;
    this.files = 0;
    this.bytes = 0;
    return true;
  }

  /** Chunks so far, the open one included. */
  get count(): number { return this.closed + (this.files > 0 ? 1 : 0); }
}

/** Splits tasks into chunks of bounded file count and byte size (sizes from the walk). */
function chunk(tasks: Array<ParseTask & { size: number }>): ParseTask[][] {
  const cutter = new ChunkCutter();
  const out: ParseTask[][] = [];
  let cur: ParseTask[] = [];
  for (const t of tasks) {
    cur.push({ path: t.path, abs: t.abs, dev: t.dev, ino: t.ino, knownHash: t.knownHash });
    if (cutter.add(t.size)) { out.push(cur); cur = []; }
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The workers `chunks` chunks keep busy (IN_FLIGHT_PER_WORKER each), at most `max` but at least one for any work. */
function workersFor(chunks: number, max: number): number {
  return chunks === 0 ? 0 : Math.max(1, Math.min(max, Math.ceil(chunks / IN_FLIGHT_PER_WORKER)));
}

/** Starts `n` parse workers (none for n <= 0); hand them to parseAll, which ends them. */
function startWorkers(n: number, compileCache: string | null): Worker[] {
  const workerData: ParseWorkerData = { compileCache };
  const url = new URL('./parse-worker.js', import.meta.url);
  return Array.from({ length: Math.max(0, n) }, () => {
    const w = new Worker(url, { workerData });
    // Until parseAll listens: an error is kept for it (not thrown as an unhandled 'error' event), and so is an exit.
    w.on('error', (err) => { if (!endedEarly.has(w)) endedEarly.set(w, err); });
    w.once('exit', (code) => { if (!endedEarly.has(w)) endedEarly.set(w, new Error(`parse worker exited with code ${code}`)); });
    return w;
  });
}

/** Why a worker started by startWorkers ended before it was given work. */
const endedEarly = new WeakMap<Worker, Error>();

/**
 * Parse workers a build from nothing starts ahead of its tasks, so their
 * start-up (and loading what they parse with) runs while the rules load and
 * the tree is walked: one at once, and each further one as soon as the files
 * the walk has found (found()) would keep it busy by parseAll's own rule. A
 * tiny repository never starts a worker it has no work for; a large one
 * starts its second a few dozen files into its walk.
 */
export class EarlyWorkers {
  private workers: Worker[];
  private readonly chunks = new ChunkCutter();
  private taken = false;

  constructor(private readonly max: number, private readonly compileCache: string | null) {
    this.workers = startWorkers(1, compileCache);
  }

  /** A file the walk found, of `size` bytes, that the build will parse. */
  found(size: number): void {
    this.chunks.add(size);
    if (!this.taken && this.workers.length < workersFor(this.chunks.count, this.max)) this.workers.push(...startWorkers(1, this.compileCache));
  }

  /** The workers started so far, handed over (to parseAll, which ends them); none after the first call. */
  take(): Worker[] {
    this.taken = true;
    const w = this.workers;
    this.workers = [];
    return w;
  }

  /** Ends the workers never handed over (the build failed or was cancelled first). */
  async end(): Promise<void> {
    await Promise.all(this.take().map((w) => w.terminate()));
  }
}

/**
 * Parses every task on as many workers as its chunks keep busy, at most
 * `maxWorkers`: those `started` ahead (EarlyWorkers) first, more if the
 * chunks want more, and any started ahead beyond that ended unused (the walk
 * saw the files in another order). Calls onResults for each finished chunk
 * (on the main thread, in completion order). Resolves when all are done;
 * the workers are terminated either way. Once `signal` aborts (a cancelled
 * build) no more chunks go out, the workers parse no further file of the
 * chunks they hold (ParseRequest.stop) and answer with what they parsed,
 * which goes to onResults as any other answer (parsed work the build can
 * keep); it resolves when every chunk has come back. When onResults throws,
 * no more chunks go out either and the chunks in flight are awaited unread.
 * Either way the workers are terminated only once nothing is in flight: a
 * worker terminated inside tree-sitter's native parse makes the binding throw
 * a C++ exception that aborts the whole process.
 */
export async function parseAll(
  tasks: Array<ParseTask & { size: number }>, maxBytes: number, maxWorkers: number,
  onResults: (results: ParseResult[]) => void, compileCache: string | null = null, started: Worker[] = [], signal?: AbortSignal,
): Promise<void> {
  const chunks = chunk(tasks);
  const wanted = workersFor(chunks.length, maxWorkers);
  await Promise.all(started.slice(wanted).map((w) => w.terminate()));
  if (wanted === 0) return;
  const pool = [...started.slice(0, wanted), ...startWorkers(wanted - started.length, compileCache)];
  /** Chunks each worker has and has not answered yet. */
  const inFlight = new Map<Worker, number>(pool.map((w) => [w, 0]));
  const allLanded = (): boolean => [...inFlight.values()].every((k) => k === 0);
  let settleInFlight: (() => void) | null = null;
  /** A chunk of `w` came back (or, `all`, none of its chunks will: it failed or exited). */
  const landed = (w: Worker, all = false): void => {
    inFlight.set(w, all ? 0 : Math.max(0, inFlight.get(w)! - 1));
    if (allLanded()) settleInFlight?.();
  };
  let next = 0;
  let pending = 0;
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const stopParsing = (): void => { Atomics.store(stop, 0, 1); };
  signal?.addEventListener('abort', stopParsing, { once: true });
  if (signal?.aborted) stopParsing();
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      /** Every chunk that went out has come back and no more will go: all of them, or the build was cancelled. */
      const over = (): boolean => pending === 0 && (next >= chunks.length || signal?.aborted === true);
      const send = (w: Worker): void => {
        if (next >= chunks.length || failed || signal?.aborted) return;
        const req: ParseRequest = { id: next, maxBytes, tasks: chunks[next], stop };
        next++; pending++;
        inFlight.set(w, inFlight.get(w)! + 1);
        w.postMessage(req);
      };
      for (const w of pool) {
        w.on('message', (res: ParseResponse) => {
          landed(w);
          if (failed) return;
          pending--;
          try { onResults(res.results); } catch (err) { failed = true; reject(err); return; }
          send(w);
          if (over()) resolve();
        });
        w.on('error', (err) => { landed(w, true); if (!failed) { failed = true; reject(err); } });
        w.on('exit', (code) => {
          landed(w, true);
          if (!failed && (pending > 0 || next < chunks.length) && code !== 0) {
            failed = true; reject(new Error(`parse worker exited with code ${code}`));
          }
        });
        const ended = endedEarly.get(w);
        if (ended) { landed(w, true); if (!failed) { failed = true; reject(ended); } continue; }
        for (let i = 0; i < IN_FLIGHT_PER_WORKER; i++) send(w);
      }
      if (!failed && over()) resolve(); // cancelled before any chunk went out
    });
  } finally {
    signal?.removeEventListener('abort', stopParsing);
    if (!allLanded()) await new Promise<void>((r) => { settleInFlight = r; });
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
