// How far apart two spellings are, for near-miss suggestions (the index's
// suggest.ts and suggest-modules.ts, the CLI's nearest option and command): the optimal
// string alignment distance (insertions, deletions, substitutions and swaps of
// two neighbours each cost 1), cut off at a bound. A name that finds nothing
// is compared with every name and path of the index, so each comparison must
// cost little: the common prefix and suffix are cut first (they never change
// the distance), and only the cells within `max` of the diagonal are computed
// (any other is already over it). In local/ because the CLI uses it too, and
// a tool call's process loads nothing of the indexer.

/** Rows of the table, reused by every call (the lookups are synchronous, one at a time). */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The distance between `a` and `b`, or `max + 1` as soon as it is known to be
 * more than `max`. Compares UTF-16 units, as given (callers lowercase first).
 */
export function distanceWithin(a: string, b: string, max: number): number {
  const over = max + 1;
  if (Math.abs(a.length - b.length) > max) return over;
  if (a === b) return 0;
  let s = 0, ea = a.length, eb = b.length;
  while (s < ea && s < eb && a.charCodeAt(s) === b.charCodeAt(s)) s++;
  while (ea > s && eb > s && a.charCodeAt(ea - 1) === b.charCodeAt(eb - 1)) { ea--; eb--; }
  const m = ea - s, n = eb - s;
  if (m === 0 || n === 0) return Math.min(m + n, over);
  if (rows[0].length < n + 2) rows = rows.map(() => new Int32Array(n + 2));
  let [prev2, prev, cur] = rows;
  for (let j = 0; j <= n + 1; j++) prev[j] = j <= max ? j : over;
  for (let i = 1; i <= m; i++) {
    const lo = Math.max(1, i - max), hi = Math.min(n, i + max);
    cur[0] = i <= max ? i : over;
    cur[lo - 1] = lo === 1 ? cur[0] : over;
    if (hi < n) cur[hi + 1] = over;
    const ai = a.charCodeAt(s + i - 1), aPrev = i > 1 ? a.charCodeAt(s + i - 2) : -1;
    let rowMin = lo === 1 ? cur[0] : over;
    for (let j = lo; j <= hi; j++) {
      const bj = b.charCodeAt(s + j - 1);
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai === bj ? 0 : 1));
      if (j > 1 && ai === b.charCodeAt(s + j - 2) && aPrev === bj) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return over;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[n], over);
}

/** The largest distance a name of this length may be from what was asked and still be suggested: 1 up to four characters, else 2. */
export function allowedDistance(length: number): number {
  return length <= 4 ? 1 : 2;
}

/** The one of `names` nearest `name` (case aside) within allowedDistance, or null: what a "did you mean" offers. */
export function nearestName(name: string, names: readonly string[]): string | null {
  const max = allowedDistance(name.length);
  let best: string | null = null, bestD = max + 1;
  for (const n of names) {
    const d = distanceWithin(name.toLowerCase(), n, max);
    if (d < bestD) { best = n; bestD = d; }
  }
  return best;
}
