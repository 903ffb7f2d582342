// Where evidex keeps its state (docs/architecture.md): one folder per user,
// holding a state folder per root and the compile caches they share. Its own
// module, importing nothing of evidex, because the CLI's entry reads it before
// anything else is loaded (client/code-cache.ts).
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The home's folder of compiled code (the daemon's TypeScript compiler, the CLI's modules): never a root's, it has no root.json. */
export const COMPILE_CACHE = 'compile-cache';

/** `$EVIDEX_HOME`, else `$XDG_CACHE_HOME/evidex`, else `~/.cache/evidex` (`$HOME` of `env` when it has one). */
export function stateRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EVIDEX_HOME) return env.EVIDEX_HOME;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'evidex');
  return join(env.HOME || homedir(), '.cache', 'evidex');
}
