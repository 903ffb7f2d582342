// How long the daemon takes to answer, per method (and per tool for
// tools/call), measured on the daemon's side: from the moment a request's
// message is read off the socket to the moment its answer is handed to the
// socket. It is what the daemon itself adds to a client's round trip; the rest
// of a round trip is the transport and the client. A long-running daemon sees
// an unbounded number of calls, so each method keeps a fixed-size histogram,
// not the samples.
//
// The histogram is log-linear: exact to the microsecond below 64 µs (values are
// rounded up to whole µs), then 32 buckets per power of two, so any quantile
// read from it is rounded UP to its bucket's upper edge, at most ~3% (or 1 µs)
// above the true value, and never above the max. Counts only grow, so
// two snapshots of the same daemon can be subtracted (`minus`) to get the
// histogram of exactly the calls in between — how the bench reports the
// daemon's share of its own timed calls.
import type { LatencySnapshot } from '../protocol/messages.js';

/** Sub-buckets per power of two: a bucket is at most 1/32 of its values wide. */
const SUB = 32;
/** Values below this many µs get a bucket each. */
const LINEAR = 2 * SUB;
const LINEAR_BITS = Math.log2(LINEAR);
/** Buckets up to 2^40 µs (~12 days): more than any answer can take. */
const MAX_BITS = 40;
const BUCKETS = LINEAR + (MAX_BITS - LINEAR_BITS) * SUB;

function bucketOf(us: number): number {
  // Rounded up to a whole µs: a bucket's upper edge is then never below a value in it.
  const u = Math.max(0, Math.ceil(us));
  if (u < LINEAR) return u;
  let bits = Math.floor(Math.log2(u));
  if (2 ** bits > u) bits--; // log2 rounded up just below a power of two
  if (bits >= MAX_BITS) return BUCKETS - 1;
  const shift = bits - LINEAR_BITS + 1; // the top LINEAR_BITS bits of u select the sub-bucket
  // Division, not a bit shift: values past 2^32 µs (an hour-long ask) must not wrap.
  return LINEAR + (bits - LINEAR_BITS) * SUB + Math.floor(u / 2 ** shift) - SUB;
}

/** The largest µs value a bucket holds (its upper edge, inclusive). */
function upperUs(bucket: number): number {
  if (bucket < LINEAR) return bucket;
  const k = bucket - LINEAR;
  const bits = LINEAR_BITS + Math.floor(k / SUB);
  const shift = bits - LINEAR_BITS + 1;
  return (SUB + (k % SUB) + 1) * 2 ** shift - 1;
}

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private calls = 0;
  private errors = 0;
  private over1ms = 0;
  private maxMs = 0;

  record(ms: number, ok: boolean): void {
    this.counts[bucketOf(ms * 1000)]++;
    this.calls++;
    if (!ok) this.errors++;
    if (ms > 1) this.over1ms++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  snapshot(): LatencySnapshot {
    const buckets: Array<[number, number]> = [];
    for (let i = 0; i < BUCKETS; i++) if (this.counts[i] > 0) buckets.push([i, this.counts[i]]);
    return summarise(buckets, this.calls, this.errors, this.over1ms, this.calls ? this.maxMs : null);
  }
}

/** The value (ms) at quantile q of a bucket list, rounded up to its bucket's upper edge. */
function quantile(buckets: Array<[number, number]>, calls: number, q: number): number | null {
  if (calls === 0) return null;
  const rank = Math.max(1, Math.ceil(q * calls));
  let seen = 0;
  for (const [b, n] of buckets) {
    seen += n;
    if (seen >= rank) return upperUs(b) / 1000;
  }
  return upperUs(buckets[buckets.length - 1][0]) / 1000;
}

function summarise(buckets: Array<[number, number]>, calls: number, errors: number, over1ms: number, maxMs: number | null): LatencySnapshot {
  // A bucket's upper edge can lie above the slowest call in it; no quantile is above the max.
  const q = (p: number) => { const v = quantile(buckets, calls, p); return v === null || maxMs === null ? v : Math.min(v, maxMs); };
  return { calls, errors, over1ms, p50Ms: q(0.5), p99Ms: q(0.99), maxMs, buckets };
}

/** The calls in `later` that are not in `earlier` (two snapshots of one histogram, earlier taken first). */
export function minus(later: LatencySnapshot, earlier: LatencySnapshot | undefined): LatencySnapshot {
  if (!earlier) return later;
  const outOfOrder = () => new Error('latency snapshots out of order (or from different daemons)');
  const after = new Map(later.buckets);
  for (const [b, n] of earlier.buckets) if ((after.get(b) ?? 0) < n) throw outOfOrder();
  if (later.calls < earlier.calls || later.errors < earlier.errors || later.over1ms < earlier.over1ms) throw outOfOrder();
  const before = new Map(earlier.buckets);
  const buckets: Array<[number, number]> = [];
  for (const [b, n] of later.buckets) {
    const d = n - (before.get(b) ?? 0);
    if (d > 0) buckets.push([b, d]);
  }
  const calls = later.calls - earlier.calls;
  // The slowest call in between is unknown: its bucket's upper edge, and no more than the max of all.
  const top = buckets.length ? Math.min(upperUs(buckets[buckets.length - 1][0]) / 1000, later.maxMs ?? Infinity) : null;
  return summarise(buckets, calls, later.errors - earlier.errors, later.over1ms - earlier.over1ms, top);
}

/** One histogram per name (a method, or a tool of tools/call), made on first use. */
export class LatencyBook {
  private readonly byName = new Map<string, LatencyHistogram>();

  record(name: string, ms: number, ok: boolean): void {
    let h = this.byName.get(name);
    if (!h) this.byName.set(name, (h = new LatencyHistogram()));
    h.record(ms, ok);
  }

  snapshot(): Record<string, LatencySnapshot> {
    const out: Record<string, LatencySnapshot> = {};
    for (const name of [...this.byName.keys()].sort()) out[name] = this.byName.get(name)!.snapshot();
    return out;
  }
}

/** Test aid: the bucket a µs value falls in and that bucket's upper edge. */
export const _bucketing = { bucketOf, upperUs, BUCKETS };
