// Definitions and import statements of a TypeScript or JavaScript file
// (docs/tools.md, TypeScript rules), from the compiler's own parser. Runs in
// the parse workers (and on the main thread for a single saved file), so one
// walk over the AST collects both. Spans are the compiler's (`getStart()` to
// `end`), turned into lines by evidex's rule — split at "\n" only — and not by
// the compiler's line map, which also breaks lines at "\r", U+2028 and U+2029.
import type TS from 'typescript';
import type { Definition, SymbolKind, TsExtract, TsImport, TsImportForm } from '../model.js';
import { jsdocImports, mayHoldJsDocImports, type JsDocImport } from './jsdoc-imports.js';
import { scriptKindOf } from './paths.js';
import { typescript, type Ts } from './load.js';

/** What the walk reads of the compiler beyond its public API (present in the pinned 5.x). */
interface TsInternals {
  getResolutionModeOverride(attributes: TS.ImportAttributes | undefined): TS.ResolutionMode;
}

/** Offsets of a text turned into evidex's 1-based line numbers: the lines split at "\n" only. */
export class LineMap {
  private readonly breaks: Int32Array;
  constructor(text: string) {
    let n = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
    const breaks = new Int32Array(n);
    n = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks[n++] = i;
    this.breaks = breaks;
  }
  /** The line holding the character at `pos`: one more than the "\n" before it. */
  lineOf(pos: number): number {
    const b = this.breaks;
    let lo = 0, hi = b.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (b[mid] < pos) lo = mid + 1; else hi = mid; }
    return lo + 1;
  }
}

/** `import` then `(` (trivia between allowed): the only way an import type, or an import call, can be written. */
const IMPORT_PAREN = /\bimport\s*(?:\/\*[\s\S]*?\*\/\s*|\/\/[^\n]*\n\s*)*\(/;

/**
 * The words one of which every node the walk records holds in its own text:
 * each definition starts with its keyword (`function`, `class`, `interface`,
 * `type`, `enum`, `namespace`, `module`, `global`), each statement with
 * `import`, `export` or is a call of `require`. A subtree whose text holds
 * none of them records nothing, so the walk does not enter it (most function
 * bodies: 5× fewer nodes visited on the bench's corpus). `\b` cannot miss
 * one: a keyword token is bounded by characters that are not identifier
 * characters, and every `\w` character is one.
 */
const RECORDED_WORDS = /\b(?:function|class|interface|type|enum|namespace|module|global|import|export|require)\b/g;

/** Where in `text` the walk may find something to record: the offsets of RECORDED_WORDS, ascending; null when anywhere. */
function recordedWordOffsets(text: string): Int32Array | null {
  // A keyword or `require` spelled with a Unicode escape (`requir\u0065`) is the same token to the compiler.
  if (text.includes('\\u')) return null;
  const found: number[] = [];
  RECORDED_WORDS.lastIndex = 0;
  for (let m = RECORDED_WORDS.exec(text); m !== null; m = RECORDED_WORDS.exec(text)) found.push(m.index);
  return Int32Array.from(found);
}

/** An overload group: consecutive declarations of one name, all but the last without a body. */
type Group<T> = T[];

class Extractor {
  readonly defs: Definition[] = [];
  readonly imports: TsImport[] = [];
  private readonly SK: typeof TS.SyntaxKind;
  private readonly lastToken: number;
  /**
   * Whether type positions need a look: only an `import("m")` type can be a
   * statement there, and types hold no definitions. A file whose text has no
   * `import` followed by `(` has none, and its types (most of a .d.ts file)
   * are not walked.
   */
  private readonly typesMatter: boolean;
  /** recordedWordOffsets of the file's text. */
  private readonly words: Int32Array | null;

  constructor(private readonly ts: Ts, private readonly sf: TS.SourceFile, private readonly lines: LineMap) {
    this.SK = ts.SyntaxKind;
    this.lastToken = ts.SyntaxKind.LastToken;
    this.typesMatter = IMPORT_PAREN.test(sf.text);
    this.words = recordedWordOffsets(sf.text);
  }

  /** Whether the text of `node` (leading trivia included) holds one of RECORDED_WORDS. */
  private mayRecord(node: TS.Node): boolean {
    const w = this.words;
    if (w === null) return true;
    let lo = 0, hi = w.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (w[mid] < node.pos) lo = mid + 1; else hi = mid; }
    return lo < w.length && w[lo] < node.end;
  }

  private isType(kind: TS.SyntaxKind): boolean {
    return kind >= this.SK.FirstTypeNode && kind <= this.SK.LastTypeNode;
  }

  private first(node: TS.Node): number { return this.lines.lineOf(node.getStart(this.sf)); }
  private last(node: TS.Node): number { return this.lines.lineOf(Math.max(node.end - 1, node.getStart(this.sf))); }

  /**
   * Records a definition and returns its qualified name, the scope of what it
   * holds. An empty name is one the parser invented in recovering from a
   * syntax error (`function 1() {}`, `enum {}`): it names nothing and no one
   * could ask for it, so nothing is recorded and the scope stays the enclosing one.
   */
  private define(name: string, qual: string, kind: SymbolKind, from: TS.Node, to: TS.Node = from): string {
    if (name === '') return qual;
    const qualname = qual === '' ? name : `${qual}.${name}`;
    this.defs.push({ name, qualname, kind, start: this.first(from), end: this.last(to) });
    return qualname;
  }

  /** The statements of a source file or namespace body: variables there are definitions. */
  statements(list: readonly TS.Node[], qual: string): void {
    this.children(list, qual, true);
  }

  /**
   * Visits nodes in order, folding consecutive function declarations of one
   * name (overload signatures, then the implementation) into one definition.
   */
  private children(list: readonly TS.Node[], qual: string, moduleScope: boolean): void {
    const SK = this.SK;
    for (let i = 0; i < list.length; i++) {
      const node = list[i];
      if (node.kind === SK.FunctionDeclaration) {
        const group: Group<TS.FunctionDeclaration> = [node as TS.FunctionDeclaration];
        while (i + 1 < list.length && list[i + 1].kind === SK.FunctionDeclaration
          && !group[group.length - 1].body && this.functionName(list[i + 1] as TS.FunctionDeclaration) === this.functionName(node as TS.FunctionDeclaration)) {
          group.push(list[++i] as TS.FunctionDeclaration);
        }
        this.functionGroup(group, qual);
      } else {
        this.visit(node, qual, moduleScope);
      }
    }
  }

  /** The qualified name children are visited under, for the two callbacks below (made once, not per node). */
  private qual = '';
  private readonly onChild = (c: TS.Node): undefined => { this.visit(c, this.qual, false); return undefined; };
  private readonly onChildren = (list: TS.NodeArray<TS.Node>): undefined => { this.children(list, this.qual, false); return undefined; };

  /** Every child of `node`, in order; its arrays (statements, members, arguments) through children(). */
  private descend(node: TS.Node, qual: string): void {
    if (node.kind <= this.lastToken || !this.mayRecord(node)) return; // a token has no children; see RECORDED_WORDS
    const outer = this.qual;
    this.qual = qual;
    this.ts.forEachChild(node, this.onChild, this.onChildren);
    this.qual = outer;
  }

  private visit(node: TS.Node, qual: string, moduleScope: boolean): void {
    const SK = this.SK;
    switch (node.kind) {
      case SK.ImportDeclaration: {
        const d = node as TS.ImportDeclaration;
        const typeOnly = d.importClause?.isTypeOnly === true;
        this.addImport(d, d.moduleSpecifier, 'import', typeOnly ? d.attributes : undefined);
        return;
      }
      case SK.ExportDeclaration: {
        const d = node as TS.ExportDeclaration;
        if (d.moduleSpecifier) this.addImport(d, d.moduleSpecifier, 'export', d.isTypeOnly ? d.attributes : undefined, true);
        return;
      }
      case SK.ImportEqualsDeclaration: {
        const d = node as TS.ImportEqualsDeclaration;
        if (d.moduleReference.kind === SK.ExternalModuleReference) this.addImport(d, d.moduleReference.expression, 'equals');
        return;
      }
      case SK.CallExpression: {
        const c = node as TS.CallExpression;
        if (c.expression.kind === SK.ImportKeyword) this.addImport(c, c.arguments[0], 'call');
        else if (c.expression.kind === SK.Identifier && (c.expression as TS.Identifier).escapedText === 'require' && c.arguments.length === 1) {
          this.addImport(c, c.arguments[0], 'require');
        }
        this.descend(node, qual);
        return;
      }
      case SK.ImportType: {
        const t = node as TS.ImportTypeNode;
        const arg = t.argument;
        if (arg.kind === SK.LiteralType) this.addImport(t, (arg as TS.LiteralTypeNode).literal, 'type', t.attributes);
        this.descend(node, qual);
        return;
      }
      case SK.ClassDeclaration: {
        const c = node as TS.ClassDeclaration;
        const name = c.name?.text || (this.hasDefault(c) ? 'default' : null);
        this.classLike(c, qual, name === null ? null : this.define(name, qual, 'class', c));
        return;
      }
      case SK.ModuleDeclaration:
        this.namespace(node as TS.ModuleDeclaration, qual);
        return;
      case SK.InterfaceDeclaration: {
        const self = this.define((node as TS.InterfaceDeclaration).name.text, qual, 'interface', node);
        if (this.typesMatter) this.descend(node, self);
        return;
      }
      case SK.TypeAliasDeclaration: {
        const self = this.define((node as TS.TypeAliasDeclaration).name.text, qual, 'type', node);
        if (this.typesMatter) this.descend(node, self);
        return;
      }
      case SK.EnumDeclaration:
        this.descend(node, this.define((node as TS.EnumDeclaration).name.text, qual, 'enum', node));
        return;
      case SK.VariableStatement:
        if (moduleScope) { this.variables(node as TS.VariableStatement, qual); return; }
        break;
    }
    if (!this.typesMatter && this.isType(node.kind)) return;
    this.descend(node, qual);
  }

  private hasDefault(node: TS.HasModifiers): boolean {
    return node.modifiers?.some((m) => m.kind === this.SK.DefaultKeyword) ?? false;
  }

  private functionName(f: TS.FunctionDeclaration): string | null {
    return f.name?.text || (this.hasDefault(f) ? 'default' : null);
  }

  private functionGroup(group: Group<TS.FunctionDeclaration>, qual: string): void {
    const name = this.functionName(group[0]);
    const inner = name === null ? qual : this.define(name, qual, 'function', group[0], group[group.length - 1]);
    for (const f of group) this.descend(f, inner);
  }

  /**
   * A class's members (`self`: its qualified name when it is a definition;
   * null for a class that is not one, whose members are then not either).
   * Decorators and heritage clauses belong to the enclosing scope.
   */
  private classLike(c: TS.ClassLikeDeclaration, outer: string, self: string | null): void {
    const SK = this.SK;
    if (c.modifiers) this.children(c.modifiers, outer, false);
    if (c.heritageClauses) this.children(c.heritageClauses, outer, false);
    const qual = self ?? outer;
    if (c.typeParameters) this.children(c.typeParameters, qual, false);
    const members = c.members;
    for (let i = 0; i < members.length; i++) {
      const m = members[i];
      if (self === null) { this.visit(m, qual, false); continue; }
      switch (m.kind) {
        case SK.MethodDeclaration:
        case SK.Constructor: {
          const group: Group<TS.MethodDeclaration | TS.ConstructorDeclaration> = [m as TS.MethodDeclaration];
          const name = this.memberName(m);
          while (i + 1 < members.length && members[i + 1].kind === m.kind && !group[group.length - 1].body
            && this.memberName(members[i + 1]) === name && this.isStatic(members[i + 1]) === this.isStatic(m)) {
            group.push(members[++i] as TS.MethodDeclaration);
          }
          const inner = this.define(name, self, 'method', group[0], group[group.length - 1]);
          const impl = group[group.length - 1];
          if (m.kind === SK.Constructor && impl.body) this.parameterProperties(impl as TS.ConstructorDeclaration, self);
          for (const g of group) this.descend(g, inner);
          break;
        }
        case SK.GetAccessor:
        case SK.SetAccessor:
          this.descend(m, this.define(this.memberName(m), self, 'method', m));
          break;
        case SK.PropertyDeclaration:
          // A property is no enclosing scope for a name (only classes, namespaces and functions are): what it holds is the class's.
          this.define(this.memberName(m), self, 'variable', m);
          this.descend(m, self);
          break;
        default:
          this.visit(m, self, false);
      }
    }
  }

  /** `constructor(private x: T) {}`: a parameter with an accessibility or `readonly` modifier declares property `x` (only an implementation may). */
  private parameterProperties(ctor: TS.ConstructorDeclaration, cls: string): void {
    const SK = this.SK;
    for (const p of ctor.parameters) {
      if (p.name.kind !== SK.Identifier || !p.modifiers) continue;
      const isProperty = p.modifiers.some((mod) => mod.kind === SK.PublicKeyword || mod.kind === SK.PrivateKeyword
        || mod.kind === SK.ProtectedKeyword || mod.kind === SK.ReadonlyKeyword || mod.kind === SK.OverrideKeyword);
      if (isProperty) this.define(p.name.text, cls, 'variable', p);
    }
  }

  private isStatic(m: TS.ClassElement): boolean {
    return (m as TS.HasModifiers).modifiers?.some((mod) => mod.kind === this.SK.StaticKeyword) ?? false;
  }

  /** A member's name as written: `run`, `#secret`, `"quoted"` as quoted, `[Symbol.iterator]` with its brackets. */
  private memberName(m: TS.ClassElement): string {
    const SK = this.SK;
    if (m.kind === SK.Constructor) return 'constructor';
    const n = m.name;
    if (!n) return '';
    switch (n.kind) {
      case SK.Identifier: case SK.PrivateIdentifier: case SK.StringLiteral: case SK.NumericLiteral:
      case SK.NoSubstitutionTemplateLiteral: case SK.BigIntLiteral:
        return (n as TS.Identifier).text;
      case SK.ComputedPropertyName: {
        const e = (n as TS.ComputedPropertyName).expression;
        if (e.kind === SK.StringLiteral || e.kind === SK.NumericLiteral || e.kind === SK.NoSubstitutionTemplateLiteral) return (e as TS.StringLiteral).text;
        return `[${e.getText(this.sf)}]`;
      }
      default:
        return (n as TS.Node).getText(this.sf);
    }
  }

  /**
   * `namespace A.B {}` is two definitions, `A` and `A.B`, each spanning its
   * own declaration; `declare module "x" {}` is named by its string;
   * `declare global {}` is none, and what it declares is named as at the top.
   */
  private namespace(m: TS.ModuleDeclaration, qual: string): void {
    const SK = this.SK;
    const isGlobal = (m.flags & this.ts.NodeFlags.GlobalAugmentation) !== 0;
    const inner = isGlobal ? qual : this.define(m.name.text, qual, 'namespace', m);
    const body = m.body;
    if (!body) return;
    if (body.kind === SK.ModuleDeclaration) this.namespace(body as TS.ModuleDeclaration, inner);
    else if (body.kind === SK.ModuleBlock) this.statements((body as TS.ModuleBlock).statements, inner);
  }

  /** `const`/`let`/`var` at module or namespace scope: each bound name is a definition spanning the statement. */
  private variables(stmt: TS.VariableStatement, qual: string): void {
    const SK = this.SK;
    const list = stmt.declarationList;
    const isUsing = (list.flags & this.ts.NodeFlags.Using) !== 0;
    for (const decl of list.declarations) {
      if (decl.name.kind === SK.Identifier && !isUsing) {
        const init = decl.initializer && this.unwrap(decl.initializer);
        const kind: SymbolKind = !init ? 'variable'
          : init.kind === SK.ArrowFunction || init.kind === SK.FunctionExpression ? 'function'
            : init.kind === SK.ClassExpression ? 'class' : 'variable';
        const named = this.define(decl.name.text, qual, kind, stmt);
        // A `function` or `class` variable qualifies what it holds (`handler.inner`); a plain variable does not.
        const self = kind === 'variable' ? qual : named;
        if (decl.type) this.visit(decl.type, self, false);
        if (init && init.kind === SK.ClassExpression) {
          // The class is this definition: its members are definitions under its name.
          this.classLike(init as TS.ClassExpression, self, self);
          this.wrappers(decl.initializer!, init, self);
        } else if (decl.initializer) {
          this.visit(decl.initializer, self, false);
        }
        continue;
      }
      if (!isUsing) for (const name of this.boundNames(decl.name)) this.define(name, qual, 'variable', stmt);
      this.descend(decl, qual);
    }
  }

  /** What sits between an initializer and the class expression `inner` it wraps (`as T`, `satisfies T`): visited for imports. */
  private wrappers(outer: TS.Expression, inner: TS.Expression, qual: string): void {
    for (let e = outer; e !== inner; e = (e as TS.ParenthesizedExpression).expression) {
      const t = (e as TS.AsExpression).type;
      if (t) this.visit(t, qual, false);
    }
  }

  /** An initializer without the parentheses, `as`, `satisfies`, `!` and `<T>` around it. */
  private unwrap(e: TS.Expression): TS.Expression {
    const SK = this.SK;
    for (;;) {
      switch (e.kind) {
        case SK.ParenthesizedExpression: case SK.AsExpression: case SK.SatisfiesExpression:
        case SK.NonNullExpression: case SK.TypeAssertionExpression:
          e = (e as TS.ParenthesizedExpression).expression;
          continue;
        default:
          return e;
      }
    }
  }

  /** The names a binding pattern binds: `{a, b: [c, ...d]}` → a, c, d. */
  private boundNames(name: TS.BindingName): string[] {
    const SK = this.SK;
    if (name.kind === SK.Identifier) return [name.text];
    const out: string[] = [];
    for (const el of name.elements) {
      if (el.kind === SK.OmittedExpression) continue;
      out.push(...this.boundNames((el as TS.BindingElement).name));
    }
    return out;
  }

  /**
   * A statement inside JSDoc the compiler lists as an import (jsdoc-imports.ts).
   * An `@import` tag spans from the line of `@import` to the line where its
   * specifier ends (what follows, `with {…}` or the comment's text, is not the
   * statement's); it is type-only, so a `resolution-mode` attribute counts, as
   * on `import type`. An import type (or a call) is the same syntax as outside
   * JSDoc, with that form's span and resolution mode.
   */
  jsdocImport(node: JsDocImport): void {
    const SK = this.SK;
    if (node.kind === SK.JSDocImportTag) {
      const tag = node as TS.JSDocImportTag;
      this.addImport(tag, tag.moduleSpecifier, 'jsdoc', tag.importClause?.isTypeOnly ? tag.attributes : undefined, undefined, tag.moduleSpecifier);
    } else if (node.kind === SK.ImportType) {
      const t = node as TS.ImportTypeNode;
      this.addImport(t, (t.argument as TS.LiteralTypeNode).literal, 'type', t.attributes);
    } else {
      const c = node as TS.CallExpression;
      this.addImport(c, c.arguments[0], c.expression.kind === SK.Identifier ? 'require' : 'call');
    }
  }

  private addImport(node: TS.Node, specNode: TS.Node | undefined, form: TsImportForm, attributes?: TS.ImportAttributes, reexport?: boolean, endNode: TS.Node = node): void {
    const SK = this.SK;
    if (!specNode || (specNode.kind !== SK.StringLiteral && specNode.kind !== SK.NoSubstitutionTemplateLiteral)) return;
    const imp: TsImport = { start: this.first(node), end: this.last(endNode), spec: (specNode as TS.StringLiteral).text, form };
    if (attributes) {
      const mode = (this.ts as unknown as TsInternals).getResolutionModeOverride(attributes);
      if (mode !== undefined) imp.mode = mode === this.ts.ModuleKind.CommonJS ? 'require' : 'import';
    }
    if (reexport) imp.reexport = true;
    this.imports.push(imp);
  }
}

/** The walk's statements with those inside JSDoc merged in by line, the walk's own kept in their order. */
function withJsDoc(x: Extractor, inDocs: readonly JsDocImport[]): TsImport[] {
  const walked = x.imports.splice(0);
  for (const node of inDocs) x.jsdocImport(node);
  const found = x.imports;
  const out: TsImport[] = [];
  let j = 0;
  for (const imp of walked) {
    while (j < found.length && found[j].start <= imp.start) out.push(found[j++]);
    out.push(imp);
  }
  return out.concat(found.slice(j));
}

/** The compiler's AST of one file, `path` deciding how it is parsed (paths.ts); its JSDoc parsed only with `jsDoc`. */
export function parseSource(ts: Ts, path: string, text: string, jsDoc: boolean): TS.SourceFile {
  const kinds = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX };
  return ts.createSourceFile(path, text, {
    languageVersion: ts.ScriptTarget.Latest,
    jsDocParsingMode: jsDoc ? ts.JSDocParsingMode.ParseAll : ts.JSDocParsingMode.ParseNone,
  }, false, kinds[scriptKindOf(path)]);
}

/** Definitions and import statements of one file, `path` deciding how it is parsed (paths.ts). */
export function extractTs(text: string, path: string): TsExtract {
  const ts = typescript();
  const kind = scriptKindOf(path);
  // JSDoc is parsed only where a statement can be in it: the compiler looks into JSDoc in JavaScript files alone (in
  // TypeScript it ignores `@import` tags and `import()` types there), and parsing every comment of every file would
  // cost the build for nothing.
  const docs = (kind === 'js' || kind === 'jsx') && mayHoldJsDocImports(text);
  const sf = parseSource(ts, path, text, docs);
  const x = new Extractor(ts, sf, new LineMap(text));
  x.statements(sf.statements, '');
  return { defs: x.defs, imports: docs ? withJsDoc(x, jsdocImports(ts, sf)) : x.imports };
}
