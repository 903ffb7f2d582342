// Child process of test/ts-compile-cache.test.ts: loads the compiler through
// indexer/typescript/load.ts with the code cache folder argv[2] (or none when
// it is "-"), extracts every file named after it, and prints one JSON line:
// whether the load took its code from a cache, and what was extracted. Then it
// writes the cache if one was wanted. A process of its own: a thread loads the
// compiler once.
import { readFileSync } from 'node:fs';
import { extractTs } from '../../indexer/typescript/extract.js';
import { compileCacheWanted, saveCompileCache, typescript, useCompileCache } from '../../indexer/typescript/load.js';

const [dir, ...files] = process.argv.slice(2);
useCompileCache(dir === '-' ? null : dir);
typescript();
const fromCache = dir !== '-' && !compileCacheWanted();
const extracted = files.map((f) => extractTs(readFileSync(f, 'utf8'), f));
saveCompileCache();
process.stdout.write(`${JSON.stringify({ fromCache, extracted })}\n`);
