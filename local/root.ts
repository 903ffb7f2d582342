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
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';

/** The repository root as the daemon knows it: its real path. Throws a one-line error for a folder that cannot be opened. */
export function canonicalRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch (e) {
    throw new Error(`repository folder ${root} cannot be opened: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/**
 * The work tree holding `cwd` as git finds it — the nearest folder, from
 * `cwd` up, with a `.git` entry (a folder, or the file of a linked work tree
 * or submodule) — without starting git. Null, so that git is asked after all,
 * when git's environment steers its discovery or no `.git` is found.
 */
export function gitTopLevel(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_CEILING_DIRECTORIES) return null;
  let dir: string;
  try { dir = realpathSync(cwd); } catch { return null; }
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** How long git may take to say where a work tree is. */
const GIT_TIMEOUT_MS = 10_000;

/** The top of the work tree holding `dir`, or null outside any: gitTopLevel, else git's own answer. */
export async function workTreeOf(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const found = gitTopLevel(dir, env);
  if (found !== null) return found;
  const { runGit } = await import('./git.js');
  const r = await runGit(dir, ['rev-parse', '--show-toplevel'], {
    globalArgs: [], env: { ...env, GIT_OPTIONAL_LOCKS: '0' }, timeoutMs: GIT_TIMEOUT_MS, maxBuffer: 1 << 20,
  });
  const top = r.kind === 'exited' && r.code === 0 ? r.stdout.toString('utf8').trim() : '';
  return top || null;
}

/**
 * The repository root (docs/cli.md): `--repo DIR` is that folder, as given;
 * with no --repo, the top of the work tree holding `cwd`, else `cwd` itself.
 * Returned as a real path. Throws a one-line error for a missing folder.
 */
export async function resolveRepoRoot(dirArg?: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = resolvePath(cwd, dirArg ?? '.');
  let st;
  try { st = statSync(dir); } catch { throw new Error(`no such folder: ${dir}`); }
  if (!st.isDirectory()) throw new Error(`not a folder: ${dir}`);
  if (dirArg !== undefined) return canonicalRoot(dir);
  return canonicalRoot((await workTreeOf(dir, env)) ?? dir);
}
