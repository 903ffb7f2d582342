// The TypeScript/JavaScript half of the differential oracle: definitions and
// import statements of one file, read off the compiler's own AST
// (`ts.createSourceFile`) by a walker written from the product's rules
// (docs/tools.md, TypeScript and JavaScript), not from evidex's extractor;
// statements inside JSDoc (`@import` tags, `import()` types) are the ones the compiler's program lists (ts-jsdoc-imports.ts).
// Lines are counted as evidex counts them — split at "\n" only — while the
// compiler's own line map also breaks at "\r", U+2028 and U+2029; so every
// position is turned into a line here, never by `getLineAndCharacterOfPosition`.
import ts from 'typescript';
import { compilerJsDocImports } from './ts-jsdoc-imports.js';

export type DefKind = 'class' | 'function' | 'method' | 'variable' | 'interface' | 'type' | 'enum' | 'namespace';

export interface OracleDef { name: string; qualname: string; kind: DefKind; start: number; end: number }

/** How a statement names its module: the forms the rules list, by their syntax. */
export type StatementForm = 'import' | 'export-from' | 'import-equals' | 'require' | 'import-call' | 'import-type' | 'jsdoc-import';

export interface OracleStatement {
  start: number; end: number;
  /** The specifier's text (the literal's value). */
  spec: string;
  form: StatementForm;
  /** `export * from`, `export {…} from`, `export * as ns from`: what via_reexports follows. */
  reexport: boolean;
  /** The literal itself, for the compiler's resolution mode of this usage. */
  literal: ts.StringLiteralLike;
  /** Written inside a JSDoc comment (taken from the compiler's program, not the walker). */
  inJsDoc?: true;
}

export interface OracleExtract { defs: OracleDef[]; statements: OracleStatement[]; sourceFile: ts.SourceFile }

/** The script kind the compiler gives a file by its extension (`.js` files parse with JSX allowed, as the compiler does). */
export function scriptKindOf(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** The TypeScript and JavaScript files the rules cover (`.d.ts` and its `.d.mts`/`.d.cts` forms end in `.ts`, `.mts`, `.cts`). */
export function isTsJsPath(path: string): boolean {
  return /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(path);
}

/** Line numbers by the evidence rule: 1 + the number of "\n" before a position. */
export class NewlineLines {
  private readonly breaks: number[] = [];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.breaks.push(i);
  }
  lineOf(pos: number): number {
    let lo = 0, hi = this.breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.breaks[mid] < pos) lo = mid + 1; else hi = mid;
    }
    return lo + 1;
  }
}

/** Expression wrappers the rules look through for a variable's kind: parentheses, `as` (and its older `<T>x` form), `satisfies`, `!`. */
function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e)
      || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    else return e;
  }
}

function variableKind(init: ts.Expression | undefined): DefKind {
  if (!init) return 'variable';
  const e = unwrap(init);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return 'function';
  if (ts.isClassExpression(e)) return 'class';
  return 'variable';
}

/** A member or declaration's name: identifiers and `#private` names as is, string and numeric literals (also in brackets) by value, other computed names by the expression's source text in brackets (comments and spaces just inside the brackets are not part of it). */
function nameText(name: ts.PropertyName | ts.BindingName | ts.ModuleName | undefined, sf: ts.SourceFile): string | null {
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    // A literal inside the brackets names the member by its value, as the compiler names the property (`["x"]` is `x`).
    const e = name.expression;
    return ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) ? e.text : `[${e.getText(sf)}]`;
  }
  return null;
}

/** Each name a binding pattern binds, nested patterns included (holes skipped). */
function boundNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  const out: ts.Identifier[] = [];
  for (const el of name.elements) if (!ts.isOmittedExpression(el)) out.push(...boundNames(el.name));
  return out;
}

type Overloadable = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ConstructorDeclaration;
const hasBody = (n: Overloadable): boolean => n.body !== undefined;
const hasDefaultModifier = (n: ts.Node): boolean => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
const isStatic = (n: ts.Node): boolean => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);

/**
 * Groups a list's overload runs: consecutive declarations of one name (and one
 * static-ness), bodiless signatures optionally closed by one implementation,
 * are one item. Maps every declaration of the list to the first and last of its group.
 */
function overloadGroups(nodes: readonly ts.Node[], keyOf: (n: ts.Node) => string | null): Map<ts.Node, { first: ts.Node; last: ts.Node }> {
  const out = new Map<ts.Node, { first: ts.Node; last: ts.Node }>();
  let i = 0;
  while (i < nodes.length) {
    const key = keyOf(nodes[i]);
    let j = i;
    if (key !== null) {
      while (j + 1 < nodes.length && !hasBody(nodes[j] as Overloadable) && keyOf(nodes[j + 1]) === key) j++;
    }
    for (let k = i; k <= j; k++) out.set(nodes[k], { first: nodes[i], last: nodes[j] });
    i = j + 1;
  }
  return out;
}

const functionKey = (sf: ts.SourceFile) => (n: ts.Node): string | null =>
  ts.isFunctionDeclaration(n) ? `f:${n.name ? n.name.text : 'default'}` : null;
const memberKey = (sf: ts.SourceFile) => (n: ts.Node): string | null => {
  if (ts.isConstructorDeclaration(n)) return 'ctor';
  if (ts.isMethodDeclaration(n)) return `${isStatic(n) ? 's' : 'i'}:${nameText(n.name, sf)}`;
  return null;
};

/** Extracts definitions and import statements from a file's text, parsed as the compiler parses a file with that path. */
export function extractTsJs(path: string, text: string, opts: { impliedNodeFormat?: ts.ResolutionMode } = {}): OracleExtract {
  const sf = ts.createSourceFile(path, text, { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: opts.impliedNodeFormat }, true, scriptKindOf(path));
  const lines = new NewlineLines(text);
  const defs: OracleDef[] = [];
  const statements: OracleStatement[] = [];
  /** The span of a declaration: its first decorator or modifier (getStart skips comments and JSDoc) to its end. */
  const span = (first: ts.Node, last: ts.Node = first): { start: number; end: number } => {
    const s = first.getStart(sf);
    return { start: lines.lineOf(s), end: lines.lineOf(Math.max(s, last.end - 1)) };
  };
  const define = (scope: string[], name: string, kind: DefKind, first: ts.Node, last?: ts.Node): string[] => {
    // A name the parser had to invent (`function 1() {}`, `enum {}`: an empty identifier) names nothing, as the compiler's
    // navigation tree shows `<function>`: no definition, and what it holds is named in the enclosing scope.
    if (name === '') return scope;
    defs.push({ name, qualname: [...scope, name].join('.'), kind, ...span(first, last) });
    return [...scope, name];
  };
  /** Overload groups of every statement list and class body, computed when the list is first seen. */
  const groups = new Map<ts.Node, { first: ts.Node; last: ts.Node }>();
  const addGroups = (list: readonly ts.Node[], key: (n: ts.Node) => string | null): void => {
    for (const [k, v] of overloadGroups(list, key)) groups.set(k, v);
  };
  /** The qualified name each group's item was given, so every declaration of the group qualifies what it declares inside by it. */
  const groupScope = new Map<ts.Node, string[]>();
  /** Defines an overloadable declaration once per group (the first), and returns the scope its own body declares in. */
  const defineGrouped = (scope: string[], node: ts.Node, name: string, kind: DefKind): string[] => {
    const g = groups.get(node) ?? { first: node, last: node };
    if (g.first === node) groupScope.set(node, define(scope, name, kind, node, g.last));
    return groupScope.get(g.first) ?? [...scope, name];
  };

  const statement = (node: ts.Node, lit: ts.Expression | ts.TypeNode | undefined, form: StatementForm, reexport = false, spanNode: ts.Node = node): void => {
    let literal: ts.Node | undefined = lit;
    if (literal && ts.isLiteralTypeNode(literal)) literal = literal.literal;
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    statements.push({ ...span(spanNode), spec: literal.text, form, reexport, literal });
  };

  /** Import statements: every form the rules list, anywhere in the file. */
  const visitStatementForms = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) statement(node, node.moduleSpecifier, 'import');
    else if (ts.isExportDeclaration(node)) statement(node, node.moduleSpecifier, 'export-from', true);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) statement(node, node.moduleReference.expression, 'import-equals');
    else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) statement(node, node.arguments[0], 'import-call');
      else if (ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments.length === 1) statement(node, node.arguments[0], 'require');
    } else if (ts.isImportTypeNode(node)) statement(node, node.argument, 'import-type');
  };

  /**
   * Definitions. `scope` is the qualified name of the nearest enclosing
   * definition that qualifies names (a class, namespace, function or method);
   * `moduleScope` says the node's statement list is a module's or a
   * namespace's, where variables are definitions.
   */
  const visit = (node: ts.Node, scope: string[], moduleScope: boolean): void => {
    visitStatementForms(node);
    if (ts.isSourceFile(node) || ts.isModuleBlock(node) || ts.isBlock(node)) addGroups(node.statements, functionKey(sf));

    // A class declaration without a name is `default` only when it is the default export (`export default class {}`); the
    // compiler names no other (`export class {}` is a syntax error it binds as a missing name), and it is no definition.
    const className = ts.isClassDeclaration(node) ? node.name?.text || (hasDefaultModifier(node) ? 'default' : '') : '';
    if ((ts.isClassDeclaration(node) && className !== '') || (ts.isClassExpression(node) && classExpressionScope.has(node))) {
      const inner = ts.isClassDeclaration(node) ? define(scope, className, 'class', node) : classExpressionScope.get(node)!;
      addGroups(node.members, memberKey(sf));
      for (const m of node.members) member(m, inner);
      ts.forEachChild(node, (c) => { if (!node.members.includes(c as ts.ClassElement)) visit(c, scope, false); });
      return;
    }
    if (ts.isFunctionDeclaration(node)) {
      const inner = defineGrouped(scope, node, node.name?.text || (hasDefaultModifier(node) ? 'default' : ''), 'function');
      ts.forEachChild(node, (c) => visit(c, inner, false));
      return;
    }
    if (ts.isInterfaceDeclaration(node)) { define(scope, node.name.text, 'interface', node); ts.forEachChild(node, (c) => visit(c, scope, false)); return; }
    if (ts.isTypeAliasDeclaration(node)) { define(scope, node.name.text, 'type', node); ts.forEachChild(node, (c) => visit(c, scope, false)); return; }
    if (ts.isEnumDeclaration(node)) { define(scope, node.name.text, 'enum', node); ts.forEachChild(node, (c) => visit(c, scope, false)); return; }
    if (ts.isModuleDeclaration(node)) {
      // `declare global {}` names no namespace: what it declares is global, and the compiler names it so (`Window`, not `global.Window`).
      const inner = (node.flags & ts.NodeFlags.GlobalAugmentation) !== 0 ? scope : define(scope, nameText(node.name, sf) ?? '', 'namespace', node);
      ts.forEachChild(node, (c) => visit(c, inner, true));
      return;
    }
    // `using` and `await using` bind no variable in the rules' sense (const, let and var do): their statements are only walked.
    if (ts.isVariableStatement(node) && moduleScope && (node.declarationList.flags & ts.NodeFlags.Using) === 0) {
      for (const decl of node.declarationList.declarations) {
        const simple = ts.isIdentifier(decl.name);
        for (const id of boundNames(decl.name)) {
          const kind = simple ? variableKind(decl.initializer) : 'variable';
          const inner = define(scope, id.text, kind, node);
          const init = decl.initializer && unwrap(decl.initializer);
          if (simple && init && ts.isClassExpression(init)) classExpressionScope.set(init, inner);
          if (simple && kind === 'function') functionScope.set(decl.initializer!, inner);
        }
      }
      ts.forEachChild(node, (c) => visit(c, scope, false));
      return;
    }
    const fnScope = functionScope.get(node);
    if (fnScope) { ts.forEachChild(node, (c) => visit(c, fnScope, false)); return; }
    const keepsModuleScope = ts.isSourceFile(node) || ts.isModuleBlock(node);
    ts.forEachChild(node, (c) => visit(c, scope, keepsModuleScope));
  };
  /** A class expression that is a variable's definition (kind class) names its members under the variable. */
  const classExpressionScope = new Map<ts.ClassExpression, string[]>();
  /** A function-kind variable's initializer qualifies what it declares inside with the variable's name. */
  const functionScope = new Map<ts.Node, string[]>();

  const member = (m: ts.ClassElement, classScope: string[]): void => {
    const name = ts.isConstructorDeclaration(m) ? 'constructor' : nameText(m.name, sf);
    if (ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m)) {
      const inner = defineGrouped(classScope, m, name ?? '', 'method');
      // A parameter property (`constructor(public x: T)`) declares a property of the class: the compiler's ParameterPropertyDeclaration.
      if (ts.isConstructorDeclaration(m)) {
        for (const p of m.parameters) if (ts.isParameterPropertyDeclaration(p, m) && ts.isIdentifier(p.name)) define(classScope, p.name.text, 'variable', p);
      }
      ts.forEachChild(m, (c) => visit(c, inner, false));
      return;
    }
    if (ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
      const inner = define(classScope, name ?? '', 'method', m);
      ts.forEachChild(m, (c) => visit(c, inner, false));
      return;
    }
    if (ts.isPropertyDeclaration(m)) define(classScope, name ?? '', 'variable', m);
    // Property initialisers, static blocks, index signatures: what they declare inside is qualified by the class.
    ts.forEachChild(m, (c) => visit(c, classScope, false));
  };

  visit(sf, [], true);
  // Statements inside JSDoc: the ones the compiler's program lists (ts-jsdoc-imports.ts). A tag spans from its `@` to
  // the specifier's end; an import type (or a call) spans itself, as outside JSDoc.
  for (const { node, literal, sourceFile } of compilerJsDocImports(path, text, scriptKindOf(path))) {
    const tag = ts.isJSDocImportTag(node);
    const form: StatementForm = tag ? 'jsdoc-import' : ts.isImportTypeNode(node) ? 'import-type'
      : ts.isCallExpression(node) && ts.isIdentifier(node.expression) ? 'require' : 'import-call';
    statements.push({ start: lines.lineOf(node.getStart(sourceFile)), end: lines.lineOf((tag ? literal.end : node.end) - 1), spec: literal.text, form, reexport: false, literal, inJsDoc: true });
  }
  return { defs, statements, sourceFile: sf };
}
