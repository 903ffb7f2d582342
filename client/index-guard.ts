// Which folders a command may start indexing without being told to. With no
// --repo, the root is the git top-level of the current folder, else the folder
// itself: run in ~ or in a huge unversioned tree, a search would otherwise start
// a daemon that indexes all of it. So a root nobody named is refused when it is
// the home folder, or when it is outside a git work tree and holds more than
// MAX_UNNAMED_FILES files. Naming it with --repo always goes ahead.
import { promises as fsp, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { thousands } from '../local/human.js';
import { workTreeOf } from '../local/root.js';
import { UsageError } from './command.js';
import { commandLine } from './command-line.js';

export const MAX_UNNAMED_FILES = 100_000;

/**
 * Counts the files under `dir` (symlinks not followed, unreadable folders
 * skipped), stopping once the count passes `limit`: the answer is exact up to
 * `limit` and `limit + 1` for anything larger.
 */
export async function countFilesUpTo(dir: string, limit: number): Promise<number> {
  let count = 0;
  const folders = [dir];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    try {
      // Leaving the loop early closes the folder handle (the iterator's return()).
      for await (const e of await fsp.opendir(folder)) {
        if (e.isDirectory()) folders.push(join(folder, e.name));
        else if (++count > limit) return count;
      }
    } catch { /* unreadable, or gone meanwhile: its files are not ours to count */ }
  }
  return count;
}

function realHome(): string | null {
  try { return realpathSync(homedir()); } catch { return null; }
}

/**
 * Throws a one-line UsageError when `root` (a real path the user did not name
 * with --repo) must not be indexed unasked; returns quietly otherwise.
 */
export async function checkUnnamedRoot(root: string): Promise<void> {
  if (root === realHome()) throw new UnnamedRootError(root, 'it is your home folder');
  if (await workTreeOf(root) !== null) return;
  if (await countFilesUpTo(root, MAX_UNNAMED_FILES) > MAX_UNNAMED_FILES) {
    throw new UnnamedRootError(root, `it is not a git work tree and holds more than ${thousands(MAX_UNNAMED_FILES)} files`);
  }
}

/**
 * The refusal of checkUnnamedRoot: its message gives the command line's
 * advice, the command typed (`argv`, the words after `evidex`) again with
 * `--repo` naming the root, written as every printed command is
 * (command-line.ts); `why` is there for another (evidex mcp's).
 */
export class UnnamedRootError extends UsageError {
  constructor(readonly root: string, readonly why: string, argv: readonly string[] = process.argv.slice(2)) {
    // Outside the root as far as the command line knows (`here` null): commandLine adds `--repo ROOT`, quoted.
    const again = commandLine({ here: null, root: { path: root } }, argv);
    super(`not indexing ${root} unasked: ${why}; name it with --repo to index it anyway (\`${again}\`), or run evidex inside a repository`);
  }
}
