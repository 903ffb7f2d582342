// What find_importers says of a name written as an import statement writes a
// file or module relative to itself (docs/tools.md, find_importers, Notes):
// `./hono-base` or `hono-base` (a TypeScript specifier, without or with its
// `./`) and `.globals` or `..globals` (a Python relative import). What such a
// name means depends on the importing file, so no statement is matched by it;
// answered with a bare 0 (or a refusal that speaks of another name) it reads
// as "nothing imports this". The files and modules named are the index's own
// (its paths and Python module names), never an ignored or secret file.
import { ToolError } from '../errors.js';
import type { Store } from '../store/store.js';
import { namedList, worded, type Note } from './notes.js';

/** Files or modules named in one note. */
const NAMED_MAX = 3;

/** The extension of a TypeScript or JavaScript file a specifier names, with the `/index` it may leave out too (a Python file is asked for by its module name). */
const WRITTEN_END = /(?:\/index)?(?:\.d)?\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
/** A Python relative module: dots, then a dotted name or nothing. */
const PYTHON_RELATIVE = /^(\.+)((?:[A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)*)?$/;

/** A TypeScript or JavaScript file's path as an import statement writes it: without its extension, or `/index` and one (`src/ui/index.ts` → `src/ui`); as is for any other file. */
export function writtenStem(path: string): string {
  return path.replace(WRITTEN_END, '');
}

/** `./x`, `../x`, `.`, `..`: a specifier relative to the importing file. */
export function isRelativeSpecifier(m: string): boolean {
  return /^\.\.?(?:\/|$)/.test(m);
}

/**
 * The indexed TypeScript and JavaScript files whose path, as an import statement writes it
 * (without its extension, or `/index` and one), ends with `written` after a
 * `/` (`hono-base` → src/hono-base.ts; `utils/url` → src/utils/url.ts), in
 * path order, shortest first.
 */
export function filesWritten(store: Store, written: string): string[] {
  const tail = `/${written.replace(/^(?:\.\.?\/)+/, '')}`;
  if (tail.length < 3 || tail.endsWith('/')) return [];
  const out: string[] = [];
  for (const f of store.ordered()) {
    const stem = writtenStem(f.path);
    if (stem !== f.path && (`/${stem}`).endsWith(tail)) out.push(f.path);
  }
  return out.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The refusal of a relative specifier (`./hono-base`) that names no indexed
 * file from the root: it says so, and that as a specifier its file depends on
 * the importing file, in place of a refusal that names the path it was made
 * into (`"hono-base" is not in the index`); `near`: the near misses, as the
 * refusal lists them (suggest-modules.ts), or null for none.
 */
export function relativeSpecifierRefusal(m: string, near: { listed: string; paths: string[] } | null): ToolError {
  const head = `${JSON.stringify(m)} names no indexed file from the repository root; read as an import statement's relative specifier, the file it names depends on the importing file, and find_importers takes that file's repository path`;
  return near === null ? new ToolError('not_indexed', `${head} (such as src/lib/log.ts)`) : new ToolError('not_indexed', `${head}; did you mean: ${near.listed}`, near.paths);
}

/**
 * The note on a name no statement is matched by and no indexed file or
 * module is known by: a Python relative module (`.globals`), with the
 * absolute modules it can be; or a bare name that is how an import statement
 * writes an indexed file relative to itself (`hono-base`, `utils/url`), with
 * those files. Null for any other name.
 */
export function relativeNameNote(store: Store, m: string): Note | null {
  const py = PYTHON_RELATIVE.exec(m);
  if (py) return pythonRelativeNote(store, m, py[1].length, py[2] ?? '');
  if (isRelativeSpecifier(m) || m.startsWith('@')) return null;
  const files = filesWritten(store, m);
  if (files.length === 0) return null;
  const call = { name: 'find_importers', arguments: { module_name: files[0] } } as const;
  return {
    ...worded`${JSON.stringify(m)} is matched as a package name, which no statement imports; an import of a file of the repository (\`./${m.replace(/^.*\//, '')}\`) is matched by the file's path: ${call}${files.length > 1 ? ` (or ${namedList(files.slice(1), NAMED_MAX)})` : ''}`,
    paths: files.slice(1, NAMED_MAX),
  };
}

/** `.globals`: the modules `rest` can be from a package `dots - 1` levels up (flask.globals), said with the rule. */
function pythonRelativeNote(store: Store, m: string, dots: number, rest: string): Note {
  const lead = `${JSON.stringify(m)} is a relative import: the module it names depends on the importing file's package, and statements are matched by the absolute module`;
  if (rest === '') return { text: `${lead}; give the package's dotted name`, paths: [] };
  const parts = rest.split('.').length;
  const found: string[] = [];
  for (const name of store.moduleNames()) {
    if ((name === rest || name.endsWith(`.${rest}`)) && name.split('.').length - parts >= dots - 1) found.push(name);
  }
  found.sort((a, b) => a.split('.').length - b.split('.').length || (a < b ? -1 : a > b ? 1 : 0));
  // One name per file, its shortest (`flask.globals`, not also `src.flask.globals`).
  const files = new Set<number>();
  const modules = found.filter((name) => {
    const fids = store.moduleFiles(name);
    if (fids.every((fid) => files.has(fid))) return false;
    for (const fid of fids) files.add(fid);
    return true;
  });
  if (modules.length === 0) return { text: `${lead}; no indexed module is named ${JSON.stringify(rest)} or ends with it`, paths: [] };
  const call = { name: 'find_importers', arguments: { module_name: modules[0] } } as const;
  return { ...worded`${lead}: ${call}${modules.length > 1 ? ` (or ${namedList(modules.slice(1), NAMED_MAX)})` : ''}`, paths: [] };
}
