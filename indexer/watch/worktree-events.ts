// What the watcher (watch.ts) hears of work trees of this repository below the
// root (discover/worktrees.ts): a folder becomes one when its `.git` file is
// written — `git worktree add` writes it before the checkout, a copy or a
// clone tool may write it after the files — and stops being one when that file
// or the folder goes. Every other path in a `.git` folder stays unheard. A folder
// becomes evidex's state (discover/state-folders.ts) when its tag is written,
// and is dropped whole the same way.
import { inGitDir, parentOf, type RepoRules } from '../discover/rules.js';
import { StateFolders } from '../discover/state-folders.js';

/**
 * The folder whose `.git` entry `rel` is (POSIX, relative to the root), or
 * null when `rel` is no such entry: the root's own `.git`, or anything inside
 * a `.git` folder.
 */
export function gitEntryOwner(rel: string): string | null {
  if (!rel.endsWith('/.git')) return null;
  const owner = rel.slice(0, -'/.git'.length);
  return inGitDir(owner) ? null : owner;
}

/**
 * The path an event names, as the watcher goes on with it; null for the root
 * and what is in a `.git` folder. A folder that came, went or was replaced may
 * be (or have been) a work tree of this repository: that is read again when
 * next asked. A folder's `.git` entry is read again at once, and when that
 * changed the folder's verdict, the folder is the path heard (`worktree`: it
 * is walked, or dropped, whole).
 */
export function heardPath(rules: RepoRules, rel: string | null): { rel: string; worktree: boolean } | null {
  if (rel === null) return null;
  const owner = gitEntryOwner(rel);
  if (owner !== null) return rules.recheckWorktree(owner) ? { rel: owner, worktree: true } : null;
  if (inGitDir(rel)) return null;
  // evidex's tag written in a folder already seen (a home an older evidex made; the moment between
  // mkdir and the tag): the folder is dropped whole as a work tree is (`worktree`: left out as a whole).
  const tagged = tagOwner(rel);
  if (tagged !== null && rules.stateFolders.recheck(tagged)) return { rel: tagged, worktree: true };
  // Nothing in evidex's state is heard, nor the folder itself while its tag is there (a folder
  // watched before its tag came still has its watch); once the tag is gone it is walked whole.
  if (inEvidexState(rules, parentOf(rel))) return null;
  if (rules.stateFolders.known(rel) === true) return rules.stateFolders.recheck(rel) ? { rel, worktree: true } : null;
  rules.forgetFolder(rel);
  return { rel, worktree: false };
}

/** The folder whose evidex tag (state-folders.ts) `rel` may be, or null: not a tag's name, or the root's own. */
function tagOwner(rel: string): string | null {
  const slash = rel.lastIndexOf('/');
  return slash > 0 && rel.slice(slash + 1) === StateFolders.tagName ? rel.slice(0, slash) : null;
}

/** True when folder `rel` is evidex's own state or lies in it (discover/state-folders.ts): nothing there is heard or walked. */
export function inEvidexState(rules: RepoRules, rel: string): boolean {
  try { return rules.excludedFolder(rel)?.why === 'state'; } catch { return false; }
}

/** True when folder `rel` is itself a work tree of this repository (not inside a folder left out otherwise). */
export function isWorktreeTop(rules: RepoRules, rel: string): boolean {
  try {
    const excluded = rules.excludedFolder(rel);
    return excluded !== null && excluded.at === rel && excluded.why === 'worktree';
  } catch {
    return false;
  }
}

/**
 * A `.git` entry below the root that may be a file, which a polling watcher
 * must watch to hear it come and go (a folder's fs.watch names it without
 * that). chokidar asks first without stats, then with them: a `.git` folder
 * (a nested clone's) is refused once they say so, before anything in it is read.
 */
export function isNestedGitFile(rel: string, stats: { isFile(): boolean } | undefined): boolean {
  return gitEntryOwner(rel) !== null && (stats === undefined || stats.isFile());
}
