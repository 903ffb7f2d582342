// The note on an empty answer whose path_prefix nothing in the index is
// under (docs/tools.md, Paging): an empty answer alone would read as "no
// match", when the filter left nothing to match in. Names the nearest folder
// the index does hold, when one is spelled alike.
//
// The one rule for every tool taking path_prefix: when the prefix is why the
// answer is empty (prefixIsWhy), the answer says so and says nothing that
// reads the name as wrong (near-miss suggestions, a note that a subpath or
// a member is not there, that a query is written as a regular expression):
// under that prefix nothing could match, and
// `importers react --path-prefix nope` also suggesting a name sent a reader
// to fix the one part that was right. What says the name is right stays
// (find_symbol's `filtered_out`: where it is, outside the prefix; what a
// package name resolves to).
//
// When the prefix is a folder the index leaves out as a whole (an ignored
// `.venv/`, a work tree, `.git/`), the note says that instead, and why
// (why-left-out.ts): "nothing is under it" would read as an index not yet
// built, or a wrong name. Its paths stay root-relative, as the rule's file is
// in `git check-ignore -v`; the answer also carries it as fields
// (`left_out_folder`), from which the command line says it in its own words,
// with how to index the folder as a tree of its own (client/left-out-folder.ts).
// The note's text is for the model, and may change without telling a client.
import { cmp } from '../store/path-order.js';
import { firstWhere } from '../store/sorted.js';
import type { Store } from '../store/store.js';
import type { RepoRules } from '../discover/rules.js';
import { whyFolderLeftOut } from '../discover/why-left-out.js';
import { allowedDistance, distanceWithin } from '../../local/distance.js';
import { pathPrefixOf } from './args.js';
import { withNote, type Note } from './notes.js';
import type { LeftOutFolder, ToolResult } from './schemas.js';

/** `result` with the note when it is empty and no indexed file's path starts with `rawPrefix`. */
export function withPrefixNote(store: Store, rawPrefix: string | undefined, result: ToolResult, rules?: RepoRules): ToolResult {
  return withNote(result, prefixNote(store, rawPrefix, result.total, rules));
}

/** Whether an answer of `total` items is empty because no indexed file's path starts with `rawPrefix` (then nothing is to read its name as wrong). */
export function prefixIsWhy(store: Store, rawPrefix: string | undefined, total: number): boolean {
  return emptyPrefix(store, rawPrefix, total) !== undefined;
}

/** The prefix (normalised) when the answer of `total` items is empty and no indexed file's path starts with it; else undefined. */
function emptyPrefix(store: Store, rawPrefix: string | undefined, total: number): string | undefined {
  const prefix = pathPrefixOf(rawPrefix);
  if (total > 0 || prefix === undefined) return undefined;
  return holdsUnder(store, prefix) ? undefined : prefix;
}

/** Whether some indexed file's path starts with `prefix`. */
export function holdsUnder(store: Store, prefix: string): boolean {
  // Files are in path order, where those under a prefix are one run: where it would start is one binary search.
  const files = store.ordered();
  const at = firstWhere(files, 0, (f) => cmp(f.path, prefix) >= 0);
  return at < files.length && files[at].path.startsWith(prefix);
}

/**
 * The note on an answer of `total` items when that is none and no indexed file's path starts with `rawPrefix`; else null.
 * Given the rules, a prefix that is a folder they leave out is said to be one, and why.
 */
export function prefixNote(store: Store, rawPrefix: string | undefined, total: number, rules?: RepoRules): Note | null {
  const prefix = emptyPrefix(store, rawPrefix, total);
  if (prefix === undefined) return null;
  const out = rules === undefined ? null : folderLeftOut(rules, prefix);
  // No paths to show from elsewhere: the note names the folder and the rule's file from the root, as git check-ignore does.
  if (out !== null) return { text: `path_prefix ${JSON.stringify(prefix)} is not indexed: ${out.why}`, paths: [], leftOutFolder: out };
  const near = nearestFolder(store, prefix.replace(/\/$/, ''));
  const text = `nothing in the index is under path_prefix ${JSON.stringify(prefix)}${near === null ? '' : `; did you mean ${JSON.stringify(`${near}/`)}?`}`;
  return { text, paths: near === null ? [prefix] : [prefix, `${near}/`] };
}

/** Whether the folder `folder` (root-relative, with its "/") is one the rules leave out as a whole, and why (why-left-out.ts); null when they keep it. */
export function folderLeftOut(rules: RepoRules, folder: string): Omit<LeftOutFolder, 'note'> | null {
  const out = whyFolderLeftOut(rules, folder.replace(/\/$/, ''));
  return out === null ? null : { path_prefix: folder, ...out };
}

/** The indexed folder spelled most like `asked` (by edit distance, then a folder ending in its last part), or null. */
function nearestFolder(store: Store, asked: string): string | null {
  const folders = new Set<string>();
  for (const f of store.ordered()) {
    for (let i = f.path.indexOf('/'); i > 0; i = f.path.indexOf('/', i + 1)) folders.add(f.path.slice(0, i));
  }
  const want = asked.toLowerCase();
  const max = allowedDistance(want.length);
  const last = want.slice(want.lastIndexOf('/') + 1);
  let best: string | null = null, bestD = Infinity;
  for (const dir of folders) {
    const low = dir.toLowerCase();
    let d = distanceWithin(want, low, max);
    if (d > max) d = last.length >= 3 && (low === last || low.endsWith(`/${last}`)) ? max + 1 : Infinity; // the same folder name elsewhere in the tree
    if (d < bestD || (d === bestD && d !== Infinity && dir < best!)) { best = dir; bestD = d; }
  }
  return best;
}
