// What find_importers adds to an answer that its matching alone leaves
// unsaid (docs/tools.md, find_importers, Notes): a folder asked for is said to
// be one (with the workspace package it is and that package's entry), and a
// package name or subpath that the index resolved to a file of the
// repository names that file and how many statements import it, since
// matching by specifier finds only statements written with that exact text.
import { ToolError } from '../errors.js';
import { isTsImport } from '../model.js';
import type { Store } from '../store/store.js';
import { fileTarget, specTarget } from '../typescript/targets.js';
import { normalizeLexically } from './caller-paths.js';
import { importable } from './importers.js';
import { joinWorded, worded, type Note, type Worded } from './notes.js';
import { wouldImportWords, type WouldReach } from './missing-file.js';

/** Statements looked at to learn what a specifier resolves to: enough to see its file, bounded for a name imported everywhere. */
const STATEMENTS_LOOKED_AT = 500;
/** Files named in one note. */
const FILES_NAMED = 3;

/** A folder's index files in the order the compiler tries them for an import of the folder (`./button`): TypeScript's, then JavaScript's. */
const FOLDER_INDEX = ['index.ts', 'index.tsx', 'index.d.ts', 'index.js', 'index.jsx'];

/** A package of the repository: its name, folder ('' for the root) and `main`, as its package.json says. */
interface Package { name: string; folder: string; main?: string }

/**
 * The packages of each store as of its generation: every find_importers answer
 * by name asks for them (notes, suggestions), and finding and parsing every
 * package.json per call made the call 2-4x slower (ts-inproc.js).
 */
const packagesSeen = new WeakMap<Store, { generation: number; packages: Package[] }>();

/** Every indexed package.json's package, in path order. */
export function packageFolders(store: Store): Package[] {
  const seen = packagesSeen.get(store);
  if (seen && seen.generation === store.generation) return seen.packages;
  const out: Package[] = [];
  for (const f of store.filesWithPathContaining('package.json', true)) {
    if (f.path !== 'package.json' && !f.path.endsWith('/package.json')) continue;
    const pkg = packageFields(store.text(f.fid));
    if (pkg !== null) out.push({ ...pkg, folder: f.path.slice(0, -'package.json'.length).replace(/\/$/, '') });
  }
  packagesSeen.set(store, { generation: store.generation, packages: out });
  return out;
}

function packageFields(text: string | undefined): { name: string; main?: string } | null {
  if (text === undefined) return null;
  try {
    const { name, main } = JSON.parse(text) as { name?: unknown; main?: unknown };
    if (typeof name !== 'string' || name === '') return null;
    return typeof main === 'string' && main !== '' ? { name, main } : { name };
  } catch { return null; }
}

/**
 * The files of the repository that statements written with exactly `spec`
 * resolve to (as the index resolved them), and how many of the statements
 * looked at resolve to no file (`atLeast`: more were not looked at).
 */
function resolutionsOf(store: Store, spec: string): { files: string[]; nowhere: number; atLeast: boolean } {
  const { hits, total } = store.plan.importStatements(new Set([specTarget(spec)]), undefined, { offset: 0, end: STATEMENTS_LOOKED_AT });
  const files = new Set<string>();
  let nowhere = 0;
  for (const h of hits) {
    const rec = store.imports(h.fid)[h.seq];
    if (!rec?.raw || !isTsImport(rec.raw) || rec.raw.spec !== spec) continue;
    let found = false;
    for (const t of rec.targets) if (t.startsWith('./')) { files.add(t.slice(2)); found = true; }
    if (!found) nowhere++;
  }
  return { files: [...files].sort(), nowhere, atLeast: total > hits.length };
}

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * Indexed files a package's entry or subpath can be, when no statement shows
 * it: its `main` (for the entry), then the subpath (or index) as is and under src/.
 */
function likelyFiles(store: Store, pkg: Package, sub: string): string[] {
  const folder = pkg.folder;
  const at = (p: string): string => [folder, p].filter((x) => x !== '').join('/');
  const main = pkg.main?.replace(/^\.\//, '').replace(/\/$/, '');
  const stems = sub === '' ? [...(main ? [main, `${main}/index`] : []), 'src/index', 'index'] : [sub, `src/${sub}`, `${sub}/index`, `src/${sub}/index`];
  const out: string[] = [];
  for (const stem of stems) {
    for (const ext of ['', ...EXTENSIONS]) {
      const p = at(stem + ext);
      if (store.fileByPath(p) && /\.[cm]?[jt]sx?$/.test(p) && !out.includes(p)) { out.push(p); break; }
    }
  }
  return out;
}

/** How many statements import the file at `path` (its resolved imports). */
function importerCount(store: Store, path: string): number {
  return store.plan.importStatements(new Set([fileTarget(path)]), undefined, { offset: 0, end: 0 }).total;
}

/** `p, which N statements import: find_importers p` for each file (but one that `skip` statements import: the answer itself), joined; '' for none. */
function filesWithCounts(store: Store, files: readonly string[], skip = -1): Note & Worded {
  const said: Worded[] = [];
  const paths: string[] = [];
  for (const p of files.slice(0, FILES_NAMED)) {
    const n = importerCount(store, p);
    if (n !== skip || files.length > 1) {
      // Counted over the whole repository: so is the call that lists them.
      said.push(worded`${p}, which ${n} statement${n === 1 ? '' : 's'} import${n === 1 ? 's' : ''}: ${{ name: 'find_importers', arguments: { module_name: p } }}`);
      paths.push(p);
    }
  }
  return { ...joinWorded(said, '; '), paths };
}

/** `package "@org/ui" (packages/ui)`, or `this repository's own package "x"` for the root's; with the folder it names. */
function packageWords(pkg: Package): Note {
  return pkg.folder === '' ? { text: `this repository's own package ${JSON.stringify(pkg.name)}`, paths: [] }
    : { text: `package ${JSON.stringify(pkg.name)} (${pkg.folder})`, paths: [pkg.folder] };
}

/** The package of a package.json below the root (a workspace or not), or the repository's own, that `name` is, or that `name` is a subpath of. */
function packageOf(store: Store, name: string): (Package & { sub: string }) | null {
  let best: (Package & { sub: string }) | null = null;
  for (const p of packageFolders(store)) {
    if (name === p.name) return { ...p, sub: '' };
    if (name.startsWith(`${p.name}/`) && (!best || p.name.length > best.name.length)) best = { ...p, sub: name.slice(p.name.length + 1) };
  }
  return best;
}

/**
 * A subpath of one of the repository's packages that no statement writes and
 * that names no file of it (`@org/ui/nope`): said, not left as a bare 0
 * (near misses still come as suggestions). Null for anything else.
 */
export function noSuchSubpathNote(store: Store, m: string): Note | null {
  const pkg = packageOf(store, m);
  if (!pkg || pkg.sub === '' || likelyFiles(store, pkg, pkg.sub).length) return null;
  const whose = packageWords(pkg);
  return {
    text: `no statement imports ${JSON.stringify(m)}, and no file of ${whose.text} is "${pkg.sub}" (as is or under src/, with a TypeScript or JavaScript extension or as a folder's index)`,
    paths: whose.paths,
  };
}

/**
 * A name shaped like a file's path (a Python, TypeScript, JavaScript or JSON
 * file's name: `src/mising.ts`, `nosuch.ts`, a file renamed away) that is no
 * indexed file was matched as a name, as docs/tools.md says; when that found
 * nothing, the note says so, or the bare 0 reads as "nothing imports that
 * file". A path in a folder the index holds files of is said to be no such
 * file. Null for a name of another shape, and for a path the index holds.
 */
export function noSuchFileNote(store: Store, m: string, reach?: WouldReach): Note | null {
  if (!importable(m) || store.fileByPath(m)) return null;
  // Statements left unresolved by the file's absence (deleted, renamed away) still import it as far as their authors know.
  let path: string | null = null;
  try { path = normalizeLexically(m, { allowRoot: false }); } catch { /* not a path inside the root: no statement names it */ }
  const would = path === null ? null : wouldImportWords(store, path, reach);
  const tail = would === null ? '' : `; ${would.text}`;
  // In a folder the index holds files of, the name is a path (`./src/reff.ts` typed, made root-relative): no such file, named so.
  const dir = path?.includes('/') ? path.slice(0, path.lastIndexOf('/')) : null;
  if (path !== null && dir !== null && store.filesUnder(dir).length > 0) {
    return { text: `no such file: ${path}; no statement imports it${tail}`, paths: [path, ...(would?.paths ?? [])] };
  }
  // The name is not quoted: the daemon cannot tell a path the command line made root-relative (`../src/x.ts`)
  // from a package subpath sent as typed (`lodash/fp.js`), so it could show neither as the reader typed it.
  const as = m.includes('/') ? 'a package subpath' : 'a module or package name';
  return { text: `no indexed file is at that path; read as ${as}, it is imported by no statement${tail}`, paths: would?.paths ?? [] };
}

/**
 * A note on a package name or subpath the repository itself provides: the
 * file(s) statements written with it resolve to, or, when no statement is,
 * the file of the package's folder it names, each with its importer count
 * (saying whether statements write the name at all: `total`).
 * Null for a name no package of the repository has, and when the one file it
 * resolves to is imported by exactly the answer's `total` statements.
 */
export function resolvesNote(store: Store, m: string, total: number): Note | null {
  const { files: resolved, nowhere, atLeast } = resolutionsOf(store, m);
  if (resolved.length) {
    // Some statements written the same way may resolve nowhere (another config's moduleResolution): said, or the count reads as theirs too.
    const rest = nowhere > 0 ? `; ${atLeast ? 'at least ' : ''}${nowhere} statement${nowhere === 1 ? '' : 's'} written ${JSON.stringify(m)} resolve${nowhere === 1 ? 's' : ''} to no file of the repository` : '';
    // One file that exactly the answer's statements import: nothing to add.
    const said = filesWithCounts(store, resolved, rest ? -1 : total);
    return said.text === '' ? null : { ...worded`${JSON.stringify(m)} resolves to ${said}${rest}`, paths: said.paths };
  }
  const pkg = packageOf(store, m);
  if (!pkg) return null;
  const files = likelyFiles(store, pkg, pkg.sub);
  if (!files.length) return null;
  const whose = packageWords(pkg);
  const said = filesWithCounts(store, files);
  // Statements may write the name and still resolve nowhere (a package outside any workspace the root declares).
  const lead = total > 0 ? `the statements importing ${JSON.stringify(m)} resolve to no file of the repository` : `no statement imports ${JSON.stringify(m)} by that name`;
  return { ...worded`${lead}; it is ${pkg.sub === '' ? whose.text : `in ${whose.text}`}: ${said}`, paths: [...whose.paths, ...said.paths] };
}

/**
 * The refusal for a folder of indexed files asked for as a module: it is a
 * folder, not a file; the index file an import of it reaches, when it has one
 * and is no package's folder (whose package.json decides instead): what
 * `./button` in an import statement means; and, when it is (or lies in) a
 * workspace package's folder, which package and its entry file(s). Null when
 * `m` is no such folder.
 */
export function folderRefusal(store: Store, m: string): ToolError | null {
  let dir: string;
  try { dir = normalizeLexically(m, { allowRoot: false }).replace(/\/$/, ''); } catch { return null; }
  if (dir === '' || store.fileByPath(dir) || store.filesUnder(dir).length === 0) return null;
  let pkg: Package | null = null;
  for (const p of packageFolders(store)) {
    if (p.folder !== '' && (dir === p.folder || dir.startsWith(`${p.folder}/`)) && (!pkg || p.folder.length > pkg.folder.length)) pkg = p;
  }
  let why = worded`${JSON.stringify(dir)} is a folder, not a file; find_importers takes a file's path, a module or a package name`;
  const paths = [dir];
  const index = pkg?.folder === dir ? undefined : FOLDER_INDEX.map((n) => `${dir}/${n}`).find((p) => store.fileByPath(p));
  if (index !== undefined) why = worded`${why}; an import of the folder reaches its index file: ${{ name: 'find_importers', arguments: { module_name: index } }}`;
  if (pkg) {
    const entries = resolutionsOf(store, pkg.name).files;
    const entry = entries.length ? entries : likelyFiles(store, pkg, '');
    why = worded`${why}; ${dir === pkg.folder ? 'it is the folder of' : 'it is inside'} package ${JSON.stringify(pkg.name)} (${pkg.folder}): ${{ name: 'find_importers', arguments: { module_name: pkg.name } }}`;
    if (entry.length) why = worded`${why}, or its entry file ${entry.slice(0, FILES_NAMED).join(', ')}`;
    paths.push(pkg.folder, ...entry.slice(0, FILES_NAMED));
  }
  return new ToolError('not_indexed', why.text, paths, why.calls);
}
