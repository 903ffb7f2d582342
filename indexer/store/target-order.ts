// The symbol index's Python import targets in code-unit order, so that the
// targets under a module (`werkzeug.` up to `werkzeug/`: find_importers' note
// on a module's submodules) are one binary search, not a look at every
// target, nor an LMDB range read (~25 µs each on the shared machine, more than
// the rest of the call). Sorted on first use, in slices; then kept without
// re-sorting per save: a target that comes and goes keeps its place (checked
// as live where it is read), a new one waits in a short unsorted list, and
// both are sorted in again once they pass FOLLOWED_MAX. The cost is one
// pointer per Python target (docs/performance/changes.md).
import { sortInSlices, type Due } from './in-slices.js';
import { firstWhere, holds } from './sorted.js';

/** New or gone targets kept beside the sorted ones before they are sorted in: each call reads the new ones. */
const FOLLOWED_MAX = 256;

/** Whether a target is a Python module name (TypeScript's start with `./` or `:`). */
export function isPythonTarget(t: string): boolean {
  return !t.startsWith('./') && !t.startsWith(':');
}

const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The first position of `xs` (sorted) whose element is not below `x`. */
const lowerBound = (xs: readonly string[], x: string): number => firstWhere(xs, 0, (y) => y >= x);

export class TargetOrder {
  /** The targets in order as of the last sort (some may be gone since, one may be there twice); null until first asked for. */
  private sorted: readonly string[] | null = null;
  /** Targets added since that `sorted` may not hold. */
  private fresh = new Set<string>();
  /** About how many targets of `sorted` are gone since (a save removes a file's targets, then adds them back: net nothing). */
  private gone = 0;
  /**
   * Set while a sort runs (its token): every target added meanwhile is kept
   * as fresh, since the sort's snapshot may lack it. A sort given up (an
   * answer started again after a write) leaves it set, which is only
   * cautious: the next sort replaces it.
   */
  private pending: object | null = null;
  /** Bumped by clear(): a sort begun before it is not taken. */
  private epoch = 0;

  /** `keys`: every target the index holds; `live`: whether it still holds one. */
  constructor(private readonly keys: () => Iterable<string>, private readonly live: (t: string) => boolean) {}

  /** A target the index did not hold is in. */
  added(t: string): void {
    if (!isPythonTarget(t)) return;
    if (this.pending !== null) this.fresh.add(t);
    else if (this.sorted !== null) {
      if (this.holds(t)) this.gone = Math.max(0, this.gone - 1); else this.fresh.add(t);
    }
  }

  /** A target the index held is gone. */
  removed(t: string): void {
    if (!isPythonTarget(t) || (this.sorted === null && this.pending === null)) return;
    if (!this.fresh.delete(t)) this.gone++;
  }

  clear(): void {
    this.sorted = null; this.fresh = new Set(); this.gone = 0; this.pending = null; this.epoch++;
  }

  /** The live targets starting with `parent` and a `.`, in order, each once. */
  *under(parent: string, due: Due): Generator<void, string[], void> {
    if (this.sorted === null || this.fresh.size + this.gone > FOLLOWED_MAX) yield* this.sort(due);
    return this.range(parent);
  }

  /** under()'s answer once sorted (a plain call: a loop inside a generator runs slower). */
  private range(parent: string): string[] {
    const from = `${parent}.`, to = `${parent}/`;
    const out: string[] = [];
    const s = this.sorted!;
    for (let i = lowerBound(s, from); i < s.length && s[i] < to; i++) if (s[i] !== s[i - 1] && this.live(s[i])) out.push(s[i]);
    let more = false;
    for (const t of this.fresh) if (t >= from && t < to && this.live(t) && !this.holds(t)) { out.push(t); more = true; }
    return more ? out.sort(codeUnitOrder) : out;
  }

  private holds(t: string): boolean {
    return holds(this.sorted!, t, codeUnitOrder);
  }

  /** Sorts the live targets (all of them the first time, else the sorted ones with the fresh) in slices. */
  private *sort(due: Due): Generator<void, void, void> {
    const epoch = this.epoch, token = {};
    const all: string[] = [];
    if (this.sorted === null) { for (const t of this.keys()) if (isPythonTarget(t)) all.push(t); }
    else { for (const t of this.sorted) if (this.live(t)) all.push(t); for (const t of this.fresh) all.push(t); }
    this.pending = token;
    this.gone = 0;
    const sorted = yield* sortInSlices(all, codeUnitOrder, due);
    if (epoch !== this.epoch) return yield* this.sort(due);
    if (this.pending === token) this.pending = null;
    this.sorted = sorted;
    for (const t of this.fresh) if (this.holds(t)) this.fresh.delete(t);
  }
}
