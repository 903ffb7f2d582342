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
import type { OutputDirs } from './outputs.js';
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
  private extendedCache = new Map<string, TS.ExtendedConfigCacheEntry>();
  private defaults: TS.CompilerOptions | null = null;

  constructor(private readonly view: RepoView, private readonly host: RepoHost) {}

  /** The compiler's defaults with allowJs and moduleResolution: bundler (no config governs the file). */
  defaultOptions(): TS.CompilerOptions {
    const ts = typescript();
    return (this.defaults ??= { allowJs: true, moduleResolution: ts.ModuleResolutionKind.Bundler });
  }

  /** The config at `rel` as the compiler reads it; null when no such file is indexed. */
  get(rel: string): ParsedConfig | null {
    if (!this.view.isFile(rel)) return null;
    let c = this.parsed.get(rel);
    if (!c) { c = this.parse(rel); this.parsed.set(rel, c); }
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
   * The output and source folders of the package in `pkgDir`, from its
   * tsconfig.json (outputs.ts); null when it has none or names no output folder.
   */
  outputDirs(pkgDir: string): OutputDirs | null {
    const cfg = this.get(joinRel(pkgDir, 'tsconfig.json'));
    if (!cfg) return null;
    const o = cfg.options;
    const rel = (p: string | undefined): string | null => (p === undefined ? null : this.host.repoPathOf(p));
    const outDirs = [rel(o.outDir), rel(o.declarationDir)].filter((d): d is string => d !== null);
    if (outDirs.length === 0) return null;
    return { outDirs, rootDir: rel(o.rootDir) ?? commonFolder([...cfg.fileNames].filter((f) => !/\.d\.[cm]?ts$/.test(f))) ?? pkgDir, reads: cfg.reads };
  }

  /** Forgets the configs that rest on `path`, whose text changed. */
  invalidateText(path: string): void {
    this.drop((c) => c.reads.includes(path));
  }

  /** Forgets the configs whose file list or reading a file appearing or disappearing at `path` can change. */
  invalidateExistence(path: string): void {
    const dir = dirOf(path);
    this.drop((c) => c.reads.includes(path) || c.fileNames.has(path)
      || c.wildcardDirs.some((w) => (w.recursive ? w.dir === '' || dir === w.dir || dir.startsWith(`${w.dir}/`) : dir === w.dir)));
  }

  private drop(pred: (c: ParsedConfig) => boolean): void {
    let any = false;
    for (const [rel, c] of this.parsed) if (pred(c)) { this.parsed.delete(rel); any = true; }
    // What a config extends is cached by path across configs: start that afresh too.
    if (any) this.extendedCache = new Map();
  }

  /** Forgets every parsed config. */
  clear(): void {
    this.parsed.clear();
    this.extendedCache = new Map();
  }
}

/** The deepest folder holding every path (null for none). */
function commonFolder(paths: readonly string[]): string | null {
  if (paths.length === 0) return null;
  let common = dirOf(paths[0]).split('/');
  for (const p of paths) {
    const segs = dirOf(p).split('/');
    let i = 0;
    while (i < common.length && i < segs.length && common[i] === segs[i]) i++;
    common = common.slice(0, i);
  }
  return common.join('/');
}
