// Which repository paths evidex must never index (docs/tools.md, What is indexed): `.git/`, what
// git ignores, what `.evidexignore` files exclude, and secrets. This module only
// answers "is this path excluded?"; the walk (walk.ts) and the watcher ask it,
// and nothing here touches the index.
//
// Ignore semantics are git's: for one path, the .gitignore files of its folder
// and of every ancestor folder are consulted deepest first — inside the root,
// then above it when the root is a subfolder of a work tree — then
// .git/info/exclude, then core.excludesFile (git-sources.ts gathers those);
// within one file the last matching pattern wins, and the first file with a
// matching pattern decides. A path whose parent folder is excluded is
// excluded, whatever a deeper negation says (git never looks inside an
// excluded folder). A tracked file is never ignored by git's rules; a folder
// holding tracked files is entered for them, and whatever else is in it stays
// ignored. Outside a work tree (or without git) only the .gitignore files
// under the root count.
//
// `.evidexignore` is a second, independent layer with the same syntax: a path is
// excluded when git's rules exclude it OR the .evidexignore rules do. A `!` in
// an .evidexignore only re-includes what .evidexignore itself excluded, so it
// can never expose something .gitignore hides.
//
// A folder that is a work tree of this same repository (worktrees.ts) is left
// out as a whole too, as git's own status does not enter it; so is a folder of
// evidex's own state (state-folders.ts), whatever the ignore files say.
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ignoreFileFromRoot, loadGitSources, type GitSourceFiles, type GitSources } from './git-sources.js';
import { matchPatterns, parseIgnoreFile, type IgnorePattern, type Verdict } from './gitignore.js';
import { asciiLower, globSource, globSubject, toByteString } from './glob.js';
import { DEFAULT_SECRET_PATTERNS } from './secrets.js';
import { StateFolders } from './state-folders.js';
import { OwnWorktrees } from './worktrees.js';

export { DEFAULT_SECRET_PATTERNS };
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
export const IGNORE_FILE_NAMES: readonly string[] = Object.freeze(['.gitignore', '.evidexignore']);

export interface DiscoverOptions {
  /** Files larger than this are not indexed (default 2 MiB). */
  maxFileBytes?: number;
  /**
   * Glob patterns added to DEFAULT_SECRET_PATTERNS. A pattern without `/`
   * matches a file's basename at any depth; one with `/` matches the whole
   * repository-relative path. They are globs of the one engine (glob.ts, git's
   * wildmatch: `*` stays within a folder, `**` as a whole segment crosses
   * folders), always matched with ASCII case folded.
   */
  extraSecrets?: string[];
  /**
   * Extra exclusion patterns in .evidexignore syntax, applied as if they opened
   * the root .evidexignore (configuration, or a test skipping site-packages).
   */
  extraIgnore?: string[];
  /** Ask git for its other ignore sources and the tracked files (default true; false: the ignore files under the root alone). */
  git?: boolean;
}

/** The compiled rules of one folder: its .gitignore and its .evidexignore (either may be absent). */
export interface FolderRules { git: IgnorePattern[] | null; evidex: IgnorePattern[] | null }
/**
 * One ignore file that applies to a folder's entries: the path it matches is
 * `lead` + the entry's path below `dir` (`lead` is empty for files under the
 * root; for files above it, the root's path below their folder).
 */
export interface ChainLink { dir: string; lead: string; rules: FolderRules; /** Its ignore file as `git check-ignore -v` names it, from the root (`../` above it; git-sources.ts ignoreFileFromRoot). */ gitFile: string }
/** A folder left out as a whole, with what is below it: the outermost such folder, and why. */
export interface FolderExclusion { at: string; why: 'ignored' | 'worktree' | 'state' }

/** True when any segment of a POSIX relative path is `.git` (the repository's, or a nested repository's). */
export function inGitDir(relPath: string): boolean {
  return relPath === '.git' || relPath.startsWith('.git/') || relPath.endsWith('/.git') || relPath.includes('/.git/');
}

/** The folder holding a POSIX relative path ('' for the root). */
export function parentOf(relPath: string): string {
  const i = relPath.lastIndexOf('/');
  return i < 0 ? '' : relPath.slice(0, i);
}

const basenameOf = (relPath: string): string => relPath.slice(relPath.lastIndexOf('/') + 1);

function verdictOf(patterns: IgnorePattern[] | null, rel: string, isDir: boolean): Verdict {
  return patterns ? matchPatterns(patterns, rel, isDir) : 'none';
}

export class RepoRules {
  /** Folder (relative, '' = root) → its compiled rules, or null when it has no ignore file. Filled lazily. */
  private readonly folders = new Map<string, FolderRules | null>();
  /** Decisions for folders, so isIgnored() does not re-walk a long ancestor chain for every file. */
  private readonly folderDecisions = new Map<string, FolderExclusion | null>();
  /** git's own verdict on folders (tracked files left aside), ancestors included: its untracked entries are ignored. */
  private readonly gitFolderVerdicts = new Map<string, boolean>();
  /** git's other sources (null: not in a work tree, or git missing or not asked). */
  private git: GitSources | null = null;
  /** git's sources as last loaded, kept when they are not used (a root git ignores as a whole): what a reload compares with. */
  private loadedGit: GitSources | null = null;
  /** The ignore files above the root and git's global ones, as chain links (rel = lead + path). */
  private outerLinks: ChainLink[] = [];
  /** The folders below the root that are work trees of this repository (known once git's sources are). */
  private worktrees: OwnWorktrees;
  /** The folders below the root that hold evidex's state (the walk asks with its listing, the watcher when a tag comes or goes). */
  readonly stateFolders: StateFolders;
  /** Folder → the ignore files that apply to its entries, deepest first (see chainOf). */
  private readonly chains = new Map<string, readonly ChainLink[]>();
  /**
   * Identities (identityOf) of the secrets the walks have met, so a
   * single-file check (the watcher's) and the diff filter know the other names
   * of secrets without searching the tree. A full walk replaces the set when it
   * ends (never cleared before: a query during the walk still sees the last one).
   */
  private readonly secretIds = new Set<string>();
  /** One alternation per kind: a single regex test per file instead of one per pattern. */
  private readonly basenameSecret: RegExp | null;
  private readonly pathSecret: RegExp | null;

  private constructor(
    /** The root as given (absolute). */
    readonly root: string,
    /**
     * The root with every symlink resolved: the boundary that real paths are
     * checked against. Resolved once, when the rules load, and read from here
     * by the walk, the watcher and every tool call (no call resolves the root
     * again): the one place that knows which folder the root is.
     */
    readonly realRoot: string,
    readonly maxFileBytes: number,
    secretPatterns: readonly string[],
    private readonly extraIgnore: readonly string[],
    private readonly useGit: boolean,
  ) {
    // Secret patterns are globs of the one engine (glob.ts), as in an ignore file, always
    // case-insensitive: `SERVER.PEM` is still a key, and refusing too much is the safe side.
    const byName: string[] = [];
    const byPath: string[] = [];
    for (const p of secretPatterns) {
      const pattern = p.trim().replace(/^\/+/, '');
      if (!pattern) continue;
      const { basename, source } = globSource(toByteString(pattern), true);
      if (source !== null) (basename ? byName : byPath).push(source);
    }
    this.basenameSecret = byName.length ? new RegExp(`^(?:${byName.join('|')})$`) : null;
    this.pathSecret = byPath.length ? new RegExp(`^(?:${byPath.join('|')})$`) : null;
    this.worktrees = new OwnWorktrees(realRoot, null);
    this.stateFolders = new StateFolders(realRoot, () => this.folderDecisions.clear());
  }

  /** Compiles the rules for `root`. The root's ignore files are read now; nested ones when their folder is first seen. */
  static async load(root: string, opts: DiscoverOptions = {}): Promise<RepoRules> {
    const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (!Number.isInteger(maxFileBytes) || maxFileBytes < 0) {
      throw new Error(`maxFileBytes must be a non-negative integer, got ${String(opts.maxFileBytes)}`);
    }
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch (err) {
      throw new Error(`repository root ${root} cannot be opened: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    if (!(await lstat(realRoot)).isDirectory()) throw new Error(`repository root ${root} is not a folder`);
    const rules = new RepoRules(
      root, realRoot, maxFileBytes, [...DEFAULT_SECRET_PATTERNS, ...(opts.extraSecrets ?? [])], opts.extraIgnore ?? [], opts.git ?? true,
    );
    await rules.reloadAll();
    return rules;
  }

  /** Basename is .gitignore or .evidexignore. */
  isIgnoreFile(relPath: string): boolean {
    return IGNORE_FILE_NAMES.includes(basenameOf(relPath));
  }

  /** True for a secret (secrets.ts's list plus configured extras). Judged on the path's own name, or its whole path for a pattern with `/`. */
  isSecret(relPath: string): boolean {
    const subject = globSubject(relPath, true);
    return (this.basenameSecret?.test(basenameOf(subject)) ?? false) || (this.pathSecret?.test(subject) ?? false);
  }

  /**
   * True when `relPath` (POSIX, relative to the root) must not be indexed
   * because of `.git/` or ignore rules — its own or any ancestor folder's.
   */
  isIgnored(relPath: string, isDir: boolean): boolean {
    if (relPath === '' || relPath === '.') return false;
    if (inGitDir(relPath)) return true;
    const parent = parentOf(relPath);
    if (parent !== '' && this.excludedFolder(parent) !== null) return true;
    return this.excludedHere(relPath, isDir) || (isDir && (this.worktrees.isWorktree(relPath) || this.stateFolders.isStateFolder(relPath)));
  }

  /**
   * The watcher saw `dirRel` itself, or its `.git` entry, come, change or go: whether it
   * is a work tree of this repository, or evidex's state, is read again when next asked.
   */
  forgetFolder(dirRel: string): void {
    if ([this.worktrees.forget(dirRel), this.stateFolders.forget(dirRel)].includes(true)) this.folderDecisions.clear(); // both forgotten
  }

  /** Reads again at once whether `dirRel` is a work tree of this repository; true when that changed (never asked counts as not one). */
  recheckWorktree(dirRel: string): boolean {
    const before = this.worktrees.known(dirRel) ?? false;
    this.worktrees.forget(dirRel);
    const changed = this.worktrees.isWorktree(dirRel) !== before;
    if (changed) this.folderDecisions.clear();
    return changed;
  }

  /**
   * The walk listed folder `dirRel`: whether it is a work tree of this repository, read afresh when
   * it holds a `.git` file (a verdict from before that file came is stale), and none when it holds none.
   */
  worktreeAsListed(dirRel: string, holdsGitFile: boolean): boolean {
    if (holdsGitFile) this.recheckWorktree(dirRel);
    else if (this.worktrees.known(dirRel) === true) this.forgetFolder(dirRel);
    return holdsGitFile && this.worktrees.isWorktree(dirRel);
  }

  /**
   * The decision for one path whose ancestors are already known NOT to be
   * excluded (the walk descends only into kept folders, so it needs no more).
   * The ignore files of every ancestor folder must already be loaded (the walk
   * loads each folder's files before judging its entries).
   */
  excludedHere(relPath: string, isDir: boolean): boolean {
    if (basenameOf(relPath) === '.git') return true;
    const { git, evidex } = this.verdicts(relPath, isDir);
    if (evidex === 'ignored') return true;
    if (this.git === null) return git === 'ignored';
    const key = this.git.ignoreCase ? asciiLower(relPath) : relPath;
    if (isDir ? this.git.trackedDirs.has(key) : this.git.tracked.has(key)) return false;
    return git === 'ignored' || this.gitIgnoresFolder(parentOf(relPath));
  }

  /** The first verdict of git's sources and of the .evidexignore files on one path (its ancestors aside). */
  private verdicts(relPath: string, isDir: boolean): { git: Verdict; evidex: Verdict } {
    let git: Verdict = 'none';
    let evidex: Verdict = 'none';
    // Deepest folder first: the first file with a matching pattern decides.
    for (const { dir, lead, rules: f } of this.chainOf(parentOf(relPath))) {
      const rel = lead + (dir === '' ? relPath : relPath.slice(dir.length + 1));
      if (git === 'none') git = verdictOf(f.git, rel, isDir);
      if (evidex === 'none') evidex = verdictOf(f.evidex, rel, isDir);
      if (git !== 'none' && evidex !== 'none') break;
    }
    return { git, evidex };
  }

  /** git's verdict on a folder, tracked files aside: ignored itself or below an ignored folder. Only asked with git's sources loaded. */
  private gitIgnoresFolder(dirRel: string): boolean {
    const known = this.gitFolderVerdicts.get(dirRel);
    if (known !== undefined) return known;
    // The root itself is never ignored: reloadAll falls back to the files under it when git ignores it.
    const ignored = dirRel !== '' && (this.gitIgnoresFolder(parentOf(dirRel)) || this.verdicts(dirRel, true).git === 'ignored');
    this.gitFolderVerdicts.set(dirRel, ignored);
    return ignored;
  }

  /** The root, or a folder above it within the work tree, is ignored by the ignore files above the root or git's global ones. */
  private rootIgnoredByGit(): boolean {
    const g = this.git!;
    if (g.prefix === '') return false;
    const parts = g.prefix.split('/');
    for (let n = 1; n <= parts.length; n++) {
      const path = parts.slice(0, n).join('/');
      const parent = parts.slice(0, n - 1).join('/');
      let verdict: Verdict = 'none';
      // Files above the root (deepest first) whose folder holds this path, then the global files.
      for (const o of g.outer) {
        if (verdict !== 'none') break;
        if (parent === o.dir || o.dir === '' || parent.startsWith(`${o.dir}/`)) {
          verdict = matchPatterns(o.patterns, o.dir === '' ? path : path.slice(o.dir.length + 1), true);
        }
      }
      for (const patterns of g.global) if (verdict === 'none') verdict = matchPatterns(patterns, path, true);
      if (verdict === 'ignored') return true;
    }
    return false;
  }

  /**
   * The folders at or above `dirRel` that have ignore files, deepest first.
   * Cached per folder, so judging a folder's entries costs one lookup rather
   * than a walk up the whole ancestor chain per entry.
   */
  private chainOf(dirRel: string): readonly ChainLink[] {
    const known = this.chains.get(dirRel);
    if (known) return known;
    const parentChain = dirRel === '' ? this.outerLinks : this.chainOf(parentOf(dirRel));
    const own = this.folderRulesSync(dirRel);
    const chain = own ? [{ dir: dirRel, lead: '', rules: own, gitFile: dirRel === '' ? '.gitignore' : `${dirRel}/.gitignore` }, ...parentChain] : parentChain;
    this.chains.set(dirRel, chain);
    return chain;
  }

  /** The ignore files that apply to the entries of `dirRel`, deepest first (why-left-out.ts names the rule that decided). */
  chainFor(dirRel: string): readonly ChainLink[] { return this.chainOf(dirRel); }

  get knownSecrets(): ReadonlySet<string> { return this.secretIds; }

  /** Records secrets a walk met; `complete` (a full walk of the tree) replaces what earlier walks recorded. */
  noteSecrets(ids: Iterable<string>, complete: boolean): void {
    if (complete) this.secretIds.clear();
    for (const id of ids) this.secretIds.add(id);
  }

  /** Forgets a secret's identity that no secret name holds any more (checkPath found it renamed out). */
  forgetSecret(id: string): void {
    this.secretIds.delete(id);
  }

  /** True when the file at `relPath` is one of the secrets the walks have met under another name (a hard link). */
  isKnownSecretFile(relPath: string): boolean {
    if (this.secretIds.size === 0) return false;
    try {
      const st = lstatSync(join(this.realRoot, relPath));
      return st.isFile() && this.secretIds.has(identityOf(st));
    } catch {
      return false; // gone: nothing of it can be shown
    }
  }

  /** The files git's sources are read from (null outside a work tree): what the watcher watches (watch/git-sources.ts). */
  get gitSourceFiles(): GitSourceFiles | null { return this.loadedGit?.files ?? null; }

  /**
   * Re-reads git's own sources alone — .git/info/exclude, core.excludesFile,
   * core.ignorecase, the tracked files — after the watcher saw one change, and
   * says what changed: `rules` (patterns, or where they come from: any path may
   * now be judged otherwise, a re-walk is due) or `tracked` (the paths whose
   * tracked state flipped, and whether a folder did: a folder that only
   * tracked files made visible appears or goes).
   */
  async reloadGitSources(): Promise<{ rules: boolean; tracked: string[]; trackedDirs: boolean }> {
    if (!this.useGit) return { rules: false, tracked: [], trackedDirs: false };
    const before = this.loadedGit;
    const after = await loadGitSources(this.realRoot);
    if (before === null || after === null || !sameGitPatterns(before, after)) {
      await this.reloadAll(); // .gitignore files too: core.ignorecase decides how they are read
      return { rules: true, tracked: [], trackedDirs: false };
    }
    const flipped = (a: ReadonlySet<string>, b: ReadonlySet<string>): string[] => [...a].filter((p) => !b.has(p));
    const tracked = [...flipped(before.tracked, after.tracked), ...flipped(after.tracked, before.tracked)];
    const trackedDirs = flipped(before.trackedDirs, after.trackedDirs).length + flipped(after.trackedDirs, before.trackedDirs).length > 0;
    this.useGitSources(after);
    return { rules: false, tracked, trackedDirs };
  }

  /** Forgets every ignore file read so far and re-reads the root's (a full re-walk calls this: any of them may have changed). */
  async reloadAll(): Promise<void> {
    this.useGitSources(this.useGit ? await loadGitSources(this.realRoot) : null);
    this.folders.clear();
    await this.loadFolder('');
  }

  /** Takes git's sources as loaded, and forgets every decision made with the last ones. */
  private useGitSources(git: GitSources | null): void {
    this.loadedGit = git;
    this.git = git;
    this.outerLinks = [];
    this.worktrees = new OwnWorktrees(this.realRoot, git?.files.commonDir ?? null);
    // A root git ignores as a whole (a checkout inside an ignored folder, a Python under
    // ~/.pyenv/versions) is one the user named on purpose, and git's answer for it would be
    // "nothing": it is indexed as a folder outside a work tree is, by the ignore files under it.
    if (git && this.rootIgnoredByGit()) this.git = null;
    else if (git) {
      const below = (dir: string): string => `${dir === '' ? git.prefix : git.prefix.slice(dir.length + 1)}/`;
      const top = '../'.repeat(git.prefix === '' ? 0 : git.prefix.split('/').length);
      for (const o of git.outer) this.outerLinks.push({ dir: '', lead: below(o.dir), rules: { git: o.patterns, evidex: null }, gitFile: `${top}${o.dir === '' ? '' : `${o.dir}/`}.gitignore` });
      const globalFiles = [join(git.files.commonDir, 'info', 'exclude'), git.files.excludesFile].filter((_, i) => git.globalTexts[i] !== null).map((f) => ignoreFileFromRoot(this.realRoot, git.prefix, f));
      git.global.forEach((patterns, i) => this.outerLinks.push({ dir: '', lead: git.prefix === '' ? '' : `${git.prefix}/`, rules: { git: patterns, evidex: null }, gitFile: globalFiles[i] }));
    }
    this.folderDecisions.clear();
    this.gitFolderVerdicts.clear();
    this.chains.clear();
  }

  /** Re-reads one ignore file after it changed, was created or was deleted (the watcher calls this). */
  async reloadIgnoreFile(relPathOfIgnoreFile: string): Promise<void> {
    if (!this.isIgnoreFile(relPathOfIgnoreFile)) {
      throw new Error(`not an ignore file: ${relPathOfIgnoreFile}`);
    }
    this.folders.delete(parentOf(relPathOfIgnoreFile));
    this.folderDecisions.clear();
    this.gitFolderVerdicts.clear();
    this.chains.clear();
    await this.loadFolder(parentOf(relPathOfIgnoreFile));
  }

  /**
   * Loads a folder's ignore files unless already loaded. `names`, when the
   * caller has just listed the folder, says which ignore files exist as
   * regular files, which saves two failed reads per folder.
   */
  async loadFolder(dirRel: string, names?: ReadonlySet<string>): Promise<void> {
    if (this.folders.has(dirRel)) return;
    const read = async (name: string): Promise<string | null> => {
      if (names && !names.has(name)) return null;
      const abs = join(this.realRoot, dirRel, name);
      try {
        // Like git (>= 2.32), a symlinked ignore file is not followed.
        if (!names && !(await lstat(abs)).isFile()) return null;
        return await readFile(abs, 'utf8');
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    };
    const [git, evidex] = await Promise.all([read('.gitignore'), read('.evidexignore')]);
    if (!this.folders.has(dirRel)) this.folders.set(dirRel, this.folderRules(dirRel, git, evidex));
  }

  private folderRulesSync(dirRel: string): FolderRules | null {
    const known = this.folders.get(dirRel);
    if (known !== undefined) return known;
    const read = (name: string): string | null => {
      const abs = join(this.realRoot, dirRel, name);
      try {
        if (!lstatSync(abs).isFile()) return null;
        return readFileSync(abs, 'utf8');
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    };
    const f = this.folderRules(dirRel, read('.gitignore'), read('.evidexignore'));
    this.folders.set(dirRel, f);
    return f;
  }

  /**
   * Compiles a folder's ignore files. The root's .evidexignore layer starts
   * with the configured extraIgnore lines, so the file can still negate them.
   */
  private folderRules(dirRel: string, gitText: string | null, evidexText: string | null): FolderRules | null {
    const git = gitText === null ? null : parseIgnoreFile(gitText, this.git?.ignoreCase ?? false);
    // The configured lines come first (line 0: no file's), parsed apart so the file's own keep their line numbers.
    const extra = dirRel === '' && this.extraIgnore.length > 0 ? parseIgnoreFile(this.extraIgnore.join('\n')).map((p) => ({ ...p, line: 0 })) : null;
    const evidex = evidexText === null ? extra : [...(extra ?? []), ...parseIgnoreFile(evidexText)];
    return git || evidex ? { git, evidex } : null;
  }

  /**
   * The outermost folder at or above `dirRel` ('' for the root, never excluded) that is left out
   * as a whole — by the ignore rules, or as a work tree of this repository — and why; null when none is.
   */
  excludedFolder(dirRel: string): FolderExclusion | null {
    if (dirRel === '') return null;
    const known = this.folderDecisions.get(dirRel);
    if (known !== undefined) return known;
    const here = (): FolderExclusion | null => this.excludedHere(dirRel, true) ? { at: dirRel, why: 'ignored' }
      : this.worktrees.isWorktree(dirRel) ? { at: dirRel, why: 'worktree' }
      : this.stateFolders.isStateFolder(dirRel) ? { at: dirRel, why: 'state' } : null;
    const decided = this.excludedFolder(parentOf(dirRel)) ?? here();
    this.folderDecisions.set(dirRel, decided);
    return decided;
  }
}

/** Whether two loads of git's sources hold the same patterns (the tracked files aside). */
function sameGitPatterns(a: GitSources | null, b: GitSources | null): boolean {
  if (a === null || b === null) return a === b;
  return a.prefix === b.prefix && a.ignoreCase === b.ignoreCase
    && JSON.stringify(a.globalTexts) === JSON.stringify(b.globalTexts) && JSON.stringify(a.outer) === JSON.stringify(b.outer);
}

/** A file's identity (docs/tools.md, What is indexed: a secret is also every other name of the same file). */
export function identityOf(st: { dev: number; ino: number }): string {
  return `${st.dev}:${st.ino}`;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** A real absolute path relative to the real root ('' for the root), or null when it lies outside. */
export function realRelative(realRoot: string, absReal: string): string | null {
  if (absReal === realRoot) return '';
  const prefix = realRoot.endsWith('/') ? realRoot : `${realRoot}/`;
  return absReal.startsWith(prefix) ? absReal.slice(prefix.length) : null;
}

/** `abs` as a POSIX path relative to `root` (by name, no link resolved); null for the root itself and outside it. */
export function underRoot(root: string, abs: string): string | null {
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..')) return null;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** Sync realpath that answers null for a path that does not exist. */
export function realpathOrNull(abs: string): string | null {
  try {
    return realpathSync.native(abs);
  } catch (err) {
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
}
