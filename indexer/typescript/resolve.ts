// Import statements of TypeScript and JavaScript files resolved as the
// compiler resolves them (docs/tools.md, TypeScript rules): the governing
// config (configs.ts), the resolution mode the compiler gives the statement,
// `ts.resolveModuleName` over a host that sees only indexed files (host.ts).
// Runs on the main thread from the statements as parsed, so a change to a
// config, a package.json or the set of files re-resolves without re-parsing;
// each file's answer says what it rested on (TsResolution), so the builder
// knows which files a later change can affect.
import type TS from 'typescript';
import type { TsImport, TsImportForm, Unresolved } from '../model.js';
import { Configs, type ParsedConfig } from './configs.js';
import { RepoHost } from './host.js';
import { typescript, type Ts } from './load.js';
import { BuildOutputs } from './outputs.js';
import { dirOf, existenceKey, joinRel, type FolderEntries, type RepoView } from './view.js';
import { fileTarget, specTargets } from './targets.js';
import { declaredDependency, declaresPackages, isBareSpecifier, packageNameOf, workspacePackages, type WorkspacePackages } from './workspaces.js';

/** A statement as resolved: its targets (docs/architecture.md, TypeScript resolution) and, when it reached no file, why. */
export interface ResolvedImport { targets: string[]; why?: Unresolved }

/** Existence keys and read files some paths the compiler looked at add to a file's TsResolution. */
interface Footprint { probes: readonly string[]; reads: readonly string[] }

/** What a file's resolution rested on (FORMAT.md, `tsres`). */
export interface Resting { cfg: string; probes: string[]; reads: string[] }

/** What the resolver reads of the compiler beyond its public API (present in the pinned 5.x). */
interface ResolveInternals {
  getImpliedNodeFormatForFileWorker(fileName: string, cache: TS.PackageJsonInfoCache | undefined, host: TS.ModuleResolutionHost,
    options: TS.CompilerOptions): TS.ResolutionMode | { impliedNodeFormat: TS.ResolutionMode; packageJsonLocations: readonly string[]; packageJsonScope: unknown } | undefined;
}
interface LookupLocations { failedLookupLocations?: readonly string[]; affectingLocations?: readonly string[] }

/**
 * One string literal in each syntax an import is written in, with its parents:
 * the compiler decides a statement's resolution mode from the literal's place
 * in the tree (getModeForUsageLocation), so each statement is asked about
 * through the literal of its form.
 */
function usageLiterals(ts: Ts): Record<TsImportForm, TS.StringLiteralLike> {
  const sf = ts.createSourceFile('/usage.ts',
    'import "m"; export * from "m"; import a = require("m"); require("m"); import("m"); type T = import("m");',
    ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const s = sf.statements;
  const call = (i: number) => ((s[i] as TS.ExpressionStatement).expression as TS.CallExpression).arguments[0] as TS.StringLiteral;
  return {
    import: (s[0] as TS.ImportDeclaration).moduleSpecifier as TS.StringLiteral,
    export: (s[1] as TS.ExportDeclaration).moduleSpecifier as TS.StringLiteral,
    equals: ((s[2] as TS.ImportEqualsDeclaration).moduleReference as TS.ExternalModuleReference).expression as TS.StringLiteral,
    require: call(3),
    call: call(4),
    type: (((s[5] as TS.TypeAliasDeclaration).type as TS.ImportTypeNode).argument as TS.LiteralTypeNode).literal as TS.StringLiteral,
    jsdoc: jsdocTagLiteral(ts),
  };
}

/** The specifier of a JSDoc `@import` tag, with its parents (a tag is read only in a JavaScript file). */
function jsdocTagLiteral(ts: Ts): TS.StringLiteral {
  const sf = ts.createSourceFile('/usage.js', '/** @import { a } from "m" */\nx;', ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const tag = ts.getJSDocTags(sf.statements[0]).find(ts.isJSDocImportTag);
  if (!tag) throw new Error('the compiler parsed no @import tag in its usage file');
  return tag.moduleSpecifier as TS.StringLiteral;
}

/** Whether `spec` matches a key of `paths` (`@/*`, `~lib`), so a miss is a missing file, not a package. */
function matchesPaths(spec: string, paths: TS.MapLike<string[]> | undefined): boolean {
  if (!paths) return false;
  for (const key of Object.keys(paths)) {
    const star = key.indexOf('*');
    if (star < 0 ? spec === key : spec.length >= key.length - 1 && spec.startsWith(key.slice(0, star)) && spec.endsWith(key.slice(star + 1))) return true;
  }
  return false;
}

/** Keys of `probes` a file's own folder chain already implies (its folders' package.json, tsconfig.json and jsconfig.json): not stored. */
function impliedByChain(file: string): Set<string> {
  const out = new Set<string>();
  for (let dir = dirOf(file); ; dir = dirOf(dir)) {
    for (const n of ['package', 'tsconfig', 'jsconfig']) out.add(joinRel(dir, n));
    if (dir === '') return out;
  }
}

/** The view a resolver works against, switched per batch (the host and parsed configs keep this one object). */
class CurrentView implements RepoView {
  constructor(public current: RepoView) {}
  isFile(rel: string): boolean { return this.current.isFile(rel); }
  isDir(rel: string): boolean { return this.current.isDir(rel); }
  text(rel: string): string | undefined { return this.current.text(rel); }
  entries(rel: string): FolderEntries { return this.current.entries(rel); }
  filesNamed(name: string): Iterable<string> { return this.current.filesNamed(name); }
  realPath(rel: string): string { return this.current.realPath(rel); }
  linkedTo(rel: string): string { return this.current.linkedTo(rel); }
}

/**
 * Resolves files' statements against a view of the repository. Parsed
 * configs and the package map are kept across views and forgotten as the
 * files they rest on change (changed()); module resolution caches last one
 * batch (begin()), since any change of the file set can change them.
 */
export class TsResolver {
  private readonly view: CurrentView;
  private readonly host: RepoHost;
  private readonly outputs: BuildOutputs;
  private readonly configs: Configs;
  private packagesValue: WorkspacePackages | null = null;
  private readonly caches = new Map<string, TS.ModuleResolutionCache>();
  private literals: Record<TsImportForm, TS.StringLiteralLike> | null = null;
  /** Per batch: what each list of looked-at paths adds to a file's TsResolution (footprintOf). */
  private probeFootprints = new WeakMap<readonly string[], Footprint>();
  private readFootprints = new WeakMap<readonly string[], Footprint>();

  constructor(private readonly root: string, view: RepoView) {
    this.view = new CurrentView(view);
    this.outputs = new BuildOutputs(this.view, (pkgDir) => this.configs.buildLayout(pkgDir));
    this.host = new RepoHost(root, this.view, () => this.packages, this.outputs);
    this.configs = new Configs(this.view, this.host);
  }

  /** The repository's packages (workspaces.ts), read on first use after a change to what declares them. */
  get packages(): WorkspacePackages {
    return (this.packagesValue ??= workspacePackages(this.view));
  }

  /**
   * Starts a batch of resolutions against `view` (the store, or the store
   * with an update laid over it). The module-resolution caches of the last
   * batch are kept only with `sameTree`: when nothing the compiler can look
   * at changed since (no file came or went, no text it read changed).
   */
  begin(view: RepoView, sameTree = false): void {
    this.view.current = view;
    if (sameTree) return;
    this.caches.clear();
    this.probeFootprints = new WeakMap();
    this.readFootprints = new WeakMap();
  }

  /**
   * A file changed (`text`: new content; `exists`: it appeared or disappeared):
   * forgets the parsed configs and the package map that rest on it. Called
   * before begin() with the view that holds the change.
   */
  changed(path: string, how: 'text' | 'exists'): void {
    if (how === 'text') this.configs.invalidateText(path); else this.configs.invalidateExistence(path);
    if (declaresPackages(path)) this.packagesValue = null;
  }

  /** Forgets everything parsed (the view it came from is gone). */
  reset(): void {
    this.configs.clear();
    this.packagesValue = null;
    this.caches.clear();
  }

  /**
   * The module-resolution cache for files of one folder under one config.
   * One per folder, not one per config: the compiler's cache hands a bare
   * specifier's result (with its failed lookups) to files of other folders,
   * so what a file rested on would depend on which file was resolved first.
   * Per folder, it does not: every file of a folder looks in the same places.
   * The package.json cache is shared by the folders of a config.
   */
  private cacheFor(cfg: ParsedConfig | null, options: TS.CompilerOptions, dir: string): TS.ModuleResolutionCache {
    const key = `${cfg?.rel ?? ''}\0${dir}`;
    let c = this.caches.get(key);
    if (!c) {
      const shared = this.caches.get(`${cfg?.rel ?? ''}\0`);
      c = typescript().createModuleResolutionCache(this.root, (f) => f, options, shared?.getPackageJsonInfoCache());
      if (!shared) this.caches.set(`${cfg?.rel ?? ''}\0`, c);
      this.caches.set(key, c);
    }
    return c;
  }

  /** The statements of `file` resolved, and what that rested on. */
  resolveFile(file: string, raw: readonly TsImport[]): { imports: ResolvedImport[]; resting: Resting } {
    const ts = typescript();
    const host = this.host;
    const { config, consulted } = this.configs.governing(file);
    const options = config?.options ?? this.configs.defaultOptions();
    const cache = this.cacheFor(config, options, dirOf(file));
    const abs = host.abs(file);
    const probes = new Set<string>([existenceKey(file)]);
    const reads = new Set<string>();
    for (const c of consulted) for (const r of c.reads) reads.add(r);
    const lookups = (ls: readonly string[] | undefined, asReads: boolean): void => {
      if (!ls || ls.length === 0) return;
      const f = this.footprintOf(ls, asReads);
      for (const k of f.probes) probes.add(k);
      for (const r of f.reads) reads.add(r);
    };
    const implied = (ts as unknown as ResolveInternals).getImpliedNodeFormatForFileWorker(abs, cache.getPackageJsonInfoCache(), host, options);
    const format = typeof implied === 'object' ? implied : { impliedNodeFormat: implied, packageJsonLocations: [], packageJsonScope: undefined };
    for (const l of format.packageJsonLocations) (this.view.isFile(host.repoPathOf(l) ?? '') ? lookups([l], true) : lookups([l], false));
    const usageFile = { fileName: abs, impliedNodeFormat: format.impliedNodeFormat, packageJsonScope: format.packageJsonScope } as unknown as TS.SourceFile;
    const literals = (this.literals ??= usageLiterals(ts));
    const imports = raw.map((imp): ResolvedImport => host.inBareLookup(isBareSpecifier(imp.spec), (): ResolvedImport => {
      const mode = imp.mode === 'require' ? ts.ModuleKind.CommonJS : imp.mode === 'import' ? ts.ModuleKind.ESNext
        : ts.getModeForUsageLocation(usageFile, literals[imp.form], options);
      const r = ts.resolveModuleName(imp.spec, abs, options, host, cache, undefined, mode) as TS.ResolvedModuleWithFailedLookupLocations & LookupLocations;
      lookups(r.failedLookupLocations, false);
      lookups(r.affectingLocations, true);
      const targets: string[] = [];
      const resolved = r.resolvedModule;
      const to = resolved ? host.repoPathOf(resolved.resolvedFileName) : null;
      if (resolved) {
        lookups([resolved.resolvedFileName], false);
        const original = (resolved as { originalPath?: string }).originalPath;
        if (original) lookups([original], false);
      }
      if (to !== null && this.view.isFile(to)) {
        // Through a symbolic link, the file is where the link leads (when that is an indexed file too).
        const real = this.view.realPath(to);
        if (real !== to) { probes.add(existenceKey(real)); reads.add(to); }
        targets.push(fileTarget(real));
      }
      targets.push(...specTargets(imp.spec));
      if (targets.length && targets[0].startsWith('./')) return { targets };
      return { targets, why: this.whyUnresolved(imp.spec, options, config, file, reads) };
    }));
    const chain = impliedByChain(file);
    return {
      imports,
      resting: { cfg: config?.rel ?? '', probes: [...probes].filter((k) => !chain.has(k)).sort(), reads: [...reads].sort() },
    };
  }

  /**
   * What a list of paths the compiler looked at (failed lookups, affecting
   * locations) adds to a file's TsResolution. The compiler's caches hand the
   * same list to every file resolving the same specifier from one folder, so
   * each list is worked out once per batch.
   */
  private footprintOf(paths: readonly string[], asReads: boolean): Footprint {
    const memo = asReads ? this.readFootprints : this.probeFootprints;
    let f = memo.get(paths);
    if (!f) {
      const probes = new Set<string>();
      const reads = new Set<string>();
      for (const l of paths) {
        const p = this.host.place(l);
        if (p.at !== 'repo' && p.at !== 'package') continue;
        if (asReads) { const r = this.host.repoPathOf(l); if (r !== null) reads.add(r); }
        for (const k of this.host.keysOf(l)) probes.add(k);
        if (p.at === 'package') {
          const rests = this.outputs.restsOn(p.pkgDir);
          for (const r of rests.reads) reads.add(r);
          for (const d of rests.folders) probes.add(d);
        }
      }
      f = { probes: [...probes], reads: [...reads] };
      memo.set(paths, f);
    }
    return f;
  }

  /**
   * Why a statement reached no file of the repository (model.ts, Unresolved).
   * A package name a `paths` pattern also matches (`@vue/*` over `@vue/repl`)
   * is an alias written wrong unless a package.json above the file declares
   * it: the compiler, finding no file by `paths`, looks in node_modules, where
   * an install puts it. The package.json files read join `reads`.
   */
  private whyUnresolved(spec: string, options: TS.CompilerOptions, config: ParsedConfig | null, file: string, reads: Set<string>): Unresolved {
    const pkg = packageNameOf(spec);
    if (pkg !== null && !this.packages.has(pkg)) {
      if (!matchesPaths(spec, options.paths)) return 'external';
      const dep = declaredDependency(this.view, file, pkg);
      for (const r of dep.read) reads.add(r);
      if (dep.declared) return 'external';
    }
    return config?.unreadable ? 'config' : 'missing';
  }
}
