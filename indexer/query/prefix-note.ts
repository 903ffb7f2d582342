// The note on an empty answer whose path_prefix nothing in the index is
// under (docs/tools.md, Paging): an empty answer alone would read as "no
// match", when the filter left nothing to match in. Names the nearest folder
// the index does hold, when one is spelled alike.
import type { Store } from '../store/store.js';
import { allowedDistance, distanceWithin } from '../../local/distance.js';
import { pathPrefixOf } from './args.js';
import { withNote, type Note } from './notes.js';
import type { ToolResult } from './schemas.js';

/** `result` with the note when it is empty and no indexed file's path starts with `rawPrefix`. */
export function withPrefixNote(store: Store, rawPrefix: string | undefined, result: ToolResult): ToolResult {
  return withNote(result, prefixNote(store, rawPrefix, result.total));
}

/** The note on an answer of `total` items when that is none and no indexed file's path starts with `rawPrefix`; else null. */
export function prefixNote(store: Store, rawPrefix: string | undefined, total: number): Note | null {
  const prefix = pathPrefixOf(rawPrefix);
  if (total > 0 || prefix === undefined) return null;
  if (store.ordered().some((f) => f.path.startsWith(prefix))) return null;
  const near = nearestFolder(store, prefix.replace(/\/$/, ''));
  const text = `nothing in the index is under path_prefix ${JSON.stringify(prefix)}${near === null ? '' : `; did you mean ${JSON.stringify(`${near}/`)}?`}`;
  return { text, paths: near === null ? [prefix] : [prefix, `${near}/`] };
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
