// What every tool makes of its common arguments: the page of the answer order
// (`limit`, `offset`), `path_prefix`, and a caller's path naming an indexed
// file (docs/tools.md, Paging and What is indexed).
import { statSync, type Stats } from 'node:fs';
import { BINARY_SNIFF_BYTES } from '../discover/content.js';
import type { LeftOutReason } from '../discover/left-out.js';
import { parentOf, type RepoRules } from '../discover/rules.js';
import { whyFolderLeftOut } from '../discover/why-left-out.js';
import { ToolError, type Placed } from '../errors.js';
import type { FileMeta, Store } from '../store/store.js';
import { normalizeLexically, resolveCallerPath } from './caller-paths.js';
import { DEFAULT_LIMIT } from './limits.js';

/**
 * The window of the full answer order a list tool returns (docs/tools.md): the
 * items at positions offset .. end-1. Every tool counts all matches for
 * `total` but builds evidence only for these.
 */
export interface Page { offset: number; limit: number; end: number }

export function pageOf(args: { limit?: number; offset?: number }): Page {
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_LIMIT;
  return { offset, limit, end: offset + limit };
}

/**
 * `path_prefix` is a caller's path (docs/tools.md, What is indexed): refused like any other when it
 * is absolute or leaves the root, and normalised ("./src//" is "src/"). It stays
 * a plain string prefix, so "src" also takes "src2/" while "src/" means the folder.
 * The root itself ("", ".") filters nothing.
 */
export function pathPrefixOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const clean = normalizeLexically(raw, { allowRoot: true });
  if (clean === '') return undefined;
  return raw.endsWith('/') ? `${clean}/` : clean;
}

/** Why the index left a file out, as it knows it (left-out.ts); null when it knows no reason. */
export type LeftOutLookup = (path: string) => LeftOutReason | null;

/**
 * A refusal of a path the index does not hold (`not_indexed`); `fileThere`:
 * a file exists at that path, so it is no near miss of another name.
 */
export class NotIndexedError extends ToolError {
  constructor(message: string, readonly fileThere: boolean, paths: readonly string[] = [], calls: readonly Placed[] = []) { super('not_indexed', message, paths, calls); }
}

/**
 * The indexed file a caller's path names, or a refusal (path_denied, secret_denied, not_indexed: why, when the index knows).
 * A path through a symbolic link inside the root names the file at its real path (its `path` then differs from the one typed).
 */
export function indexedFile(store: Store, rules: RepoRules, input: string, leftOut?: LeftOutLookup): FileMeta {
  const { path: rel, real } = resolveCallerPath(rules, input);
  const f = store.fileByPath(rel) ?? (real === null || real === rel ? undefined : store.fileByPath(real));
  if (!f) throw notIndexed(rules, rel, leftOut);
  return f;
}

/**
 * Why `rel` is not in the index, in words. A file over the size cap or
 * binary says so; a secret or ignored one, or one the index knows nothing
 * of, gets the one answer that lists every reason, so the refusal tells
 * nothing of a secret (whose name alone is refused before this) that is not
 * told of any file.
 */
function notIndexed(rules: RepoRules, rel: string, leftOut: LeftOutLookup | undefined): NotIndexedError {
  const abs = `${rules.realRoot}/${rel}`;
  const st = statOrNull(abs);
  // Which tools take path_prefix is said: read_evidence itself takes none, so "path_prefix looks inside it" alone sent a reader looking for it here.
  if (st?.isDirectory()) return new NotIndexedError(`${JSON.stringify(rel)} is a folder, not a file; search_code, find_symbol and find_importers look inside it with path_prefix ${JSON.stringify(`${rel}/`)}`, false);
  // A work tree of this repository is another copy of the tree, said as such: its files are not secrets.
  const excluded = rules.excludedFolder(parentOf(rel));
  if (excluded?.why === 'worktree') return new NotIndexedError(`${JSON.stringify(rel)} is in ${excluded.at}/, a work tree of this repository, which is not indexed (the index holds the root's own copy of the tree)`, st !== null);
  // In a folder left out as a whole (site-packages under an ignored versions/), the rule that leaves it out, as path_prefix's note names it:
  // every file there, secret or not, is refused in these words, so they tell nothing of one file.
  const folder = excluded === null ? null : whyFolderLeftOut(rules, parentOf(rel));
  if (folder !== null) return new NotIndexedError(`${JSON.stringify(rel)} is in a folder the index leaves out: ${folder.why}`, st !== null);
  const why = leftOut?.(rel) ?? null;
  const cap = rules.maxFileBytes;
  const words = why === 'tooLarge' ? `over the size cap (${st && st.size > cap ? `${overCap(st.size, cap)} > ` : ''}${sizeWords(cap)})`
    : why === 'binary' ? `binary (a NUL byte in its first ${sizeWords(BINARY_SNIFF_BYTES)})` : null;
  return new NotIndexedError(words ? `${JSON.stringify(rel)} is left out of the index: ${words}`
    : `${JSON.stringify(rel)} is not in the index (missing, ignored, binary or too large)`, st !== null);
}

/** A size as the refusals say it: bytes, KiB or MiB, with one decimal where it is not whole (`3.1 MiB`, `2 MiB`). */
function sizeWords(bytes: number): string {
  const [n, unit] = bytes >= 1 << 20 ? [bytes / (1 << 20), 'MiB'] : bytes >= 1 << 10 ? [bytes / (1 << 10), 'KiB'] : [bytes, 'bytes'];
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${unit}`;
}

/** A size over the cap as sizeWords says it, or in bytes where that rounds to the cap's own figure (`2.0 MiB > 2 MiB`). */
function overCap(size: number, cap: number): string {
  const [n, unit] = sizeWords(size).split(' ');
  const [capN, capUnit] = sizeWords(cap).split(' ');
  return unit === capUnit && Number(n) === Number(capN) ? `${size.toLocaleString('en')} bytes` : sizeWords(size);
}

/** What is at a caller's path (checked: inside the root), or null when nothing is. */
export function statOrNull(abs: string): Stats | null {
  try { return statSync(abs); } catch { return null; }
}
