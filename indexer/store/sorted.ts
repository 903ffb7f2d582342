// The one binary search over a sorted array that the store's queries share:
// where a run of the array starts (the first element a predicate holds for,
// when it holds for every element after that one too).

/** The first position from `from` on whose element `pred` holds (`list.length` when none); `pred` must hold for every element after it too. */
export function firstWhere<T>(list: readonly T[], from: number, pred: (x: T) => boolean): number {
  let lo = from, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (pred(list[mid])) hi = mid; else lo = mid + 1; }
  return lo;
}
