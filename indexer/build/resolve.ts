// Module names and resolved import targets of a Python file depend on which
// folders are packages (hold an indexed __init__.py or __init__.pyi). They are computed here,
// on the main thread, from the raw imports the parser produced — so when a
// package appears or disappears they are recomputed without re-parsing.
import type { PyImport } from '../model.js';
import { importTargets, isPackageInit, moduleNamesOf } from '../python/modules.js';
import type { ImportRec } from '../store/store.js';
import { parentOf } from '../discover/rules.js';

/** The files whose presence makes `dir` ('' = the root) a package. */
export function initFilesOf(dir: string): string[] {
  const at = dir === '' ? '' : `${dir}/`;
  return [`${at}__init__.py`, `${at}__init__.pyi`];
}

export function packageDirsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) if (isPackageInit(p)) dirs.add(parentOf(p));
  return dirs;
}

export function resolvePython(path: string, raw: readonly PyImport[], pkgDirs: ReadonlySet<string>): { mods: string[]; imports: ImportRec[] } {
  const isPkg = (d: string): boolean => pkgDirs.has(d);
  return {
    mods: moduleNamesOf(path, isPkg),
    imports: raw.map((imp) => ({ start: imp.start, end: imp.end, targets: importTargets(imp, path, isPkg), raw: imp })),
  };
}

/** True when a file under `dir` ('' = everywhere) may change its names when dir's package status flips. */
export function isUnder(path: string, dir: string): boolean {
  return dir === '' || path.startsWith(dir + '/');
}

export function sameSet(a: ReadonlySet<string>, b: Iterable<string>): boolean {
  let n = 0;
  for (const x of b) { if (!a.has(x)) return false; n++; }
  return n === a.size;
}
