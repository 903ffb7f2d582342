// Work trees of this same repository below the root (docs/tools.md, What is indexed):
// `git worktree add .worktrees/x` inside the root makes a second copy of the
// tree, and indexed it would answer every question twice. git itself does not
// descend into one (`git status` shows `?? .worktrees/x/`); neither does evidex.
//
// A folder below the root is such a work tree when it holds a `.git` FILE whose
// `gitdir:` line names a folder of this repository's `worktrees/` (in its common
// git folder, which rev-parse names: the root may itself be a linked work tree),
// resolved as git does: relative to the folder, or absolute, links resolved.
// A nested clone (a `.git` folder) or a submodule (`gitdir:` into `modules/`)
// is another repository, and is indexed as any folder is.
//
// A `.git` file is the one thing below the root read here, and it may be
// anything: only a regular file of at most MAX_GIT_FILE_BYTES is opened (never
// through a link, never blocking on a fifo), and nothing it names is opened:
// the path it names is compared with git's own `worktrees/` folder, by name,
// else by resolving its folder's links; only the entry of that folder is looked at.
import { realpathSync, statSync } from 'node:fs';
import { FolderVerdicts } from './folder-verdicts.js';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { readSmallFile } from './small-file.js';

/** git writes one short line; a longer file is no work tree's. */
export const MAX_GIT_FILE_BYTES = 4096;

/** The text of the `.git` file at `abs` when it is a small regular file (not a link, fifo, device, folder), else null. */
export function readGitFile(abs: string): string | null {
  return readSmallFile(abs, MAX_GIT_FILE_BYTES);
}

/** The path a `.git` file's text names, as git reads it (`gitdir: PATH`, line ends trimmed), or null. */
export function gitdirOf(text: string): string | null {
  if (!text.startsWith('gitdir: ')) return null;
  const path = text.slice('gitdir: '.length).replace(/[\r\n]+$/, '');
  return path === '' || /[\r\n]/.test(path) ? null : path;
}

/** A realpath that answers null for whatever cannot be resolved. */
function realOrNull(abs: string): string | null {
  try { return realpathSync.native(abs); } catch { return null; }
}

/** Which folders below one root are work trees of the root's repository; each folder read once until forgotten. */
export class OwnWorktrees extends FolderVerdicts {
  /** The `worktrees` folder as rev-parse named it and as its real path (null: no repository, no work tree can be one of its own). */
  private readonly named: string | null;
  private readonly real: string | null;

  /** `commonDir`: the repository's common git folder, absolute (git-sources.ts), or null outside a work tree. */
  constructor(private readonly realRoot: string, commonDir: string | null) {
    super();
    this.named = commonDir === null ? null : join(normalize(commonDir), 'worktrees');
    const realCommon = commonDir === null ? null : realOrNull(commonDir);
    this.real = realCommon === null ? null : join(realCommon, 'worktrees');
  }

  /** True when folder `rel` (POSIX, relative to the root; never the root itself) is a work tree of this repository. */
  isWorktree(rel: string): boolean {
    return this.real !== null && this.verdict(rel);
  }

  protected judge(rel: string): boolean {
    const folder = join(this.realRoot, rel);
    const text = readGitFile(join(folder, '.git'));
    const gitdir = text === null ? null : gitdirOf(text);
    if (gitdir === null) return false;
    const target = isAbsolute(gitdir) ? normalize(gitdir) : resolve(folder, gitdir);
    const name = basename(target);
    if (name === '' || name === '.' || name === '..') return false;
    const parent = dirname(target);
    if (parent !== this.named && parent !== this.real && realOrNull(parent) !== this.real) return false;
    // git keeps one folder per work tree there; a name without one is no work tree (pruned, or made up).
    try { return statSync(join(this.real!, name)).isDirectory(); } catch { return false; }
  }
}
