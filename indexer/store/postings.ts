// In-memory inverted index: trigram bucket -> ids of files holding it. Derived
// data: built at warm-up or the first search from the per-file bucket lists in
// LMDB (table `tri`), then patched in the same synchronous step as every commit.
// A compact CSR array for what was there when built, plus small append lists for what came later. Entries
// are never removed in place: a file that lost a bucket or was deleted leaves a
// stale id behind, which only costs a wasted candidate (deleted ids are dropped
// via `isLive`, changed files are rejected by the line scan).
import { BUCKET_COUNT, forEachBucket } from './trigrams.js';

export class Postings {
  private offsets = new Uint32Array(BUCKET_COUNT + 1);
  // 16-bit ids while every file id fits (halves the largest array of the daemon); 32-bit past that.
  private ids: Uint16Array | Uint32Array = new Uint16Array(0);
  private extra = new Map<number, number[]>();
  private extraCount = 0;
  private stamp = new Uint32Array(1024);
  private gen = 0;

  /** Rebuilds from scratch from every live file's encoded bucket list. */
  build(lists: Iterable<[number, Uint8Array]>): void {
    const all: Array<[number, Uint8Array]> = [...lists].sort((a, b) => a[0] - b[0]);
    const counts = new Uint32Array(BUCKET_COUNT + 1);
    let total = 0;
    for (const [, bytes] of all) forEachBucket(bytes, (k) => { counts[k + 1]++; total++; });
    for (let i = 1; i <= BUCKET_COUNT; i++) counts[i] += counts[i - 1];
    const offsets = counts;
    const fill = offsets.slice(0, BUCKET_COUNT);
    const maxFid = all.length ? all[all.length - 1][0] : 0;
    const ids = maxFid < 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
    for (const [fid, bytes] of all) forEachBucket(bytes, (k) => { ids[fill[k]++] = fid; });
    this.offsets = offsets;
    this.ids = ids;
    this.extra.clear();
    this.extraCount = 0;
  }

  /** Frees the arrays. Nothing may be asked until build() fills them again (the store's postingsDirty guards that). */
  clear(): void {
    this.offsets = new Uint32Array(0);
    this.ids = new Uint16Array(0);
    this.extra.clear();
    this.extraCount = 0;
  }

  /** Records the buckets a file gained (present in `next`, absent from `prev`). */
  add(fid: number, next: Uint8Array, prev: Uint8Array | null): void {
    const had = new Set<number>();
    if (prev) forEachBucket(prev, (k) => had.add(k));
    forEachBucket(next, (k) => {
      if (had.has(k)) return;
      let list = this.extra.get(k);
      if (!list) { list = []; this.extra.set(k, list); }
      list.push(fid);
      this.extraCount++;
    });
  }

  /** How many files hold bucket k (an upper bound: stale ids count too). */
  size(k: number): number {
    return this.offsets[k + 1] - this.offsets[k] + (this.extra.get(k)?.length ?? 0);
  }

  /** How many entries were appended since the last build (the caller rebuilds past a bound). */
  get appended(): number { return this.extraCount; }

  /**
   * Files that hold every bucket, ascending by id, restricted to live ids.
   * Intersects smallest list first, using a stamp array instead of Sets.
   */
  candidates(buckets: readonly number[], isLive: (fid: number) => boolean, maxFid: number): number[] {
    if (this.stamp.length <= maxFid) this.stamp = new Uint32Array(Math.max(maxFid + 1, this.stamp.length * 2));
    const lists = buckets.map((k) => ({ k, n: this.size(k) }));
    lists.sort((a, b) => a.n - b.n);
    let cand: number[] | null = null;
    for (const { k } of lists) {
      const g = this.nextGen();
      const from = this.offsets[k], to = this.offsets[k + 1];
      const extra = this.extra.get(k);
      if (cand === null) {
        const out: number[] = [];
        const take = (fid: number): void => {
          if (this.stamp[fid] !== g && isLive(fid)) { this.stamp[fid] = g; out.push(fid); }
        };
        for (let i = from; i < to; i++) take(this.ids[i]);
        if (extra) for (const fid of extra) take(fid);
        cand = out;
      } else {
        for (let i = from; i < to; i++) this.stamp[this.ids[i]] = g;
        if (extra) for (const fid of extra) this.stamp[fid] = g;
        cand = cand.filter((fid) => this.stamp[fid] === g);
      }
      if (cand.length === 0) break;
    }
    return (cand ?? []).sort((a, b) => a - b);
  }

  private nextGen(): number {
    if (this.gen === 0xffffffff) { this.stamp.fill(0); this.gen = 0; }
    return ++this.gen;
  }
}
