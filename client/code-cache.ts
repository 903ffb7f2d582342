// The CLI's own modules compiled once, not at every call: Node's compile cache
// (module.enableCompileCache, Node 22.1+; Node 20 has none and compiles them
// as before), turned on by the entry before the CLI is loaded. It spares only
// the parse of each module's top level (Node caches a module as compiled,
// before it runs): ~3% of a call's instructions, ~4 ms of CPU on Node 22
// (docs/performance/cli-start.md).
//
// Node keys each cached file by its source's hash and by its own version and
// V8's flags, so an edited or reinstalled evidex is compiled afresh; but V8
// runs what the cache holds, so whoever can write in the folder could make
// every evidex run what they like. The folder is used only where the state
// folders would be trusted (local/state-trust.ts): a home nobody else can
// rename things in, and `compile-cache/node` in it real folders of ours alone
// (made 0700: nobody else can even enter). A home that does not exist yet is
// not made for it (a mistyped command writes nothing); anything refused or
// failing means no cache, never an error.
import { COMPILE_CACHE, stateRoot } from '../local/home.js';
import { madeOwnFolder, othersCanRename } from '../local/state-trust.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { statSync } = process.getBuiltinModule('node:fs');
const { join, resolve } = process.getBuiltinModule('node:path');

/** The folder below the home's compile cache that Node's own cache of the CLI's modules is kept in. */
export const NODE_CACHE = 'node';

/** Turns Node's compile cache on (`enable`: module.enableCompileCache) in the home's folder for it, when that folder is ours alone. */
export function enableCodeCache(enable: (dir: string) => unknown, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const home = resolve(stateRoot(env));
    // Followed, as the state folders' check follows it: EVIDEX_HOME may be a link to a folder elsewhere.
    const st = statSync(home);
    if (!st.isDirectory() || othersCanRename(st) !== null) return;
    let dir = home;
    for (const name of [COMPILE_CACHE, NODE_CACHE]) {
      dir = join(dir, name);
      if (madeOwnFolder(dir) !== null) return;
    }
    enable(dir);
  } catch {
    // No home yet, or one we cannot read: the modules are compiled from source.
  }
}
