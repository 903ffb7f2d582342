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
 * Parses every task on `workers` threads, calling onResults for each finished
 * chunk (on the main thread, in completion order). Resolves when all are done;
 * the workers are terminated either way. When onResults throws (a cancelled
 * build) no more chunks go out, and the workers are terminated only once the
 * chunks in flight have come back: a worker terminated inside tree-sitter's
 * native parse makes the binding throw a C++ exception that aborts the whole
 * process.
 */
export async function parseAll(
  tasks: Array<ParseTask & { size: number }>, maxBytes: number, workers: number,
  onResults: (results: ParseResult[]) => void, compileCache: string | null = null,
): Promise<void> {
  const chunks = chunk(tasks);
  if (chunks.length === 0) return;
  const n = Math.max(1, Math.min(workers, Math.ceil(chunks.length / IN_FLIGHT_PER_WORKER)));
  const url = new URL('./parse-worker.js', import.meta.url);
  const workerData: ParseWorkerData = { compileCache };
  const pool = Array.from({ length: n }, () => new Worker(url, { workerData }));
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
        for (let i = 0; i < IN_FLIGHT_PER_WORKER; i++) send(w);
      }
    });
  } finally {
    if (!allLanded()) await new Promise<void>((r) => { settleInFlight = r; });
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
