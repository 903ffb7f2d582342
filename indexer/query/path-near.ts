// Near misses for a path read_evidence refuses as not indexed (docs/tools.md,
// Suggestions): a model writes `src/hono.ts:10` or `src/hono.ts#L10` (a line
// glued on, as editors and web pages show it), `SRC/hono.ts` or `src/Hono.ts`
// (another case), or `accepts.ts` (a file name without its folder). Each is
// answered with the indexed path it most likely meant, chosen only from the
// index's own paths, so a suggestion never names an ignored or secret file.
import type { Store } from '../store/store.js';

/** A path as it was most likely meant, and the line a suffix glued to it named. */
export interface NearPath { path: string; line?: number }

/** Files named in one "did you mean" when a file name alone fits several. */
const NAMED_MAX = 5;

/** `path:10`, `path:10-20`, `path:10:4` (line and column), `path#L10`, `path#L10-L20`: the path and the line. */
const LINE_SUFFIX = /^(.+?)(?::(\d+)(?:[-:]\d+)?|#L(\d+)(?:-L?\d+)?)$/;

/**
 * The indexed paths `asked` (a caller's path, normalised, that the index does
 * not hold) most likely meant: the path with a line suffix taken off (and the
 * line); else the indexed path equal to it ignoring case; else, for a bare
 * file name, the indexed files of that name (ignoring case), at most
 * NAMED_MAX. Empty when none fits.
 */
export function nearPaths(store: Store, asked: string): NearPath[] {
  const m = LINE_SUFFIX.exec(asked);
  const base = m ? m[1] : asked;
  const line = m ? Number(m[2] ?? m[3]) : undefined;
  const at = (path: string): NearPath => (line !== undefined && line >= 1 ? { path, line } : { path });
  if (m && store.fileByPath(base)) return [at(base)];
  const low = base.toLowerCase();
  const sameCase: string[] = [];
  const named: string[] = [];
  const bare = !low.includes('/');
  for (const f of store.ordered()) {
    const p = f.path.toLowerCase();
    if (p === low) sameCase.push(f.path);
    else if (bare && p.endsWith(`/${low}`)) named.push(f.path);
  }
  if (sameCase.length) return sameCase.slice(0, NAMED_MAX).map(at);
  return named.slice(0, NAMED_MAX).map(at);
}

/** `did you mean path "src/hono.ts" with start_line 10?` for the near paths, or null for none. */
export function nearPathWords(near: readonly NearPath[]): string | null {
  if (near.length === 0) return null;
  const one = (n: NearPath): string => `${JSON.stringify(n.path)}${n.line === undefined ? '' : ` with start_line ${n.line}`}`;
  // A line suffix names a line of one file: read_evidence takes it as start_line, not in the path.
  return near.length === 1 ? `did you mean path ${one(near[0])}?` : `did you mean one of the files of that name: ${near.map(one).join(', ')}?`;
}
