// Parse worker: everything per-file that does not need the index — read,
// binary check, hash, decode, line count, Python and TypeScript extraction and the trigram
// bucket set — so the main thread only writes. Runs in a worker_thread
// (see pool.ts); one tree-sitter parser and one bucket collector per thread.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { BINARY_SNIFF_BYTES, isBinary } from '../discover/content.js';
import { extractPython } from '../python/extract.js';
import { isPythonPath } from '../python/modules.js';
import { extractTs } from '../typescript/extract.js';
import { saveCompileCache, useCompileCache } from '../typescript/load.js';
import { isTsJsPath } from '../typescript/paths.js';
import { decodeText, splitLines } from '../text.js';
import { BucketCollector, encodeBuckets } from '../store/trigrams.js';
import type { TsExtract } from '../model.js';
import type { ReadSlabs } from './read-slabs.js';
import type { Lang, ParseRequest, ParseResult, ParseTask, ParseWorkerData } from './messages.js';

const collector = new BucketCollector();

type ReadOutcome =
  | { kind: 'text'; bytes: Uint8Array; size: number; mtimeMs: number }
  | { kind: 'binary' | 'too_large'; size: number; mtimeMs: number }
  | { kind: 'gone' }
  | { kind: 'replaced' };

/** Byte arrays of a given size, not zeroed: a fresh Buffer each by default, or cut from an update's slabs (read-slabs.ts). */
export type Alloc = (size: number) => Uint8Array;
const ownBuffer: Alloc = (size) => Buffer.allocUnsafe(size);

/** The first bytes of the file being read, sniffed before the rest is read: one per thread, reused (reads are synchronous). */
const sniff = Buffer.allocUnsafe(BINARY_SNIFF_BYTES);

/**
 * No final symlink is followed (a link renamed over a vetted file fails with
 * ELOOP), and a fifo swapped in cannot block the open.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads the file at `abs` if it is still the one discovery vetted (same device
 * and inode, checked on the open descriptor): whatever was swapped in since —
 * a symlink to a file outside the root, a folder replaced by a link — counts
 * as gone, and the change that swapped it is judged afresh by the watcher or
 * the next refresh. Another regular file there (an atomic save landing
 * between the look and the read) is 'replaced', and is not read either: the
 * caller looks again (settled-read.ts) or keeps what it had.
 */
function readSmart(abs: string, vetted: { dev: number; ino: number }, maxBytes: number, alloc: Alloc = ownBuffer): ReadOutcome {
  let fd: number;
  try { fd = openSync(abs, OPEN_FLAGS); } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP') return { kind: 'gone' };
    throw err;
  }
  try {
    // Stat before reading: if the file changes while we read, the stored mtime
    // is the older one and the next catch-up looks again.
    const st = fstatSync(fd);
    if (st.dev !== vetted.dev || st.ino !== vetted.ino) return { kind: st.isFile() ? 'replaced' : 'gone' };
    if (!st.isFile()) return { kind: 'gone' };
    if (st.size > maxBytes) return { kind: 'too_large', size: st.size, mtimeMs: st.mtimeMs };
    // Sniff first, so big binaries (.pyc, .so) cost one small read.
    const got = readSync(fd, sniff, 0, Math.min(st.size, BINARY_SNIFF_BYTES), 0);
    if (isBinary(sniff.subarray(0, got))) return { kind: 'binary', size: st.size, mtimeMs: st.mtimeMs };
    const bytes = alloc(st.size);
    bytes.set(sniff.subarray(0, got));
    let pos = got;
    while (pos < st.size) {
      const n = readSync(fd, bytes, pos, st.size - pos, pos);
      if (n === 0) break;
      pos += n;
    }
    const view = pos === st.size ? bytes : bytes.subarray(0, pos);
    if (isBinary(view)) return { kind: 'binary', size: st.size, mtimeMs: st.mtimeMs };
    return { kind: 'text', bytes: view, size: view.length, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** The text of a vetted file as it would be indexed (decoded), or undefined when it is gone, binary or too large. */
export function readVettedText(entry: { abs: string; dev: number; ino: number }, maxBytes: number): string | undefined {
  const r = readSmart(entry.abs, entry, maxBytes);
  return r.kind === 'text' ? decodeText(r.bytes) : undefined;
}

/**
 * A TypeScript file's definitions and statements; none when the compiler's
 * parser (or the walk after it) gives up — a hostile file nested past the
 * stack's depth — so the file is still indexed for search and reading.
 */
function extractTsOrNothing(text: string, path: string): TsExtract {
  try {
    return extractTs(text, path);
  } catch {
    return { defs: [], imports: [] };
  }
}

/** Which extractor reads a file: Python (`.py`, `.pyi`), TypeScript/JavaScript (paths.ts), or none. */
export function languageOf(path: string): Lang {
  return isPythonPath(path) ? 'py' : isTsJsPath(path) ? 'ts' : null;
}

/** Reads and parses one file; `slabs`: where its text and buckets are kept (an update's reads on the main thread), else arrays of their own. */
export function parseOne(task: ParseTask, maxBytes: number, slabs?: ReadSlabs): ParseResult {
  const r = readSmart(task.abs, task, maxBytes, slabs ? (size) => slabs.alloc(size) : ownBuffer);
  if (r.kind === 'gone' || r.kind === 'replaced') return { path: task.path, kind: r.kind };
  if (r.kind !== 'text') return { path: task.path, kind: 'excluded', reason: r.kind, size: r.size, mtimeMs: r.mtimeMs };
  const hash = createHash('sha1').update(r.bytes).digest('hex');
  if (task.knownHash === hash) return { path: task.path, kind: 'same', size: r.size, mtimeMs: r.mtimeMs };
  const text = decodeText(r.bytes);
  const lines = splitLines(text);
  for (const line of lines) collector.addLine(line.toLowerCase());
  const tri = slabs ? slabs.copy(encodeBuckets(collector.take())) : encodeBuckets(collector.take());
  const lang = languageOf(task.path);
  const extract = lang === 'py' ? extractPython(text) : lang === 'ts' ? extractTsOrNothing(text, task.path) : null;
  return {
    path: task.path, kind: 'file', size: r.size, mtimeMs: r.mtimeMs, hash, lines: lines.length,
    text: r.bytes, tri, lang, defs: extract?.defs ?? [], imports: extract?.imports ?? [],
  };
}

/**
 * tree-sitter trees live in native memory that V8 does not see, so nothing
 * prompts a collection while a worker parses (the trees of the stdlib alone
 * grew past 900 MiB), and the binding has no tree.delete(): a tree is freed
 * only when the garbage collector finalizes its wrapper, and Node-API runs
 * those finalizers from a later turn of the event loop (setImmediate). So the
 * worker collects once this much source has been parsed since the last
 * collection, then yields one turn of the loop before the next chunk.
 *
 * A young-generation collection is enough for almost every tree (its wrapper
 * dies with the file that made it) and costs a fraction of a full one: a
 * third less CPU for the whole stdlib build, at the same peak memory. A tree
 * that lived through two young collections (a large file) has moved to the old
 * generation, so a full collection runs now and then as well.
 */
const GC_EVERY_BYTES = 256 << 10;
const FULL_GC_EVERY_BYTES = 8 << 20;

type Gc = (opts?: { type: 'minor' | 'major' }) => void;

/** The collector, exposed to this worker only (`--expose-gc` cannot be passed to a Worker). */
function exposeGc(): Gc | null {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as Gc;
  } catch {
    return null;
  }
}

/**
 * TypeScript files this thread parses before it writes the compiler's code
 * cache, when it could not load from one: by then the cache holds the parser's
 * functions, compiled as they were first used, and not only the top level.
 */
const CACHE_AFTER_TS_FILES = 128;
let tsParsed = 0;

function parseChunk(req: ParseRequest): { results: ParseResult[]; transfer: ArrayBuffer[]; pyBytes: number } {
  const results: ParseResult[] = [];
  const transfer: ArrayBuffer[] = [];
  let pyBytes = 0;
  for (const task of req.tasks) {
    if (req.stop && Atomics.load(req.stop, 0) !== 0) break; // the build was cancelled: what is parsed goes back
    let res: ParseResult;
    try {
      res = parseOne(task, req.maxBytes);
    } catch (err) {
      res = { path: task.path, kind: 'error', message: err instanceof Error ? err.message : String(err) };
    }
    if (res.kind === 'file') {
      if (res.lang === 'py') pyBytes += res.text.length;
      if (res.lang === 'ts') tsParsed++;
      // Copy into exact-size buffers we own, then transfer instead of cloning.
      const text = new Uint8Array(res.text);
      const tri = new Uint8Array(res.tri);
      res.text = text; res.tri = tri;
      transfer.push(text.buffer as ArrayBuffer, tri.buffer as ArrayBuffer);
    }
    results.push(res);
  }
  if (tsParsed >= CACHE_AFTER_TS_FILES) saveCompileCache(); // writes once: nothing after the first
  return { results, transfer, pyBytes };
}

if (parentPort) {
  const port = parentPort;
  useCompileCache((workerData as ParseWorkerData | null)?.compileCache ?? null);
  const gc = exposeGc();
  // A MessagePort delivers every queued message in one go, and the pool keeps
  // two chunks queued, so a synchronous handler would never let the loop reach
  // the finalizers. Messages are queued here and worked off by one loop that
  // yields after each collection.
  const queue: ParseRequest[] = [];
  let running = false;
  let sinceGc = 0;
  let sinceFullGc = 0;
  const run = async (): Promise<void> => {
    running = true;
    while (queue.length) {
      const req = queue.shift()!;
      const { results, transfer, pyBytes } = parseChunk(req);
      port.postMessage({ id: req.id, results }, transfer);
      sinceGc += pyBytes;
      sinceFullGc += pyBytes;
      if (gc && sinceGc >= GC_EVERY_BYTES) {
        const full = sinceFullGc >= FULL_GC_EVERY_BYTES;
        gc({ type: full ? 'major' : 'minor' });
        sinceGc = 0;
        if (full) sinceFullGc = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    running = false;
  };
  port.on('message', (req: ParseRequest) => {
    queue.push(req);
    if (!running) void run();
  });
}
