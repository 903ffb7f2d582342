// Building blocks for answers that run in slices (query/pace.ts): loops over
// lists whose length grows with the index (a name with 100,000 definitions, a
// package imported by 20,000 files) written as generators that yield wherever
// `due()` says the slice is over. Without a pace `due` never says so and they
// run to the end in one go, as plain loops would.

/** True once the current slice is used up (query/pace.ts). */
export type Due = () => boolean;

/** A `due` that never ends a slice: the answer runs in one go. */
export const neverDue: Due = () => false;

/** Steps between two looks at the slice clock (a power of two): reading a clock per element would cost more than the element. */
export const DUE_EVERY = 256;

/** A `due` asked only every DUE_EVERY calls: `if (tick()) yield;` in a loop over many cheap steps. */
export function dueEvery(due: Due): () => boolean {
  let n = 0;
  return () => {
    if (++n < DUE_EVERY) return false;
    n = 0;
    return due();
  };
}

/** Runs a generator of slices to its end at once: the answer of a caller that has no pace. */
export function drain<T>(it: Generator<void, T, void>): T {
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** Runs sorted one at a time: each is sorted in one step, so a slice holds at most one. */
const RUN = 2048;

/**
 * `xs` sorted by `order` in place (stable, like Array.prototype.sort) and
 * returned: runs of RUN elements are sorted each in one step, then merged
 * pairwise, pass after pass, yielding between steps when due.
 */
export function* sortInSlices<T>(xs: T[], order: (a: T, b: T) => number, due: Due): Generator<void, T[], void> {
  const n = xs.length;
  if (n <= RUN) return xs.sort(order);
  for (let from = 0; from < n; from += RUN) {
    if (due()) yield;
    const run = xs.slice(from, from + RUN).sort(order);
    for (let i = 0; i < run.length; i++) xs[from + i] = run[i];
  }
  let src = xs, dst: T[] = new Array<T>(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const at: Merging = { i: lo, j: Math.min(lo + width, n), k: lo };
      const mid = at.j, hi = Math.min(lo + 2 * width, n);
      // Runs already in order (a list that was nearly sorted, as most are) are copied, not compared.
      if (mid >= hi || order(src[mid], src[mid - 1]) >= 0) {
        for (let k = lo; k < hi; k++) dst[k] = src[k];
        continue;
      }
      // Steps of RUN elements in plain calls (a loop inside a generator runs slower), the clock read between them.
      while (mergeSome(src, dst, at, mid, hi, order, RUN)) if (due()) yield;
    }
    [src, dst] = [dst, src];
  }
  if (src !== xs) for (let i = 0; i < n; i++) xs[i] = src[i];
  return xs;
}

/** Where a merge of src[i..mid) and src[j..hi) into dst[k..) stands. */
interface Merging { i: number; j: number; k: number }

/** Takes up to `steps` elements of the merge (the left run first on a tie, so the sort stays stable); true while some are left. */
function mergeSome<T>(src: readonly T[], dst: T[], at: Merging, mid: number, hi: number, order: (a: T, b: T) => number, steps: number): boolean {
  let { i, j, k } = at;
  const end = Math.min(hi, k + steps);
  while (k < end) {
    if (i < mid && (j >= hi || order(src[j], src[i]) >= 0)) dst[k++] = src[i++];
    else dst[k++] = src[j++];
  }
  at.i = i; at.j = j; at.k = k;
  return k < hi;
}
