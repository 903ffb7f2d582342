// `evidex importers src/hono-base`: a path written as an import statement
// writes it, without its extension, names the one indexed file a module
// specifier would reach (`src/hono-base.ts`; `src/middleware/cors/index.ts`
// for a folder; `src/flask/__init__.py`), and the command answers for that
// file, saying so in a note. find_importers itself takes such a name as a
// package subpath (the contract's module_name), so the CLI asks it as typed
// first and looks for the file only when that finds nothing. Which files are
// indexed is asked of the daemon with search_code's path matches, anchored by
// path_prefix at what the name may be followed by: `X.`, `X/index.`,
// `X/__init__.`, and `X/package.json` (a package's folder is reached through
// its package.json, not an index file: its refusal, which says so, stands).
import { isPackageInit, isPythonPath } from '../../indexer/python/modules.js';
import { isTsJsPath } from '../../indexer/typescript/paths.js';
import { MAX_LIMIT } from '../../indexer/query/limits.js';
import type { ToolResult } from '../../protocol/messages.js';
import type { Client } from '../connection.js';
import { callTool } from './tool-command.js';

/** The longest query search_code takes (its schema's bound): a longer name is looked for no further. */
const QUERY_MAX = 200;

/**
 * Whether `path` is a file that the extensionless path `name` reaches as a
 * module specifier does: `name` with a TypeScript, JavaScript or Python
 * extension (`.d.ts` and the like, `.pyi`), or, for a folder, its index file
 * (`index` with a TS/JS extension) or its `__init__.py` (`.pyi`).
 */
export function reachedBy(name: string, path: string): boolean {
  // The root's files are passed with a leading "/" under the name "": its index files, as a folder's.
  if (!path.startsWith(name)) return false;
  const rest = path.slice(name.length);
  if (rest.startsWith('/')) {
    const file = rest.slice(1);
    return (/^index(?:\.d)?\.[^./]+$/.test(file) && isTsJsPath(path)) || (!file.includes('/') && isPackageInit(path));
  }
  return (/^(?:\.d)?\.[^./]+$/.test(rest) && isTsJsPath(path)) || (/^\.[^./]+$/.test(rest) && isPythonPath(path));
}

/** Whether a name typed as a path lacks a source file's extension: only such a name is looked up as a specifier. */
export function extensionless(name: string): boolean {
  return name !== '' && !isTsJsPath(name) && !isPythonPath(name);
}

/** The indexed files whose paths start with `prefix` (search_code's path matches, case as typed). */
async function indexedUnder(client: Client, prefix: string): Promise<string[]> {
  if (prefix.length > QUERY_MAX) return [];
  const r = await callTool(client, 'search_code', { query: prefix, path_prefix: prefix, case_sensitive: true, limit: MAX_LIMIT });
  return r.evidence.filter((e) => e.kind === 'path_match').map((e) => e.path);
}

/**
 * The indexed files the root-relative, extensionless path `name` reaches as
 * a module specifier would (reachedBy), in path order; a folder's index file
 * only when the folder holds no package.json.
 */
export async function filesReachedBy(client: Client, name: string): Promise<string[]> {
  const [named, index, init, pkg] = await Promise.all([`${name}.`, `${name}/index.`, `${name}/__init__.`, `${name}/package.json`].map((p) => indexedUnder(client, p)));
  const inFolder = pkg.includes(`${name}/package.json`) ? init : [...index, ...init];
  return [...named, ...inFolder].filter((f) => reachedBy(name, f)).sort();
}

/**
 * The repository root's own index files (`index.js`, `__init__.py`: what an
 * import of the root folder, `require('..')` in test/, reaches when its
 * package names no other entry), in path order.
 */
export async function rootIndexFiles(client: Client): Promise<string[]> {
  const found = await Promise.all(['index.', '__init__.'].map((p) => indexedUnder(client, p)));
  return found.flat().filter((f) => reachedBy('', `/${f}`)).sort();
}

/** `result` with a note saying which file `typed` was taken for (its paths as the answer's other notes name them). */
export function withMeansNote(result: ToolResult, typed: string, file: string): ToolResult {
  return { ...result, notes: [...(result.notes ?? []), `${typed} means ${file}`] };
}
