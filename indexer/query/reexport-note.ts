// find_importers' note when via_reexports followed no chain (docs/tools.md,
// find_importers, Notes): the rules follow `export … from` in TypeScript and
// JavaScript only, so pydantic's `from .main import *` in its __init__.py and
// express's `module.exports = require('./lib/express')` pass a module on
// without via_reexports following them, and the same answer with and without
// the flag reads as "nothing re-exports it". The note says what is followed
// and names the importing files that pass the module on in a form that is not,
// with the call that finds their own importers. Only the statements of the
// answer are read, as indexed; nothing is stored for it.
import type { ImportSpan, Store } from '../store/store.js';
import { namedWords, worded, type Note } from './notes.js';

/** Statements read for an unfollowed re-export (the first, in answer order). */
const STATEMENTS_READ = 200;
/** Files named in the note. */
const FILES_NAMED = 3;

/** `from .x import *` (a Python star import) and `module.exports = require(…)` (CommonJS's whole-module re-export). */
const STAR = /^\s*from\s+\S+\s+import\s+\*/;
const CJS = /(?:^|[^\w$.])module\.exports\s*=\s*require\s*\(/;

/**
 * The note on a via_reexports answer none of whose `spans` came through a
 * chain: the rule followed, and each importing file that passes the module
 * on as a star import in an `__init__.py` or a `module.exports = require(…)`.
 */
export function unfollowedNote(store: Store, spans: readonly ImportSpan[]): Note {
  const found: Array<{ path: string; line: number; module: string }> = [];
  const seen = new Set<number>();
  for (const s of spans.slice(0, STATEMENTS_READ)) {
    if (seen.has(s.fid)) continue;
    const f = store.file(s.fid);
    if (!f) continue;
    const text = store.importText(s);
    const star = f.py && /(?:^|\/)__init__\.pyi?$/.test(f.path) && STAR.test(text);
    if (!star && !(!f.py && CJS.test(text))) continue;
    seen.add(s.fid);
    // A package's __init__.py is imported by its package's name; a JavaScript file by its path.
    const name = star && f.mods.length ? f.mods[0] : f.path;
    found.push({ path: f.path, line: s.start, module: name });
  }
  const rule = 'via_reexports follows only `export … from` in TypeScript and JavaScript, and no statement here came through one';
  if (found.length === 0) return { text: rule, paths: [] };
  const shown = found.slice(0, FILES_NAMED);
  const listed = namedWords(found.map((x) => worded`${x.path}:${x.line}, whose importers ${{ name: 'find_importers', arguments: { module_name: x.module } }} finds`), FILES_NAMED);
  return {
    ...worded`${rule}; ${found.length === 1 ? 'this file passes' : 'these files pass'} the module on in a form it does not follow (a Python star import, \`module.exports = require(…)\`): ${listed}`,
    paths: shown.map((x) => x.path),
  };
}
