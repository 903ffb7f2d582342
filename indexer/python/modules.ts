// Module names of repository files and the modules an import statement names
// (docs/tools.md, Python rules, "Module names" and "Imports"). Pure functions over POSIX
// relative paths; whether a folder is a package (holds `__init__.py` or
// `__init__.pyi`) is asked of the caller, who knows the indexed file set.
import type { PyImport } from '../model.js';

/** Tells whether the folder at this POSIX path relative to the root ("" is the root) holds `__init__.py` or `__init__.pyi`. */
export type IsPackageDir = (relDir: string) => boolean;

/** Python source (`.py`) and stub (`.pyi`) files: both get definitions, imports and module names. */
export function isPythonPath(relPath: string): boolean {
  return relPath.endsWith('.py') || relPath.endsWith('.pyi');
}

/** A file whose presence makes its folder a package: `__init__.py` or `__init__.pyi`. */
export function isPackageInit(relPath: string): boolean {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  return name === '__init__.py' || name === '__init__.pyi';
}

function dirParts(relPath: string): { dirs: string[]; stem: string } {
  const parts = relPath.split('/');
  const file = parts.pop() ?? '';
  return { dirs: parts, stem: file.slice(0, file.lastIndexOf('.')) };
}

/**
 * Number of trailing folders of `dirs` that form the package chain: from the
 * file's own folder up to the topmost ancestor that is a package. Folders in
 * between that are not packages are namespace portions of the chain (PEP 420:
 * `flask/sansio/` without `__init__.py` inside the package `flask`). The
 * repository root is never part of a chain (the folder "above" it is outside
 * the repository), so a chain stops below the root.
 */
function packageChainLength(dirs: string[], isPackageDir: IsPackageDir): number {
  for (let top = 1; top <= dirs.length; top++) {
    if (isPackageDir(dirs.slice(0, top).join('/'))) return dirs.length - top + 1;
  }
  return 0;
}

/** Dotted name of `dirs` plus the file stem, with `__init__` standing for its package. */
function dotted(dirs: string[], stem: string): string {
  return (stem === '__init__' ? dirs : [...dirs, stem]).join('.');
}

/**
 * Every module name of a Python file: first the package-based name (dotted
 * from the folder above its package chain: `src/flask/app.py` → `flask.app`),
 * then the dotted path from the root (`src.flask.app`); duplicates dropped.
 * `pkg/__init__.py` is `pkg`. A stub has the names of its `.py`
 * (`pkg/mod.pyi` → `pkg.mod`). A root-level `__init__.py` has no name. Files
 * that are not Python have none. Names are not checked for being identifiers
 * (`my-file.py` → `my-file`): such a module cannot be imported, which is harmless.
 */
export function moduleNamesOf(relPath: string, isPackageDir: IsPackageDir): string[] {
  if (!isPythonPath(relPath)) return [];
  const { dirs, stem } = dirParts(relPath);
  const chain = packageChainLength(dirs, isPackageDir);
  const names: string[] = [];
  for (const name of [dotted(dirs.slice(dirs.length - chain), stem), dotted(dirs, stem)]) {
    if (name !== '' && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The package a relative import in this file resolves against: the
 * package-based name of the file's package chain (`pkg/__init__.py` and
 * `pkg/mod.py` → `pkg`; `src/a/b/mod.py` with packages a, b → `a.b`; with
 * package a only, b is a portion of it: `a.b` too), or, for a
 * file outside any package, its folder's dotted path from the root (`src`, or
 * "" at the root).
 */
export function packageOf(relPath: string, isPackageDir: IsPackageDir): string {
  const { dirs } = dirParts(relPath);
  const chain = packageChainLength(dirs, isPackageDir);
  return (chain > 0 ? dirs.slice(dirs.length - chain) : dirs).join('.');
}

/**
 * The module names an import statement imports (docs/tools.md, Python rules "Targets"), in
 * statement order, without duplicates:
 *   `import a.b.c as x, d`          → a.b.c, d
 *   `from P import n1, n2 as m`     → P, P.n1, P.n2      (`import *` → just P)
 *   `from .m import n` (level L)    → P = packageOf(file) minus its last L-1
 *                                     components, then `.m` appended if present.
 * Edge rules (decided):
 *   - If L-1 is more than the number of components of the base package, the
 *     import climbs above the root: unresolvable, NO targets.
 *   - If P comes out empty (root-level file `from . import b`, or climbing
 *     exactly to the root), the targets are just the imported names (`b`);
 *     never an empty-string target, so `from . import *` there has none.
 */
export function importTargets(imp: PyImport, relPath: string, isPackageDir: IsPackageDir): string[] {
  const out: string[] = [];
  const add = (t: string): void => { if (t !== '' && !out.includes(t)) out.push(t); };
  if (!imp.isFrom) {
    for (const n of imp.names) add(n);
    return out;
  }
  let base: string;
  if (imp.level > 0) {
    const pkg = packageOf(relPath, isPackageDir);
    const comps = pkg === '' ? [] : pkg.split('.');
    const up = imp.level - 1;
    if (up > comps.length) return out;
    const parts = comps.slice(0, comps.length - up);
    if (imp.module) parts.push(imp.module);
    base = parts.join('.');
  } else {
    base = imp.module ?? '';
  }
  add(base);
  for (const n of imp.names) {
    if (n === '*') continue;
    add(base === '' ? n : `${base}.${n}`);
  }
  return out;
}
