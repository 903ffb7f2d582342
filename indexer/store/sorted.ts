// The one binary search over a sorted array that the store's queries share:
// where a run of the array starts (the first element a predicate holds for,
// when it holds for every element after that one too), and whether the array
// holds an element.

/** The first position from `from` on whose element `pred` holds (`list.length` when none); `pred` must hold for every element after it too. */
export function firstWhere<T>(list: readonly T[], from: number, pred: (x: T) => boolean): number {
  let lo = from, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (pred(list[mid])) hi = mid; else lo = mid + 1; }
  return lo;
}

/** Whether `list`, sorted by `order`, holds `x` (an element equal to it in that order). */
export function holds<T>(list: readonly T[], x: T, order: (a: T, b: T) => number): boolean {
  const at = firstWhere(list, 0, (y) => order(y, x) >= 0);
  return at < list.length && order(list[at], x) === 0;
}
