// A small pool of parse workers (worker_threads) for full builds and catch-ups.
// Tasks go out in chunks, two chunks in flight per worker so a worker never
// idles while the main thread is busy writing; results come back as they finish.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ParseRequest, ParseResponse, ParseResult, ParseTask } from './messages.js';

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
 * the workers are terminated either way.
 */
export async function parseAll(
  tasks: Array<ParseTask & { size: number }>, maxBytes: number, workers: number,
  onResults: (results: ParseResult[]) => void,
): Promise<void> {
  const chunks = chunk(tasks);
  if (chunks.length === 0) return;
  const n = Math.max(1, Math.min(workers, Math.ceil(chunks.length / IN_FLIGHT_PER_WORKER)));
  const url = new URL('./parse-worker.js', import.meta.url);
  const pool = Array.from({ length: n }, () => new Worker(url));
  let next = 0;
  let pending = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const send = (w: Worker): void => {
        if (next >= chunks.length) return;
        const req: ParseRequest = { id: next, maxBytes, tasks: chunks[next] };
        next++; pending++;
        w.postMessage(req);
      };
      for (const w of pool) {
        w.on('message', (res: ParseResponse) => {
          if (failed) return;
          pending--;
          try { onResults(res.results); } catch (err) { failed = true; reject(err); return; }
          send(w);
          if (pending === 0 && next >= chunks.length) resolve();
        });
        w.on('error', (err) => { if (!failed) { failed = true; reject(err); } });
        w.on('exit', (code) => {
          if (!failed && (pending > 0 || next < chunks.length) && code !== 0) {
            failed = true; reject(new Error(`parse worker exited with code ${code}`));
          }
        });
        for (let i = 0; i < IN_FLIGHT_PER_WORKER; i++) send(w);
      }
    });
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
