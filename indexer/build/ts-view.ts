// The repository as TypeScript resolution sees it (typescript/view.ts): the
// store's files, with the changes of an update not yet committed laid over
// them, so the update's files and the statements they affect are resolved
// against the tree as it will be once the update lands — in the same commit.
import type { RepoLinks } from '../discover/links.js';
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

/**
 * The one rule of both views for a path through a symbolic link (links.ts):
 * the index holds no name through one, so a file or folder is looked for at
 * the path the links along it lead to — as the file system the compiler
 * knows would find it — and its real path is that one.
 */
abstract class LinkedView implements RepoView {
  constructor(protected readonly links: RepoLinks) {}

  /** Whether `rel`, a path with no link along it, is an indexed file; and whether it is a folder holding one. */
  protected abstract ownFile(rel: string): boolean;
  protected abstract ownDir(rel: string): boolean;
  protected abstract ownText(rel: string): string | undefined;
  protected abstract ownEntries(rel: string): FolderEntries;
  abstract filesNamed(name: string): Iterable<string>;

  realPath(rel: string): string {
    if (this.ownFile(rel)) return rel;
    const real = this.links.follow(rel);
    return real !== rel && this.ownFile(real) ? real : rel;
  }

  linkedTo(rel: string): string { return this.links.follow(rel); }
  isFile(rel: string): boolean { return this.ownFile(rel) || this.ownFile(this.links.follow(rel)); }
  isDir(rel: string): boolean { return rel === '' || this.ownDir(rel) || this.ownDir(this.links.follow(rel)); }
  text(rel: string): string | undefined { return this.ownText(this.realPath(rel)); }
  entries(rel: string): FolderEntries { return this.ownEntries(this.ownDir(rel) ? rel : this.links.follow(rel)); }
}

/** The store's files, with an update's puts (path → bytes) and removals laid over them; folders from a FolderTree kept in step. */
export class StoreView extends LinkedView {
  private readonly decoded = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly folders: FolderTree,
    links: RepoLinks,
    private readonly puts: ReadonlyMap<string, Uint8Array> = new Map(),
    private readonly removed: ReadonlySet<string> = new Set(),
  ) { super(links); }

  protected ownFile(rel: string): boolean {
    if (this.puts.has(rel)) return true;
    return !this.removed.has(rel) && this.store.fileByPath(rel) !== undefined;
  }

  protected ownDir(rel: string): boolean { return this.folders.has(rel); }

  protected ownText(rel: string): string | undefined {
    let t = this.decoded.get(rel);
    if (t !== undefined) return t;
    const bytes = this.puts.get(rel);
    if (bytes) t = decodeText(bytes);
    else if (this.ownFile(rel)) t = this.store.text(this.store.fileByPath(rel)!.fid);
    if (t !== undefined) this.decoded.set(rel, t);
    return t;
  }

  protected ownEntries(rel: string): FolderEntries { return this.folders.entries(rel); }

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
export class WalkView extends LinkedView {
  private readonly decoded = new Map<string, string | undefined>();

  constructor(
    private readonly store: Store,
    private readonly walked: ReadonlyMap<string, { abs: string; dev: number; ino: number }>,
    private readonly parsing: ReadonlySet<string>,
    private readonly folders: FolderTree,
    private readonly readVetted: (entry: { abs: string; dev: number; ino: number }) => string | undefined,
    links: RepoLinks,
  ) { super(links); }

  protected ownFile(rel: string): boolean { return this.walked.has(rel); }
  protected ownDir(rel: string): boolean { return this.folders.has(rel); }
  protected ownEntries(rel: string): FolderEntries { return this.folders.entries(rel); }

  protected ownText(rel: string): string | undefined {
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
  linkedTo(rel: string): string { return this.base.linkedTo(rel); }

  entries(rel: string): FolderEntries {
    const mine = this.folders.entries(rel);
    if (mine.files.length === 0 && mine.directories.length === 0) return this.base.entries(rel);
    const theirs = this.base.entries(rel);
    return { files: [...new Set([...theirs.files, ...mine.files])], directories: [...new Set([...theirs.directories, ...mine.directories])] };
  }
}
