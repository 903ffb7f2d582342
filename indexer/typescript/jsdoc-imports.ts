// The import statements inside the JSDoc of a JavaScript file (docs/tools.md,
// Import statements): those the compiler's program lists among the file's
// imports (`sourceFile.imports`) — `@import` tags, and `import("m")` types
// written in a tag's type (`@type {import("m").T}`, `@param`, `@typedef` …).
// The compiler does not walk every comment for them. It scans the text for
// `import` and `require`, and from the end of each descends from the file to
// the innermost node holding that position, entering a node's attached JSDoc
// comments before its children (forEachDynamicImportOrRequireCall and
// getNodeAtPosition in the compiler); a tag or type reached so is an import.
// Hence a comment attached to no node (before a block's `}`, between call
// arguments) holds none, and a tag whose clause starts right after `import`
// (`@import{A}from'm'`: the clause holds that position, so the descent passes
// the tag) counts only when a later `import` or `require` in the tag's own
// text stops on it. The same descent, here, gives the same statements; those
// outside JSDoc the extractor's walk finds (forEachChild never enters JSDoc).
import type TS from 'typescript';
import type { Ts } from './load.js';

/** What the scan reads of the compiler beyond its public API (present in the pinned 5.x): the JSDoc comments attached to a node. */
interface JsDocHost { jsDoc?: readonly TS.JSDoc[] }

/** A statement found inside JSDoc: an `@import` tag, an `import("m")` type, or (should JSDoc ever hold one the descent reaches) a call. */
export type JsDocImport = TS.JSDocImportTag | TS.ImportTypeNode | TS.CallExpression;

/** From each `/**` to the next `*\/` (or the text's end): a span holding every JSDoc comment's text, and more. */
const DOC_SPANS = /\/\*\*[\s\S]*?(?:\*\/|$)/g;
/** The words the compiler's scan starts from. */
const WORDS = /import|require/;

/**
 * Whether a file's text can hold a JSDoc statement the compiler counts: the
 * scan stops on one only from the end of an `import` or `require` written
 * inside it, so some `/**` … `*\/` must hold one of those words. A `/**` in
 * a string or another comment only makes a span longer, never hides one.
 */
export function mayHoldJsDocImports(text: string): boolean {
  if (!text.includes('/**')) return false;
  DOC_SPANS.lastIndex = 0;
  for (let m = DOC_SPANS.exec(text); m !== null; m = DOC_SPANS.exec(text)) {
    if (WORDS.test(m[0])) return true;
  }
  return false;
}

/**
 * The innermost node holding `pos`, a node's JSDoc comments tried before its
 * children, as the compiler's getNodeAtPosition with JSDoc (a node holds
 * `pos` from its `pos`, leading trivia included, to before its `end`); and
 * whether the descent went through a JSDoc comment.
 */
function nodeAt(ts: Ts, sf: TS.SourceFile, pos: number): { node: TS.Node; inDoc: boolean } {
  const holds = (c: TS.Node): TS.Node | undefined =>
    c.pos <= pos && (pos < c.end || (pos === c.end && c.kind === ts.SyntaxKind.EndOfFileToken)) ? c : undefined;
  let current: TS.Node = sf;
  let inDoc = false;
  for (;;) {
    let child: TS.Node | undefined;
    const docs = (current as JsDocHost).jsDoc;
    if (docs) for (const d of docs) if ((child = holds(d))) { inDoc = true; break; }
    child ??= ts.forEachChild(current, holds);
    if (!child || ts.isMetaProperty(child)) return { node: current, inDoc };
    current = child;
  }
}

/**
 * The JSDoc statements of `sf` (a JavaScript file parsed with its JSDoc) the
 * compiler lists as imports, each once, in text order: a node the descent
 * stops on inside a JSDoc comment, kept by the compiler's own tests — a tag
 * with a non-empty string literal for a specifier, an import type with a
 * string literal (empty or not), an `import()` call or a one-argument
 * `require()` call with a string literal or plain template first. (No call
 * was seen reached: `@param {T} [a=require("m")]`'s default is parsed and
 * dropped; the test costs nothing and keeps the list the compiler's.)
 */
export function jsdocImports(ts: Ts, sf: TS.SourceFile): JsDocImport[] {
  const out: JsDocImport[] = [];
  const seen = new Set<TS.Node>();
  const words = /import|require/g;
  for (let m = words.exec(sf.text); m !== null; m = words.exec(sf.text)) {
    const { node, inDoc } = nodeAt(ts, sf, words.lastIndex);
    if (!inDoc || seen.has(node) || !isCounted(ts, node)) continue;
    seen.add(node);
    out.push(node);
  }
  return out.sort((a, b) => a.pos - b.pos);
}

/** Whether the compiler lists `node`, where its scan stopped, as an import of a JavaScript file (forEachDynamicImportOrRequireCall's tests). */
function isCounted(ts: Ts, node: TS.Node): node is JsDocImport {
  if (ts.isJSDocImportTag(node)) return ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text !== '';
  if (ts.isImportTypeNode(node)) return ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal);
  if (!ts.isCallExpression(node) || node.arguments.length === 0 || !ts.isStringLiteralLike(node.arguments[0])) return false;
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return callee.escapedText === 'require' && node.arguments.length === 1;
  // isImportCall: `import("m")`, or `import.defer("m")`.
  return callee.kind === ts.SyntaxKind.ImportKeyword
    || (ts.isMetaProperty(callee) && callee.keywordToken === ts.SyntaxKind.ImportKeyword && callee.name.escapedText === 'defer');
}
