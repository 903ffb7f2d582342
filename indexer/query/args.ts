// What every tool makes of its common arguments: the page of the answer order
// (`limit`, `offset`), `path_prefix`, and a caller's path naming an indexed
// file (docs/tools.md, Paging and What is indexed).
import { statSync } from 'node:fs';
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import type { FileMeta, Store } from '../store/store.js';
import { normalizeCallerPath, normalizeLexically } from './caller-paths.js';
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

/** The indexed file a caller's path names, or a refusal (path_denied, secret_denied, not_indexed). */
export function indexedFile(store: Store, rules: RepoRules, input: string): FileMeta {
  const rel = normalizeCallerPath(rules, input);
  const f = store.fileByPath(rel);
  if (!f) throw new ToolError('not_indexed', isFolder(`${rules.realRoot}/${rel}`)
    ? `${JSON.stringify(rel)} is a folder, not a file; path_prefix ${JSON.stringify(`${rel}/`)} looks inside it`
    : `${JSON.stringify(rel)} is not in the index (missing, ignored, binary or too large)`);
  return f;
}

/** Whether a caller's path (checked: inside the root) is a folder: said so rather than "not in the index". */
function isFolder(abs: string): boolean {
  try { return statSync(abs).isDirectory(); } catch { return false; }
}
