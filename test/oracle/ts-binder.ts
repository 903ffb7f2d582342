// The oracle's definitions checked against the compiler's binder: every
// declaration `ts.bindSourceFile` gives a symbol, of the kinds the rules
// define (docs/tools.md, TypeScript and JavaScript: classes, functions,
// interfaces, type aliases, enums, namespaces; the methods, accessors,
// constructors, properties and parameter properties of a class declaration
// or of a class expression a module-scope variable holds; each name a
// `const`/`let`/`var` at module or namespace scope binds), must lie in an
// oracle item of its name, and each oracle item must hold one. Overloads are
// several declarations in one item; a computed member name is the rules'
// text, not the binder's, and is not compared.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { decodeFile, type OracleAnswer } from './ts-oracle.js';
import { NewlineLines, scriptKindOf } from './ts-extract.js';

export interface BinderCheck { declarations: number; items: number; computed: number; uncovered: string[]; unbound: string[] }

const S = ts.SyntaxKind;
const DECLARATIONS = new Set([S.ClassDeclaration, S.FunctionDeclaration, S.InterfaceDeclaration, S.TypeAliasDeclaration, S.EnumDeclaration, S.ModuleDeclaration]);
const MEMBERS = new Set([S.MethodDeclaration, S.GetAccessor, S.SetAccessor, S.Constructor, S.PropertyDeclaration]);

/** Whether a variable declaration list is at module or namespace scope. */
const atModuleScope = (n: ts.Node): boolean => {
  let p: ts.Node | undefined = n.parent;
  while (p && (ts.isVariableDeclarationList(p) || ts.isVariableStatement(p))) p = p.parent;
  return p !== undefined && (ts.isSourceFile(p) || ts.isModuleBlock(p));
};

/** The variable declaration list a name of a destructuring (or a plain declaration) belongs to, if it is one `const`/`let`/`var` makes. */
function bindingList(n: ts.Node): ts.VariableDeclarationList | null {
  let v: ts.Node = n;
  while (ts.isBindingElement(v) || ts.isObjectBindingPattern(v) || ts.isArrayBindingPattern(v)) v = v.parent;
  if (!ts.isVariableDeclaration(v) || !ts.isVariableDeclarationList(v.parent)) return null;
  const scoped = v.parent.flags & ts.NodeFlags.BlockScoped;
  return scoped === ts.NodeFlags.Using || scoped === ts.NodeFlags.AwaitUsing ? null : v.parent;
}

const definedClass = (c: ts.Node): boolean => ts.isClassDeclaration(c)
  || (ts.isClassExpression(c) && ts.isVariableDeclaration(c.parent) && atModuleScope(c.parent.parent));

function taken(n: ts.Node): boolean {
  if (DECLARATIONS.has(n.kind)) return !(ts.isModuleDeclaration(n) && (n.flags & ts.NodeFlags.GlobalAugmentation));
  if (MEMBERS.has(n.kind)) return definedClass(n.parent);
  if (ts.isParameter(n)) return ts.isParameterPropertyDeclaration(n, n.parent) && definedClass(n.parent.parent);
  if ((ts.isVariableDeclaration(n) || ts.isBindingElement(n)) && ts.isIdentifier(n.name)) { const list = bindingList(n); return list !== null && atModuleScope(list); }
  return false;
}

/** A declaration's simple name as the rules write it, or null for a computed one. */
function nameOf(n: ts.Node): string | null {
  if (n.kind === S.Constructor) return 'constructor';
  const name = (n as ts.NamedDeclaration).name;
  if (!name) return 'default';
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : null;
}

export function binderCheck(root: string, oracle: OracleAnswer): BinderCheck {
  const out: BinderCheck = { declarations: 0, items: 0, computed: 0, uncovered: [], unbound: [] };
  for (const f of oracle.files) {
    const text = decodeFile(readFileSync(join(root, f.path)));
    const sf = ts.createSourceFile(f.path, text, ts.ScriptTarget.Latest, true, scriptKindOf(f.path));
    (ts as unknown as { bindSourceFile(sf: ts.SourceFile, o: ts.CompilerOptions): void }).bindSourceFile(sf, { target: ts.ScriptTarget.Latest, allowJs: true });
    const lines = new NewlineLines(text);
    const decls: Array<{ name: string; start: number; end: number; kind: string }> = [];
    const visit = (n: ts.Node): void => {
      const name = taken(n) && (n as { symbol?: unknown }).symbol !== undefined ? nameOf(n) : null;
      if (name !== null) decls.push({ name, start: lines.lineOf(n.getStart(sf)), end: lines.lineOf(n.end), kind: S[n.kind] });
      ts.forEachChild(n, visit);
    };
    visit(sf);
    for (const d of decls) {
      out.declarations++;
      if (!f.defs.some((x) => x.name === d.name && x.start <= d.start && d.end <= x.end)) out.uncovered.push(`${f.path}:${d.start}-${d.end} ${d.kind} ${d.name}`);
    }
    for (const x of f.defs) {
      out.items++;
      if (x.name.startsWith('[')) { out.computed++; continue; }
      if (!decls.some((d) => d.name === x.name && x.start <= d.start && d.end <= x.end)) out.unbound.push(`${f.path}:${x.start}-${x.end} ${x.kind} ${x.qualname}`);
    }
  }
  return out;
}
