// What the daemon's index writes did, counted as each lands, so that a
// client's index/refresh, which waits for its turn behind them in the write
// queue, can say what ran ahead of it. `evidex index` typed during a
// checkout's catch-up (or the start-up check) otherwise finds every file
// already indexed and says `0 parsed`, as if nothing had been done.
import type { WaitedFor } from '../protocol/messages.js';

interface Landed { parsed: number; removed: number; writes: number }

/** A place in the writes' history (taken when a refresh is asked for), and when it was taken. */
export interface AheadMark { totals: ReadonlyMap<string, Landed>; at: number }

export class WritesAhead {
  /** Running totals by kind of write, in the order each kind first landed. */
  private readonly totals = new Map<string, Landed>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A write of this kind landed, having parsed and removed these many files. */
  add(what: string, parsed: number, removed: number): void {
    const t = this.totals.get(what) ?? { parsed: 0, removed: 0, writes: 0 };
    this.totals.set(what, { parsed: t.parsed + parsed, removed: t.removed + removed, writes: t.writes + 1 });
  }

  mark(): AheadMark {
    return { totals: new Map(this.totals), at: this.now() };
  }

  /** What landed since `mark`, and how long ago it was taken; undefined when no write landed. */
  since(mark: AheadMark): WaitedFor | undefined {
    const out: WaitedFor = { seconds: Math.round(this.now() - mark.at) / 1000, parsed: 0, removed: 0, writes: [] };
    for (const [what, t] of this.totals) {
      const before = mark.totals.get(what) ?? { parsed: 0, removed: 0, writes: 0 };
      if (t.writes === before.writes) continue;
      out.parsed += t.parsed - before.parsed;
      out.removed += t.removed - before.removed;
      out.writes.push(what);
    }
    return out.writes.length ? out : undefined;
  }
}
