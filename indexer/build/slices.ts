// Long synchronous work on the daemon's one thread, cut into slices: between
// two slices the event loop runs (setImmediate: after pending I/O), so a
// query or a handshake waits at most about one slice, not the whole job
// (issue 31: a watcher batch of a `git reset` held the thread for 8 s).

/**
 * A slice's length (ms): long enough that the yields cost nothing measurable,
 * short enough that nobody waits for one. Tests set 0, so every unit of work
 * yields whatever the machine's speed.
 */
export const slicing = { ms: 10 };

/** Gives the event loop a turn once a slice of work (slicing.ms) has passed since the last one. */
export class Slices {
  private start = performance.now();

  /** Call between two units of work: yields if this slice is spent. */
  async next(): Promise<void> {
    if (performance.now() - this.start < slicing.ms) return;
    await new Promise((r) => setImmediate(r));
    this.start = performance.now();
  }
}
