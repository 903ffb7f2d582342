// The oracle's JSDoc `@import` statements: the tags the compiler itself lists
// among a file's imports. A program of the one file (no lib, no resolution:
// listing a file's imports needs neither) is asked for `sourceFile.imports`,
// and the specifiers whose parent is a JSDoc `@import` tag are kept, each tag
// once (the compiler lists a tag again for every further `import` or
// `require` word in its text). Nothing here decides which tags count: that is
// the compiler's, in a JavaScript file and not in a TypeScript one.
import ts from 'typescript';

/** `sourceFile.imports`: the module names a program collected for a file, which the public typings leave out (present in the pinned 5.x). */
interface WithImports { imports?: readonly ts.StringLiteralLike[] }

export interface CompilerTag { tag: ts.JSDocImportTag; literal: ts.StringLiteral; sourceFile: ts.SourceFile }

/** The `@import` tags the compiler's program lists as imports of a file with this path and text, in text order. */
export function compilerImportTags(path: string, text: string, scriptKind: ts.ScriptKind): CompilerTag[] {
  // The compiler finds imports only by a scan for these words (and an `@import` tag's name is one): without them, none.
  if (!text.includes('import')) return [];
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
  const out: CompilerTag[] = [];
  const seen = new Set<ts.Node>();
  for (const literal of imports) {
    const tag = literal.parent;
    if (!ts.isJSDocImportTag(tag) || seen.has(tag) || !ts.isStringLiteral(literal)) continue;
    seen.add(tag);
    out.push({ tag, literal, sourceFile: sourceFile! });
  }
  return out.sort((a, b) => a.tag.pos - b.tag.pos);
}
