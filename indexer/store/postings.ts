// In-memory inverted index: trigram bucket -> ids of files holding it. Derived
// data: built at warm-up or the first search from the per-file bucket lists in
// LMDB (table `tri`), then patched in the same synchronous step as every commit.
// A compact CSR array for what was there when built, plus small append lists for what came later. Entries
// are never removed in place: a file that lost a bucket or was deleted leaves a
// stale id behind, which only costs a wasted candidate (deleted ids are dropped
// via `isLive`, changed files are rejected by the line scan).
import { BUCKET_COUNT, forEachBucket } from './trigrams.js';

export class Postings {
  private offsets: Uint32Array = new Uint32Array(BUCKET_COUNT + 1);
  // 16-bit ids while every file id fits (halves the largest array of the daemon); 32-bit past that.
  private ids: Uint16Array | Uint32Array = new Uint16Array(0);
  private extra = new Map<number, number[]>();
  private extraCount = 0;
  private stamp = new Uint32Array(1024);
  private gen = 0;

  /** Rebuilds from scratch from every live file's encoded bucket list. */
  build(lists: Iterable<[number, Uint8Array]>): void {
    const b = new PostingsBuild();
    for (const [fid, bytes] of [...lists].sort((x, y) => x[0] - y[0])) b.add(fid, bytes);
    while (!b.fill(Infinity));
    this.install(b);
  }

  /** Takes the arrays of a finished build (replacing everything held, appended entries too). */
  install(b: PostingsBuild): void {
    const { offsets, ids } = b.result();
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

/**
 * A rebuild of the postings in steps, so that it can run in slices (a cold
 * daemon's first searches build them: ~0.3 s on 6,500 files, which in one
 * step held every other client up as long): every file's bucket list is
 * added in ascending file id order, counted as it comes, then the lists are
 * filled in a bounded number of files per step.
 */
export class PostingsBuild {
  private readonly lists: Array<[number, Uint8Array]> = [];
  private readonly counts = new Uint32Array(BUCKET_COUNT + 1);
  private total = 0;
  private ids: Uint16Array | Uint32Array | null = null;
  private fillAt: Uint32Array | null = null;
  private filled = 0;

  /** The next file's bucket list (file ids ascending). */
  add(fid: number, bytes: Uint8Array): void {
    const last = this.lists.length ? this.lists[this.lists.length - 1][0] : -1;
    if (fid <= last) throw new Error(`internal: postings built out of order (file id ${fid} after ${last})`);
    this.lists.push([fid, bytes]);
    forEachBucket(bytes, (k) => { this.counts[k + 1]++; this.total++; });
  }

  /** Fills the lists of up to `files` more files; true once every added file is in. */
  fill(files: number): boolean {
    if (!this.ids) {
      for (let i = 1; i <= BUCKET_COUNT; i++) this.counts[i] += this.counts[i - 1];
      this.fillAt = this.counts.slice(0, BUCKET_COUNT);
      const maxFid = this.lists.length ? this.lists[this.lists.length - 1][0] : 0;
      this.ids = maxFid < 0x10000 ? new Uint16Array(this.total) : new Uint32Array(this.total);
    }
    const ids = this.ids, at = this.fillAt!;
    const end = Math.min(this.lists.length, this.filled + files);
    for (; this.filled < end; this.filled++) {
      const [fid, bytes] = this.lists[this.filled];
      forEachBucket(bytes, (k) => { ids[at[k]++] = fid; });
    }
    return this.filled === this.lists.length;
  }

  /** The finished arrays (fill must have returned true). */
  result(): { offsets: Uint32Array; ids: Uint16Array | Uint32Array } {
    if (!this.ids || this.filled < this.lists.length) throw new Error('internal: postings build not finished');
    return { offsets: this.counts, ids: this.ids };
  }
}
