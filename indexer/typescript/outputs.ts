// Build output a package of the repository names (its `exports`, `types`,
// `main`: `dist/index.d.ts`) but the tree does not hold, mapped to the source
// a developer would open (docs/tools.md, TypeScript rules). A package's build
// layout: its tsconfig.json's `outDir` (read as the compiler reads it,
// `extends` included) with its `rootDir`, then `src/` (a config that
// type-checks the whole package, `rootDir: "."`, is not what a bundler builds
// `dist` from: Redux Toolkit's); and the top folders of
// the paths its package.json names, with `src/` (a bundler's output folder
// need not be the tsconfig's: TanStack's packages type-check into `dist-ts`
// and ship `build/`). A path under one of those out folders, when that folder
// is not in the tree, stands for the same path under the source folder with
// a TypeScript extension — or, when there is none, for that path with its
// leading folders dropped one by one: bundlers put each output variant in a
// folder of its own (`build/modern/`, `build/legacy/`, `dist/esm/`) built
// from the one source tree.
import { posix } from 'node:path';
import { joinRel, type RepoView } from './view.js';

/** One out folder of a package and the folder its sources live in (both relative to the package). */
export interface OutFolder { dir: string; rootDir: string }

/** Where a package's build output goes and its sources live, and the files that say so. */
export interface BuildLayout {
  outs: readonly OutFolder[];
  reads: readonly string[];
}

/**
 * The places under the source folder that `sub` (a path below an out folder)
 * may come from, in order: `sub` itself, then with its leading folders dropped
 * one by one (`modern/x/i.js`, `x/i.js`, `i.js`; for a folder, down to the
 * source folder itself). A folder whose name holds a dot is never dropped: no
 * bundler names a variant so, and the compiler probes a file named in
 * package.json (`dist/index.cjs.js`) as a folder too, which must not become
 * the source root.
 */
function variantPlaces(sub: string, folder: boolean): string[] {
  const parts = sub.split('/');
  const out = [sub];
  for (let k = 1; k <= parts.length - (folder ? 0 : 1); k++) {
    if (parts[k - 1].includes('.')) break;
    out.push(parts.slice(k).join('/'));
  }
  return out;
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

/**
 * `sub` under a package's source folder as a repository path: a `rootDir`
 * above the package (excalidraw's packages emit from `rootDir: "../"` into
 * `dist/types/<package>/…`) leads out of the package folder, so `..` is
 * resolved; null when that climbs above the repository's root.
 */
function underSource(pkgDir: string, rootDir: string, sub: string): string | null {
  const p = posix.normalize(joinRel(pkgDir, posix.join(rootDir, sub)));
  return p === '..' || p.startsWith('../') ? null : p.replace(/\/$/, '').replace(/^\.$/, '');
}

export class BuildOutputs {
  constructor(private readonly view: RepoView, private readonly layoutOf: (pkgDir: string) => BuildLayout) {}

  /** The out folders of the package's layout that `rest` (a path inside the package) lies in, when that folder is not in the tree; in layout order. */
  private missingOutDirs(pkgDir: string, rest: string): OutFolder[] {
    return this.layoutOf(pkgDir).outs.filter((out) => out.dir !== '' && out.dir !== '.' && !out.dir.startsWith('..')
      && (rest === out.dir || rest.startsWith(`${out.dir}/`)) && !this.view.isDir(joinRel(pkgDir, out.dir)));
  }

  /** Every source path output `rest` of the package could stand for, in the order tried, existing or not (what a resolution through it rests on). */
  candidates(pkgDir: string, rest: string): string[] {
    const found: string[] = [];
    for (const out of this.missingOutDirs(pkgDir, rest)) {
      if (rest === out.dir) continue;
      for (const sub of variantPlaces(rest.slice(out.dir.length + 1), false)) {
        for (const [re, exts] of SOURCE_EXTENSIONS) {
          if (!re.test(sub)) continue;
          const stem = sub.replace(re, '');
          for (const ext of exts) {
            const c = underSource(pkgDir, out.rootDir, `${stem}${ext}`);
            if (c !== null) found.push(c);
          }
        }
      }
    }
    return found;
  }

  /** The source file a developer would open for output `rest` of the package in `pkgDir`; null when there is none. */
  sourceFor(pkgDir: string, rest: string): string | null {
    for (const c of this.candidates(pkgDir, rest)) if (this.view.isFile(c)) return c;
    return null;
  }

  /** The source folder for output folder `rest` (`dist` → `src`, `dist/esm` → `src/esm`, else `src`: variantPlaces); null when there is none. */
  sourceDirFor(pkgDir: string, rest: string): string | null {
    for (const out of this.missingOutDirs(pkgDir, rest)) {
      for (const sub of rest === out.dir ? [''] : variantPlaces(rest.slice(out.dir.length + 1), true)) {
        const src = underSource(pkgDir, out.rootDir, sub);
        if (src !== null && this.view.isDir(src)) return src;
      }
    }
    return null;
  }

  /** The folders whose coming or going turns a package's mapping on or off (its out folders), and the files that set its layout. */
  restsOn(pkgDir: string): { folders: string[]; reads: readonly string[] } {
    const layout = this.layoutOf(pkgDir);
    return { folders: layout.outs.map((o) => joinRel(pkgDir, o.dir)), reads: layout.reads };
  }
}
