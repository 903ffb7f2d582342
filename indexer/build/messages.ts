// What the build's main thread and its parse workers exchange.
import type { Definition, Lang, RawImport } from '../model.js';

export type { Lang };

export interface ParseTask {
  path: string;         // repository-relative POSIX path
  abs: string;          // where to read it
  dev: number;          // identity of the file discovery vetted there: any other file found at
  ino: number;          // `abs` when it is opened (a swapped-in symlink, a replaced folder) is not read
  knownHash?: string;   // the indexed content's hash: if unchanged, the worker answers 'same' without parsing
}

/** What a parse worker is started with. */
export interface ParseWorkerData {
  /** Folder for the compiler's code cache (typescript/compile-cache.ts), or null. */
  compileCache: string | null;
}

/**
 * `stop`: one Int32 on shared memory, set to 1 when the build is cancelled; a worker then parses no more
 * files of its chunks and answers with those it has parsed (the build keeps them), so a stop waits for
 * one file's parse, not for whole chunks.
 */
export interface ParseRequest { id: number; maxBytes: number; tasks: ParseTask[]; stop?: Int32Array }

export type ParseResult =
  | { path: string; kind: 'gone' }
  /** Another regular file took the name between discovery's look and the read (an atomic save): not read; look again. */
  | { path: string; kind: 'replaced' }
  | { path: string; kind: 'excluded'; reason: 'binary' | 'too_large'; size: number; mtimeMs: number }
  | { path: string; kind: 'same'; size: number; mtimeMs: number }
  | { path: string; kind: 'error'; message: string }
  | {
      path: string; kind: 'file'; size: number; mtimeMs: number; hash: string; lines: number;
      text: Uint8Array; tri: Uint8Array;
      /** Which extractor read it: Python, TypeScript/JavaScript, or none (every other text file). */
      lang: Lang; defs: Definition[]; imports: RawImport[];
    };

export interface ParseResponse { id: number; results: ParseResult[] }
