// File-level trigram filter for search_code. Every indexed file stores the set
// of trigram *buckets* that occur in its lines after toLowerCase(); a query can
// only match lines of files holding every bucket of the query. Buckets are
// exact for all-ASCII trigrams (3 x 7 bits = 21 bits) and a hash for the rest:
// collisions only add candidates, which the line scan then rejects, so the
// filter is never wrong, only sometimes less selective.

export const BUCKET_BITS = 21;
export const BUCKET_COUNT = 1 << BUCKET_BITS;
const BUCKET_MASK = BUCKET_COUNT - 1;

/** The bucket of one trigram of (lowercased) UTF-16 code units. */
export function bucketOf(a: number, b: number, c: number): number {
  if ((a | b | c) < 128) return (a << 14) | (b << 7) | c;
  // Non-ASCII code units: a multiplicative hash folded into the same space.
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & BUCKET_MASK;
}

/**
 * Scratch space for collecting one file's distinct buckets. One per thread:
 * marking a bitmap is much cheaper than a Set for millions of trigrams.
 */
export class BucketCollector {
  private readonly seen = new Uint8Array(BUCKET_COUNT);
  private out: number[] = [];

  /** Adds the trigrams of one line (already lowercased). Trigrams never span lines. */
  addLine(lower: string): void {
    const n = lower.length;
    if (n < 3) return;
    let a = lower.charCodeAt(0);
    let b = lower.charCodeAt(1);
    for (let i = 2; i < n; i++) {
      const c = lower.charCodeAt(i);
      const k = bucketOf(a, b, c);
      if (this.seen[k] === 0) { this.seen[k] = 1; this.out.push(k); }
      a = b; b = c;
    }
  }

  /** The distinct buckets seen since the last take(), ascending; resets the collector. */
  take(): Uint32Array {
    const arr = Uint32Array.from(this.out).sort();
    for (const k of this.out) this.seen[k] = 0;
    this.out = [];
    return arr;
  }
}

/**
 * The buckets a matching line must contain, or null when the query gives none
 * (shorter than 3, or no usable trigram): then every file is a candidate.
 * Case-insensitive: all trigrams of query.toLowerCase() — if a lowercased line
 * contains the lowercased query it contains each of its trigrams.
 * Case-sensitive: only trigrams made of three ASCII code units, lowercased the
 * ASCII way. toLowerCase() is not a per-character map in general (final sigma,
 * 'İ' growing to two units), but it maps each ASCII unit to its ASCII lowercase
 * in place, so an exact ASCII run in a line survives lowercasing of that line.
 */
export function queryBuckets(query: string, caseSensitive: boolean): number[] | null {
  const q = caseSensitive ? query : query.toLowerCase();
  const set = new Set<number>();
  for (let i = 2; i < q.length; i++) {
    let a = q.charCodeAt(i - 2), b = q.charCodeAt(i - 1), c = q.charCodeAt(i);
    if (caseSensitive) {
      if ((a | b | c) >= 128) continue;
      if (a >= 65 && a <= 90) a += 32;
      if (b >= 65 && b <= 90) b += 32;
      if (c >= 65 && c <= 90) c += 32;
    }
    set.add(bucketOf(a, b, c));
  }
  return set.size ? [...set] : null;
}

/** Ascending bucket list → delta varint bytes (about 1.5-2 bytes per bucket instead of 4). */
export function encodeBuckets(sorted: Uint32Array): Uint8Array {
  const out = new Uint8Array(sorted.length * 3 + 5);
  let pos = 0;
  let prev = 0;
  for (let i = 0; i < sorted.length; i++) {
    let d = sorted[i] - prev;
    prev = sorted[i];
    while (d >= 0x80) { out[pos++] = (d & 0x7f) | 0x80; d >>>= 7; }
    out[pos++] = d;
  }
  return out.slice(0, pos);
}

/** Calls fn for each bucket of an encoded list, ascending. */
export function forEachBucket(bytes: Uint8Array, fn: (bucket: number) => void): void {
  let prev = 0;
  let pos = 0;
  const n = bytes.length;
  while (pos < n) {
    let b = bytes[pos++];
    let d = b & 0x7f;
    let shift = 7;
    while (b & 0x80) { b = bytes[pos++]; d |= (b & 0x7f) << shift; shift += 7; }
    prev += d;
    fn(prev);
  }
}

