// What git itself reads when it decides that a path is ignored, beyond the
// .gitignore files under the root (which rules.ts reads as it goes): the
// .gitignore files of the folders above the root when the root is a subfolder
// of a work tree, .git/info/exclude, core.excludesFile (default
// $XDG_CONFIG_HOME/git/ignore), core.ignorecase, and the tracked files (git
// never ignores a tracked file). Gathered once per load with a few read-only
// git commands; the matching itself stays in-process (gitignore.ts), so the
// watcher's per-file decisions cost no process.
import { realpathSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { gitEnv, runGit } from '../../local/git.js';
import { asciiLower } from './glob.js';
import { parseIgnoreFile, type IgnorePattern } from './gitignore.js';

export interface OuterIgnoreFile {
  /** The folder of the ignore file, relative to the work tree's top ('' = the top). */
  dir: string;
  patterns: IgnorePattern[];
}

export interface GitSources {
  /** The root relative to the work tree's top, POSIX ('' when the root is the top). */
  prefix: string;
  /** .gitignore files of the folders above the root (the top down to the root's parent), deepest first. */
  outer: OuterIgnoreFile[];
  /** .git/info/exclude, then core.excludesFile: in git's precedence (the first that matches decides), relative to the top. */
  global: IgnorePattern[][];
  ignoreCase: boolean;
  /** Tracked files, relative to the root (ASCII-lowered under ignoreCase). */
  tracked: ReadonlySet<string>;
  /** Every folder (relative to the root, '' excluded) that holds a tracked file at any depth. */
  trackedDirs: ReadonlySet<string>;
  /** What a watcher must watch to see these sources change (absolute paths; watch/git-sources.ts). */
  files: GitSourceFiles;
  /** The text of the global files as read (null: absent), to tell whether they changed. */
  globalTexts: Array<string | null>;
}

export interface GitSourceFiles {
  /** This work tree's git folder: its `index` is the tracked set. */
  gitDir: string;
  /** The repository's common git folder: `config` and `info/exclude`. */
  commonDir: string;
  /** The core.excludesFile in force ('' when none can be named). */
  excludesFile: string;
}

const GIT_GLOBAL_ARGS = ['--no-pager', '-c', 'core.fsmonitor=false', '--no-optional-locks'];
/**
 * The caller's GIT_* variables are removed (they could point git at another
 * repository or make it run something) except the three that only choose
 * which config files git reads, as the user's own `git check-ignore` would.
 */
const KEPT_GIT_VARS = ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM'];

/** git with a fixed argument list, no shell; null when git is missing or the command fails in any way. */
async function git(cwd: string, args: string[]): Promise<Buffer | null> {
  const r = await runGit(cwd, args, {
    globalArgs: GIT_GLOBAL_ARGS,
    env: gitEnv({ keep: KEPT_GIT_VARS, set: { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } }),
    timeoutMs: 30_000,
    maxBuffer: 256 << 20,
  });
  return r.kind === 'exited' && r.code === 0 ? r.stdout : null;
}

async function readIfFile(abs: string, followLinks: boolean): Promise<string | null> {
  try {
    // Like git, an in-tree .gitignore that is a symlink is not followed; the global files are.
    if (!followLinks && !(await lstat(abs)).isFile()) return null;
    return await readFile(abs, 'utf8');
  } catch {
    return null;
  }
}

function parentDirs(prefix: string): string[] {
  if (prefix === '') return [];
  const parts = prefix.split('/');
  return parts.map((_, i) => parts.slice(0, i).join('/')); // '' (the top) .. the root's parent
}

/**
 * Reads git's ignore sources for a root, or null when git is not installed or
 * the root is not inside a work tree (then the .gitignore files under the root
 * are all there is).
 */
export async function loadGitSources(realRoot: string): Promise<GitSources | null> {
  const where = await git(realRoot, ['rev-parse', '--is-inside-work-tree', '--show-prefix', '--path-format=absolute', '--show-toplevel', '--git-common-dir', '--absolute-git-dir']);
  if (where === null) return null;
  const [inside, rawPrefix, top, commonDir, gitDir] = where.toString('utf8').split('\n');
  if (inside !== 'true' || !top || !commonDir || !gitDir) return null;
  const prefix = rawPrefix.replace(/\/$/, '');

  const [ignoreCaseOut, excludesOut, trackedOut] = await Promise.all([
    git(realRoot, ['config', '--type=bool', '--get', 'core.ignorecase']),
    git(realRoot, ['config', '--type=path', '--get', 'core.excludesFile']),
    git(realRoot, ['ls-files', '-z', '--cached']),
  ]);
  const ignoreCase = ignoreCaseOut?.toString('utf8').trim() === 'true';
  let excludesFile = excludesOut?.toString('utf8').replace(/\n$/, '') ?? '';
  if (excludesFile === '') {
    const xdg = process.env.XDG_CONFIG_HOME;
    const home = process.env.HOME;
    excludesFile = xdg ? join(xdg, 'git', 'ignore') : home ? join(home, '.config', 'git', 'ignore') : '';
  } else if (!isAbsolute(excludesFile)) {
    excludesFile = join(top, excludesFile); // git reads it from the top of the work tree
  }

  const outer: OuterIgnoreFile[] = [];
  const texts = await Promise.all(parentDirs(prefix).map((dir) => readIfFile(join(top, dir, '.gitignore'), false)));
  parentDirs(prefix).forEach((dir, i) => {
    const text = texts[i];
    if (text !== null) outer.unshift({ dir, patterns: parseIgnoreFile(text, ignoreCase) });
  });
  const global: IgnorePattern[][] = [];
  const globalTexts: Array<string | null> = [];
  for (const file of [join(commonDir, 'info', 'exclude'), excludesFile]) {
    const text = file === '' ? null : await readIfFile(file, true);
    globalTexts.push(text);
    if (text !== null) global.push(parseIgnoreFile(text, ignoreCase));
  }

  const tracked = new Set<string>();
  const trackedDirs = new Set<string>();
  for (const raw of (trackedOut?.toString('utf8') ?? '').split('\0')) {
    if (raw === '') continue;
    const path = ignoreCase ? asciiLower(raw) : raw;
    tracked.add(path);
    for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
      const dir = path.slice(0, i);
      if (trackedDirs.has(dir)) break;
      trackedDirs.add(dir);
    }
  }
  return { prefix, outer, global, ignoreCase, tracked, trackedDirs, files: { gitDir, commonDir, excludesFile }, globalTexts };
}

/**
 * An ignore file git reads (`abs`, a real path) named as a person types it
 * from the root (`realRoot`, `prefix` below the work tree's top), as the
 * .gitignore files above the root are (`../.gitignore`): through `../` when it
 * lies in the work tree (`../../.git/info/exclude` from a subfolder root) or
 * beside the root in a folder that does not hold the home folder (a work
 * tree's common git folder: `../.git/info/exclude` from `.worktrees/x`), from
 * `~/` under the home folder (a global excludes file), and whole only when
 * nothing else names it.
 */
export function ignoreFileFromRoot(realRoot: string, prefix: string, abs: string): string {
  const top = prefix === '' ? realRoot : join(realRoot, ...prefix.split('/').map(() => '..'));
  const posix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));
  const homes = homeFolders();
  const shared = sharedFolder(realRoot, abs);
  const holdsHome = (dir: string): boolean => homes.some((h) => h === dir || h.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`));
  if (within(top, abs) || (shared !== null && !holdsHome(shared))) return posix(relative(realRoot, abs));
  const home = homes.find((h) => within(h, abs));
  return home === undefined ? abs : `~/${posix(relative(home, abs))}`;
}

/** Whether `abs` lies in the folder `dir` (both absolute). */
function within(dir: string, abs: string): boolean {
  const rel = relative(dir, abs);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The deepest folder holding both absolute paths, or null when that is the file system's root. */
function sharedFolder(a: string, b: string): string | null {
  const as = a.split(sep), bs = b.split(sep);
  let n = 0;
  while (n < as.length && n < bs.length && as[n] === bs[n]) n++;
  const shared = as.slice(0, n).join(sep);
  return shared === '' ? null : shared;
}

/** The home folder as named and as its real path (git reads a global file through either). */
function homeFolders(): string[] {
  const home = process.env.HOME || homedir();
  let real = home;
  try { real = realpathSync(home); } catch { /* named only */ }
  return [...new Set([real, home])].filter((h) => h !== '/' && h !== '');
}
