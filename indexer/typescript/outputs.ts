// Build output a package of the repository names (its `exports`, `types`,
// `main`: `dist/index.d.ts`) but the tree does not hold, mapped to the source
// a developer would open (docs/tools.md, TypeScript rules). A package's build
// layout: its tsconfig.json's `outDir` (read as the compiler reads it,
// `extends` included) with its `rootDir`, else `src/`; without an `outDir`
// inside the package folder, the top folders of the paths its package.json names, with `src/`. A path
// under one of those out folders, when that folder is not in the tree, stands
// for the same path under the source folder with a source extension.
import { posix } from 'node:path';
import { joinRel, type RepoView } from './view.js';

/** Where a package's build output goes and its sources live (folders relative to the package), and the files that say so. */
export interface BuildLayout {
  outDirs: readonly string[];
  rootDir: string;
  reads: readonly string[];
}

/**
 * Each output form and the source forms it is built from, in the order they are
 * taken (docs/tools.md, TypeScript rules): the compiler's own counterpart first
 * (`tsc` emits `.mjs`/`.d.mts` only from `.mts`), then the `.ts`/`.tsx` a
 * bundler (tsup, tsdown, unbuild) emits every form from, then the JavaScript
 * sources the same builds take in (Babel, a bundler, `tsc` under `allowJs`).
 */
const SOURCE_EXTENSIONS: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/\.d\.ts$|\.js$/, ['.ts', '.tsx', '.js', '.jsx']],
  [/\.jsx$/, ['.tsx', '.jsx']],
  [/\.d\.mts$|\.mjs$/, ['.mts', '.ts', '.tsx', '.mjs', '.js', '.jsx']],
  [/\.d\.cts$|\.cjs$/, ['.cts', '.ts', '.tsx', '.cjs', '.js', '.jsx']],
];

/** Every path string in a package.json field (exports' nested condition maps and arrays included). */
export function fieldPaths(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) fieldPaths(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) fieldPaths(x, out);
  return out;
}

export class BuildOutputs {
  constructor(private readonly view: RepoView, private readonly layoutOf: (pkgDir: string) => BuildLayout) {}

  /** The out folder of the package's layout that `rest` (a path inside the package) lies in, when that folder is not in the tree. */
  private missingOutDir(pkgDir: string, rest: string): string | null {
    for (const out of this.layoutOf(pkgDir).outDirs) {
      if (out === '' || out === '.' || out.startsWith('..')) continue;
      if ((rest === out || rest.startsWith(`${out}/`)) && !this.view.isDir(joinRel(pkgDir, out))) return out;
    }
    return null;
  }

  /** Every source path output `rest` of the package could stand for, existing or not (what a resolution through it rests on). */
  candidates(pkgDir: string, rest: string): string[] {
    const out = this.missingOutDir(pkgDir, rest);
    if (out === null || rest === out) return [];
    const sub = rest.slice(out.length + 1);
    const rootDir = this.layoutOf(pkgDir).rootDir;
    const found: string[] = [];
    for (const [re, exts] of SOURCE_EXTENSIONS) {
      if (!re.test(sub)) continue;
      const stem = sub.replace(re, '');
      for (const ext of exts) found.push(joinRel(pkgDir, posix.join(rootDir, `${stem}${ext}`)));
    }
    return found;
  }

  /** The source file a developer would open for output `rest` of the package in `pkgDir`; null when there is none. */
  sourceFor(pkgDir: string, rest: string): string | null {
    for (const c of this.candidates(pkgDir, rest)) if (this.view.isFile(c)) return c;
    return null;
  }

  /** The source folder for output folder `rest` (`dist` → `src`, `dist/esm` → `src/esm`); null when there is none. */
  sourceDirFor(pkgDir: string, rest: string): string | null {
    const out = this.missingOutDir(pkgDir, rest);
    if (out === null) return null;
    const src = joinRel(pkgDir, posix.join(this.layoutOf(pkgDir).rootDir, rest.slice(out.length + 1)));
    return this.view.isDir(src) ? src : null;
  }

  /** The folders whose coming or going turns a package's mapping on or off (its out folders), and the files that set its layout. */
  restsOn(pkgDir: string): { folders: string[]; reads: readonly string[] } {
    const layout = this.layoutOf(pkgDir);
    return { folders: layout.outDirs.map((d) => joinRel(pkgDir, d)), reads: layout.reads };
  }
}
