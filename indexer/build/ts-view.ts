// The repository as TypeScript resolution sees it (typescript/view.ts): the
// store's files, with the changes of an update not yet committed laid over
// them, so the update's files and the statements they affect are resolved
// against the tree as it will be once the update lands — in the same commit.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { underRoot } from '../discover/rules.js';
import { decodeText } from '../text.js';
import type { Store } from '../store/store.js';
import { dirOf, type FolderEntries, type RepoView } from '../typescript/view.js';

interface Folder { files: Set<string>; dirs: Set<string>; count: number }

/** Every folder that holds an indexed file: what it holds directly, and how many files at any depth. */
export class FolderTree {
  private readonly folders = new Map<string, Folder>();

  constructor(paths: Iterable<string>) {
    for (const p of paths) this.add(p);
  }

  private folder(dir: string): Folder {
    let f = this.folders.get(dir);
    if (!f) { f = { files: new Set(), dirs: new Set(), count: 0 }; this.folders.set(dir, f); }
    return f;
  }

  /** Adds a file; returns the folders that held no file before it, deepest first. */
  add(path: string): string[] {
    const made: string[] = [];
    let dir = dirOf(path);
    let name = path.slice(dir === '' ? 0 : dir.length + 1);
    let leaf = true;
    for (;;) {
      const f = this.folder(dir);
      if (f.count === 0 && dir !== '') made.push(dir);
      if (leaf) { if (f.files.has(name)) return []; f.files.add(name); } else f.dirs.add(name);
      f.count++;
      if (dir === '') return made;
      leaf = false;
      name = dir.slice(dir.lastIndexOf('/') + 1);
      dir = dirOf(dir);
    }
  }

  /** Removes a file; returns the folders that hold no file after it, deepest first. */
  remove(path: string): string[] {
    const emptied: string[] = [];
    let dir = dirOf(path);
    let name = path.slice(dir === '' ? 0 : dir.length + 1);
    let leaf = true;
    const top = this.folders.get(dir);
    if (!top || !top.files.has(name)) return [];
    for (;;) {
      const f = this.folders.get(dir)!;
      if (leaf) f.files.delete(name);
      f.count--;
      if (f.count === 0 && dir !== '') { emptied.push(dir); this.folders.delete(dir); }
      if (dir === '') return emptied;
      const parent = dirOf(dir);
      if (f.count === 0) this.folders.get(parent)?.dirs.delete(dir.slice(dir.lastIndexOf('/') + 1));
      leaf = false;
      name = dir.slice(dir.lastIndexOf('/') + 1);
      dir = parent;
    }
  }

  has(dir: string): boolean { return (this.folders.get(dir)?.count ?? 0) > 0; }

  entries(dir: string): FolderEntries {
    const f = this.folders.get(dir);
    return f ? { files: [...f.files], directories: [...f.dirs] } : { files: [], directories: [] };
  }
}

/** The store's files, with an update's puts (path → bytes) and removals laid over them; folders from a FolderTree kept in step. */
export class StoreView implements RepoView {
  private readonly decoded = new Map<string, string>();
  private readonly reals = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly folders: FolderTree,
    /** The repository root and its real path (symbolic links resolved). */
    private readonly roots: { root: string; realRoot: string },
    private readonly puts: ReadonlyMap<string, Uint8Array> = new Map(),
    private readonly removed: ReadonlySet<string> = new Set(),
  ) {}

  realPath(rel: string): string {
    let r = this.reals.get(rel);
    if (r === undefined) {
      let real: string | null = null;
      try { real = underRoot(this.roots.realRoot, realpathSync(join(this.roots.root, rel))); } catch { real = null; }
      r = real !== null && real !== rel && this.isFile(real) ? real : rel;
      this.reals.set(rel, r);
    }
    return r;
  }

  isFile(rel: string): boolean {
    if (this.puts.has(rel)) return true;
    return !this.removed.has(rel) && this.store.fileByPath(rel) !== undefined;
  }

  isDir(rel: string): boolean { return rel === '' || this.folders.has(rel); }

  text(rel: string): string | undefined {
    let t = this.decoded.get(rel);
    if (t !== undefined) return t;
    const bytes = this.puts.get(rel);
    if (bytes) t = decodeText(bytes);
    else if (this.isFile(rel)) t = this.store.text(this.store.fileByPath(rel)!.fid);
    if (t !== undefined) this.decoded.set(rel, t);
    return t;
  }

  entries(rel: string): FolderEntries { return this.folders.entries(rel); }

  *filesNamed(name: string): Iterable<string> {
    const suffix = `/${name}`;
    for (const f of this.store.ordered()) {
      if ((f.path === name || f.path.endsWith(suffix)) && !this.removed.has(f.path)) yield f.path;
    }
    for (const p of this.puts.keys()) {
      if ((p === name || p.endsWith(suffix)) && this.store.fileByPath(p) === undefined) yield p;
    }
  }
}

/**
 * The tree a build's walk found, for resolving the files it parses as their
 * results arrive: the walked files exist; a file being parsed is read (as
 * vetted) from disk, any other from the store, which holds it unchanged.
 */
export class WalkView implements RepoView {
  private readonly decoded = new Map<string, string | undefined>();

  constructor(
    private readonly store: Store,
    private readonly walked: ReadonlyMap<string, { abs: string; dev: number; ino: number }>,
    private readonly parsing: ReadonlySet<string>,
    private readonly folders: FolderTree,
    private readonly readVetted: (entry: { abs: string; dev: number; ino: number }) => string | undefined,
    private readonly realRoot: string,
  ) {}

  isFile(rel: string): boolean { return this.walked.has(rel); }

  realPath(rel: string): string {
    const entry = this.walked.get(rel);
    const real = entry ? underRoot(this.realRoot, entry.abs) : null;
    return real !== null && real !== rel && this.walked.has(real) ? real : rel;
  }
  isDir(rel: string): boolean { return rel === '' || this.folders.has(rel); }
  entries(rel: string): FolderEntries { return this.folders.entries(rel); }

  text(rel: string): string | undefined {
    if (this.decoded.has(rel)) return this.decoded.get(rel);
    const entry = this.walked.get(rel);
    let t: string | undefined;
    if (entry && this.parsing.has(rel)) t = this.readVetted(entry);
    else if (entry) { const f = this.store.fileByPath(rel); t = f ? this.store.text(f.fid) : undefined; }
    this.decoded.set(rel, t);
    return t;
  }

  *filesNamed(name: string): Iterable<string> {
    const suffix = `/${name}`;
    for (const p of this.walked.keys()) if (p === name || p.endsWith(suffix)) yield p;
  }
}

/**
 * A view with more files laid over it as files that exist, without text
 * (resolution asks only whether a module file is there): files the index
 * left out, to learn where a statement that resolved nowhere would resolve.
 */
export class WithFilesView implements RepoView {
  private readonly folders: FolderTree;

  constructor(private readonly base: RepoView, private readonly extra: ReadonlySet<string>) {
    this.folders = new FolderTree(extra);
  }

  isFile(rel: string): boolean { return this.extra.has(rel) || this.base.isFile(rel); }
  isDir(rel: string): boolean { return this.folders.has(rel) || this.base.isDir(rel); }
  text(rel: string): string | undefined { return this.base.text(rel); }
  filesNamed(name: string): Iterable<string> { return this.base.filesNamed(name); }
  realPath(rel: string): string { return this.extra.has(rel) ? rel : this.base.realPath(rel); }

  entries(rel: string): FolderEntries {
    const mine = this.folders.entries(rel);
    if (mine.files.length === 0 && mine.directories.length === 0) return this.base.entries(rel);
    const theirs = this.base.entries(rel);
    return { files: [...new Set([...theirs.files, ...mine.files])], directories: [...new Set([...theirs.directories, ...mine.directories])] };
  }
}
