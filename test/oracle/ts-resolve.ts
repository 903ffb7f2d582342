// Where each import specifier leads, by the compiler: `ts.resolveModuleName`
// in the resolution mode the compiler gives that usage
// (`ts.getModeForUsageLocation`), under the file's governing config, on a real
// copy of the indexed files with the repository's workspace packages linked
// into a temporary node_modules as an install links them. Build output that a
// package's `exports`/`types`/`main` names but the tree lacks is seen as
// existing exactly where its source exists (ts-workspaces.ts), so the compiler
// walks the package's own fields and the answer maps back to that source.
// Results are mapped back through realpath to repository paths; only indexed
// files (the ones copied) are targets.
import { execFileSync } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, relative } from 'node:path';
import ts from 'typescript';
import type { Governing } from './ts-configs.js';
import { buildLayout, sourceDirForOutput, sourceForOutput, type BuildLayout, type WorkspacePackage } from './ts-workspaces.js';

/** Why a specifier has no target in the repository. */
export type Unresolved = 'package' | 'missing';

export interface Resolution {
  target: string | null; unresolved: Unresolved | null; mode: 'import' | 'require' | 'none';
  /**
   * Where the compiler found the module in a `node_modules` folder the tree
   * itself holds (npm's bundled dependencies, a test fixture's installed
   * packages), which the rules never read: such a statement has no target and
   * keeps its reason, as evidex keeps it; this says the compiler's answer.
   */
  inNodeModules?: string;
  /** The target stands for build output the tree lacks (ts-workspaces.ts): the compiler alone finds nothing there. */
  mapped?: true;
}

/** Whether a repository path lies in a node_modules folder. */
const inNodeModules = (rel: string): boolean => rel.startsWith('node_modules/') || rel.includes('/node_modules/');

/** A specifier naming a package (not a path, not `#imports`). */
export function isBareSpecifier(spec: string): boolean {
  return !(spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('#') || spec === '');
}

/**
 * Names a bare specifier answers to as a package query: the package (`@org/ui`,
 * `lodash`) and each longer subpath (`lodash/fp`, `lodash/fp/map`), up to the
 * first part holding a NUL byte: no caller can give such a name (it is refused
 * as a path is, docs/tools.md), so webpack's `"es5-ext/array/\0#/x"` answers to
 * `es5-ext` and `es5-ext/array` only.
 */
export function packageNamesOf(spec: string): string[] {
  const parts = spec.split('/');
  const first = spec.startsWith('@') && parts.length > 1 ? 2 : 1;
  const firstNul = parts.findIndex((p) => p.includes('\0'));
  const last = firstNul === -1 ? parts.length : firstNul;
  const out: string[] = [];
  for (let n = first; n <= last; n++) out.push(parts.slice(0, n).join('/'));
  return out;
}

/**
 * Whether a name is a package name (or a subpath of one) in the rules' sense: an
 * npm package name (`react`, `@org/ui`, `lodash/fp`) or a `node:` builtin. A
 * `paths` alias such as `@/components` or `~/lib` is a bare specifier but no package.
 */
export function isPackageName(name: string): boolean {
  const [first, second] = name.split('/');
  const part = /^[A-Za-z0-9~-][A-Za-z0-9._~-]*$/;
  if (name.startsWith('node:')) return part.test(name.slice(5).split('/')[0]);
  if (first.startsWith('@')) return part.test(first.slice(1)) && second !== undefined && part.test(second);
  return part.test(first);
}

/** The package-name rule of find_importers: the specifier equals the name or starts with it followed by "/". */
export const matchesPackage = (spec: string, name: string): boolean => spec === name || spec.startsWith(`${name}/`);

/**
 * Copies `files` (root-relative) from `root` to `copy`: regular files as
 * files, symbolic links as the same links (so realpath leads where it leads in
 * the tree), files reached through a linked folder by that link alone. The
 * links git lists whose real target lies inside the root come along too: the
 * index lists no file under a link's name, but the compiler resolves through it.
 */
export function copyTree(root: string, copy: string, files: readonly string[]): void {
  copyFiles(root, copy, [...files, ...linksListed(root)]);
}

/** The symbolic links `git ls-files` lists in `root` (tracked, and untracked not ignored) whose real target lies inside it. */
function linksListed(root: string): string[] {
  const realRoot = realpathSync(root);
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0');
  return listed.filter((rel) => {
    if (rel === '' || lstatOrNull(join(root, rel))?.isSymbolicLink() !== true) return false;
    let real: string;
    try { real = realpathSync(join(root, rel)); } catch { return false; }
    const inside = relative(realRoot, real);
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
  });
}

function copyFiles(root: string, copy: string, files: readonly string[]): void {
  const isLink = new Map<string, boolean>();
  const linked = (rel: string): boolean => {
    let v = isLink.get(rel);
    if (v === undefined) { v = lstatSync(join(root, rel)).isSymbolicLink(); isLink.set(rel, v); }
    return v;
  };
  for (const f of files) {
    const parts = f.split('/');
    // The first link on the way (the file itself or a folder above it) is recreated; what lies behind it comes with it.
    const at = parts.findIndex((_, i) => linked(parts.slice(0, i + 1).join('/')));
    if (at < 0) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      copyFileSync(join(root, f), join(copy, f));
      continue;
    }
    const link = parts.slice(0, at + 1).join('/');
    if (lstatOrNull(join(copy, link)) !== null) continue;
    mkdirSync(dirname(join(copy, link)), { recursive: true });
    const target = readlinkSync(join(root, link));
    symlinkSync(isAbsolute(target) ? join(copy, relative(realpathSync(root), target)) : target, join(copy, link));
  }
}

function lstatOrNull(abs: string): ReturnType<typeof lstatSync> | null {
  try { return lstatSync(abs); } catch { return null; }
}

/** The oracle's copy of a tree: the indexed files at their paths, workspace packages linked under node_modules. */
export class OracleTree {
  readonly copy: string;
  private readonly base: string;
  private readonly indexed: Set<string>;
  private readonly layouts = new Map<string, BuildLayout>();
  /** Paths of build output the compiler was told exist, and the source (root-relative) each stands for. */
  private readonly virtual = new Map<string, string>();
  private readonly linkRoot: string;
  readonly host: ts.ModuleResolutionHost;
  private readonly caches = new Map<ts.CompilerOptions, ts.ModuleResolutionCache>();
  /** Set while a bare specifier is being resolved (see packagePath). */
  private resolvingBare = false;

  constructor(root: string, files: readonly string[], readonly packages: readonly WorkspacePackage[]) {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), 'evidex-tsoracle-')));
    this.copy = join(this.base, 'repo');
    this.indexed = new Set(files);
    copyTree(root, this.copy, files);
    this.linkRoot = join(this.copy, 'node_modules');
    for (const p of packages) {
      const link = join(this.linkRoot, p.name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(relative(dirname(link), join(this.copy, p.dir)), link, 'dir');
    }
    const isFile = (p: string): boolean => { try { return statSync(p).isFile(); } catch { return false; } };
    const isDir = (p: string): boolean => { try { return statSync(p).isDirectory(); } catch { return false; } };
    this.host = {
      fileExists: (p) => isFile(p) || this.virtualSource(p, isFile, isDir) !== null,
      directoryExists: (p) => isDir(p) || this.virtualDir(p, isDir),
      readFile: (p) => ts.sys.readFile(p),
      realpath: (p) => (this.virtual.has(p) ? p : ts.sys.realpath!(p)),
      getCurrentDirectory: () => this.copy,
      getDirectories: (p) => ts.sys.getDirectories(p),
      useCaseSensitiveFileNames: true,
    };
  }

  /**
   * The workspace package a path of build output lies in, with the path inside
   * it: reached through the package's node_modules link, or — while a bare
   * specifier is resolved, which is when the compiler looks a package up by
   * its own name from inside it — in the package folder itself.
   */
  private packagePath(p: string): { pkg: WorkspacePackage; rel: string } | null {
    if (p.startsWith(`${this.linkRoot}/`)) {
      const rest = p.slice(this.linkRoot.length + 1);
      for (const pkg of this.packages) {
        if (rest.startsWith(`${pkg.name}/`)) return { pkg, rel: rest.slice(pkg.name.length + 1) };
      }
      return null;
    }
    if (!this.resolvingBare) return null;
    let best: { pkg: WorkspacePackage; rel: string } | null = null;
    for (const pkg of this.packages) {
      const dir = join(this.copy, pkg.dir);
      if (p.startsWith(`${dir}/`) && (!best || pkg.dir.length > best.pkg.dir.length)) best = { pkg, rel: p.slice(dir.length + 1) };
    }
    return best;
  }

  private layoutOf(pkg: WorkspacePackage): BuildLayout {
    let l = this.layouts.get(pkg.dir);
    if (!l) { l = buildLayout(join(this.copy, pkg.dir)); this.layouts.set(pkg.dir, l); }
    return l;
  }

  private virtualSource(p: string, isFile: (p: string) => boolean, isDir: (p: string) => boolean): string | null {
    const hit = this.packagePath(p);
    if (!hit) return null;
    const pkgAbs = join(this.copy, hit.pkg.dir);
    const src = sourceForOutput(pkgAbs, hit.rel, this.layoutOf(hit.pkg), isFile, isDir);
    if (src === null) return null;
    // A rootDir above the package (`"rootDir": "../"`) gives a source outside it: the path is the repository's, `..` resolved.
    const target = posix.join(hit.pkg.dir, src);
    this.virtual.set(p, target);
    return target;
  }

  private virtualDir(p: string, isDir: (p: string) => boolean): boolean {
    const hit = this.packagePath(p);
    return hit !== null && sourceDirForOutput(join(this.copy, hit.pkg.dir), hit.rel, this.layoutOf(hit.pkg), isDir) !== null;
  }

  private cacheFor(options: ts.CompilerOptions): ts.ModuleResolutionCache {
    let c = this.caches.get(options);
    if (!c) { c = ts.createModuleResolutionCache(this.copy, (s) => s, options); this.caches.set(options, c); }
    return c;
  }

  /** The module format the compiler gives a file under its options (what `require` vs `import` mode starts from). */
  impliedNodeFormat(fileRel: string, gov: Governing): ts.ResolutionMode {
    return ts.getImpliedNodeFormatForFile(join(this.copy, fileRel), this.cacheFor(gov.options).getPackageJsonInfoCache(), this.host, gov.options);
  }

  resolve(fileRel: string, sf: ts.SourceFile, literal: ts.StringLiteralLike, gov: Governing): Resolution {
    const modeKind = ts.getModeForUsageLocation(sf, literal, gov.options);
    const mode = modeKind === ts.ModuleKind.CommonJS ? 'require' : modeKind === ts.ModuleKind.ESNext ? 'import' : 'none';
    const spec = literal.text;
    this.resolvingBare = isBareSpecifier(spec);
    let r: ts.ResolvedModuleWithFailedLookupLocations;
    try {
      r = ts.resolveModuleName(spec, join(this.copy, fileRel), gov.options, this.host, this.cacheFor(gov.options), undefined, modeKind);
    } finally {
      this.resolvingBare = false;
    }
    const target = this.toRepoPath(r.resolvedModule?.resolvedFileName);
    const unresolved = isBareSpecifier(spec) ? 'package' : 'missing';
    if (target !== null && (inNodeModules(target) || this.throughTreeNodeModules(r.resolvedModule))) return { target: null, unresolved, mode, inNodeModules: target };
    if (target !== null) return { target, unresolved: null, mode, ...(this.virtual.has(r.resolvedModule!.resolvedFileName) ? { mapped: true as const } : {}) };
    return { target: null, unresolved, mode };
  }

  /**
   * Whether the compiler reached a file through a node_modules folder the tree
   * holds (not the links of the workspace packages): a committed link there
   * (vitest's `project-b/node_modules/project-a` → `../../project-a`) leads
   * out of node_modules, so the real path alone does not tell. The path the
   * compiler went by is its answer (a relative specifier through the link) or,
   * after a package lookup, the answer's `originalPath`.
   */
  private throughTreeNodeModules(m: ts.ResolvedModuleFull | undefined): boolean {
    const through = (abs: string | undefined): boolean => {
      if (abs === undefined || !abs.startsWith(`${this.copy}/`)) return false;
      const rel = abs.slice(this.copy.length + 1);
      return inNodeModules(rel) && !this.packages.some((p) => rel.startsWith(`node_modules/${p.name}/`));
    };
    return through(m?.resolvedFileName) || through((m as { originalPath?: string } | undefined)?.originalPath);
  }

  /** A resolved file as a path of the repository, or null when it is not an indexed file. */
  private toRepoPath(resolved: string | undefined): string | null {
    if (resolved === undefined) return null;
    const v = this.virtual.get(resolved);
    if (v !== undefined) return this.indexed.has(v) ? v : null;
    let real: string;
    try { real = realpathSync(resolved); } catch { return null; }
    const rel = relative(this.copy, real).split('\\').join('/');
    return this.indexed.has(rel) ? rel : null;
  }

  dispose(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}
