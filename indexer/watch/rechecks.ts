// The second and third look at a new folder. chokidar reports a new folder
// before it has read and watched it, so a file written there in between is
// named by no event; the watcher therefore walks each new folder again a fixed
// time after it was reported (its watch is surely in place by then). Unchanged
// files cost a stat each, off the save path. The same timer hands the folders
// listed again after chokidar's re-read window (watch/additions.ts), each
// queued once until it is handed (`once`).

/**
 * When, after chokidar reports a new folder, it is walked again. chokidar reads
 * a folder and watches it a few milliseconds after reporting it, later when a
 * checkout creates thousands at once (the reads share libuv's thread pool).
 */
const NEW_FOLDER_RECHECKS_MS = [250, 2000];

/** How early a re-walk of a new folder may come, so that folders reported together (a tree made at once) are walked in one batch. */
const RECHECK_SLACK_MS = 100;

/** What Rechecks needs of time: the process's own (realTimers), or a test's clock that it moves itself. */
export interface Timers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the timer does not keep the process alive. */
  after(ms: number, fn: () => void): { cancel(): void };
}

export const realTimers: Timers = {
  now: () => performance.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * The re-walks of new folders (NEW_FOLDER_RECHECKS_MS), each due a fixed time
 * after its folder was reported; all that are due within RECHECK_SLACK_MS are
 * handed over together, so a checkout's nested folders share batches, in which
 * update() walks a folder once however many of its ancestors are queued.
 */
export class Rechecks {
  /** One queue per delay, each in the order its folders were reported, so each is already in due order. */
  private readonly queues: Array<Array<[number, string]>>;
  private timer: { cancel(): void } | null = null;
  /** The folders in each queue (read only when `once`). */
  private readonly queued: Array<Set<string>>;
  /** When the armed timer fires: a folder due earlier (a short delay after a long one) re-arms it. */
  private armedFor = Infinity;
  /** `once`: a folder already waiting in a queue is not queued there again (its turn comes after this call anyway). */
  constructor(
    private readonly hand: (paths: string[]) => void,
    private readonly delays: readonly number[] = NEW_FOLDER_RECHECKS_MS,
    private readonly slack = RECHECK_SLACK_MS,
    private readonly timers: Timers = realTimers,
    private readonly once = false,
  ) {
    this.queues = delays.map(() => []);
    this.queued = delays.map(() => new Set());
  }

  add(rel: string): void {
    const now = this.timers.now();
    this.delays.forEach((ms, i) => {
      if (this.once) {
        if (this.queued[i].has(rel)) return;
        this.queued[i].add(rel);
      }
      this.queues[i].push([now + ms, rel]);
    });
    this.arm();
  }

  clear(): void {
    for (const q of this.queues) q.length = 0;
    for (const s of this.queued) s.clear();
    this.disarm();
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = null;
    this.armedFor = Infinity;
  }

  private arm(): void {
    const heads = this.queues.filter((q) => q.length > 0).map((q) => q[0][0]);
    if (heads.length === 0) return;
    const next = Math.min(...heads);
    if (this.timer && this.armedFor <= next) return;
    this.disarm();
    this.armedFor = next;
    this.timer = this.timers.after(Math.max(0, next - this.timers.now()), () => {
      this.timer = null;
      this.armedFor = Infinity;
      const until = this.timers.now() + this.slack;
      const paths: string[] = [];
      this.queues.forEach((q, i) => {
        let n = 0;
        while (n < q.length && q[n][0] <= until) n++;
        for (const [, rel] of q.splice(0, n)) {
          paths.push(rel);
          if (this.once) this.queued[i].delete(rel);
        }
      });
      this.hand(paths);
      this.arm();
    });
  }
}
