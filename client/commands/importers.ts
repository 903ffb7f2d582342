// `evidex importers MODULE`: find_importers from the command line.
import { isPythonPath } from '../../indexer/python/modules.js';
import { isTsJsPath } from '../../indexer/typescript/paths.js';
import { SUGGESTIONS_MAX } from '../../indexer/query/limits.js';
import { RpcError } from '../../protocol/jsonrpc.js';
import { TOOL_ERROR, type ToolResult } from '../../protocol/messages.js';
import { flag, needPositionals } from '../command.js';
import type { Client } from '../connection.js';
import { commandLine } from '../command-line.js';
import { Refusal } from '../errors.js';
import { RootNotFile, type Place } from '../paths.js';
import { extensionless, filesReachedBy, rootIndexFiles, withMeansNote } from './specifier-file.js';
import { PAGE, SCOPE, callTool, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_importers',
  usage: 'evidex importers MODULE [--via-reexports] [--limit N] [--offset N] [--path-prefix P | --all]',
  summary: 'import statements that import a module (dotted name, package name or file path)',
  details: 'MODULE is a Python dotted name (pkg.mod), a package name or subpath (react, @org/ui, lodash/fp)\n'
    + 'or the path of a Python, TypeScript or JavaScript file (mod.py, lib/log.ts), relative to the current folder.\n'
    + 'TS/JS imports count as the TypeScript compiler resolves them (tsconfig paths, workspace packages, index files).\n'
    + 'A path written as an import statement writes it (src/log, ./button) that finds nothing as a name is taken for the one file it reaches\n'
    + '(src/log.ts, button/index.ts, pkg/__init__.py), said in a note; when it reaches several, they are suggested.\n'
    + 'With --via-reexports, statements importing a file that re-exports MODULE (a barrel) count too; such a line says via which files.\n'
    + 'In a subfolder it shows the importers there only, and says how many more the whole repository has.',
  examples: ['evidex importers rag_common', 'evidex importers src/rag_common.py', 'evidex importers src/lib/log.ts --via-reexports', 'evidex importers @org/ui'],
  flags: { 'via-reexports': flag.boolean('also statements importing a file that re-exports MODULE (export ... from chains)'), ...PAGE, ...SCOPE },
  build: (p, place) => {
    needPositionals(p, 1, 'evidex importers MODULE');
    const m = p.positionals[0];
    return {
      // The root folder typed (`..` in test/) is refused once the daemon can say which index file it has (rootRefusal).
      module_name: typedAsPath(place, m) ? (place.toRoot(m) === '' ? '' : place.fileToRoot(m).replace(/(.)\/$/, '$1')) : m, via_reexports: p.flags['via-reexports'], ...pageArgs(p), path_prefix: p.flags['path-prefix'],
    };
  },
  // A module asked for by its path (or answered for the file a path reaches) is named in items' headers by that path, from here.
  format: (p, _args, place, r) => ({ nameIsPath: typedAsPath(place, p.positionals[0]) || forAFile.has(r) }),
  call: (client, args, p, place, shownFrom) => asTypedOrItsFile(client, args, p.positionals[0], place, shownFrom, Boolean(p.flags.json)),
});

/** Answers given for the one file a path typed without its extension reaches: their items are named by that file's path. */
const forAFile = new WeakSet<ToolResult>();

/**
 * find_importers of MODULE as typed (withNearFilesHere); when that finds
 * nothing, or refuses it as no indexed file (a folder), and MODULE is a path
 * written as an import statement writes it (`src/hono-base`, `./button`), the
 * answer for the one indexed file it reaches (specifier-file.ts), with a note
 * saying which (`src/hono-base means src/hono-base.ts`; paths from the root
 * with --json, as the tool's own notes). Reaching none or several, the answer
 * as typed stands: its suggestions list them.
 */
async function asTypedOrItsFile(client: Client, args: Record<string, unknown>, typed: string, place: Place, shownFrom: string | undefined, json: boolean): Promise<ToolResult> {
  if (args.module_name === '') throw await rootRefusal(client, typed, place, json);
  const name = specifierName(place, typed, args);
  let asTyped: ToolResult;
  try {
    asTyped = await withNearFilesHere(client, args, typed, place, shownFrom);
  } catch (e) {
    if (name === null || !notIndexed(e)) throw e;
    return forTheFile(client, args, name, typed, place, shownFrom, json, e);
  }
  return name === null || asTyped.total > 0 ? asTyped : forTheFile(client, args, name, typed, place, shownFrom, json, asTyped);
}

/**
 * The answer for the one file `name` reaches, or `otherwise` when it reaches
 * none or several: the answer as typed (whose suggestions list them), or its
 * refusal thrown again — a folder's, which names its index file only, so it
 * names every file reached too.
 */
async function forTheFile(client: Client, args: Record<string, unknown>, name: string, typed: string, place: Place, shownFrom: string | undefined, json: boolean, otherwise: unknown): Promise<ToolResult> {
  const files = await filesReachedBy(client, name);
  // Paths as the answer's own notes name them: from the root with --json, else from here.
  const [asTyped, shown] = json ? [name, files] : [typed, files.map((f) => place.shown(f))];
  if (files.length !== 1) {
    if (!(otherwise instanceof RpcError)) return otherwise as ToolResult;
    if (files.length === 0) throw otherwise;
    const more = `; written as an import statement writes it, ${JSON.stringify(asTyped)} reaches ${files.length} files: ${shown.join(', ')}`;
    const data = otherwise.data as { message?: unknown } | undefined;
    throw new RpcError(otherwise.code, `${otherwise.message}${more}`, typeof data?.message === 'string' ? { ...data, message: `${data.message}${more}` } : data);
  }
  const r = withMeansNote(await callTool(client, 'find_importers', { ...args, module_name: files[0] }, shownFrom), asTyped, shown[0]);
  forAFile.add(r);
  return r;
}

/**
 * The root folder typed where a module goes (`importers ..` in test/), as
 * the root is refused where a file goes (RootNotFile), with the way on a
 * folder's refusal gives: its index file, when it has one
 * (`evidex importers ../index.js`, as every printed command is written).
 */
async function rootRefusal(client: Client, typed: string, place: Place, json: boolean): Promise<Refusal> {
  const refused = new RootNotFile(typed, place.root.path).message;
  const files = await rootIndexFiles(client);
  if (files.length === 0) return new Refusal('not_indexed', refused);
  const shown = json ? files : files.map((f) => place.shown(f));
  const ways = shown.map((f) => commandLine(json ? undefined : place, ['importers', f]));
  return new Refusal('not_indexed', `${refused}; an import of the folder reaches its index file: ${ways.join(' or ')}`);
}

/** A tool's refusal of a module as no indexed file (not_indexed). */
function notIndexed(e: unknown): boolean {
  return e instanceof RpcError && e.code === TOOL_ERROR && (e.data as { code?: unknown } | undefined)?.code === 'not_indexed';
}

/**
 * The root-relative path MODULE names when it is a path without a source
 * file's extension, as an import statement writes one: a name with a `/` (no
 * scoped package's name, no folder written with its trailing `/`) or one
 * starting with `.`; null for anything else (a package or dotted name, a file
 * named with its extension).
 */
function specifierName(place: Place, typed: string, args: Record<string, unknown>): string | null {
  if (!extensionless(typed) || typed.endsWith('/') || !(/^\./.test(typed) || (typed.includes('/') && !typed.startsWith('@')))) return null;
  const name = typedAsPath(place, typed) ? String(args.module_name) : place.fileToRoot(typed);
  return name === '' || name === '.' ? null : name;
}

/**
 * find_importers, and, when a path-shaped name typed in a subfolder that is
 * no file there (`hooks.ts` in lib/, where the file is hooks.tsx;
 * `button/index.js` or `button/index` beside button/index.ts) finds nothing,
 * its near misses as a path from here (`did you mean: hooks.tsx`), as
 * `./hooks.ts` gets them, ahead of its near misses as a name: a path typed is
 * taken from here, so the files here are what it was meant for, not a file
 * of the same name across the repository. It is asked as typed first: a
 * package may be named like a file (`chart.js`, `bn.js`) or a subpath
 * (`lodash/fp`).
 */
async function withNearFilesHere(client: Client, args: Record<string, unknown>, typed: string, place: Place, shownFrom: string | undefined): Promise<ToolResult> {
  const r = await callTool(client, 'find_importers', args, shownFrom);
  const asPath = place.fileToRoot(typed);
  if (r.total > 0 || !place.here || asPath === args.module_name || !pathShaped(typed)) return r;
  // A path refused (not indexed, a folder) says nothing more than the answer as typed: that answer stands.
  const near = await callTool(client, 'find_importers', { ...args, module_name: asPath }, shownFrom).catch(() => null);
  if (!near?.suggestions?.length) return r;
  const nearNames = new Set(near.suggestions.map((s) => s.name));
  const rest = (r.suggestions ?? []).filter((s) => !nearNames.has(s.name));
  return { ...r, suggestions: [...near.suggestions, ...rest].slice(0, SUGGESTIONS_MAX) };
}

/** A name typed that reads as a path: a source file's name, or a name with a `/` that is no scoped package (`@org/ui`). */
function pathShaped(typed: string): boolean {
  return isTsJsPath(typed) || isPythonPath(typed) || (typed.includes('/') && !typed.startsWith('@'));
}

/**
 * Whether MODULE as typed is a path: a file on disk, taken from the current folder like every path (one outside
 * the repository is refused as such), a path relative to it (`./x.ts`, `../lib/log.ts`, there or not: a mistyped
 * one is looked up, and near misses offered, as the same path typed from the root), or a folder written as a path
 * (`src/`, `./lib`: answered "a folder, not a file"); anything else is a module or package name. A scoped package's
 * name (`@trpc/server`) stays a name where a folder here is called so too (tRPC's `packages/server/src/@trpc/server/`
 * holds its subpath entries): as a folder it could only be refused, with the package name as the way on; written
 * `@trpc/server/` it is the folder.
 */
function typedAsPath(place: Place, m: string): boolean {
  const scopedName = m.startsWith('@') && !m.endsWith('/');
  return place.namesFile(m) || place.leavesRoot(m) || /^\.\.?(?:\/|$)/.test(m) || (/^\.|\//.test(m) && !scopedName && place.namesFolder(m));
}
