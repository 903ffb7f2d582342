// A small pool of parse workers (worker_threads) for full builds and catch-ups.
// Tasks go out in chunks, two chunks in flight per worker so a worker never
// idles while the main thread is busy writing; results come back as they finish.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ParseRequest, ParseResponse, ParseResult, ParseTask, ParseWorkerData } from './messages.js';

const CHUNK_FILES = 24;
// Small chunks bound the tree-sitter trees a worker holds before it can collect
// them (see parse-worker.ts): 1 MiB chunks peaked ~40 MiB higher on the stdlib.
const CHUNK_BYTES = 256 << 10;
const IN_FLIGHT_PER_WORKER = 2;

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/** Splits tasks into chunks of bounded file count and byte size (sizes from the walk). */
function chunk(tasks: Array<ParseTask & { size: number }>): ParseTask[][] {
  const out: ParseTask[][] = [];
  let cur: ParseTask[] = [];
  let bytes = 0;
  for (const t of tasks) {
    cur.push({ path: t.path, abs: t.abs, dev: t.dev, ino: t.ino, knownHash: t.knownHash });
    bytes += t.size;
    if (cur.length >= CHUNK_FILES || bytes >= CHUNK_BYTES) { out.push(cur); cur = []; bytes = 0; }
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Starts `n` parse workers ahead of their tasks: a build from nothing starts
 * them before its walk, so their start-up (and loading what they parse with)
 * runs while discovery does. Hand them to parseAll, which ends them.
 */
export function startWorkers(n: number, compileCache: string | null): Worker[] {
  const workerData: ParseWorkerData = { compileCache };
  const url = new URL('./parse-worker.js', import.meta.url);
  return Array.from({ length: Math.max(1, n) }, () => {
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
 * Parses every task on `workers` threads (or on the workers given, started
 * by startWorkers), calling onResults for each finished
 * chunk (on the main thread, in completion order). Resolves when all are done;
 * the workers are terminated either way. When onResults throws (a cancelled
 * build) no more chunks go out, and the workers are terminated only once the
 * chunks in flight have come back: a worker terminated inside tree-sitter's
 * native parse makes the binding throw a C++ exception that aborts the whole
 * process.
 */
export async function parseAll(
  tasks: Array<ParseTask & { size: number }>, maxBytes: number, workers: number | Worker[],
  onResults: (results: ParseResult[]) => void, compileCache: string | null = null,
): Promise<void> {
  const chunks = chunk(tasks);
  if (chunks.length === 0) {
    if (Array.isArray(workers)) await Promise.all(workers.map((w) => w.terminate()));
    return;
  }
  const pool = Array.isArray(workers) ? workers
    : startWorkers(Math.min(workers, Math.ceil(chunks.length / IN_FLIGHT_PER_WORKER)), compileCache);
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
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const send = (w: Worker): void => {
        if (next >= chunks.length || failed) return;
        const req: ParseRequest = { id: next, maxBytes, tasks: chunks[next] };
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
          if (pending === 0 && next >= chunks.length) resolve();
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
    });
  } finally {
    if (!allLanded()) await new Promise<void>((r) => { settleInFlight = r; });
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
