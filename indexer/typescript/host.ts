// The file system the TypeScript compiler resolves imports and reads configs
// against (docs/tools.md, TypeScript rules): the repository's indexed files,
// under its real absolute root, and nothing else — not ignored or secret
// files, never a node_modules folder — plus one virtual node_modules at the
// root in which each package of the repository (workspaces.ts) appears under
// its name, as an install would link it. A path there is its real path in the
// repository (realpath maps it back), and build output a package names that
// is not in the tree is its source (outputs.ts).
import type TS from 'typescript';
import { typescript } from './load.js';
import type { BuildOutputs } from './outputs.js';
import type { WorkspacePackages } from './workspaces.js';
import { existenceKey, joinRel, type FolderEntries, type RepoView } from './view.js';

/** What the compiler reads of its host beyond the public API (present in the pinned 5.x). */
interface HostInternals {
  matchFiles(path: string, extensions: readonly string[] | undefined, excludes: readonly string[] | undefined,
    includes: readonly string[] | undefined, useCaseSensitiveFileNames: boolean, currentDirectory: string, depth: number | undefined,
    getFileSystemEntries: (path: string) => FolderEntries, realpath: (path: string) => string): string[];
}

/** Where an absolute path lies, as far as the compiler may know. */
export type Place =
  | { at: 'repo'; rel: string }                                  // in the repository, outside any node_modules
  | { at: 'package'; rel: string; pkgDir: string; rest: string }  // in a package, reached through the virtual node_modules
  | { at: 'links'; scope: string }                                // the virtual node_modules itself ('' ) or a scope folder in it ('@org')
  | { at: 'none' };                                               // outside the root, or in a node_modules folder: never read

const NONE: Place = { at: 'none' };
const EMPTY: FolderEntries = { files: [], directories: [] };

export class RepoHost implements TS.ModuleResolutionHost, TS.ParseConfigHost {
  readonly useCaseSensitiveFileNames = true;
  /** Paths (repository-relative) looked at while a config is read: what the parsed config rests on. */
  private touched: Set<string> | null = null;
  /** Set while a bare specifier is resolved (see inBareLookup). */
  private bare = false;
  /** The folders of the repository's packages, for the package map they were taken from. */
  private dirsOf: { of: WorkspacePackages; dirs: Set<string> } | null = null;

  constructor(
    readonly root: string,
    private readonly view: RepoView,
    private readonly packagesNow: () => WorkspacePackages,
    private readonly outputs: BuildOutputs,
  ) {}

  private get packages(): WorkspacePackages { return this.packagesNow(); }

  abs(rel: string): string { return rel === '' ? this.root : `${this.root}/${rel}`; }

  /**
   * Runs `fn` (a resolution and what is read off its answer) with build output
   * in a package's own folder seen as its source while `bare` holds, as it is
   * through the virtual node_modules: a package importing itself by name is
   * the compiler's self-name lookup, which reads the package's `exports` in
   * its real folder, not through node_modules (vitest's `@vitest/browser`
   * imports `@vitest/browser/internal/vendor-types` from its own
   * `context.d.ts`: `types` `./dist/vendor-types.d.ts`, else `./dummy.js`).
   * A relative path into `dist/` is no package lookup and is never mapped.
   */
  inBareLookup<T>(bare: boolean, fn: () => T): T {
    const was = this.bare;
    this.bare = bare;
    try { return fn(); } finally { this.bare = was; }
  }

  /** The repository package whose folder holds `rel` (the deepest), with the path inside it; null for none. */
  private packageHolding(rel: string): { pkgDir: string; rest: string } | null {
    const packages = this.packages;
    if (this.dirsOf?.of !== packages) this.dirsOf = { of: packages, dirs: new Set(packages.values()) };
    const dirs = this.dirsOf.dirs;
    for (let end = rel.lastIndexOf('/'); end > 0; end = rel.lastIndexOf('/', end - 1)) {
      const dir = rel.slice(0, end);
      if (dirs.has(dir)) return { pkgDir: dir, rest: rel.slice(end + 1) };
    }
    return dirs.has('') && rel !== '' ? { pkgDir: '', rest: rel } : null;
  }

  /** Where `abs` lies (see Place). */
  place(abs: string): Place {
    const p = this.placeInTree(abs);
    if (!this.bare || p.at !== 'repo') return p;
    const held = this.packageHolding(p.rel);
    return held === null ? p : { at: 'package', rel: p.rel, ...held };
  }

  private placeInTree(abs: string): Place {
    if (abs === this.root) return { at: 'repo', rel: '' };
    if (!abs.startsWith(this.root) || abs.charCodeAt(this.root.length) !== 47 /* / */) return NONE;
    let rel = abs.slice(this.root.length + 1);
    while (rel.endsWith('/')) rel = rel.slice(0, -1);
    // Most paths the compiler asks about are plain repository paths: no split for them.
    if (!rel.includes('node_modules')) return { at: 'repo', rel };
    const segs = rel.split('/');
    const nm = segs.indexOf('node_modules');
    if (nm < 0) return { at: 'repo', rel };
    if (nm > 0 || this.packages.size === 0) return NONE;
    if (segs.length === 1) return { at: 'links', scope: '' };
    const scoped = segs[1].startsWith('@');
    if (scoped && segs.length === 2) return { at: 'links', scope: segs[1] };
    const name = scoped ? `${segs[1]}/${segs[2]}` : segs[1];
    const pkgDir = this.packages.get(name);
    const restSegs = segs.slice(scoped ? 3 : 2);
    if (pkgDir === undefined || restSegs.includes('node_modules')) return NONE;
    const rest = restSegs.join('/');
    return { at: 'package', rel: joinRel(pkgDir, rest), pkgDir, rest };
  }

  /** Starts noting every path looked at (for a config being read). */
  startNoting(): void { this.touched = new Set(); }
  /** Stops noting, and returns what was looked at. */
  stopNoting(): Set<string> {
    const t = this.touched ?? new Set<string>();
    this.touched = null;
    return t;
  }
  private note(p: Place): void {
    if (this.touched && (p.at === 'repo' || p.at === 'package')) this.touched.add(p.rel);
  }

  fileExists = (abs: string): boolean => {
    const p = this.place(abs);
    this.note(p);
    if (p.at === 'repo') return this.view.isFile(p.rel);
    if (p.at === 'package') return this.view.isFile(p.rel) || this.outputs.sourceFor(p.pkgDir, p.rest) !== null;
    return false;
  };

  directoryExists = (abs: string): boolean => {
    const p = this.place(abs);
    if (p.at === 'repo') return this.view.isDir(p.rel);
    if (p.at === 'package') return this.view.isDir(p.rel) || this.outputs.sourceDirFor(p.pkgDir, p.rest) !== null;
    if (p.at === 'links') return p.scope === '' || [...this.packages.keys()].some((n) => n.startsWith(`${p.scope}/`));
    return false;
  };

  readFile = (abs: string): string | undefined => {
    const p = this.place(abs);
    this.note(p);
    return p.at === 'repo' || p.at === 'package' ? this.view.text(p.rel) : undefined;
  };

  /** A package's path is its real one in the repository; build output not in the tree, its source. */
  realpath = (abs: string): string => {
    const real = this.repoPathOf(abs);
    return real === null ? abs : this.abs(real);
  };

  /** The repository path `abs` names, build output left as it is (a config's `outDir`, which the layout that maps output is read from); null outside. */
  relOf(abs: string): string | null {
    const p = this.placeInTree(abs);
    return p.at === 'repo' || p.at === 'package' ? p.rel : null;
  }

  /** The repository file (or folder) `abs` stands for: itself, through the virtual node_modules, or as build output's source; null for none. */
  repoPathOf(abs: string): string | null {
    const p = this.place(abs);
    if (p.at === 'repo') return p.rel;
    if (p.at !== 'package') return null;
    if (this.view.isFile(p.rel) || this.view.isDir(p.rel)) return p.rel;
    return this.outputs.sourceFor(p.pkgDir, p.rest) ?? this.outputs.sourceDirFor(p.pkgDir, p.rest);
  }

  /**
   * The existence keys (view.ts) whose change can change what the compiler
   * found at `abs`: its own, and for build output of a package the keys of
   * every source it could stand for. None outside the repository.
   */
  keysOf(abs: string): string[] {
    const p = this.place(abs);
    // A lookup through a link failed for want of what it leads to: that path appearing must re-resolve it too.
    if (p.at === 'repo') { const to = this.view.linkedTo(p.rel); return to === p.rel ? [existenceKey(p.rel)] : [existenceKey(p.rel), existenceKey(to)]; }
    if (p.at !== 'package') return [];
    return [existenceKey(p.rel), ...this.outputs.candidates(p.pkgDir, p.rest).map(existenceKey)];
  }

  getCurrentDirectory = (): string => this.root;

  getDirectories = (abs: string): string[] => [...this.entriesAt(abs).directories];

  readDirectory = (rootDir: string, extensions: readonly string[], excludes: readonly string[] | undefined,
    includes: readonly string[], depth?: number): string[] => {
    const ts = typescript() as unknown as HostInternals;
    return ts.matchFiles(rootDir, extensions, excludes, includes, true, this.root, depth, (dir) => this.entriesAt(dir), (p) => p);
  };

  private entriesAt(abs: string): FolderEntries {
    const p = this.place(abs);
    if (p.at !== 'repo' && p.at !== 'package') return EMPTY;
    if (!this.view.isDir(p.rel)) return EMPTY;
    const e = this.view.entries(p.rel);
    return e.directories.includes('node_modules') ? { files: e.files, directories: e.directories.filter((d) => d !== 'node_modules') } : e;
  }
}
