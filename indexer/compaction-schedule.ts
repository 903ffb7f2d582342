// When a text map compaction (a new generation of a large tree's search text,
// once changed files pass a share of it: store/mapped-text.ts) may be
// written: once the index's writes have gone quiet, or at once when its owner
// asks. A mass change (a checkout, a rebase, a formatter) lands as many
// watcher batches over seconds; a generation written after the first of them
// is stale by the last, and each is a write of the whole text (site-packages:
// 2-3 per mass change before; docs/performance/text-map.md, "Days of mass edits").

/** A compaction waits until no update has landed for this long and none is queued… */
export const COMPACT_QUIET_MS = 2000;
/**
 * …but no longer than this after it fell due: a tree that never rests for
 * COMPACT_QUIET_MS (a build writing into it, a drive of back-to-back mass
 * changes) would otherwise pile its changed text up in the heap for good.
 */
export const COMPACT_MAX_WAIT_MS = 30_000;

/** The clock and the timer a compaction waits on (tests pass their own; default performance.now and setTimeout). */
export interface CompactClock { now: () => number; delay: (ms: number) => Promise<void> }

/** What the schedule asks of the index it times. */
export interface CompactionHost {
  /** Whether a compaction is due now (Store.textMapDue). */
  due(): boolean;
  /** Whether the index is closed: nothing more is written. */
  closed(): boolean;
  /** Settles when the writers queued now have run. */
  writes(): Promise<unknown>;
  /** Writes the compaction (a warm-up pass). */
  run(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class CompactionSchedule {
  /** Writers queued or running. */
  private pending = 0;
  /** When the last update landed (the clock's time). */
  private lastWriteAt = -Infinity;
  /** Set while a compaction waits for the writes to go quiet. */
  private waiting = false;
  /** When the compaction now waiting first fell due (the clock's time), null when none is due. */
  private dueSince: number | null = null;
  /** Set by an explicit warm-up (its caller wants the map current now, not after a quiet spell). */
  private urged = false;

  constructor(private readonly host: CompactionHost, private readonly clock: CompactClock = { now: () => performance.now(), delay: sleep }) {}

  /** A writer was queued. */
  queued(): void { this.pending++; }
  /** A queued writer has run (or failed). */
  settled(): void { this.pending--; }
  /** An update landed now. */
  landed(): void { this.lastWriteAt = this.clock.now(); }
  /** The owner wants a compaction due written at once, quiet or not, until the warm-up pass ends. */
  urge(): void { this.urged = true; }

  /** Whether a compaction may be written now: urged, no update landed for COMPACT_QUIET_MS and none is queued, or it has waited COMPACT_MAX_WAIT_MS. */
  mayCompact(): boolean {
    const now = this.clock.now();
    return this.urged || (this.pending === 0 && now - this.lastWriteAt >= COMPACT_QUIET_MS)
      || (this.dueSince !== null && now - this.dueSince >= COMPACT_MAX_WAIT_MS);
  }

  /**
   * A warm-up pass ended. `settled`: no compaction is due any more (written,
   * or no longer needed, not merely unknown while files are unloaded), so the
   * next one is timed afresh. One still due waits for the quiet.
   */
  passEnded(settled: boolean): void {
    this.urged = false;
    if (settled) this.dueSince = null;
    this.whenQuiet();
  }

  /** Waits until the writes are quiet, then runs the compaction still due (one wait at a time). */
  whenQuiet(): void {
    const { host, clock } = this;
    if (this.waiting || host.closed() || !host.due()) return;
    this.waiting = true;
    this.dueSince ??= clock.now();
    void (async () => {
      while (!host.closed() && host.due() && !this.mayCompact()) {
        const now = clock.now();
        await clock.delay(Math.max(0, Math.min(COMPACT_QUIET_MS - (now - this.lastWriteAt), COMPACT_MAX_WAIT_MS - (now - (this.dueSince ?? now)))));
        if (this.pending > 0 && !this.mayCompact()) await host.writes();
      }
      this.waiting = false;
      if (!host.closed() && host.due()) host.run();
    })();
  }
}
