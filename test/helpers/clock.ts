// A clock a test moves itself, for code that takes its timers as a parameter
// (Rechecks' Timers): time stands still until advance(), which fires every
// timer that falls due, in due order, each at exactly its due time. What such
// a test asserts then holds however slow or busy the machine is.
import type { Pace } from '../../indexer/api.js';
import type { Timers } from '../../indexer/watch/rechecks.js';

export class ManualClock implements Timers {
  private time = 0;
  private seq = 0;
  private pending: Array<{ at: number; seq: number; fn: () => void }> = [];

  now(): number { return this.time; }

  after(ms: number, fn: () => void): { cancel(): void } {
    const t = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.push(t);
    return { cancel: () => { this.pending = this.pending.filter((p) => p !== t); } };
  }

  /** Moves time forward by `ms`, firing each timer due by then at its own due time (a timer set by one that fires is fired too if due). */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
  }
}

/** A clock that moves one unit per reading: with a 1-unit slice, work yields at its first look at the clock. */
export function countingClock(): () => number {
  let t = 0;
  return () => ++t;
}

/** A pace whose every slice is due at once; counts its pauses. */
export function eagerPace(): Pace & { pauses: number } {
  const p = { pauses: 0, due: () => true, pause: async () => { p.pauses++; await new Promise((r) => setImmediate(r)); } };
  return p;
}
