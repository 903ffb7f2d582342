// The tree walk (docs/tools.md, What is indexed): every file under the root that may be indexed,
// with its size and mtime — nothing more. It knows nothing of parsing or LMDB;
// the indexer reads each listed file and applies the content rule (isBinary).
//
// Decisions, in order, for each entry of a folder:
//   `.git` (any depth)                         → skipped.ignored
//   excluded by .gitignore/.evidexignore       → skipped.ignored (folders are not entered)
//   symlink that does not resolve              → skipped.brokenLink
//   symlink whose real target is outside root  → skipped.symlinkOutside
//   symlink whose target is in .git or ignored → skipped.ignored
//   symlinked folder that leads back up        → skipped.symlinkLoop
//   secret (own name or the target's name)     → skipped.secret
//   socket, fifo, device                       → skipped.special
//   larger than maxFileBytes                   → skipped.tooLarge
//   past the path limits (path-limits.ts)      → skipped.pathTooLong (folders are not entered)
//   a name that is not UTF-8 (names.ts)        → skipped.nameNotUtf8
//   a folder that is a work tree of this
//   repository (worktrees.ts)                  → skipped.worktree (not entered)
//   a folder of evidex's own state
//   (state-folders.ts)                         → skipped.ignored (not entered, not named)
// Folders are listed with bounded concurrency; only symlinks are resolved.
// What is left out for a reason a person is told about (left-out.ts) is also
// listed by path in WalkResult.leftOut.
import { lstatSync, type Dirent, type Stats } from 'node:fs';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import type { WalkLeftOutReason } from './left-out.js';
import { listByBytes, mayBeNotUtf8, type FolderEntry } from './names.js';
import { isNameTooLongError, isPathTooLong } from './path-limits.js';
import { RepoRules, IGNORE_FILE_NAMES, identityOf, inGitDir, parentOf, realRelative } from './rules.js';
import { StateFolders } from './state-folders.js';

export interface WalkEntry {
  /** POSIX path relative to the root: the name the file is indexed under (a symlink keeps its own name). */
  path: string;
  /** Absolute real path of the content (symlinks resolved), which is what the indexer should read. */
  abs: string;
  size: number;
  mtimeMs: number;
  /** Identity of the content as vetted: the reader opens `abs` and reads it only if it is still this file (no swap since). */
  dev: number;
  ino: number;
}

export interface WalkSkipped {
  ignored: number;
  secret: number;
  tooLarge: number;
  symlinkOutside: number;
  special: number;
  brokenLink: number;
  symlinkLoop: number;
  unreadable: number;
  pathTooLong: number;
  nameNotUtf8: number;
  worktree: number;
}

/**
 * A symbolic link the walk met (only with WalkOptions.links). The watcher keeps
 * these to know every name a real file is indexed under.
 */
export interface WalkLink {
  /** The link's own name (POSIX, relative to the root); under a followed folder link, the name through it. */
  path: string;
  /**
   * Where it leads, relative to the real root ('' is the root): the resolved real
   * target; for a dangling link, what its text names (one hop, resolved by name).
   * null when that lies outside the root.
   */
  target: string | null;
  /**
   * How the walk follows it: 'file' (indexed under `path` whenever the target's
   * content qualifies: size and kind are not judged here) or 'dir' (its files
   * are listed under `path/...`); null when not followed (dangling, outside,
   * ignored, secret, or a loop).
   */
  followed: 'file' | 'dir' | null;
  dangling: boolean;
}

export interface WalkResult {
  files: WalkEntry[];
  skipped: WalkSkipped;
  /** Entries left out for a reason left-out.ts names (ignored folders once, not what is in them), in no particular order. */
  leftOut: Array<{ path: string; reason: WalkLeftOutReason }>;
  /** Every symlink met, in no particular order; present only when asked for (WalkOptions.links). */
  links?: WalkLink[];
}

export interface WalkOptions {
  /** Overrides the rules' maxFileBytes. */
  maxFileBytes?: number;
  /** Walk only this folder (POSIX, relative to the root), e.g. after its .gitignore changed. */
  under?: string;
  /**
   * Also report the symlinks met (WalkResult.links). 'only' reports just them:
   * regular files are not stat'd, so `files` stays empty and `skipped` counts
   * only what was decided without a stat — a cheap scan for the watcher.
   */
  links?: boolean | 'only';
  /** Told of each file as it is listed, in no particular order (a build starts its parse workers by them). */
  onFile?: (entry: WalkEntry) => void;
}

/** How many folders are listed at once: enough to keep the libuv pool busy, few enough to stay far from fd limits. */
const DIR_CONCURRENCY = 16;

/**
 * A folder being walked: its indexed name, its real location (absolute, and
 * relative to the real root: they differ from the name under a followed
 * folder link, and its entries are judged under both), and the chain of real
 * folders above it (cycle guard).
 */
interface DirNode { rel: string; real: string; realRel: string; parent: DirNode | null }

function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

function realChild(parentReal: string, name: string): string {
  return parentReal.endsWith('/') ? parentReal + name : `${parentReal}/${name}`;
}

/** A symlinked folder loops when its target is one of the folders above it on this path, or an ancestor of one. */
function leadsBackUp(node: DirNode, targetReal: string): boolean {
  const prefix = targetReal.endsWith('/') ? targetReal : `${targetReal}/`;
  for (let n: DirNode | null = node; n; n = n.parent) {
    if (n.real === targetReal || n.real.startsWith(prefix)) return true;
  }
  return false;
}

function gone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A path that cannot be resolved to a real file: gone, or a symlink loop. */
function unresolvable(err: unknown): boolean {
  return gone(err) || (err as NodeJS.ErrnoException).code === 'ELOOP';
}

/** realpath, or null for a path that is gone or loops; other errors are real errors. */
async function realOrNull(abs: string): Promise<string | null> {
  try {
    return await realpath(abs);
  } catch (err) {
    if (unresolvable(err)) return null;
    throw err;
  }
}

function emptySkipped(): WalkSkipped {
  return { ignored: 0, secret: 0, tooLarge: 0, symlinkOutside: 0, special: 0, brokenLink: 0, symlinkLoop: 0, unreadable: 0, pathTooLong: 0, nameNotUtf8: 0, worktree: 0 };
}

/**
 * Lists the indexable files under the root, sorted by path. `root` must be the
 * root the rules were loaded for.
 */
export async function walkRepo(root: string, rules: RepoRules, opts: WalkOptions = {}): Promise<WalkResult> {
  if (root !== rules.root && root !== rules.realRoot) {
    throw new Error(`internal: walkRepo(${root}) with rules loaded for ${rules.root}`);
  }
  const maxBytes = opts.maxFileBytes ?? rules.maxFileBytes;
  const skipped = emptySkipped();
  const leftOut: WalkResult['leftOut'] = [];
  const leave = (path: string, reason: WalkLeftOutReason): void => { skipped[reason]++; leftOut.push({ path, reason }); };
  const files: WalkEntry[] = [];
  const found = (e: WalkEntry): void => { files.push(e); opts.onFile?.(e); };
  const links: WalkLink[] | undefined = opts.links ? [] : undefined;
  const linksOnly = opts.links === 'only';

  const rootNode: DirNode = { rel: '', real: rules.realRoot, realRel: '', parent: null };
  let start: DirNode = rootNode;
  if (opts.under !== undefined && opts.under !== '' && opts.under !== '.') {
    const under = opts.under.replace(/\/+$/, '');
    const decided = await checkDir(rules, under);
    const chain = decided === null ? null : await chainAbove(rules, under);
    // Like the full walk, a sub-walk does not enter a symlinked folder that leads back up
    // (else `update('d/up')` for a new `d/up -> ..` would index the tree again under d/up/).
    if (chain === null || leadsBackUp(chain, decided!)) return links ? { files, skipped, leftOut, links } : { files, skipped, leftOut };
    start = { rel: under, real: decided!, realRel: realRelative(rules.realRoot, decided!)!, parent: chain };
  }

  /** Secret files met (and the real files secret-named links lead to), by identity; files that share an inode with another name. */
  const secretIds = new Set<string>();
  let shared = false;

  /** One entry of a folder listing → a file entry, a folder to enter, or a skip count. */
  const judge = (dir: DirNode, d: FolderEntry, subdirs: DirNode[]): Promise<void> | undefined => {
    const name = d.name;
    const rel = childPath(dir.rel, name);
    const real = realChild(dir.real, name);
    // Under a followed folder link the entry is also judged where it really lives.
    const realRel = dir.realRel === dir.rel ? rel : childPath(dir.realRel, name);
    if (d.isDirectory()) {
      if (rules.excludedHere(rel, true) || (realRel !== rel && rules.isIgnored(realRel, true))) leave(rel, 'ignored');
      else if (isPathTooLong(rules.realRoot, rel) || (realRel !== rel && isPathTooLong(rules.realRoot, realRel))) leave(rel, 'pathTooLong');
      else subdirs.push({ rel, real, realRel, parent: dir });
      return;
    }
    if (d.isFile()) {
      if (linksOnly) return;
      if (rules.excludedHere(rel, false) || (realRel !== rel && rules.isIgnored(realRel, false))) { leave(rel, 'ignored'); return; }
      if (rules.isSecret(rel) || (realRel !== rel && rules.isSecret(realRel))) {
        leave(rel, 'secret');
        try { secretIds.add(identityOf(lstatSync(real))); } catch { /* gone since the listing */ }
        return;
      }
      if (isPathTooLong(rules.realRoot, rel) || (realRel !== rel && isPathTooLong(rules.realRoot, realRel))) { leave(rel, 'pathTooLong'); return; }
      // lstatSync on purpose: measured 3-4x faster than fs.promises.lstat over
      // 50k files (no threadpool round trip per file), and one folder's worth
      // of stats blocks the event loop only for milliseconds.
      let st: Stats;
      try {
        st = lstatSync(real);
      } catch (err) {
        if (gone(err)) return; // deleted while we walked: the watcher will hear of it
        if (isNameTooLongError(err)) { leave(rel, 'pathTooLong'); return; }
        throw err;
      }
      if (!st.isFile()) { skipped.special++; return; } // replaced by something else since the listing
      if (st.size > maxBytes) { leave(rel, 'tooLarge'); return; }
      if (st.nlink > 1) shared = true;
      found({ path: rel, abs: real, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino });
      return;
    }
    if (!d.isSymbolicLink()) { skipped.special++; return; }
    return judgeLink(dir, rel, real, subdirs);
  };

  /** Symlinks are rare: these alone pay for realpath + stat. */
  const judgeLink = async (dir: DirNode, rel: string, real: string, subdirs: DirNode[]): Promise<void> => {

    let targetReal: string;
    let st: Stats;
    try {
      targetReal = await realpath(real);
      st = await stat(targetReal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (isNameTooLongError(err)) { leave(rel, 'pathTooLong'); return; }
      if (gone(err) || code === 'ELOOP') {
        skipped.brokenLink++;
        if (links) links.push({ path: rel, target: await danglingTarget(rules.realRoot, real), followed: null, dangling: true });
        return;
      }
      throw err;
    }
    const targetRel = realRelative(rules.realRoot, targetReal);
    const note = (followed: WalkLink['followed']): void => { links?.push({ path: rel, target: targetRel, followed, dangling: false }); };
    if (targetRel === null) { skipped.symlinkOutside++; note(null); return; }
    const isDir = st.isDirectory();
    if (rules.excludedHere(rel, isDir) || inGitDir(targetRel) || rules.isIgnored(targetRel, isDir)) {
      leave(rel, 'ignored');
      note(null);
      return;
    }
    if (isPathTooLong(rules.realRoot, rel) || isPathTooLong(rules.realRoot, targetRel)) { leave(rel, 'pathTooLong'); note(null); return; }
    if (isDir) {
      if (leadsBackUp(dir, targetReal)) { skipped.symlinkLoop++; note(null); }
      else { subdirs.push({ rel, real: targetReal, realRel: targetRel, parent: dir }); note('dir'); }
      return;
    }
    if (rules.isSecret(rel) || rules.isSecret(targetRel)) {
      leave(rel, 'secret');
      note(null);
      // `.env -> settings.txt`: what the secret name holds is a secret under its other names too.
      if (st.isFile()) secretIds.add(identityOf(st));
      return;
    }
    note('file');
    if (linksOnly) return;
    if (!st.isFile()) { skipped.special++; return; }
    if (st.size > maxBytes) { leave(rel, 'tooLarge'); return; }
    if (st.nlink > 1) shared = true;
    found({ path: rel, abs: targetReal, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino });
  };

  const visit = async (dir: DirNode): Promise<DirNode[]> => {
    let dirents: FolderEntry[];
    try {
      dirents = await readdir(dir.real, { withFileTypes: true });
      if (dirents.some((d) => mayBeNotUtf8(d.name))) {
        const byBytes = await listByBytes(dir.real);
        dirents = byBytes.entries;
        for (const name of byBytes.notUtf8) leave(childPath(dir.rel, name), 'nameNotUtf8');
      }
    } catch (err) {
      if (gone(err)) return [];
      // The root itself near the system's limit: the folder is there, its path cannot be used.
      if (isNameTooLongError(err)) { leave(dir.rel, 'pathTooLong'); return []; }
      if ((err as NodeJS.ErrnoException).code === 'EACCES' || (err as NodeJS.ErrnoException).code === 'EPERM') {
        skipped.unreadable++;
        return [];
      }
      throw err;
    }
    // A `.git` file may make the folder a work tree of this repository: then none of it is judged.
    if (dir.rel !== '' && rules.worktreeAsListed(dir.rel, dirents.some((d) => d.name === '.git' && d.isFile()))) {
      leave(dir.rel, 'worktree');
      return [];
    }
    // evidex's own state (state-folders.ts) is no file of the project's: counted as `.git` is, never named as left out.
    if (dir.rel !== '' && rules.stateFolders.asListed(dir.rel, dirents.some((d) => d.name === StateFolders.tagName && d.isFile()))) {
      skipped.ignored++;
      return [];
    }
    // This folder's ignore files must be compiled before any of its entries is judged.
    const ignoreFiles = new Set<string>();
    for (const d of dirents) if (d.isFile() && IGNORE_FILE_NAMES.includes(d.name)) ignoreFiles.add(d.name);
    await rules.loadFolder(dir.rel, ignoreFiles);
    const subdirs: DirNode[] = [];
    const pending: Promise<void>[] = [];
    for (const d of dirents) {
      if (d.name === '.git') { skipped.ignored++; continue; } // not a left-out file a person looks for
      const p = judge(dir, d, subdirs);
      if (p) pending.push(p);
    }
    await Promise.all(pending);
    return subdirs;
  };

  // A fixed pool of workers pulling folders from a shared queue.
  const queue: DirNode[] = [start];
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const pump = (): void => {
      if (failed) return;
      if (queue.length === 0 && active === 0) { resolve(); return; }
      while (active < DIR_CONCURRENCY && queue.length > 0) {
        const dir = queue.pop()!;
        active++;
        visit(dir).then((subdirs) => {
          active--;
          for (const s of subdirs) queue.push(s);
          pump();
        }, (err: unknown) => { failed = true; reject(err); });
      }
    };
    pump();
  });

  // A hard link to a secret may sit anywhere, ignored folders included, which the walk did not
  // enter: only when some listed file has another name is the whole tree searched for them.
  if (shared) for (const id of await secretIdentities(rules)) secretIds.add(id);
  rules.noteSecrets(secretIds, start === rootNode && !linksOnly);
  let kept = files;
  if (secretIds.size > 0) {
    kept = files.filter((f) => !secretIds.has(identityOf(f)));
    skipped.secret += files.length - kept.length;
  }
  kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return links ? { files: kept, skipped, leftOut, links } : { files: kept, skipped, leftOut };
}

/**
 * The identities of every secret under the root: files with a secret name,
 * and the files inside the root that secret-named links lead to. Every folder
 * but `.git` is searched, ignored ones included; links to folders are not
 * followed (whatever they reach is searched under its own name).
 */
export async function secretIdentities(rules: RepoRules): Promise<Set<string>> {
  const ids = new Set<string>();
  const queue: Array<{ rel: string; real: string }> = [{ rel: '', real: rules.realRoot }];
  while (queue.length) {
    const batch = queue.splice(0, DIR_CONCURRENCY);
    await Promise.all(batch.map(async (dir) => {
      let dirents: Dirent[];
      try { dirents = await readdir(dir.real, { withFileTypes: true }); } catch { return; } // gone or unreadable: nothing to find there
      for (const d of dirents) {
        if (d.name === '.git') continue;
        const rel = childPath(dir.rel, d.name);
        const real = realChild(dir.real, d.name);
        if (d.isDirectory()) { queue.push({ rel, real }); continue; }
        if (!rules.isSecret(rel) || !(d.isFile() || d.isSymbolicLink())) continue;
        try {
          const st = await stat(real);
          const target = d.isFile() ? real : await realpath(real);
          if (st.isFile() && realRelative(rules.realRoot, target) !== null) ids.add(identityOf(st));
        } catch { /* dangling or gone */ }
      }
    }));
  }
  return ids;
}

/** A dangling link's target as its text names it (one hop), relative to the real root; null if outside or unreadable. */
async function danglingTarget(realRoot: string, linkReal: string): Promise<string | null> {
  let text: string;
  try {
    text = await readlink(linkReal);
  } catch {
    return null; // replaced or removed since the listing
  }
  return realRelative(realRoot, resolvePath(dirname(linkReal), text));
}

/**
 * The folders above `relDir` as the walk would meet them (each with its real
 * location), ending at its parent; null when one of them is a loop the walk
 * would not enter, or cannot be resolved.
 */
async function chainAbove(rules: RepoRules, relDir: string): Promise<DirNode | null> {
  let node: DirNode = { rel: '', real: rules.realRoot, realRel: '', parent: null };
  const parts = relDir.split('/');
  for (let i = 1; i < parts.length; i++) {
    const rel = parts.slice(0, i).join('/');
    const real = await realOrNull(realChild(rules.realRoot, rel));
    if (real === null || leadsBackUp(node, real)) return null;
    node = { rel, real, realRel: realRelative(rules.realRoot, real) ?? rel, parent: node };
  }
  return node;
}

/**
 * The real location of folder `relDir` when the walk would enter it (not
 * excluded, no symlink out of the root along the way), else null.
 */
async function checkDir(rules: RepoRules, relDir: string): Promise<string | null> {
  if (rules.isIgnored(relDir, true) || isPathTooLong(rules.realRoot, relDir)) return null;
  const real = await realOrNull(realChild(rules.realRoot, relDir));
  if (real === null) return null;
  const realRel = realRelative(rules.realRoot, real);
  if (realRel === null || (realRel !== '' && rules.isIgnored(realRel, true))) return null;
  if (!(await stat(real)).isDirectory()) return null;
  return real;
}

/**
 * The walk's decision for ONE path, for the watcher: the entry when the file
 * would be listed, null when it exists but is excluded (ignored, secret, too
 * large, a folder, special, or resolving outside the root), 'gone' when nothing
 * exists there.
 */
export async function checkPath(
  root: string, rules: RepoRules, relPath: string, opts: { maxFileBytes?: number } = {},
): Promise<WalkEntry | null | 'gone'> {
  if (root !== rules.root && root !== rules.realRoot) {
    throw new Error(`internal: checkPath(${root}) with rules loaded for ${rules.root}`);
  }
  if (relPath === '' || relPath.startsWith('/') || relPath.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new Error(`internal: checkPath needs a clean relative POSIX path, got ${JSON.stringify(relPath)}`);
  }
  const maxBytes = opts.maxFileBytes ?? rules.maxFileBytes;
  const abs = realChild(rules.realRoot, relPath);
  let own: Stats;
  try {
    own = await lstat(abs);
  } catch (err) {
    if (gone(err)) return 'gone';
    if (isNameTooLongError(err)) return null; // exists or not, it cannot be indexed (whyLeftOut says why)
    throw err;
  }
  if (isPathTooLong(rules.realRoot, relPath)) return null;
  if (inGitDir(relPath)) return null;
  let targetReal: string;
  let st: Stats;
  try {
    targetReal = await realpath(abs);
    st = own.isSymbolicLink() ? await stat(targetReal) : own;
  } catch (err) {
    if (unresolvable(err) || isNameTooLongError(err)) return null; // dangling link: exists, not indexable
    throw err;
  }
  if (!st.isFile()) return null;
  if (rules.isIgnored(relPath, false) || rules.isSecret(relPath)) return null;
  // Symlinks anywhere along the path: the content must live inside the root and
  // not be ignored or secret under its real name either.
  const targetRel = realRelative(rules.realRoot, targetReal);
  if (targetRel === null || isPathTooLong(rules.realRoot, targetRel)) return null;
  if (targetRel !== relPath && (rules.isIgnored(targetRel, false) || rules.isSecret(targetRel))) return null;
  if (st.size > maxBytes) return null;
  // Another name of a secret (a hard link, or the target of a secret-named link) is a secret.
  const id = identityOf(st);
  // A known secret's identity is looked for again: renamed out of its secret name (`mv .env notes.txt`) it is a plain file now.
  if (rules.knownSecrets.has(id) || st.nlink > 1) {
    if ((await secretIdentities(rules)).has(id)) return null;
    rules.forgetSecret(id);
  }
  return { path: relPath, abs: targetReal, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
}
