// The oracle's statements inside JSDoc: those the compiler itself lists among
// a file's imports. A program of the one file (no lib, no resolution: listing
// a file's imports needs neither) is asked for `sourceFile.imports`, and the
// specifiers inside a JSDoc comment are kept — an `@import` tag's, an
// `import("m")` type's (`@type {import("m").T}`) — each statement once (the
// compiler lists a tag again for every further `import` or `require` word in
// its text). Nothing here decides which count: that is the compiler's, in a
// JavaScript file and not in a TypeScript one. The rest of `imports` (what is
// outside JSDoc) the oracle's walker finds from the rules.
import ts from 'typescript';

/** `sourceFile.imports`: the module names a program collected for a file, which the public typings leave out (present in the pinned 5.x). */
interface WithImports { imports?: readonly ts.StringLiteralLike[] }

/** A statement inside JSDoc the compiler lists: the node that imports (a tag, an import type, a call) and its specifier. */
export interface CompilerJsDocImport { node: ts.Node; literal: ts.StringLiteralLike; sourceFile: ts.SourceFile }
export interface CompilerTag { tag: ts.JSDocImportTag; literal: ts.StringLiteral; sourceFile: ts.SourceFile }

/** The statements inside JSDoc the compiler's program lists as imports of a file with this path and text, in text order. */
export function compilerJsDocImports(path: string, text: string, scriptKind: ts.ScriptKind): CompilerJsDocImport[] {
  // The compiler finds imports only by a scan for these words (and an `@import` tag's name is one): without them, none.
  if (!text.includes('import') && !text.includes('require')) return [];
  const fileName = `/oracle-file/${path.slice(path.lastIndexOf('/') + 1)}`;
  const options: ts.CompilerOptions = { allowJs: true, noLib: true, noResolve: true, types: [], noEmit: true };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name, langOrOptions) => (name === fileName ? ts.createSourceFile(name, text, langOrOptions, true, scriptKind) : undefined);
  host.fileExists = (name) => name === fileName;
  host.readFile = (name) => (name === fileName ? text : undefined);
  const program = ts.createProgram({ rootNames: [fileName], options, host });
  const sourceFile = program.getSourceFile(fileName);
  const imports = (sourceFile as (ts.SourceFile & WithImports) | undefined)?.imports;
  if (!imports) throw new Error(`the compiler's program listed no imports for ${path}`);
  const out: CompilerJsDocImport[] = [];
  const seen = new Set<ts.Node>();
  for (const literal of imports) {
    if (!ts.findAncestor(literal, ts.isJSDoc)) continue;
    // The specifier's statement: the tag or call it is the argument of, or the import type whose argument's literal it is.
    const node = ts.isLiteralTypeNode(literal.parent) ? literal.parent.parent : literal.parent;
    if (seen.has(node)) continue;
    seen.add(node);
    out.push({ node, literal, sourceFile: sourceFile! });
  }
  return out.sort((a, b) => a.node.pos - b.node.pos);
}

/** The `@import` tags among them. */
export function compilerImportTags(path: string, text: string, scriptKind: ts.ScriptKind): CompilerTag[] {
  return compilerJsDocImports(path, text, scriptKind).flatMap(({ node, literal, sourceFile }) =>
    ts.isJSDocImportTag(node) && ts.isStringLiteral(literal) ? [{ tag: node, literal, sourceFile }] : []);
}
