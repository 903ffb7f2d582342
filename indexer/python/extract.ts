// Python definitions, variables and import statements from source text
// (docs/tools.md, Python rules), via tree-sitter. This runs inside indexer worker threads and
// over the whole repository on every full build, so the walk is shaped for
// speed: one TreeCursor visits only statement-level nodes (modules, blocks and
// the clauses of compound statements), never expression subtrees, and names
// are sliced out of the source string instead of asking tree-sitter for text.
import { createRequire } from 'node:module';
import type ParserT from 'tree-sitter';
import type { PyDef, PyExtract, PyImport, SymbolKind } from '../model.js';
import { blankGroups, blankStatements, joinBracketedLines } from './prelex.js';

const require = createRequire(import.meta.url);

// One parser per thread: a worker thread loads its own copy of this module, so
// this lazily created instance is never shared across threads.
let parser: ParserT | null = null;
function getParser(): ParserT {
  if (parser === null) {
    const Parser = require('tree-sitter') as typeof ParserT;
    const p = new Parser();
    p.setLanguage(require('tree-sitter-python'));
    parser = p;
  }
  return parser;
}

type ScopeKind = 'module' | 'class' | 'function';
interface Scope { kind: ScopeKind; qual: string }

// Nodes whose children are (or contain) statements of the same scope. The walk
// looks at each child of one of these but descends only into definitions,
// assignment/import statements and further containers, so conditions,
// iterables and other expressions are never walked.
const CONTAINERS = new Set([
  'module', 'block', 'ERROR',
  'if_statement', 'elif_clause', 'else_clause',
  'for_statement', 'while_statement',
  'try_statement', 'except_clause', 'except_group_clause', 'finally_clause',
  'with_statement', 'match_statement', 'case_clause',
]);

// Python normalises identifiers to NFKC (PEP 3131), and `ast` reports the
// normalised spelling; do the same so names match what Python itself sees.
const NON_ASCII = /[^\x00-\x7f]/;
function ident(raw: string): string {
  return NON_ASCII.test(raw) ? raw.normalize('NFKC') : raw;
}

// Comments and backslash continuations are "extras": tree-sitter may leave the
// ones that follow a body's last statement inside the block, but `end_lineno`
// ignores them, so they never count for where a statement or body ends.
function isExtra(type: string): boolean {
  return type === 'comment' || type === 'line_continuation';
}

class Extractor {
  readonly defs: PyDef[] = [];
  readonly imports: PyImport[] = [];
  constructor(private readonly src: string, private readonly cur: ParserT.TreeCursor) {}

  private text(): string {
    return this.src.slice(this.cur.startIndex, this.cur.endIndex);
  }

  /** 1-based last line of the node at the cursor, from its own end position. */
  private endLine(): number {
    const cur = this.cur;
    const end = cur.endPosition;
    // A node that ends at column 0 ends with the newline of the previous row.
    return end.column === 0 && end.row > cur.startPosition.row ? end.row : end.row + 1;
  }

  /**
   * Visits the children of the container at the cursor and leaves the cursor
   * where it started. Returns the 1-based last line of its last statement as
   * `ast` counts it (trailing comments excluded), or 0 if it has no children.
   * Ends come out of the walk itself, so no SyntaxNode objects are created.
   */
  walkContainer(scope: Scope): number {
    const cur = this.cur;
    if (!cur.gotoFirstChild()) return 0;
    // End of the last non-extra child so far; -1: that child is a simple node
    // whose end is read from the cursor after the loop (one read per container).
    let lastEnd = 0;
    do {
      const type = cur.nodeType;
      switch (type) {
        case 'function_definition':
        case 'class_definition':
          lastEnd = this.definition(scope, cur.startPosition.row + 1, type);
          break;
        case 'decorated_definition':
          lastEnd = this.decorated(scope);
          break;
        case 'expression_statement':
          if (scope.kind !== 'function') this.assignmentStatement(scope);
          lastEnd = -1;
          break;
        case 'import_statement':
        case 'import_from_statement':
        case 'future_import_statement':
          this.importStatement(type);
          lastEnd = -1;
          break;
        case '__future__':
          // Python's parser takes `from __future__ import *` (only the compiler
          // rejects it); tree-sitter's grammar has no such statement and leaves
          // its tokens in an ERROR node.
          if (this.futureStar()) lastEnd = -1;
          break;
        default:
          if (isExtra(type)) break;
          lastEnd = CONTAINERS.has(type) ? this.walkContainer(scope) || -1 : -1;
      }
    } while (cur.gotoNextSibling());
    if (lastEnd === -1) {
      while (isExtra(cur.nodeType) && cur.gotoPreviousSibling());
      lastEnd = this.endLine();
    }
    cur.gotoParent();
    return lastEnd;
  }

  /**
   * Cursor on a bare `__future__` token inside an ERROR node: records
   * `from __future__ import *` when the tokens around it spell exactly that,
   * leaving the cursor on the `*`; otherwise leaves the cursor where it was.
   */
  private futureStar(): boolean {
    const cur = this.cur;
    const type = (): string => cur.nodeType; // re-read after every move
    if (!cur.gotoPreviousSibling()) return false;
    const fromOk = type() === 'from';
    const start = cur.startPosition.row + 1;
    cur.gotoNextSibling();
    if (!fromOk) return false;
    let steps = 0;
    const ok = cur.gotoNextSibling() && ++steps > 0 && type() === 'import'
      && cur.gotoNextSibling() && ++steps > 0 && type() === '*';
    if (!ok) {
      while (steps-- > 0) cur.gotoPreviousSibling();
      return false;
    }
    this.imports.push({ start, end: this.endLine(), isFrom: true, level: 0, module: '__future__', names: ['*'] });
    return true;
  }

  /** Cursor on a decorated_definition: the span starts at its first decorator. Returns the definition's end. */
  private decorated(scope: Scope): number {
    const cur = this.cur;
    const start = cur.startPosition.row + 1;
    let end = -1;
    if (!cur.gotoFirstChild()) return end;
    do {
      const type = cur.nodeType;
      if (type === 'function_definition' || type === 'class_definition') end = this.definition(scope, start, type);
    } while (cur.gotoNextSibling());
    cur.gotoParent();
    return end === -1 ? this.endLine() : end;
  }

  /** Cursor on a function_definition / class_definition. Records it, walks its body, returns its end line. */
  private definition(scope: Scope, start: number, type: string): number {
    const cur = this.cur;
    let def: PyDef | null = null;
    let end = 0;
    if (cur.gotoFirstChild()) {
      do {
        const t = cur.nodeType;
        if (def === null && t === 'identifier') {
          const name = ident(this.text());
          const isClass = type === 'class_definition';
          const kind: SymbolKind = isClass ? 'class' : scope.kind === 'class' ? 'method' : 'function';
          const qualname = scope.qual === '' ? name : `${scope.qual}.${name}`;
          def = { name, qualname, kind, start, end: 0 };
          this.defs.push(def);
          // The body's statements belong to the new scope.
          scope = { kind: isClass ? 'class' : 'function', qual: qualname };
        } else if (t === 'block' && def !== null) {
          end = this.walkContainer(scope);
        }
      } while (cur.gotoNextSibling());
      cur.gotoParent();
    }
    // No body (broken source): the node's own end is the best there is.
    if (end === 0) end = Math.max(start, this.endLine());
    if (def !== null) def.end = end;
    return end;
  }

  /** Cursor on an expression_statement in module or class scope. */
  private assignmentStatement(scope: Scope): void {
    const cur = this.cur;
    const names: string[] = [];
    const start = cur.startPosition.row + 1;
    // Trailing comments never sit inside a simple statement (tree-sitter moves
    // trailing extras out of a reduced node), so its own end is ast's end.
    const end = this.endLine();
    if (!cur.gotoFirstChild()) return;
    do {
      const t = cur.nodeType;
      if (t === 'assignment' || t === 'augmented_assignment') this.assignment(names);
    } while (cur.gotoNextSibling());
    cur.gotoParent();
    if (names.length === 0) return;
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      this.defs.push({ name, qualname: scope.qual === '' ? name : `${scope.qual}.${name}`, kind: 'variable', start, end });
    }
  }

  /** Cursor on an (augmented_)assignment: collect `left`, and follow a chained `right` (`a = b = 1`). */
  private assignment(names: string[]): void {
    const cur = this.cur;
    if (!cur.gotoFirstChild()) return;
    do {
      const field = cur.currentFieldName;
      if (field === 'left') this.targets(names);
      else if (field === 'right' && cur.nodeType === 'assignment') this.assignment(names);
    } while (cur.gotoNextSibling());
    cur.gotoParent();
  }

  /** Cursor on an assignment target: names, through tuple/list unpacking and starred targets only. */
  private targets(names: string[]): void {
    const cur = this.cur;
    const t = cur.nodeType;
    if (t === 'identifier' || t === 'keyword_identifier') {
      names.push(ident(this.text()));
    } else if (t === 'pattern_list' || t === 'tuple_pattern' || t === 'list_pattern' || t === 'list_splat_pattern'
      || t === 'parenthesized_expression' || t === 'expression_list' || t === 'tuple' || t === 'list') {
      if (!cur.gotoFirstChild()) return;
      do { if (cur.nodeIsNamed) this.targets(names); } while (cur.gotoNextSibling());
      cur.gotoParent();
    }
    // Anything else (attribute, subscript, ...) is not a simple name.
  }

  /** Cursor on an import statement. */
  private importStatement(type: string): void {
    const cur = this.cur;
    const imp: PyImport = {
      start: cur.startPosition.row + 1, end: this.endLine(),
      isFrom: type !== 'import_statement', level: 0, module: null, names: [],
    };
    if (type === 'future_import_statement') imp.module = '__future__';
    if (cur.gotoFirstChild()) {
      do {
        const t = cur.nodeType;
        const field = cur.currentFieldName;
        if (field === 'module_name') {
          if (t === 'relative_import') this.relative(imp);
          else imp.module = this.dotted();
        } else if (t === 'wildcard_import') {
          imp.names.push('*');
        } else if (field === 'name') {
          if (t === 'aliased_import') {
            cur.gotoFirstChild(); // the `name` child comes first: `a.b as c`
            imp.names.push(this.dotted());
            cur.gotoParent();
          } else {
            imp.names.push(this.dotted());
          }
        }
      } while (cur.gotoNextSibling());
      cur.gotoParent();
    }
    this.imports.push(imp);
  }

  /** Cursor on a relative_import: `import_prefix` dots, then an optional dotted_name. */
  private relative(imp: PyImport): void {
    const cur = this.cur;
    if (!cur.gotoFirstChild()) return;
    do {
      const t = cur.nodeType;
      if (t === 'import_prefix') {
        // `...` may be one token and `. .` is legal Python, so count the dots.
        const s = this.text();
        let level = 0;
        for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 46) level++;
        imp.level = level;
      } else if (t === 'dotted_name') {
        imp.module = this.dotted();
      }
    } while (cur.gotoNextSibling());
    cur.gotoParent();
  }

  /** Cursor on a dotted_name (or bare identifier): its identifiers joined by "." (whitespace and comments dropped). */
  private dotted(): string {
    const cur = this.cur;
    if (cur.nodeType === 'identifier') return ident(this.text());
    const parts: string[] = [];
    if (cur.gotoFirstChild()) {
      do { if (cur.nodeType === 'identifier') parts.push(ident(this.text())); } while (cur.gotoNextSibling());
      cur.gotoParent();
    }
    return parts.join('.');
  }
}

/**
 * Definitions (classes, functions, methods, module/class variables) and import
 * statements of one Python file, per docs/tools.md, Python rules. Never throws on bad syntax:
 * whatever tree-sitter recovers is reported.
 */
export function extractPython(text: string): PyExtract {
  // A BOM is not Python source; dropping it keeps rows unchanged (it sits on row 0).
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Python reads a lone "\r" as a line end, tree-sitter does not: parse with "\n" in its
  // place (same length, names unchanged), then turn its rows back into evidex's lines,
  // which split at "\n" only (docs/tools.md, Evidence).
  if (!LONE_CR.test(noBom)) return extractSource(noBom);
  const rowToLine = linesOfRows(noBom);
  const { defs, imports } = extractSource(noBom.replace(LONE_CR_ALL, '\n'));
  const line = (row1: number): number => rowToLine[row1 - 1] ?? rowToLine[rowToLine.length - 1];
  return {
    defs: defs.map((d) => ({ ...d, start: line(d.start), end: line(d.end) })),
    imports: imports.map((i) => ({ ...i, start: line(i.start), end: line(i.end) })),
  };
}

const LONE_CR = /\r(?!\n)/;
const LONE_CR_ALL = /\r(?!\n)/g;

/** For each row Python sees (rows end at "\n", "\r\n" or a lone "\r"), the 1-based line evidex gives it (lines end at "\n"). */
function linesOfRows(src: string): number[] {
  const out = [1];
  let line = 1;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 10) { line++; out.push(line); } else if (c === 13 && src.charCodeAt(i + 1) !== 10) out.push(line);
  }
  return out;
}

function extractSource(text: string): PyExtract {
  let src = text;
  const parser = getParser();
  let tree: ParserT.Tree | null = null;
  const grouped = blankGroups(src);
  const blanked = blankStatements(grouped ?? src) ?? grouped;
  if (blanked !== null) {
    // Only rows and names leave this module and blanking changes neither, so a
    // clean parse of the blanked text stands in for the original.
    const t = parser.parse(blanked);
    if (!t.rootNode.hasError) { src = blanked; tree = t; }
  }
  tree ??= parser.parse(src);
  if (tree.rootNode.hasError) {
    // Only rows and names leave this module, and the repair changes neither,
    // so the repaired text can stand in for the original throughout.
    const repaired = joinBracketedLines(src);
    if (repaired !== null) {
      const retry = parser.parse(repaired);
      if (!retry.rootNode.hasError) { src = repaired; tree = retry; }
    }
  }
  const ex = new Extractor(src, tree.walk());
  ex.walkContainer({ kind: 'module', qual: '' });
  return { defs: ex.defs, imports: ex.imports };
}
