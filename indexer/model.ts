// Records that flow from parsing into the store and out to queries. Parsing
// (indexer/python, indexer/typescript), storage (indexer/store) and querying
// (indexer/query) agree on these shapes and on nothing else.

import { SYMBOL_KINDS, UNRESOLVED_REASONS } from './query/limits.js';

/** The languages whose files get definitions and imports (null: every other text file). */
export type Lang = 'py' | 'ts' | null;

export { SYMBOL_KINDS, UNRESOLVED_REASONS };
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/**
 * A definition (docs/tools.md, Python rules and TypeScript rules). Lines are
 * 1-based, inclusive; start is the first decorator's (or modifier's) line.
 */
export interface Definition {
  name: string;      // simple name: "run"
  qualname: string;  // dotted through enclosing definitions: "Server.run", "outer.inner"
  kind: SymbolKind;
  start: number;
  end: number;
}

/** A Python definition: the same record (its kinds are the first four only). */
export type PyDef = Definition;

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

/**
 * The syntax an import statement of TypeScript or JavaScript is written in
 * (docs/tools.md, TypeScript rules): it decides the resolution mode the
 * compiler gives it.
 *   import   `import … from "m"`, `import "m"`, `import type …`
 *   export   `export … from "m"`, `export * from "m"`, `export * as ns from "m"`
 *   equals   `import x = require("m")`
 *   require  a `require("m")` call
 *   call     an `import("m")` call
 *   type     an `import("m")` type
 *   jsdoc    a JSDoc `/** @import { T } from "m" *\/` tag in a JavaScript file
 */
export type TsImportForm = 'import' | 'export' | 'equals' | 'require' | 'call' | 'type' | 'jsdoc';

/** One TypeScript or JavaScript import statement as written, before resolution. */
export interface TsImport {
  start: number;
  end: number;
  /** The specifier's value: "./log.js", "react", "@org/ui/button", "#internal". */
  spec: string;
  form: TsImportForm;
  /** The `resolution-mode` attribute, where the compiler honours it (a type-only import or export, an import type). */
  mode?: 'import' | 'require';
  /** `export * from`, `export {…} from`, `export * as ns from`: the file passes the module's names on (a barrel). */
  reexport?: true;
}

export interface TsExtract {
  defs: Definition[];
  imports: TsImport[];
}

/** A raw import statement of either language (a TypeScript one has `spec`). */
export type RawImport = PyImport | TsImport;

export function isTsImport(raw: RawImport): raw is TsImport {
  return (raw as TsImport).spec !== undefined;
}

/**
 * Why a TypeScript or JavaScript statement resolved nowhere in the repository
 * (docs/tools.md, TypeScript rules): an external package (a bare specifier of
 * no package of the repository), a missing file (a relative path, a `paths`
 * alias, a `#` import or a repository package's subpath that reaches
 * nothing), or a governing config that could not be read.
 */
export type Unresolved = (typeof UNRESOLVED_REASONS)[number];
