#!/usr/bin/env node
// The `evidex` executable. On a Node with a compile cache (22.1+) it turns it
// on (code-cache.ts), then loads the CLI (run.ts): nothing else is imported
// here, because a module loaded before the cache is on is compiled from its
// source at every call; on Node 20 not even code-cache.ts is loaded.
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
// A Node without process.getBuiltinModule (before 20.16 and 22.3) cannot run the CLI at all: one line, not a TypeError.
if (typeof process.getBuiltinModule !== 'function') {
  const [{ SUPPORTED_NODE }, { human, stderr }] = await Promise.all([import('../local/node-line.js'), import('../local/human.js')]);
  stderr().line(human`evidex: Node.js ${process.versions.node} cannot run evidex (it has no process.getBuiltinModule); evidex supports ${SUPPORTED_NODE}`);
  process.exit(1);
}
const module = process.getBuiltinModule('node:module');

const enable = (module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
if (typeof enable === 'function') (await import('./code-cache.js')).enableCodeCache(enable);
await import('./run.js');
