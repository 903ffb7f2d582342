// Which folder is a repository's root, one way for every caller: the CLI's
// default root (no --repo), the daemon's entry run by hand, and the guard
// that refuses to index an unnamed root outside a work tree
// (client/index-guard.ts). A root is known by its real path, so a symlinked
// checkout shares one daemon and one state folder (state.ts names it after it).
//
// The work tree holding a folder is found as git finds it, from the `.git`
// entries on the way up, without starting git: a process costs a CLI call more
// than anything but Node itself. git is asked only when the filesystem cannot
// say (no `.git` above, or git's environment steers discovery), through the
// one runner (git.ts), loaded then. The user's GIT_* variables stay in that
// call, unlike the indexer's: GIT_DIR and GIT_WORK_TREE say which repository
// the user means, as they do for their own `git`.
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { existsSync, realpathSync, statSync } = process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, join, resolve: resolvePath } = process.getBuiltinModule('node:path');

/**
 * A root already resolved to its real path (resolveRepoRoot's answer). What
 * takes one — the connection, the state folder's name — uses its path as it
 * is: a command resolves its root's real path once, where it starts.
 */
export class RealRoot {
  private constructor(readonly path: string) {}
  /** `real` must be a real path: canonicalRoot's, or a folder found above a real path (gitTopLevel). */
  static trusted(real: string): RealRoot { return new RealRoot(real); }
}

/** The repository root as the daemon knows it: its real path. Throws a one-line error for a folder that cannot be opened. */
export function canonicalRoot(root: string | RealRoot): string {
  if (root instanceof RealRoot) return root.path;
  try {
    return realpathSync(root);
  } catch (e) {
    throw new Error(`repository folder ${root} cannot be opened: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The nearest folder from the real path `dir` up with a `.git` entry; the answer is a real path too. */
function gitFolderAbove(dir: string): string | null {
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * The work tree holding `cwd` as git finds it — the nearest folder, from
 * `cwd` up, with a `.git` entry (a folder, or the file of a linked work tree
 * or submodule) — without starting git. Null, so that git is asked after all,
 * when git's environment steers its discovery or no `.git` is found.
 */
export function gitTopLevel(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (gitSteered(env)) return null;
  let dir: string;
  try { dir = realpathSync(cwd); } catch { return null; }
  return gitFolderAbove(dir);
}

const gitSteered = (env: NodeJS.ProcessEnv): boolean => Boolean(env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_CEILING_DIRECTORIES);

/** How long git may take to say where a work tree is. */
const GIT_TIMEOUT_MS = 10_000;

/** git's own answer: the top of the work tree holding `dir`, or null outside any. */
async function askGitTopLevel(dir: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const { runGit } = await import('./git.js');
  const r = await runGit(dir, ['rev-parse', '--show-toplevel'], {
    globalArgs: [], env: { ...env, GIT_OPTIONAL_LOCKS: '0' }, timeoutMs: GIT_TIMEOUT_MS, maxBuffer: 1 << 20,
  });
  const top = r.kind === 'exited' && r.code === 0 ? r.stdout.toString('utf8').trim() : '';
  return top || null;
}

/** The top of the work tree holding `dir`, or null outside any: gitTopLevel, else git's own answer. */
export async function workTreeOf(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  return gitTopLevel(dir, env) ?? askGitTopLevel(dir, env);
}

/**
 * A folder argument (`--repo`) with a leading `~` or `~/` made the home
 * folder ($HOME), as a shell does: an MCP host passes its `args` to the
 * process without a shell, so `"--repo", "~/src/app"` arrives as typed.
 * `~user` is refused in one line (no shell ran to look the user up);
 * anything else is returned as it is.
 */
export function expandHome(value: string, what: string, home: string = process.env.HOME || homedir()): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return join(home, value.slice(2));
  if (value.startsWith('~')) throw new NoSuchFolder(`${what} ${JSON.stringify(value)}: ~user is not expanded here (no shell ran); give an absolute path`);
  return value;
}

/** Where a command runs: its root and the current folder, both by their real paths, each resolved once. */
export interface Whereabouts { root: RealRoot; cwd: string }

/** `--repo DIR` naming no folder: the caller's input, a usage error (exit 2, client/errors.ts). */
export class NoSuchFolder extends Error {
  constructor(message: string) { super(message); this.name = 'NoSuchFolder'; }
}

/**
 * The repository root (docs/cli.md) and the current folder: `--repo DIR` is
 * that folder, as given; with no --repo, the top of the work tree holding
 * `cwd`, else `cwd` itself. Both come back as real paths; throws a one-line
 * error for a missing folder.
 */
export async function whereabouts(dirArg?: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<Whereabouts> {
  let here: string;
  try { here = realpathSync(cwd); } catch { here = resolvePath(cwd); }
  const dir = resolvePath(here, dirArg ?? '.');
  let st;
  try { st = statSync(dir); } catch { throw new NoSuchFolder(`no such folder: ${dir}`); }
  if (!st.isDirectory()) throw new NoSuchFolder(`not a folder: ${dir}`);
  if (dirArg !== undefined) return { root: RealRoot.trusted(canonicalRoot(dir)), cwd: here };
  // `here` is real, so a folder found above it is too; git's answer is resolved (git's own rules decide it).
  const found = gitSteered(env) ? null : gitFolderAbove(here);
  if (found !== null) return { root: RealRoot.trusted(found), cwd: here };
  const asked = await askGitTopLevel(here, env);
  return { root: RealRoot.trusted(asked === null ? here : canonicalRoot(asked)), cwd: here };
}

/** The repository root as whereabouts finds it, by its real path. */
export async function resolveRepoRoot(dirArg?: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await whereabouts(dirArg, cwd, env)).root.path;
}
