// The JSDoc `@import` tags of a JavaScript file that are import statements
// (docs/tools.md, Import statements): those the compiler's program lists among
// the file's imports (`sourceFile.imports`). The compiler does not walk every
// comment for them. It scans the text for `import` and `require`, and from the
// end of each descends from the file to the innermost node holding that
// position, entering a node's attached JSDoc comments before its children
// (forEachDynamicImportOrRequireCall and getNodeAtPosition in the compiler);
// a tag reached so is an import. Hence a comment attached to no node (before a
// block's `}`, between call arguments) holds none, and a tag whose clause
// starts right after `import` (`@import{A}from'm'`: the clause holds that
// position, so the descent passes the tag) counts only when a later `import`
// or `require` in the tag's own text stops on it. The same descent, here,
// gives the same tags.
import type TS from 'typescript';
import type { Ts } from './load.js';

/** What the scan reads of the compiler beyond its public API (present in the pinned 5.x): the JSDoc comments attached to a node. */
interface JsDocHost { jsDoc?: readonly TS.JSDoc[] }

/** Whether a file's text can hold a tag the compiler counts: the tag's name is written `@import` (an escaped name is no tag). */
export function mayHoldImportTags(text: string): boolean {
  return text.includes('@import');
}

/**
 * The innermost node holding `pos`, a node's JSDoc comments tried before its
 * children, as the compiler's getNodeAtPosition with JSDoc (a node holds
 * `pos` from its `pos`, leading trivia included, to before its `end`).
 */
function nodeAt(ts: Ts, sf: TS.SourceFile, pos: number): TS.Node {
  const holds = (c: TS.Node): TS.Node | undefined =>
    c.pos <= pos && (pos < c.end || (pos === c.end && c.kind === ts.SyntaxKind.EndOfFileToken)) ? c : undefined;
  let current: TS.Node = sf;
  for (;;) {
    let child: TS.Node | undefined;
    const docs = (current as JsDocHost).jsDoc;
    if (docs) for (const d of docs) if ((child = holds(d))) break;
    child ??= ts.forEachChild(current, holds);
    if (!child || ts.isMetaProperty(child)) return current;
    current = child;
  }
}

/**
 * The `@import` tags of `sf` (a JavaScript file parsed with its JSDoc) the
 * compiler lists as imports, each once, in text order: found as above, with a
 * non-empty string literal for a specifier.
 */
export function jsdocImportTags(ts: Ts, sf: TS.SourceFile): TS.JSDocImportTag[] {
  const out: TS.JSDocImportTag[] = [];
  const seen = new Set<TS.Node>();
  const words = /import|require/g;
  for (let m = words.exec(sf.text); m !== null; m = words.exec(sf.text)) {
    const node = nodeAt(ts, sf, words.lastIndex);
    if (!ts.isJSDocImportTag(node) || seen.has(node)) continue;
    const spec = node.moduleSpecifier;
    if (!ts.isStringLiteral(spec) || spec.text === '') continue;
    seen.add(node);
    out.push(node);
  }
  return out.sort((a, b) => a.pos - b.pos);
}
