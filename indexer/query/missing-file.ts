// find_importers of a TypeScript or JavaScript file's path that is no indexed
// file (docs/tools.md, find_importers, Notes): deleted, renamed away, or not
// yet written. Statements that import it are still there, resolved to no
// file (`missing`), so matching finds none of them, and "imported by no
// statement" misleads an agent asking who breaks if the file goes. The note
// counts the statements that would resolve to that path if a file were
// there — the compiler asked again for each, with the file laid over the
// index (build/ts-imports.ts, wouldReach), so the count is the compiler's,
// not a guess by name — and names where the first are. Only statements whose
// specifier ends with the file's name (as a statement writes it, or its
// folder's for an index file) are asked: a `paths` alias to the file under
// another name is not counted.
import { isTsImport, type TsImport } from '../model.js';
import { UNRESOLVED_AT, type Store } from '../store/store.js';
import { isTsJsPath } from '../typescript/paths.js';
import { namedList } from './notes.js';
import { writtenStem } from './relative-names.js';

/** The file each statement would resolve to were `extra` indexed too, when one of them; else null (the index's builder answers it). */
export type WouldReach = (stmts: ReadonlyArray<{ file: string; raw: TsImport }>, extra: ReadonlySet<string>) => Array<string | null>;

/** Statements asked again at most (the first, in path order); past it the count says "at least". */
const ASKED_MAX = 2000;
/** Places named in the note. */
const PLACES_NAMED = 3;

/** A specifier's last segment as a statement names a file with it: without a TypeScript or JavaScript extension. */
const lastStem = (s: string): string => s.slice(s.lastIndexOf('/') + 1).replace(/(?:\.d)?\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/, '');

/**
 * `; N statements that resolve to no file now would resolve to that path if a
 * file were there: a.ts:3, b.ts:7 and N more (evidex index --unresolved
 * lists every unresolved statement)`, with the paths it names; null when
 * `path` is no TypeScript, JavaScript or JSON file's or none would.
 */
export function wouldImportWords(store: Store, path: string, reach: WouldReach | undefined): { text: string; paths: string[] } | null {
  if (reach === undefined || !(isTsJsPath(path) || path.endsWith('.json'))) return null;
  const names = new Set([lastStem(writtenStem(path)), lastStem(path)]);
  const stmts: Array<{ file: string; raw: TsImport; line: number }> = [];
  let more = false;
  const at = UNRESOLVED_AT.missing;
  for (const f of store.ordered()) {
    if (!f.tr?.[at]) continue;
    for (const rec of store.imports(f.fid)) {
      if (rec.why !== 'missing' || !isTsImport(rec.raw) || !names.has(lastStem(rec.raw.spec))) continue;
      if (stmts.length === ASKED_MAX) { more = true; break; }
      stmts.push({ file: f.path, raw: rec.raw, line: rec.start });
    }
    if (more) break;
  }
  if (stmts.length === 0) return null;
  const reached = reach(stmts, new Set([path]));
  const hits = stmts.filter((_, i) => reached[i] === path);
  if (hits.length === 0) return null;
  const n = hits.length;
  const listed = namedList(hits.map((s) => `${s.file}:${s.line}`), PLACES_NAMED);
  return {
    text: `${more ? 'at least ' : ''}${n} statement${n === 1 ? '' : 's'} that resolve${n === 1 ? 's' : ''} to no file now would resolve to that path if a file were there: ${listed} (\`evidex index --unresolved\` lists every unresolved statement)`,
    paths: [...new Set(hits.slice(0, PLACES_NAMED).map((s) => s.file))],
  };
}

/** A Python module's dotted name. */
const PY_MODULE = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;

/**
 * The Python counterpart of the note above: find_importers of a dotted module
 * name that statements import (`total` of them) but no indexed file is
 * (`pydantic.root_model` after its file is removed), when a package that
 * holds it is in the tree; a third-party module (`requests.adapters`) gets
 * nothing, as its files were never the tree's. Null otherwise.
 */
export function missingModuleNote(store: Store, m: string, total: number): { text: string; paths: string[] } | null {
  if (total === 0 || !PY_MODULE.test(m) || store.moduleFiles(m).length > 0) return null;
  let held = false;
  for (let i = m.lastIndexOf('.'); i > 0 && !held; i = m.lastIndexOf('.', i - 1)) held = store.moduleFiles(m.slice(0, i)).length > 0;
  if (!held) return null;
  return { text: `no indexed file is module ${m} (the statement${total === 1 ? '' : 's'} below import${total === 1 ? 's' : ''} a module the tree does not hold)`, paths: [] };
}
