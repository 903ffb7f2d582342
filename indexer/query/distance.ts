// How far apart two spellings are, for near-miss suggestions (suggest.ts):
// the optimal string alignment distance (insertions, deletions, substitutions
// and swaps of two neighbours each cost 1), cut off at a bound so that
// comparing a name with every name of the index stays cheap.

/**
 * The distance between `a` and `b`, or `max + 1` as soon as it is known to be
 * more than `max`. Compares UTF-16 units, as given (callers lowercase first).
 */
export function distanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        d = Math.min(d, prev2[j - 2] + 1);
      }
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[n], max + 1);
}

/** The largest distance a name of this length may be from what was asked and still be suggested: 1 up to four characters, else 2. */
export function allowedDistance(length: number): number {
  return length <= 4 ? 1 : 2;
}
