// tsconfig.json / jsconfig.json files as the compiler reads them, and which
// one governs a file, found as the editor's TypeScript server finds it
// (docs/tools.md, TypeScript rules): the nearest config above the file whose
// file list (`files`, `include`, `exclude`, after `extends`) takes it in, or
// a project it references that does; else the next one further up; else the
// compiler's defaults with `allowJs` and `moduleResolution: bundler`.
// Parsed configs are kept until a file they rest on changes (invalidate*).
import type TS from 'typescript';
import type { RepoHost } from './host.js';
import { typescript } from './load.js';
import { fieldPaths, type BuildLayout, type OutFolder } from './outputs.js';
import { posix } from 'node:path';
import { dirOf, joinRel, type RepoView } from './view.js';

export interface ParsedConfig {
  /** The config file, repository-relative. */
  rel: string;
  options: TS.CompilerOptions;
  /** The files its file list takes in (repository-relative). */
  fileNames: ReadonlySet<string>;
  /** The configs it references (`references`), repository-relative. */
  references: readonly string[];
  /** Its JSON could not be parsed, or a config it extends could not be read. */
  unreadable: boolean;
  /** The files it rests on: itself, what it extends, what it looked for and did not find. */
  reads: readonly string[];
  /** Folders whose files its `include` patterns list (recursive or not): a file appearing there may join its file list. */
  wildcardDirs: ReadonlyArray<{ dir: string; recursive: boolean }>;
}

/** The names a config may have, in the order the TypeScript server looks for them in each folder. */
export const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'] as const;

/** Diagnostics that mean a config it extends could not be read (file not found, cannot read, not a relative or rooted path). */
const UNREADABLE_EXTENDS = new Set([5083, 6053, 18001]);

export class Configs {
  private readonly parsed = new Map<string, ParsedConfig>();
  /** Build layouts of packages (buildLayout), forgotten with what they rest on. */
  private readonly layouts = new Map<string, BuildLayout>();
  private extendedCache = new Map<string, TS.ExtendedConfigCacheEntry>();
  private defaults: TS.CompilerOptions | null = null;

  constructor(private readonly view: RepoView, private readonly host: RepoHost) {}

  /** The compiler's defaults with allowJs and moduleResolution: bundler, and the module that implies (no config governs the file). */
  defaultOptions(): TS.CompilerOptions {
    const ts = typescript();
    // Bundler resolution is valid only with `module` preserve or es2015+ (TS5095), and the default module (CommonJS)
    // would resolve every import with `require` conditions, no bundler's reading: preserve is the module bundler implies.
    return (this.defaults ??= { allowJs: true, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.Preserve });
  }

  /** The config at `rel` as the compiler reads it; null when no such file is indexed. */
  get(rel: string): ParsedConfig | null {
    if (!this.view.isFile(rel)) return null;
    let c = this.parsed.get(rel);
    // Read as it is, whatever lookup asked for it first: one met during a bare specifier's lookup (inBareLookup) saw its own
    // package's missing output folders through the package's build layout, which reads this config again, before it is kept:
    // a trpc checkout's batch parsed packages/react-query/tsconfig.json 7,749 times, nested 912 deep, where a cold build parses it once.
    if (!c) { c = this.host.inBareLookup(false, () => this.parse(rel)); this.parsed.set(rel, c); }
    return c;
  }

  private parse(rel: string): ParsedConfig {
    const ts = typescript();
    const abs = this.host.abs(rel);
    this.host.startNoting();
    const json = ts.readJsonConfigFile(abs, () => this.view.text(rel) ?? '');
    const cmd = ts.parseJsonSourceFileConfigFileContent(json, this.host, this.host.abs(dirOf(rel)), undefined, abs,
      undefined, undefined, this.extendedCache);
    const touched = this.host.stopNoting();
    touched.add(rel);
    for (const ext of json.extendedSourceFiles ?? []) {
      const r = this.host.repoPathOf(ext);
      if (r !== null) touched.add(r);
    }
    const toRel = (p: string): string | null => this.host.repoPathOf(p);
    const fileNames = new Set<string>();
    for (const f of cmd.fileNames) { const r = toRel(f); if (r !== null) fileNames.add(r); }
    const references: string[] = [];
    for (const ref of cmd.projectReferences ?? []) { const r = toRel(ts.resolveProjectReferencePath(ref)); if (r !== null) references.push(r); }
    const wildcardDirs: Array<{ dir: string; recursive: boolean }> = [];
    for (const [dir, flags] of Object.entries(cmd.wildcardDirectories ?? {})) {
      const r = toRel(dir);
      if (r !== null) wildcardDirs.push({ dir: r, recursive: (flags & ts.WatchDirectoryFlags.Recursive) !== 0 });
    }
    const parseErrors = (json as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics ?? [];
    const unreadable = parseErrors.length > 0 || cmd.errors.some((d) => UNREADABLE_EXTENDS.has(d.code));
    return { rel, options: cmd.options, fileNames, references, unreadable, reads: [...touched], wildcardDirs };
  }

  /**
   * The config that governs `file` (null: the defaults), and every config
   * looked at on the way, whose text the answer rests on.
   */
  governing(file: string): { config: ParsedConfig | null; consulted: ParsedConfig[] } {
    const consulted: ParsedConfig[] = [];
    for (let dir = dirOf(file); ; dir = dirOf(dir)) {
      for (const name of CONFIG_NAMES) {
        const cfg = this.get(joinRel(dir, name));
        if (!cfg) continue;
        consulted.push(cfg);
        if (cfg.fileNames.has(file)) return { config: cfg, consulted };
        const viaRef = this.inReferences(cfg, file, new Set([cfg.rel]), consulted);
        if (viaRef) return { config: viaRef, consulted };
      }
      if (dir === '') return { config: null, consulted };
    }
  }

  /** A project `cfg` references (at any depth) whose file list takes `file` in. */
  private inReferences(cfg: ParsedConfig, file: string, seen: Set<string>, consulted: ParsedConfig[]): ParsedConfig | null {
    for (const ref of cfg.references) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      const r = this.get(ref);
      if (!r) continue;
      consulted.push(r);
      if (r.fileNames.has(file)) return r;
      const deeper = this.inReferences(r, file, seen, consulted);
      if (deeper) return deeper;
    }
    return null;
  }

  /**
   * The build layout of the package in `pkgDir` (outputs.ts): its
   * tsconfig.json's `outDir`, when inside the package folder, with its
   * `rootDir` and then `src`; then the other top folders of the paths its
   * package.json's `exports`, `types`, `typings`, `main` and `module` name,
   * with `src`.
   */
  buildLayout(pkgDir: string): BuildLayout {
    let layout = this.layouts.get(pkgDir);
    if (layout) return layout;
    const cfgPath = joinRel(pkgDir, 'tsconfig.json');
    const pkgPath = joinRel(pkgDir, 'package.json');
    const cfg = this.get(cfgPath);
    const inPackage = (p: string | undefined): string | null => {
      const r = p === undefined ? null : this.host.relOf(p);
      return r === null ? null : posix.relative(pkgDir, r);
    };
    // An outDir outside the package (trpc's packages inherit the root's `./dist`) holds nothing the package's fields can name.
    const outDir = inPackage(cfg?.options.outDir);
    const ownOutDir = outDir !== null && outDir !== '..' && !outDir.startsWith('../') ? outDir : null;
    const reads = [...(cfg?.reads ?? [cfgPath]), pkgPath];
    const rootDir = inPackage(cfg?.options.rootDir) ?? 'src';
    // Then `src`: a config type-checking the whole package (`rootDir: "."`, Redux Toolkit's) is not what a bundler builds `dist` from.
    const outs: OutFolder[] = ownOutDir === null ? [] : rootDir === 'src' ? [{ dir: ownOutDir, rootDir }] : [{ dir: ownOutDir, rootDir }, { dir: ownOutDir, rootDir: 'src' }];
    let pkg: Record<string, unknown> | undefined;
    try { pkg = JSON.parse(this.view.text(pkgPath) ?? 'null') ?? undefined; } catch { pkg = undefined; }
    const named = ['exports', 'types', 'typings', 'main', 'module'].flatMap((k) => fieldPaths(pkg?.[k]));
    const tops = named.map((p) => p.replace(/^\.\//, '').split('/')).filter((s) => s.length > 1 && s[0] !== '' && s[0] !== '..').map((s) => s[0]);
    for (const dir of new Set(tops)) if (!outs.some((o) => o.dir === dir)) outs.push({ dir, rootDir: 'src' });
    layout = { outs, reads };
    this.layouts.set(pkgDir, layout);
    return layout;
  }

  /** Forgets the configs that rest on `path`, whose text changed. */
  invalidateText(path: string): void {
    this.drop((c) => c.reads.includes(path));
    this.dropLayouts(path);
  }

  /** Forgets the configs whose file list or reading a file appearing or disappearing at `path` can change. */
  invalidateExistence(path: string): void {
    const dir = dirOf(path);
    this.dropLayouts(path);
    this.drop((c) => c.reads.includes(path) || c.fileNames.has(path)
      || c.wildcardDirs.some((w) => (w.recursive ? w.dir === '' || dir === w.dir || dir.startsWith(`${w.dir}/`) : dir === w.dir)));
  }

  private drop(pred: (c: ParsedConfig) => boolean): void {
    let any = false;
    for (const [rel, c] of this.parsed) if (pred(c)) { this.parsed.delete(rel); any = true; }
    // What a config extends is cached by path across configs: start that afresh too; and the layouts read from configs.
    if (any) { this.extendedCache = new Map(); this.layouts.clear(); }
  }

  /** Forgets the build layouts that rest on `path` (a package.json or config that changed, came or went). */
  private dropLayouts(path: string): void {
    for (const [dir, l] of this.layouts) if (l.reads.includes(path)) this.layouts.delete(dir);
  }

  /** Forgets every parsed config. */
  clear(): void {
    this.parsed.clear();
    this.layouts.clear();
    this.extendedCache = new Map();
  }
}
