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
//   secret (own name or the target's name)     → skipped.secret
//   any other symlink (to a file or a folder
//   inside the root)                           → skipped.linked: its target is
//                                                listed under its real path
//   socket, fifo, device                       → skipped.special
//   larger than maxFileBytes                   → skipped.tooLarge
//   past the path limits (path-limits.ts)      → skipped.pathTooLong (folders are not entered)
//   a name that is not UTF-8 (names.ts)        → skipped.nameNotUtf8
//   a folder that is a work tree of this
//   repository (worktrees.ts)                  → skipped.worktree (not entered)
//   a folder of evidex's own state
//   (state-folders.ts)                         → skipped.ignored (not entered, not named)
// Folders are listed with bounded concurrency; only symlinks are resolved.
// Each real file is listed once, under its real path: a link adds no name
// (it is never entered or listed), so a linked folder's files are not found
// twice, and no loop can be walked. A link is still judged, for what its name
// says of the file it leads to: a secret-named link makes its target a secret.
// What is left out for a reason a person is told about (left-out.ts) is also
// listed by path in WalkResult.leftOut.
import { lstatSync, type Dirent, type Stats } from 'node:fs';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { WalkLeftOutReason } from './left-out.js';
import { listByBytes, mayBeNotUtf8, type FolderEntry } from './names.js';
import { isNameTooLongError, isPathTooLong } from './path-limits.js';
import { RepoRules, IGNORE_FILE_NAMES, identityOf, inGitDir, realRelative } from './rules.js';
import { secretsThroughLink } from './secret-links.js';
import { StateFolders } from './state-folders.js';

export interface WalkEntry {
  /** POSIX path relative to the root: the name the file is indexed under, its real path (no symlink in it). */
  path: string;
  /** Absolute real path of the content, which is what the indexer should read. */
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
  /** Links to a file or folder inside the root, not listed: what they lead to is listed under its own name. */
  linked: number;
  unreadable: number;
  pathTooLong: number;
  nameNotUtf8: number;
  worktree: number;
}

export interface WalkResult {
  files: WalkEntry[];
  skipped: WalkSkipped;
  /** Entries left out for a reason left-out.ts names (ignored folders once, not what is in them), in no particular order. */
  leftOut: Array<{ path: string; reason: WalkLeftOutReason }>;
  /** The links counted as `linked`, and the dangling ones with where they would lead, each with its target (root-relative), in no particular order: resolution follows them (links.ts). */
  links: Array<{ path: string; target: string }>;
  /** The links that make files secret (secret-links.ts), each with those files' paths. */
  secretLinks: Array<{ path: string; targets: string[] }>;
}

export interface WalkOptions {
  /** Overrides the rules' maxFileBytes. */
  maxFileBytes?: number;
  /** Walk only this folder (POSIX, relative to the root), e.g. after its .gitignore changed. */
  under?: string;
  /** Told of each file as it is listed, in no particular order (a build starts its parse workers by them). */
  onFile?: (entry: WalkEntry) => void;
}

/** How many folders are listed at once: enough to keep the libuv pool busy, few enough to stay far from fd limits. */
const DIR_CONCURRENCY = 16;

/** A folder being walked: its path (root-relative, also its real path) and its absolute real location. */
interface DirNode { rel: string; real: string }

function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

function realChild(parentReal: string, name: string): string {
  return parentReal.endsWith('/') ? parentReal + name : `${parentReal}/${name}`;
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
  return { ignored: 0, secret: 0, tooLarge: 0, symlinkOutside: 0, special: 0, brokenLink: 0, linked: 0, unreadable: 0, pathTooLong: 0, nameNotUtf8: 0, worktree: 0 };
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
  const links: WalkResult['links'] = [];
  const secretLinks: WalkResult['secretLinks'] = [];

  const rootNode: DirNode = { rel: '', real: rules.realRoot };
  let start: DirNode = rootNode;
  if (opts.under !== undefined && opts.under !== '' && opts.under !== '.') {
    const under = opts.under.replace(/\/+$/, '');
    const real = await checkDir(rules, under);
    // A folder reached through a link (`dl` for `dl -> d`, or anything under it) holds no name the index lists: its real folder is walked under its own.
    if (real === null) return { files, skipped, leftOut, links, secretLinks };
    start = { rel: under, real };
  }

  /** Secret files met (and the real files secret-named links lead to), by identity; files that share an inode with another name. */
  const secretIds = new Set<string>();
  let shared = false;

  /** One entry of a folder listing → a file entry, a folder to enter, or a skip count. */
  const judge = (dir: DirNode, d: FolderEntry, subdirs: DirNode[]): Promise<void> | undefined => {
    const name = d.name;
    const rel = childPath(dir.rel, name);
    const real = realChild(dir.real, name);
    if (d.isDirectory()) {
      if (rules.excludedHere(rel, true)) leave(rel, 'ignored');
      else if (isPathTooLong(rules.realRoot, rel)) leave(rel, 'pathTooLong');
      else subdirs.push({ rel, real });
      return;
    }
    if (d.isFile()) {
      if (rules.excludedHere(rel, false)) { leave(rel, 'ignored'); return; }
      if (rules.isSecret(rel)) {
        leave(rel, 'secret');
        try { secretIds.add(identityOf(lstatSync(real))); } catch { /* gone since the listing */ }
        return;
      }
      if (isPathTooLong(rules.realRoot, rel)) { leave(rel, 'pathTooLong'); return; }
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
    return judgeLink(rel, real);
  };

  /**
   * Symlinks are rare: these alone pay for realpath + stat. None is listed or
   * entered; each is counted (and said as left out) as before, and a
   * secret-named link to a file makes that file a secret under every name.
   */
  const judgeLink = async (rel: string, real: string): Promise<void> => {
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
        const to = gone(err) ? await danglingTarget(rules, rel, real) : null;
        if (to !== null) links.push({ path: rel, target: to });
        return;
      }
      throw err;
    }
    const targetRel = realRelative(rules.realRoot, targetReal);
    if (targetRel === null) { skipped.symlinkOutside++; return; }
    const verdict = linkVerdict(rules, rel, targetRel, st.isDirectory());
    // `.env -> settings.txt`, `.aws -> aws-profile`: what a secret name holds is a secret under its other names too.
    if (verdict === 'secret' || (verdict === 'linked' && st.isDirectory())) {
      const made = await secretsThroughLink(rules, rel, targetReal, st.isDirectory());
      for (const t of made) secretIds.add(t.id);
      if (made.length > 0) secretLinks.push({ path: rel, targets: made.map((t) => t.path) });
    }
    if (verdict === 'linked') { skipped.linked++; links.push({ path: rel, target: targetRel }); return; }
    leave(rel, verdict);
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
  rules.noteSecrets(secretIds, start === rootNode);
  let kept = files;
  if (secretIds.size > 0) {
    kept = files.filter((f) => !secretIds.has(identityOf(f)));
    skipped.secret += files.length - kept.length;
  }
  kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: kept, skipped, leftOut, links, secretLinks };
}

/**
 * The identities of every secret under the root: files with a secret name,
 * and the files inside the root that links make secret (secret-links.ts). Every
 * folder but `.git` is searched, ignored ones included; a link to a folder is
 * searched only for what its name makes secret.
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
        if (d.isSymbolicLink()) {
          try {
            const target = await realpath(real);
            for (const t of await secretsThroughLink(rules, rel, target, (await stat(target)).isDirectory())) ids.add(t.id);
          } catch { /* dangling or gone */ }
          continue;
        }
        if (!d.isFile() || !rules.isSecret(rel)) continue;
        try { ids.add(identityOf(await lstat(real))); } catch { /* gone */ }
      }
    }));
  }
  return ids;
}

/** A link inside the root, to `targetRel` (inside it too): left out for what its name or target is, or 'linked' (its target is listed under its own name). */
function linkVerdict(rules: RepoRules, rel: string, targetRel: string, isDir: boolean): 'ignored' | 'pathTooLong' | 'secret' | 'linked' {
  if (rules.excludedHere(rel, isDir) || inGitDir(targetRel) || rules.isIgnored(targetRel, isDir)) return 'ignored';
  if (isPathTooLong(rules.realRoot, rel) || isPathTooLong(rules.realRoot, targetRel)) return 'pathTooLong';
  if (!isDir && (rules.isSecret(rel) || rules.isSecret(targetRel))) return 'secret';
  return 'linked';
}

/**
 * Where the link at `relPath` leads (root-relative) when the walk would count
 * it as `linked`, or record it as dangling (danglingTarget); null for anything
 * else (no link, gone, a loop, leading out, left out), as the walk decides for
 * one path met in its folder.
 */
export async function checkLink(rules: RepoRules, relPath: string): Promise<string | null> {
  const abs = realChild(rules.realRoot, relPath);
  try {
    if (!(await lstat(abs)).isSymbolicLink() || rules.isIgnored(relPath, false)) return null;
    // Met through a linked folder, it is the walk's under its real folder's name, not this one.
    const slash = relPath.lastIndexOf('/');
    if (slash >= 0 && realRelative(rules.realRoot, await realpath(realChild(rules.realRoot, relPath.slice(0, slash)))) !== relPath.slice(0, slash)) return null;
    let targetReal: string;
    try { targetReal = await realpath(abs); } catch (err) { if (gone(err)) return await danglingTarget(rules, relPath, abs); throw err; }
    const targetRel = realRelative(rules.realRoot, targetReal);
    if (targetRel === null) return null;
    return linkVerdict(rules, relPath, targetRel, (await stat(targetReal)).isDirectory()) === 'linked' ? targetRel : null;
  } catch (err) {
    if (unresolvable(err) || isNameTooLongError(err)) return null;
    throw err;
  }
}

/**
 * Where a dangling link inside the root would lead (root-relative) once its
 * target appears, when the walk would then count it as `linked`; else null.
 * Recorded with the live links, so that what a lookup through it missed is
 * looked for again when the target (or a folder above it) appears.
 */
async function danglingTarget(rules: RepoRules, rel: string, abs: string): Promise<string | null> {
  let head: string;
  try { head = posix.resolve(posix.dirname(abs), await readlink(abs)); } catch (err) { if (unresolvable(err)) return null; throw err; }
  const tail: string[] = [];
  // The nearest folder above the target that exists, real; the missing rest kept as written.
  for (;;) {
    const real = await realOrNull(head);
    if (real !== null) { head = real; break; }
    if (head === '/') return null;
    tail.unshift(posix.basename(head));
    head = posix.dirname(head);
  }
  const targetRel = realRelative(rules.realRoot, tail.length ? posix.join(head, ...tail) : head);
  return targetRel !== null && targetRel !== rel && linkVerdict(rules, rel, targetRel, false) === 'linked' ? targetRel : null;
}

/**
 * The real location of folder `relDir` when the walk would enter it (not
 * excluded, and its real path: no symlink along the way), else null.
 */
async function checkDir(rules: RepoRules, relDir: string): Promise<string | null> {
  if (rules.isIgnored(relDir, true) || isPathTooLong(rules.realRoot, relDir)) return null;
  const real = await realOrNull(realChild(rules.realRoot, relDir));
  if (real === null || realRelative(rules.realRoot, real) !== relDir) return null;
  if (!(await stat(real)).isDirectory()) return null;
  return real;
}

/**
 * The walk's decision for ONE path, for the watcher: the entry when the file
 * would be listed, null when it exists but is excluded (ignored, secret, too
 * large, a folder, special, a symlink's name or a path through one), 'gone'
 * when nothing exists there.
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
  // A link's name, or a path through a linked folder: the file is listed under its real path, if at all (as the walk lists it).
  if (realRelative(rules.realRoot, targetReal) !== relPath) return null;
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
