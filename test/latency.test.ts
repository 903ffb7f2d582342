// The daemon's latency histograms (daemon/latency.ts) against the exact
// figures of the same samples: quantiles at most one bucket (≤ 1/32) above the
// true value and never below it, exact counts and max, contiguous buckets up to
// the top of the range, and the difference of two snapshots equal to the
// histogram of exactly the samples recorded between them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LatencyBook, LatencyHistogram, minus, _bucketing } from '../daemon/latency.js';
import { mulberry32 } from './helpers/random.js';

const { bucketOf, upperUs, BUCKETS } = _bucketing;

/** Exact quantile by the histogram's own rank rule: the ceil(q·n)-th smallest. */
function exact(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
}


test('every µs value falls in the bucket whose upper edge is the first at or above it; buckets are contiguous to the top', () => {
  let prevUpper = -1;
  for (let b = 0; b < BUCKETS - 1; b++) {
    const up = upperUs(b);
    assert.ok(up > prevUpper, `bucket ${b} ends at ${up}, after ${prevUpper}`);
    assert.is(bucketOf(prevUpper + 1), b, `first value of bucket ${b}`);
    assert.is(bucketOf(up), b, `last value of bucket ${b}`);
    // A bucket is at most 1/32 of its values wide (exact below 64 µs).
    assert.ok(up - prevUpper <= Math.max(1, (prevUpper + 1) / 32), `bucket ${b} is ${up - prevUpper} µs wide at ${prevUpper + 1}`);
    prevUpper = up;
  }
  // Fractions of a µs round up: a 0.9 µs call is not reported as 0.
  assert.is(bucketOf(0.9), 1);
  // Past 2^32 µs (71 minutes) nothing wraps around to a small bucket.
  assert.ok(bucketOf(2 ** 32 + 5) > bucketOf(2 ** 32 - 5));
  assert.is(bucketOf(2 ** 45), BUCKETS - 1);
  assert.is(bucketOf(-3), 0);
});

test('quantiles are never below the exact ones and at most one bucket above; counts and max are exact', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const r = mulberry32(seed);
    const h = new LatencyHistogram();
    const xs: number[] = [];
    let errors = 0;
    const n = 200 + Math.floor(r() * 5000);
    for (let i = 0; i < n; i++) {
      // Log-uniform from 1 µs to 10 s, as answer times are spread.
      const ms = 10 ** (r() * 7 - 3);
      const ok = r() > 0.1;
      if (!ok) errors++;
      xs.push(ms);
      h.record(ms, ok);
    }
    const s = h.snapshot();
    const sorted = [...xs].sort((a, b) => a - b);
    assert.is(s.calls, n);
    assert.is(s.errors, errors);
    assert.is(s.over1ms, xs.filter((x) => x > 1).length);
    assert.is(s.maxMs, Math.max(...xs));
    for (const [q, got] of [[0.5, s.p50Ms], [0.99, s.p99Ms]] as const) {
      const want = exact(sorted, q);
      assert.ok(got !== null && got >= want, `seed ${seed} q${q}: ${got} below the exact ${want}`);
      assert.ok(got! <= want * (1 + 1 / 32) + 0.001 + 1e-9, `seed ${seed} q${q}: ${got} more than a bucket above ${want}`);
    }
    assert.ok(s.p50Ms! <= s.p99Ms! && s.p99Ms! <= s.maxMs!, `p50 ${s.p50Ms} ≤ p99 ${s.p99Ms} ≤ max ${s.maxMs}`);
    assert.is(s.buckets.reduce((a, [, c]) => a + c, 0), n);
  }
  // One call: every quantile is that call, not its bucket's upper edge.
  const one = new LatencyHistogram();
  one.record(0.8355, true);
  assert.equal([one.snapshot().p50Ms, one.snapshot().p99Ms, one.snapshot().maxMs], [0.8355, 0.8355, 0.8355]);
  assert.equal(new LatencyHistogram().snapshot(), { calls: 0, errors: 0, over1ms: 0, p50Ms: null, p99Ms: null, maxMs: null, buckets: [] });
});

test('later minus earlier is the histogram of exactly the calls in between', () => {
  const r = mulberry32(42);
  const all = new LatencyHistogram();
  const between = new LatencyHistogram();
  for (let i = 0; i < 3000; i++) all.record(10 ** (r() * 5 - 3), r() > 0.2);
  const earlier = all.snapshot();
  for (let i = 0; i < 700; i++) {
    const ms = 10 ** (r() * 4 - 2);
    const ok = r() > 0.05;
    all.record(ms, ok);
    between.record(ms, ok);
  }
  const later = all.snapshot();
  const d = minus(later, earlier);
  const b = between.snapshot();
  assert.equal({ ...d, p50Ms: null, p99Ms: null, maxMs: null }, { ...b, p50Ms: null, p99Ms: null, maxMs: null });
  // The difference cannot know the exact max: it reports the top bucket's upper edge, or the max of all if lower.
  assert.is(d.maxMs, Math.min(upperUs(b.buckets[b.buckets.length - 1][0]) / 1000, later.maxMs!));
  // Its quantiles are those of the calls in between, within the same bucket (b's are capped by its exact max).
  for (const [got, want] of [[d.p50Ms!, b.p50Ms!], [d.p99Ms!, b.p99Ms!]]) {
    assert.ok(got >= want && got <= want * (1 + 1 / 32) + 0.001, `${got} vs ${want}`);
  }
  assert.ok(d.maxMs! >= b.maxMs!);
  assert.throws(() => minus(earlier, all.snapshot()), /out of order/);
  // Snapshots of two different histograms: refused, not a negative count.
  const other = new LatencyHistogram();
  other.record(5000, true);
  assert.throws(() => minus(other.snapshot(), earlier), /out of order/);
  // The max in between is bounded by the max of all, as well as by the top bucket.
  const one = new LatencyHistogram();
  one.record(0.1, true);
  const e1 = one.snapshot();
  one.record(0.1234, true);
  assert.is(minus(one.snapshot(), e1).maxMs, 0.1234);
  assert.equal(minus(earlier, undefined), earlier);
});

test('a book keeps one histogram per name, listed in name order', () => {
  const book = new LatencyBook();
  book.record('tools/call search_code', 0.5, true);
  book.record('index/status', 0.1, true);
  book.record('tools/call search_code', 2, false);
  const s = book.snapshot();
  assert.equal(Object.keys(s), ['index/status', 'tools/call search_code']);
  assert.is(s['tools/call search_code'].calls, 2);
  assert.is(s['tools/call search_code'].errors, 1);
  assert.is(s['tools/call search_code'].over1ms, 1);
  assert.is(s['index/status'].calls, 1);
});

test.run();
