// Where evidex keeps its state (docs/architecture.md): one folder per user,
// holding a state folder per root and the compile caches they share. Its own
// module, importing nothing of evidex, because the CLI's entry reads it before
// anything else is loaded (client/code-cache.ts).
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { homedir } = process.getBuiltinModule('node:os');
const { isAbsolute, join } = process.getBuiltinModule('node:path');

/** The home's folder of compiled code (the daemon's TypeScript compiler, the CLI's modules): never a root's, it has no root.json. */
export const COMPILE_CACHE = 'compile-cache';

/** A relative EVIDEX_HOME: refused, so no command makes a home of its own below whatever folder it was typed in. */
export class HomeNotAbsolute extends Error {
  constructor(readonly value: string) {
    super(`EVIDEX_HOME must be an absolute path; got ${JSON.stringify(value)} (e.g. EVIDEX_HOME="$PWD/${value}")`);
    this.name = 'HomeNotAbsolute';
  }
}

/**
 * `$EVIDEX_HOME`, else `$XDG_CACHE_HOME/evidex`, else `~/.cache/evidex` (`$HOME` of `env` when it has one).
 * A relative EVIDEX_HOME would be resolved against each command's own folder: `relhome` typed in
 * `lib/` names another home than `relhome` typed at the top, so one repository got two daemons'
 * homes, each inside the tree it indexed. It is refused (HomeNotAbsolute); a relative
 * XDG_CACHE_HOME is ignored, as the XDG Base Directory spec says such a value is invalid.
 */
export function stateRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EVIDEX_HOME) {
    if (!isAbsolute(env.EVIDEX_HOME)) throw new HomeNotAbsolute(env.EVIDEX_HOME);
    return env.EVIDEX_HOME;
  }
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'evidex');
  return join(env.HOME || homedir(), '.cache', 'evidex');
}

/**
 * The tag evidex puts in its home and in every state folder: the Cache Directory Tagging
 * Specification's file (https://bford.info/cachedir/), whose first line is the spec's signature,
 * plus a line naming evidex. The indexer leaves out every folder that holds one naming evidex
 * (indexer/discover/state-folders.ts); backup tools that honour the spec skip it too.
 */
export const STATE_TAG = Object.freeze({
  name: 'CACHEDIR.TAG',
  signature: 'Signature: 8a477f597d28d172789f06886806bc55',
  owner: '# evidex state: never indexed by evidex (see evidex docs/cli.md, EVIDEX_HOME).',
});

/** The text of STATE_TAG's file. */
export function stateTagText(): string {
  return `${STATE_TAG.signature}\n${STATE_TAG.owner}\n# For information about cache directory tags see https://bford.info/cachedir/\n`;
}

/**
 * The ignore file evidex puts in its home: `*`, so a home inside a git work tree (an EVIDEX_HOME set to a
 * folder of the repository) shows nothing in `git status` — git ignores all of it, this file too. Written
 * when the home has none, so one a user put there stays theirs. evidex's own walk leaves the home out by
 * its tag (STATE_TAG) as before, whether git is there or not; this file is for git.
 */
export const HOME_GITIGNORE = Object.freeze({
  name: '.gitignore',
  text: '# evidex state (EVIDEX_HOME): git ignores all of it\n*\n',
});

/** The files evidex writes in a folder of its state to mark it (STATE_TAG; in the home, HOME_GITIGNORE too): a folder holding only these holds nothing. */
export const STATE_MARKERS: readonly string[] = Object.freeze([STATE_TAG.name, HOME_GITIGNORE.name]);
