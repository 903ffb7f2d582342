// Near misses for find_importers (docs/tools.md, Suggestions): a module name
// no file is known by, or a path the index does not hold, answered with the
// nearest module names and paths it does hold (`checker.py` asked at the root
// of mypy: `mypy/checker.py`; `flask.ap`: `flask.app`). Chosen only from the
// index — module names of Python files, paths of source files and package
// names that import statements write — so a suggestion never names an
// ignored or secret file.
import { ToolError } from '../errors.js';
import type { Store } from '../store/store.js';
import { NotIndexedError } from './args.js';
import type { ImportersAnswer } from './importers.js';
import { allowedDistance, distanceWithin } from '../../local/distance.js';
import { folderRefusal, noSuchFileNote, noSuchSubpathNote, packageFolders, resolvesNote } from './importer-notes.js';
import { withNote } from './notes.js';
import { missingModuleNote, type WouldReach } from './missing-file.js';
import { prefixIsWhy } from './prefix-note.js';
import type { Suggestion, ToolArgs, ToolResult } from './schemas.js';
import { SUGGESTIONS_MAX } from './limits.js';
import { importerSuggestionGroups } from './suggestion-groups.js';
import { isRelativeSpecifier, relativeNameNote, relativeSpecifierRefusal, writtenStem } from './relative-names.js';

/** The extension of a Python, TypeScript or JavaScript source, as a pattern. */
const SOURCE_EXTENSION = String.raw`\.(?:py|pyi|ts|tsx|mts|cts|js|jsx|mjs|cjs)`;
/** Files an import statement can name: Python, TypeScript and JavaScript sources. */
const SOURCE = new RegExp(`${SOURCE_EXTENSION}$`);
/** What a path asked for as an import statement writes it (`src/log`, `src/button`) lacks of a source file's: its extension, or `/index` and one. */
const WRITTEN_WITHOUT = new RegExp(`^(?:/index)?${SOURCE_EXTENSION}$`);

/**
 * find_importers' answer (in slices, query/pace.ts), with suggestions when `module_name` names nothing
 * the index knows; a path refused as not indexed gets them in its one-line
 * reason instead (a refusal has no result to carry them), unless a file is
 * there (left out of the index: the refusal says why).
 */
export function* withImporterSuggestions(store: Store, args: ToolArgs['find_importers'], answer: Generator<void, ImportersAnswer, void>, reach?: WouldReach): Generator<void, ToolResult, void> {
  let result: ToolResult;
  let indexed: boolean;
  try {
    ({ result, indexed } = yield* answer);
  } catch (err) {
    if (!(err instanceof ToolError) || err.code !== 'not_indexed') throw err;
    // A file that is there and left out is the file asked for: no other name is nearer.
    if (err instanceof NotIndexedError && err.fileThere) throw err;
    const near = moduleSuggestions(store, args.module_name);
    // A suggestion that is a file's path (its name is its path) is a path the reason names.
    // Labelled by kind (`files a, b; package name c`): a package name must not read as a path.
    const listed = importerSuggestionGroups(near).map((g) => `${g.label} ${g.items.map((s) => s.name).join(', ')}`).join('; ');
    const paths = near.filter((s) => s.name === s.path).map((s) => s.name);
    // `./hono-base`: refused in words about what was asked, not about the path it was made into ("hono-base").
    if (isRelativeSpecifier(args.module_name)) throw relativeSpecifierRefusal(args.module_name, near.length ? { listed, paths } : null);
    if (near.length === 0) throw err;
    throw new ToolError('not_indexed', `${err.message}; did you mean: ${listed}`, [...err.paths, ...paths], err.calls);
  }
  if (indexed) return result;
  if (result.total === 0) {
    const folder = folderRefusal(store, args.module_name);
    if (folder) throw folder;
  }
  // A package name or subpath: what it resolves to, when that is a file of the repository.
  // A Python module of the tree's own packages that no indexed file is any more (removed, renamed away): said above the statements that still import it.
  const note = resolvesNote(store, args.module_name, result.total) ?? missingModuleNote(store, args.module_name, result.total);
  result = withNote(result, note);
  // A module or an indexed file that nothing imports (however its path is spelled, as find_importers read it) is an exact answer, not a near miss;
  // and when nothing in the index is under path_prefix, that is why the answer is empty, not the name (prefix-note.ts).
  if (result.total > 0 || note || prefixIsWhy(store, args.path_prefix, result.total)) return result;
  // A subpath of one of the repository's packages said not to be there; else a path-shaped name said to be no indexed file.
  result = withNote(result, noSuchSubpathNote(store, args.module_name) ?? noSuchFileNote(store, args.module_name, reach) ?? relativeNameNote(store, args.module_name));
  const suggestions = moduleSuggestions(store, args.module_name);
  return suggestions.length ? { ...result, suggestions } : result;
}

/**
 * Module names and source paths spelled like `asked`, ignoring case: equal
 * (`case`); ending with it after a `.` or `/` (`tail`: `checker` is
 * `mypy.checker`); within allowedDistance (`edit`); for a path, ending with
 * its file name (`tail` too, after the edits); beginning with it
 * (`prefix`, three characters or more). By reason, distance, length, then
 * name; one per file. A prefix that only adds what an import statement
 * leaves out (`src/log` → `src/log.ts`, `src/button` →
 * `src/button/index.ts`) is the file the path was written for: it comes
 * right after `case`, before a `tail` that merely shares the file name.
 */
export function moduleSuggestions(store: Store, asked: string): Suggestion[] {
  // As a statement writes it relative to itself (`./hono-base`, `..globals`): the name, as the tail of a path or module.
  const want = asked.toLowerCase().replace(/^(?:\.\.?\/)+/, '').replace(/^\.+(?=[a-z_])/, '');
  if (want.length < 2) return [];
  const max = allowedDistance(want.length);
  const found: Array<{ s: Suggestion; rank: number; d: number }> = [];
  const dotWant = `.${want}`, slashWant = `/${want}`;
  // A path asked for (`packages/ui/src/Button.tsx`): a file of the same name in another folder (`…/src/button/Button.tsx`) is a tail too.
  const slash = want.lastIndexOf('/');
  const fileName = slash > 0 && want.length - slash > 3 ? want.slice(slash) : null;
  const consider = (name: string, path?: string): void => {
    const low = name.toLowerCase();
    let rank = -1, d = 0;
    if (low === want) rank = 0;
    else if (path === name && low.startsWith(want) && WRITTEN_WITHOUT.test(low.slice(want.length))) rank = 1;
    else if (low.endsWith(dotWant) || low.endsWith(slashWant)) rank = 2;
    // A file as an import statement relative to it writes it (`hono-base`, `utils/url`): src/hono-base.ts.
    else if (path === name && `/${writtenStem(low)}`.endsWith(slashWant) && writtenStem(low) !== low) rank = 2;
    else if ((d = distanceWithin(want, low, max)) <= max) rank = 3;
    else if (fileName !== null && low.endsWith(fileName)) { rank = 4; d = 0; }
    else if (want.length >= 3 && low.startsWith(want)) { rank = 5; d = 0; }
    if (rank < 0) return;
    const why = (['case', 'prefix', 'tail', 'edit', 'tail', 'prefix'] as const)[rank];
    found.push({ s: path === undefined ? { name, why } : { name, why, path }, rank, d });
  };
  for (const m of store.moduleNames()) {
    // The first of its files' paths in (code unit) order.
    let first: string | null = null;
    for (const fid of store.moduleFiles(m)) {
      const p = store.file(fid)?.path;
      if (p !== undefined && p !== '' && (first === null || p < first)) first = p;
    }
    if (first !== null) consider(m, first);
  }
  for (const f of store.ordered()) if (SOURCE.test(f.path)) consider(f.path, f.path);
  // Package names and subpaths as statements write them (`:react`): an external package has no file of the repository.
  for (const t of store.importTargets()) if (t.startsWith(':')) consider(t.slice(1));
  // The repository's own packages, which its files may never import by name (express's own "express").
  for (const p of packageFolders(store)) consider(p.name, p.folder === '' ? 'package.json' : `${p.folder}/package.json`);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  found.sort((a, b) => a.rank - b.rank || a.d - b.d || a.s.name.length - b.s.name.length || cmp(a.s.name, b.s.name));
  // One suggestion per file: its best name (a file has a module name per package root, and its path); a package name is its own; each name once.
  const seen = new Set<string>();
  const names = new Set<string>();
  const key = (x: Suggestion): string => (x.path === undefined ? `:${x.name}` : x.path);
  const fresh = (x: Suggestion): boolean => {
    if (seen.has(key(x)) || names.has(x.name)) return false;
    seen.add(key(x));
    names.add(x.name);
    return true;
  };
  return found.filter((x) => fresh(x.s)).slice(0, SUGGESTIONS_MAX).map((x) => x.s);
}
