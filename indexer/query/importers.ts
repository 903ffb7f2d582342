// find_importers (docs/tools.md): the import statements that import a module,
// by Python's rules and TypeScript's in one answer. What `module_name` names
// decides the targets looked up: a Python file's module names, a TypeScript
// (or any other) file's path (statements resolving to it), or a dotted
// module / package name (Python targets, and TypeScript specifiers equal to
// it or starting with it and a `/`). With `via_reexports`, statements that
// import a file re-exporting the module count too, through any chain of
// re-exporting files, each carrying the chain.
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import { makeEvidenceLazy, type Evidence } from '../evidence.js';
import { isPythonPath } from '../python/modules.js';
import type { ImportSpan, Store } from '../store/store.js';
import { dueEvery, sortInSlices, type Due } from '../store/in-slices.js';
import { isTsJsPath } from '../typescript/paths.js';
import { fileTarget, specTarget } from '../typescript/targets.js';
import { indexedFile, pageOf, pathPrefixOf, statOrNull, type LeftOutLookup } from './args.js';
import { resolveCallerPath } from './caller-paths.js';
import { withNote, worded } from './notes.js';
import { unfollowedNote } from './reexport-note.js';
import { submodulesNote } from './submodule-note.js';
import type { ToolArgs, ToolResult } from './schemas.js';

/** Files an import can name: Python, TypeScript, JavaScript, and JSON (which the compiler resolves with resolveJsonModule). */
export function importable(path: string): boolean {
  return isPythonPath(path) || isTsJsPath(path) || path.endsWith('.json');
}

/**
 * The targets `m` names, and whether it names a file or a module the index
 * holds (then an empty answer is exact: nothing imports it). A path (it
 * holds a `/`, or names a Python, TypeScript, JavaScript or JSON file at the
 * root) is checked like every caller path; it names the indexed file it
 * leads to, also through a symbolic link the walk did not index it under (a
 * link back up the tree, an ignored one). An indexed Python file gives its
 * module names, a TypeScript, JavaScript or JSON file its file target (what
 * the compiler can resolve an import to); any other file is refused. A name
 * with a `/` that is no indexed file is a package subpath (`@org/ui`,
 * `lodash/fp`, `libs/enums` through a `paths` alias) unless it starts with
 * `.`, ends in `.py` or `.pyi`, or names a file there on disk (one the index
 * left out, as too large, binary or ignored; also a name without `/` the
 * index knows it left out): then it is a file the index does not hold, and
 * refused as read_evidence refuses it. Anything else is a dotted module name or a package name:
 * itself, the module names of the Python files known by it, and its
 * specifier target.
 */
function targetsOf(store: Store, rules: RepoRules, m: string, leftOut: LeftOutLookup | undefined): { names: Set<string>; indexed: boolean; byName?: true } {
  const isRootFile = importable(m) && (store.fileByPath(m) !== undefined || (leftOut?.(m) ?? null) !== null || linksToIndexed(store, rules, m));
  if (m.includes('/') || isRootFile) {
    const { path, real } = resolveCallerPath(rules, m);
    const f = store.fileByPath(path) ?? (real === null ? undefined : store.fileByPath(real));
    if (f?.py) return { names: new Set([m, ...f.mods]), indexed: true };
    if (f && importable(f.path)) return { names: new Set([fileTarget(f.path)]), indexed: true };
    if (f) throw notResolvedHere(f.path);
    // `./x/y`, a Python file or a file the index left out names a file that is not indexed (refused, as read_evidence refuses it: not_indexed);
    // anything else is a package subpath, as a specifier names it.
    if (m.startsWith('.') || m.startsWith('/') || isPythonPath(m) || isFileThere(rules, real)) indexedFile(store, rules, m, leftOut);
    return { names: new Set([specTarget(m)]), indexed: false };
  }
  const names = new Set<string>([m, specTarget(m)]);
  const files = store.moduleFiles(m);
  for (const fid of files) for (const n of store.file(fid)?.mods ?? []) names.add(n);
  return { names, indexed: files.length > 0, byName: true };
}

/** Whether `m`, a name at the root, is a symbolic link to an indexed file (`CLAUDE.md -> AGENTS.md`): then it is a path, not a package name. */
function linksToIndexed(store: Store, rules: RepoRules, m: string): boolean {
  try {
    const { real } = resolveCallerPath(rules, m);
    return real !== null && real !== m && store.fileByPath(real) !== undefined;
  } catch (err) {
    if (err instanceof ToolError) return false; // refused as a path (a secret, say): read as a name, as before
    throw err;
  }
}

/** Whether `real` (a caller's path resolved: root-relative, null for nothing there) is a file, not a folder. */
function isFileThere(rules: RepoRules, real: string | null): boolean {
  if (real === null || real === '') return false;
  return statOrNull(`${rules.realRoot}/${real}`)?.isFile() ?? false;
}

/**
 * The refusal of an indexed file of another kind (a stylesheet, an image,
 * Markdown), saying why it gets no answer, which is not "nothing imports it": a bundler may well import
 * `./global.css`, but find_importers answers only what Python and the
 * TypeScript compiler resolve. Searching for the file's name finds such imports.
 */
function notResolvedHere(path: string): ToolError {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const what = `${JSON.stringify(path)} is not a Python, TypeScript, JavaScript or JSON file: find_importers answers only for those, `
    + 'as Python and the TypeScript compiler resolve imports; to find where it is imported (a bundler\'s import of a stylesheet, say), search for its name';
  const why = worded`${what}: ${{ name: 'search_code', arguments: { query: name } }}`;
  return new ToolError('not_indexed', why.text, [path], why.calls);
}

/** Every statement with a target in `names` (in answer order). */
function* allImporters(store: Store, names: ReadonlySet<string>, due: Due): Generator<void, readonly ImportSpan[], void> {
  return (yield* store.plan.importStatementsInSlices(names, undefined, { offset: 0, end: Number.MAX_SAFE_INTEGER }, due)).hits;
}

/**
 * The re-exporting files a statement reaches the module through, first the
 * one it imports: each link shares the rest of its chain with the statements
 * of the file it re-exports, so a chain of 200 barrels costs one link per
 * statement, not a copy of the chain (the list is made only for the page).
 */
interface Via { path: string; rest: Via | null }

/** A statement with the re-exporting files it reaches the module through (null for a direct import). */
interface Reached { span: ImportSpan; via: Via | null }

/** A chain as the paths it holds, first to last. */
function viaPaths(via: Via | null): string[] {
  const out: string[] = [];
  for (let v = via; v; v = v.rest) out.push(v.path);
  return out;
}

/**
 * The statements importing the module directly, then those importing a file
 * that re-exports it (breadth first, so each statement gets its shortest
 * chain): `via` lists the files from the one the statement imports to the
 * one that re-exports the module itself.
 */
function* throughReexports(store: Store, names: ReadonlySet<string>, due: Due): Generator<void, Reached[], void> {
  const out: Reached[] = [];
  const seen = new Set<string>();
  const key = (s: ImportSpan): string => `${s.fid}:${s.seq}`;
  const visited = new Set<number>();
  const tick = dueEvery(due);
  let frontier: Reached[] = (yield* allImporters(store, names, due)).map((span) => ({ span, via: null }));
  while (frontier.length) {
    const next: Reached[] = [];
    for (const r of frontier) {
      if (tick()) yield;
      if (seen.has(key(r.span))) continue;
      seen.add(key(r.span));
      out.push(r);
      const file = r.span.fid;
      if (!r.span.reexport || visited.has(file)) continue;
      visited.add(file);
      const path = store.file(file)!.path;
      for (const span of yield* allImporters(store, new Set([fileTarget(path)]), due)) next.push({ span, via: { path, rest: r.via } });
    }
    frontier = next;
  }
  // The path rank orders files as cmp orders their paths, without reading a path per comparison.
  const rank = store.plan.pathRank();
  return yield* sortInSlices(out, (a, b) => rank[a.span.fid] - rank[b.span.fid] || a.span.start - b.span.start || a.span.seq - b.span.seq, due);
}

/** find_importers' answer, and whether `module_name` names a file or module the index holds (targetsOf). */
export interface ImportersAnswer { result: ToolResult; indexed: boolean }

/**
 * Import statements that import the module (docs/tools.md, find_importers),
 * sorted by (path, line); only the page becomes items. In slices
 * (in-slices.ts): a merge of several names' lists, or the re-exports
 * followed through a large graph, yields when `due`.
 */
export function* findImporters(store: Store, rules: RepoRules, args: ToolArgs['find_importers'], due: Due, leftOut?: LeftOutLookup): Generator<void, ImportersAnswer, void> {
  const m = args.module_name;
  const prefix = pathPrefixOf(args.path_prefix);
  const { names, indexed, byName } = targetsOf(store, rules, m, leftOut);
  const page = pageOf(args);
  const item = (r: ImportSpan, via: Via | null = null): Evidence => {
    const text = store.importText(r); // read through textRange, which checks the span
    const e = makeEvidenceLazy(store.file(r.fid)!.path, r.start, r.end, 'import', m, () => text);
    if (via) e.via = viaPaths(via);
    return e;
  };
  if (!args.via_reexports) {
    const { total, hits } = yield* store.plan.importStatementsInSlices(names, prefix, page, due);
    return { result: yield* withSubmodules({ evidence: hits.map((r) => item(r)), total, generation: store.generation }), indexed };
  }
  const all = (yield* throughReexports(store, names, due)).filter((r) => prefix === undefined || store.file(r.span.fid)!.path.startsWith(prefix));
  const result = yield* withSubmodules({ evidence: all.slice(page.offset, page.end).map((r) => item(r.span, r.via)), total: all.length, generation: store.generation });
  // No chain followed: the flag changed nothing, which is said with what the rules follow (reexport-note.ts).
  return { result: all.some((r) => r.via !== null) ? result : withNote(result, unfollowedNote(store, all.map((r) => r.span))), indexed };

  /** A module asked by name: the answer with the note on the statements importing its submodules, which the rule leaves out (submodule-note.ts). */
  function* withSubmodules(result: ToolResult): Generator<void, ToolResult, void> {
    return byName ? withNote(result, yield* submodulesNote(store, m, names, prefix, result.total, due)) : result;
  }
}
