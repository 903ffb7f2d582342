// Comparing two answers as multisets of keys (a differential test's items,
// where the same key may rightly appear more than once).

/** Items in `a` not matched in `b`, as a multiset difference. */
export function missing(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const c = counts.get(x) ?? 0;
    if (c > 0) counts.set(x, c - 1); else out.push(x);
  }
  return out;
}
