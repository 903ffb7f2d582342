// Records that flow from parsing into the store and out to queries. Parsing
// (indexer/python), storage (indexer/store) and querying (indexer/query) agree
// on these shapes and on nothing else.

export type SymbolKind = 'class' | 'function' | 'method' | 'variable';

/** A Python definition (docs/tools.md, Python rules). Lines are 1-based, inclusive; start is the first decorator's line. */
export interface PyDef {
  name: string;      // simple name: "run"
  qualname: string;  // dotted through enclosing classes and functions: "Server.run", "outer.inner"
  kind: SymbolKind;
  start: number;
  end: number;
}

/**
 * One import statement as written, before resolution against the repository.
 *   `import a.b as c, d`          -> { isFrom: false, level: 0, module: null, names: ['a.b', 'd'] }
 *   `from ..p.q import x as y, z` -> { isFrom: true,  level: 2, module: 'p.q', names: ['x', 'z'] }
 *   `from . import *`             -> { isFrom: true,  level: 1, module: null,  names: ['*'] }
 */
export interface PyImport {
  start: number;
  end: number;
  isFrom: boolean;
  level: number;
  module: string | null;
  names: string[];
}

export interface PyExtract {
  defs: PyDef[];
  imports: PyImport[];
}
