#!/usr/bin/env node
// The `evidex` executable. On a Node with a compile cache (22.1+) it turns it
// on (code-cache.ts), then loads the CLI (run.ts): nothing else is imported
// here, because a module loaded before the cache is on is compiled from its
// source at every call; on Node 20 not even code-cache.ts is loaded.
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const module = process.getBuiltinModule('node:module');

const enable = (module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
if (typeof enable === 'function') (await import('./code-cache.js')).enableCodeCache(enable);
await import('./run.js');
