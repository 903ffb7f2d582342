// The `typescript` package, loaded on first use: it is ~9 MB of JavaScript, and
// a process that never meets a TypeScript or JavaScript file (a Python
// repository's daemon, a parse worker given only Python files, the CLI) should
// not pay for it. Every module here takes the compiler from this function.
//
// Compiling those 9 MB costs each thread that loads them ~0.2 s (a build loads
// them in every parse worker and on the main thread), so a thread told where
// (useCompileCache) keeps V8's code cache of the compiler there: a later load
// takes the compiled code from it (compile-cache.ts says when a cache is used).
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import type TS from 'typescript';
import { CompileCache } from './compile-cache.js';

export type Ts = typeof TS;

const require = createRequire(import.meta.url);
let loaded: Ts | null = null;
let cacheDir: string | null = null;
/** The compiled script and its cache, while a cache could still be written from this thread. */
let pending: { script: Script; cache: CompileCache } | null = null;

/**
 * Where this thread keeps the compiler's code cache (a folder of its own,
 * made if missing); null: none. Takes effect if called before the first load.
 */
export function useCompileCache(dir: string | null): void {
  cacheDir = dir;
}

export function typescript(): Ts {
  return (loaded ??= load());
}

/** What Node's loader wraps a CommonJS file's text in. */
const COMMONJS_WRAPPER = { before: '(function (exports, require, module, __filename, __dirname) { ', after: '\n});' };

function load(): Ts {
  const file = require.resolve('typescript');
  // Loaded already on this thread (by an `import` elsewhere): that instance, compiled once.
  if (cacheDir === null || require.cache[file]) return require(file) as Ts;
  const cache = CompileCache.open(cacheDir, file, COMMONJS_WRAPPER);
  if (cache === null) return require(file) as Ts;
  // As Node's own loader runs a CommonJS file, with the cached code when there is one; and entered in
  // require's cache, so every `require('typescript')` of this thread gets this instance.
  const script = new Script(cache.source, { filename: file, cachedData: cache.cached ?? undefined });
  const m = new Module(file);
  m.filename = file;
  const wrapper = script.runInThisContext() as (exports: unknown, req: NodeRequire, mod: Module, filename: string, dir: string) => void;
  wrapper.call(m.exports, m.exports, createRequire(file), m, file, dirname(file));
  m.loaded = true;
  require.cache[file] = m;
  if (cache.cached === null || script.cachedDataRejected === true) pending = { script, cache };
  return m.exports as Ts;
}

/**
 * Writes the code cache this thread's compiler code could not be taken from
 * (none yet, or V8 refused it): best called once the compiler has run a
 * while, so the cache holds the functions V8 compiled as they were first
 * used, not only the top level. Once per thread; does nothing otherwise.
 */
export function saveCompileCache(): void {
  const p = pending;
  if (!p) return;
  pending = null;
  p.cache.write(p.script.createCachedData());
}

/** Whether saveCompileCache() would write. */
export function compileCacheWanted(): boolean {
  return pending !== null;
}
