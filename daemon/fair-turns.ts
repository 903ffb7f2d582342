// Fair service: who runs next when several clients want the CPU. The daemon
// answers from memory on one thread, so "fair" means deciding the order in
// which requests get turns on it, and keeping each turn short.
//
// - Every request that reads the index (a client's tools/call, each call of
//   its model turns) runs as one of its owner's turns. The owner is the
//   connection: a client that opens 8 connections is 8 owners, each with no
//   more than a connection's share.
// - Each owner's requests wait in its own FIFO queue. Owners with work take
//   turns round-robin; an owner whose queue was empty (it is not flooding)
//   goes ahead of that rotation once, like the new-flow queue of fq_codel: a
//   client asking one thing at a time waits for at most the slice that is
//   running, however long the others' backlogs are.
// - That first turn is short (`freshSliceMs`, as fq_codel gives new flows a
//   small quantum): long enough for any answer bounded by its page, while an
//   answer that needs more pauses there and joins the rotation. Many
//   connections that each send their first request at once (a greedy client
//   opening 128 of them) are all new; at a full slice each, a quiet request
//   that came just after them waited for 128 slices (0.74 s measured).
// - A turn is one slice of work, about `sliceMs`. Answers whose work grows
//   with the index (search_code; find_symbol and find_importers for a name
//   with very many definitions or importers) stop when their slice is due
//   and queue again behind the other owners (IndexHandle.runTool's pace);
//   everything else is short by construction and runs in one turn.
// - Between two turns the event loop runs (setImmediate), so requests that
//   arrived meanwhile are read and queued before the next turn is chosen.
//
// When nothing is queued and no turn runs, a request runs at once, in the
// same turn of the event loop as it arrived: an idle daemon answers as fast
// as without any of this. Only one does per pass of the event loop: the
// requests read in the same pass (a client's pipelined backlog arrives as one
// read) queue behind it and take turns, or a flood of short answers, each
// free to run at once after the one before, would be answered whole before a
// request read in the next pass (8 connections pipelining 3,200 short
// find_importers, answered in 0.72 s, kept another client waiting 0.63 s).
import type { Pace } from '../indexer/api.js';

/** The slice a turn gets by default: long enough that the pauses cost little, short next to a person's patience. */
export const DEFAULT_SLICE_MS = 5;
/** The first turn of a request that went ahead of the rotation: an answer bounded by its page takes well under it. */
export const DEFAULT_FRESH_SLICE_MS = 1;

export interface FairTurnsOptions {
  /** How long a turn may run before an answer in slices yields (default DEFAULT_SLICE_MS). */
  sliceMs?: number;
  /** How long the turn of a request that went ahead of the rotation may run (default DEFAULT_FRESH_SLICE_MS, at most sliceMs). */
  freshSliceMs?: number;
  /** The slice clock (default performance.now); a test gives its own so slices do not depend on the machine's speed. */
  now?: () => number;
}

/** Called when it is the waiter's turn, with the slice that turn gets. */
type Waiter = (sliceMs: number) => void;

export class FairTurns {
  private readonly sliceMs: number;
  private readonly freshSliceMs: number;
  private readonly now: () => number;
  /** A turn is running (its work holds the thread until it returns or pauses). */
  private busy = false;
  /** Each owner's waiting work, oldest first (a paused answer goes back to the front of its owner's queue). */
  private readonly queues = new Map<object, Waiter[]>();
  /** Owners whose queue was empty when work arrived: served first, in arrival order. */
  private readonly fresh: object[] = [];
  /** Owners with work left after a turn: served round-robin after `fresh`. */
  private readonly ring: object[] = [];
  private scheduled = false;
  /** A request ran at once in this pass of the event loop (cleared at its check phase): the next ones read in it queue. */
  private ranAtOnce = false;
  /** Who waits for the daemon to have nothing to do (whenIdle). */
  private idleWaiters: Array<() => void> = [];

  constructor(opts: FairTurnsOptions = {}) {
    this.sliceMs = opts.sliceMs ?? DEFAULT_SLICE_MS;
    this.freshSliceMs = Math.min(opts.freshSliceMs ?? DEFAULT_FRESH_SLICE_MS, this.sliceMs);
    this.now = opts.now ?? (() => performance.now());
  }

  /** Owners with work waiting. */
  get waiting(): number { return this.queues.size; }

  /**
   * Resolves once no turn runs and no request waits: background work that
   * should only use what clients leave (the request-path warm-up) starts
   * its next slice then, so the time it counts as its own is its own.
   */
  whenIdle(): Promise<void> {
    if (!this.busy && this.queues.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => { this.idleWaiters.push(resolve); });
  }

  /**
   * Runs `work` as one of `owner`'s requests: at once when the daemon is
   * free, else when its turn comes. `work` gets the pace its slices run by;
   * what it returns (a value, or a promise) is what `run` gives back, so an
   * answer ready in the first slice stays a plain value. `cancelled` is asked
   * whenever a turn of this request comes up: an Error (the client gave up,
   * or left) stops it there, and `run` rejects with that error.
   */
  run<T>(owner: object, work: (pace: Pace) => T | Promise<T>, cancelled: () => Error | null = () => null): T | Promise<T> {
    if (!this.busy && this.queues.size === 0 && !this.ranAtOnce) {
      this.ranAtOnce = true;
      setImmediate(() => { this.ranAtOnce = false; });
      return this.turn(owner, work, cancelled, this.sliceMs);
    }
    return this.wait(owner, false).then((sliceMs) => {
      const gaveUp = cancelled();
      if (gaveUp) { this.end(); throw gaveUp; }
      return this.turn(owner, work, cancelled, sliceMs);
    });
  }

  /** One turn: `work` runs with a pace that holds the turn until it pauses or returns. */
  private turn<T>(owner: object, work: (pace: Pace) => T | Promise<T>, cancelled: () => Error | null, sliceMs: number): T | Promise<T> {
    this.busy = true;
    let holding = true;
    let started = this.now();
    let slice = sliceMs;
    const release = () => { if (holding) { holding = false; this.end(); } };
    const pace: Pace = {
      due: () => this.now() - started >= slice,
      pause: () => {
        // A paused answer goes on under the owner it was run for, first among that owner's requests.
        // Queued before its turn ends: between the two the daemon would look idle, and whenIdle's
        // waiters (the warm-up's next call, a full collection) would go ahead of an answer half done.
        const resumed = this.wait(owner, true);
        release();
        return resumed.then((next) => {
          holding = true;
          slice = next;
          started = this.now();
          const gaveUp = cancelled();
          if (gaveUp) { release(); throw gaveUp; }
        });
      },
    };
    let out: T | Promise<T>;
    try {
      out = work(pace);
    } catch (e) {
      release();
      throw e;
    }
    // Work that waits (on I/O, or for its next slice) gives the thread up now; a resumed slice ends when the answer settles.
    release();
    return out instanceof Promise ? out.finally(release) : out;
  }

  /** Queues `owner`'s next piece of work; resolves with its turn's slice when it is its turn (the turn is then already marked busy). */
  private wait(owner: object, resumed: boolean): Promise<number> {
    return new Promise<number>((resolve) => {
      let q = this.queues.get(owner);
      if (!q) {
        this.queues.set(owner, (q = []));
        // A paused answer has had its turn: it joins the rotation. New work from a quiet owner goes first.
        (resumed ? this.ring : this.fresh).push(owner);
      }
      const waiter = resolve;
      if (resumed) q.unshift(waiter); else q.push(waiter);
      this.schedule();
    });
  }

  /** Ends the running turn; the next one is chosen after the event loop has read what arrived meanwhile. */
  private end(): void {
    this.busy = false;
    this.schedule();
  }

  private schedule(): void {
    if (!this.busy && this.queues.size === 0 && this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    if (this.scheduled || this.busy || this.queues.size === 0) return;
    this.scheduled = true;
    setImmediate(() => { this.scheduled = false; this.next(); });
  }

  /** Hands the next turn out: quiet owners first (a short turn), then the rotation; an owner with more waiting goes to the back of it. */
  private next(): void {
    if (this.busy) return;
    const fresh = this.fresh.shift();
    const owner = fresh ?? this.ring.shift();
    if (owner === undefined) return;
    const q = this.queues.get(owner)!;
    const waiter = q.shift()!;
    if (q.length) this.ring.push(owner);
    else this.queues.delete(owner);
    this.busy = true;
    waiter(fresh === undefined ? this.sliceMs : this.freshSliceMs);
  }
}
