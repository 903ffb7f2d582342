// Build output a package of the repository names (its `exports`, `types`,
// `main`: `dist/index.d.ts`) but the tree does not hold, mapped to the source
// a developer would open (docs/tools.md, TypeScript rules): through the
// package's tsconfig (`outDir` or `declarationDir` back to `rootDir`), else —
// or when that names no file — the same path under `src/`, each time with a
// TypeScript extension.
import { dirOf, joinRel, type RepoView } from './view.js';

/** What outputs.ts needs of a package's tsconfig.json (folders repository-relative). */
export interface OutputDirs {
  outDirs: string[];     // outDir and declarationDir, where set
  rootDir: string;       // rootDir, else the common folder of its source files, else the package folder
  reads: readonly string[]; // the files the config rests on
}

/** Output extensions and the source extensions each may come from, in the order tried. */
const FLAVOURS: ReadonlyArray<[ends: readonly string[], sources: readonly string[]]> = [
  [['.d.mts', '.mjs', '.mts'], ['.mts', '.ts', '.tsx']],
  [['.d.cts', '.cjs', '.cts'], ['.cts', '.ts', '.tsx']],
  [['.d.ts', '.js', '.jsx', '.ts', '.tsx'], ['.ts', '.tsx']],
];

/** `a/b.d.ts` → [`a/b`, ['.ts', '.tsx']]; null for a path that is no script or declaration. */
function stemAndSources(path: string): [string, readonly string[]] | null {
  for (const [ends, sources] of FLAVOURS) {
    for (const end of ends) if (path.endsWith(end)) return [path.slice(0, -end.length), sources];
  }
  return null;
}

function under(path: string, dir: string): string | null {
  if (dir === '') return path;
  return path === dir ? '' : path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : null;
}

export class BuildOutputs {
  constructor(private readonly view: RepoView, private readonly dirsOf: (pkgDir: string) => OutputDirs | null) {}

  /**
   * Where output `rest` (a path inside the package folder) may come from:
   * [source folder, path inside it] pairs, most likely first — through the
   * package's tsconfig, then (a package its tsconfig does not build, say one
   * bundled by another tool) under `src/`.
   */
  private origins(pkgDir: string, rest: string): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    const cfg = this.dirsOf(pkgDir);
    for (const dir of cfg?.outDirs ?? []) {
      const inside = under(joinRel(pkgDir, rest), dir);
      if (inside !== null && inside !== '') out.push([cfg!.rootDir, inside]);
    }
    const segs = rest.split('/');
    const src = joinRel(pkgDir, 'src');
    // dist/x.js → src/x.ts; dist/esm/x.js → src/x.ts too (one build per module format).
    for (let drop = 1; drop <= 2 && drop < segs.length; drop++) if (segs[0] !== 'src') out.push([src, segs.slice(drop).join('/')]);
    return out;
  }

  /** Every source path `rest` could stand for, existing or not (what a resolution through it rests on). */
  candidates(pkgDir: string, rest: string): string[] {
    const out: string[] = [];
    for (const [dir, inside] of this.origins(pkgDir, rest)) {
      const sa = stemAndSources(inside);
      if (sa) for (const ext of sa[1]) out.push(joinRel(dir, sa[0] + ext));
    }
    return out;
  }

  /** The source file a developer would open for output `rest` of the package in `pkgDir`; null when there is none. */
  sourceFor(pkgDir: string, rest: string): string | null {
    for (const c of this.candidates(pkgDir, rest)) if (this.view.isFile(c)) return c;
    return null;
  }

  /** The source folder for output folder `rest` (`dist` → `src`); null when there is none. */
  sourceDirFor(pkgDir: string, rest: string): string | null {
    for (const [dir, inside] of this.origins(pkgDir, `${rest}/x`)) {
      const d = dirOf(joinRel(dir, inside));
      if (this.view.isDir(d)) return d;
    }
    return null;
  }

  /** The files whose text decides the mapping of a package's output (its tsconfig and what it extends). */
  readsFor(pkgDir: string): readonly string[] {
    return this.dirsOf(pkgDir)?.reads ?? [joinRel(pkgDir, 'tsconfig.json')];
  }
}
