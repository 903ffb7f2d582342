// How far the index is behind the tree the watcher sees. A `git checkout`
// rewrites hundreds of files in a few hundred milliseconds and touches
// ignore files, which queues a re-walk of seconds: in between, a query is
// answered from an index that holds part of the old tree and part of the
// new one. Nothing about the index itself says so (its state is `ready`
// between batches), so the watcher keeps this record: since when it has held
// changes not yet committed, and a mark per change seen, so that a caller can
// wait for what was seen before it asked (and not for what comes after).

import type { CatchingUp } from '../query/schemas.js';

/** What index/status and a tool answer say while the watcher holds changes not yet in the index (defined with the tools' result). */
export type { CatchingUp };

/** A re-walk's reasons as one short line: a checkout touches dozens of ignore files. */
export function shortWhy(why: string): string {
  const parts = why.split(', ');
  return parts.length <= 3 ? why : `${parts.slice(0, 3).join(', ')} +${parts.length - 3} more`;
}

export class CatchUpMarks {
  private sinceMs: number | null = null;
  /** Changes seen so far (a counter, not a set: a mark orders them). */
  private seen = 0;
  /** The mark the running batch took: everything seen up to it is in that batch or an earlier one. */
  private taken = 0;
  /** Everything seen up to this mark is committed. */
  private committed = 0;
  private waiters: { mark: number; resolve: () => void }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A change was seen (an event, a folder to walk again, an ignore source touched). */
  saw(): void {
    if (this.sinceMs === null) this.sinceMs = this.now();
    this.seen++;
  }

  /** The running batch's (or re-walk's) files read of those it has to read: null before it reads, and once it is over. */
  progress: { done: number; total: number } | null = null;
  /** A build's progress (BuildProgress): its parse phase is the reading, which its write keeps. */
  read = (p: { phase: string; done: number; total: number }): void => { if (p.phase === 'parse') this.progress = { done: p.done, total: p.total }; };

  /** A batch starts: it takes everything seen so far. */
  take(): void { this.taken = this.seen; }

  /** The batch landed: what it took is in the index. */
  landed(): void { this.advance(this.taken); }

  /** Nothing is queued, running or kept: the index is in step with what was seen. */
  caughtUp(): void {
    this.sinceMs = null;
    this.advance(this.seen);
  }

  /** When the index has been behind since (null: in step). */
  get since(): string | null { return this.sinceMs === null ? null : new Date(this.sinceMs).toISOString(); }

  /**
   * Null when everything seen so far is committed; else a promise that
   * settles once it is (true), or after `ms` (false). Changes seen after
   * this call are not waited for, so a tree that never stops changing holds
   * a caller for one batch's time, not forever.
   */
  settled(ms: number): Promise<boolean> | null {
    if (this.committed >= this.seen) return null;
    const mark = this.seen;
    return new Promise<boolean>((resolve) => {
      const w = { mark, resolve: () => { clearTimeout(t); resolve(true); } };
      const t = setTimeout(() => { this.waiters = this.waiters.filter((x) => x !== w); resolve(false); }, ms);
      t.unref();
      this.waiters.push(w);
    });
  }

  /** Ends every wait (the watcher is closing). */
  release(): void { this.advance(this.seen); }

  private advance(mark: number): void {
    if (mark > this.committed) this.committed = mark;
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((w) => w.mark <= this.committed);
    this.waiters = this.waiters.filter((w) => w.mark > this.committed);
    for (const w of due) w.resolve();
  }
}
