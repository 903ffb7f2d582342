// What TypeScript resolution may see of the repository: the indexed files
// and nothing else (docs/tools.md, TypeScript rules: ignored and secret files
// are never targets, node_modules is never read). The builder implements it
// over the store, with a pending update's changes laid over it.

/** The files and folders directly in a folder (names, not paths). */
export interface FolderEntries { files: readonly string[]; directories: readonly string[] }

export interface RepoView {
  /** Whether this repository-relative POSIX path is an indexed file. */
  isFile(rel: string): boolean;
  /** Whether this folder ('' is the root) holds an indexed file, at any depth. */
  isDir(rel: string): boolean;
  /** The text of an indexed file, as indexed; undefined when it is none. */
  text(rel: string): string | undefined;
  /** What an indexed folder holds. */
  entries(rel: string): FolderEntries;
  /** Every indexed file named `name` (e.g. every package.json), in no particular order. */
  filesNamed(name: string): Iterable<string>;
  /** Where an indexed file really is: the path a symbolic link (or a linked folder) leads to, when that is an indexed file too; else `rel`. */
  realPath(rel: string): string;
  /** `rel` with every symbolic link along it followed, whether or not anything is there (a dangling link's target); `rel` when it passes through none. */
  linkedTo(rel: string): string;
}

/** The folder of a repository-relative path ('' for a file at the root). */
export function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

/** `dir/name`, without a leading slash at the root ('') or a trailing one for an empty name. */
export function joinRel(dir: string, name: string): string {
  return dir === '' ? name : name === '' ? dir : `${dir}/${name}`;
}

/**
 * The key a file's existence is remembered by (docs/architecture.md,
 * TypeScript resolution): its folder and its name up to the first dot, so
 * `src/log.ts`, `src/log.d.ts` and `src/log.js` share `src/log` — one key for
 * every extension the compiler tries — and a folder `src/log` has it too.
 */
export function existenceKey(rel: string): string {
  const slash = rel.lastIndexOf('/');
  const dot = rel.indexOf('.', slash + 2);
  return dot < 0 ? rel : rel.slice(0, dot);
}
