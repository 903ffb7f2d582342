// Which tsconfig.json / jsconfig.json governs a file, found as the editor's
// TypeScript server finds it (docs/tools.md, Resolution): the nearest config
// above the file whose file list takes it in — or, when it does not, the first
// of its referenced projects (at any depth) that does, as tsserver 5.x looks
// into the references of any config, a solution-style one (`"files": []` with
// references) having only those — else the next one further up, else the
// compiler's defaults with `allowJs` and `moduleResolution: bundler`. Every config is read by the compiler itself
// (`ts.parseJsonConfigFileContent` over `ts.sys`, `extends` and the
// `include`/`exclude`/`files` lists included) on the oracle's real copy.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export interface Governing {
  /** The config's path relative to the tree's root, or null for the defaults. */
  config: string | null;
  options: ts.CompilerOptions;
}

/**
 * The compiler's defaults with `allowJs` and `moduleResolution: bundler`, for a
 * file no config takes in. The compiler accepts bundler resolution only with
 * `module` set to `preserve` or `es2015` and later (TS5095), and its default
 * `module` (CommonJS, from the default target) would resolve every `import`
 * with the `require` condition, which is no bundler's reading; `preserve` is
 * the module setting that implies bundler resolution.
 */
export const DEFAULT_OPTIONS: ts.CompilerOptions = {
  allowJs: true, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.Preserve,
};

interface Parsed { path: string; options: ts.CompilerOptions; fileNames: Set<string>; references: string[] }

export class ConfigFinder {
  private readonly parsed = new Map<string, Parsed | null>();
  /** Options objects by config, so one resolution cache serves every file of a config. */
  readonly defaults: Governing = { config: null, options: DEFAULT_OPTIONS };

  /** `root`: the absolute path of the oracle's copy; configs above it are never read. */
  constructor(private readonly root: string) {}

  governing(fileAbs: string): Governing {
    for (let dir = dirname(fileAbs); ; dir = dirname(dir)) {
      for (const name of ['tsconfig.json', 'jsconfig.json']) {
        const path = join(dir, name);
        if (!existsSync(path)) continue;
        const hit = this.takes(path, fileAbs, new Set());
        if (hit) return { config: relative(this.root, hit.path).split('\\').join('/'), options: hit.options };
      }
      if (dir === this.root || dirname(dir) === dir) return this.defaults;
    }
  }

  /** Every config read so far, by root-relative path (for reports). */
  configsRead(): string[] {
    return [...this.parsed.keys()].map((p) => relative(this.root, p));
  }

  private takes(configPath: string, fileAbs: string, visiting: Set<string>): Parsed | null {
    if (visiting.has(configPath)) return null;
    visiting.add(configPath);
    const c = this.read(configPath);
    if (!c) return null;
    if (c.fileNames.has(fileAbs)) return c;
    // As the TypeScript server does (tryFindDefaultConfiguredProjectFromReferences): a config that does not take the
    // file in hands it to its referenced projects, depth-first — a solution-style config (no files of its own) always.
    for (const ref of c.references) {
      const hit = this.takes(ref, fileAbs, visiting);
      if (hit) return hit;
    }
    return null;
  }

  private read(path: string): Parsed | null {
    const cached = this.parsed.get(path);
    if (cached !== undefined) return cached;
    const source = ts.readJsonConfigFile(path, ts.sys.readFile);
    const cmd = ts.parseJsonSourceFileConfigFileContent(source, ts.sys, dirname(path), undefined, path);
    const references = (cmd.projectReferences ?? []).map((r) => {
      const p = r.path;
      return existsSync(p) && statSync(p).isDirectory() ? join(p, 'tsconfig.json') : p;
    }).filter((p) => existsSync(p));
    const parsed: Parsed = { path, options: cmd.options, fileNames: new Set(cmd.fileNames), references };
    this.parsed.set(path, parsed);
    return parsed;
  }
}
