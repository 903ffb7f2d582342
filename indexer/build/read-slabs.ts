// Where an update keeps the bytes it reads on the main thread (Builder.update:
// every named file's text and trigram buckets, all alive until the update's one
// commit, and kept as garbage until a full collection: ~36 MB by the end of a
// mass change of site-packages). Each file read into an ArrayBuffer of its own put thousands of small
// blocks (a file is ~11 KB) on glibc's main heap during a mass change, below
// the daemon's 128 KiB mmap threshold (client/connection.ts), and the commit's
// long-lived blocks (LMDB's dirty pages, which it keeps for reuse) landed above
// them: freed after the commit, they were holes the heap could not give back.
// Packed into slabs of SLAB_BYTES, above that threshold, they are mapped
// apart from the heap and unmapped whole once the update's results are
// collected (docs/performance/text-map.md, "Days of mass edits": "What holds
// malloc's heap up").

/** A slab's size: above glibc's mmap threshold (128 KiB), small enough that a slab's unused tail wastes little. */
export const SLAB_BYTES = 1 << 20;

/** Hands out byte arrays cut from shared slabs; a slab lives while any array cut from it does. */
export class ReadSlabs {
  private slab = new Uint8Array(0);
  private used = 0;
  /** Slabs made so far (tests check the arrays share them). */
  slabs = 0;

  /** `size` bytes (not zeroed: the caller fills them), in the current slab or a new one. */
  alloc(size: number): Uint8Array {
    if (this.used + size > this.slab.length) {
      // A file larger than a slab gets a slab of its own size (mapped too, being larger).
      this.slab = new Uint8Array(new ArrayBuffer(Math.max(SLAB_BYTES, size)));
      this.used = 0;
      this.slabs++;
    }
    const out = this.slab.subarray(this.used, this.used + size);
    this.used += size;
    return out;
  }

  /** A copy of `bytes` in a slab. */
  copy(bytes: Uint8Array): Uint8Array {
    const out = this.alloc(bytes.length);
    out.set(bytes);
    return out;
  }
}
