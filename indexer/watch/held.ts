// Changes the index could not take yet. A batch whose write failed (a full
// disk, an I/O error, a path the system refuses) is never dropped: its paths,
// and a re-walk it carried, are held here with the reason and handed back to
// the watcher after a backoff, again and again, until they land. Meanwhile
// `index/status` says how many wait and why. When space returns, the next
// attempt writes every change made during the outage: update() looks at each
// held path on disk as it is then, so a file written ten times while the disk
// was full is indexed once, as it is now.
import { isNoSpace, NEARLY_FULL_BYTES, roomLeft } from '../write-failure.js';
import { realTimers, type Timers } from './rechecks.js';

/** How much of a failed write's message a held change's reason keeps. */
const MAX_REASON = 300;

/** A failed write's reason as status and the log show it: one line of reasonable length (a path past the system's limits alone is over 4 KB). */
export function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${isNoSpace(error) ? 'disk full: ' : ''}${message.length > MAX_REASON ? `${message.slice(0, MAX_REASON)}…` : message}`;
}

/** The log line of a failed attempt: the first of an outage (or of a new reason), or one more. */
export function heldLine(held: HeldReport, first: boolean, ms: number): string {
  const next = `next in ${(ms / 1000).toFixed(2)} s`;
  return first
    ? `watcher: ${held.changes} change(s) could not be written; kept, and retried until they land (${next}): ${held.reason}`
    : `watcher: ${held.changes} kept change(s) still not written after ${held.attempts} attempts (${next}): ${held.reason}`;
}

/**
 * A batch failed for some other reason than the disk: it may be one path's (a
 * name the system refuses). Each path is applied alone; those that fail are
 * returned with the last error. Once the disk is what fails (or `stopped`),
 * the rest are not tried: they would fail alike.
 */
export async function tryOneByOne(paths: readonly string[], error: unknown, stopped: () => boolean, apply: (path: string) => Promise<void>): Promise<{ failed: string[]; error: unknown }> {
  const failed: string[] = [];
  for (const p of paths) {
    if (stopped() || isNoSpace(error)) { failed.push(p); continue; }
    try {
      await apply(p);
    } catch (one) {
      failed.push(p);
      error = one;
    }
  }
  return { failed, error };
}

/** While changes are held for want of room, how often the disk is looked at (a statfs) to retry as soon as room returns. */
const ROOM_POLL_MS = 1000;

/** The waits before each retry: doubling from a quarter second to half a minute, then every half minute. */
export const RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 4000, 8000, 16000, 30000];

/** What `index/status` reports of held changes. */
export interface HeldReport {
  /** Paths waiting (a held re-walk counts as one). */
  changes: number;
  /** Why the last attempt failed, one line ("disk full: no space left on … (state folder)"). */
  reason: string;
  /** ISO time of the first failure of this outage. */
  since: string;
  /** Attempts that failed so far. */
  attempts: number;
}

export class HeldChanges {
  private readonly paths = new Set<string>();
  /** Why a held re-walk was asked for (null: none held). */
  private refreshWhy: string[] | null = null;
  private reason = '';
  private since: string | null = null;
  private attempts = 0;
  private timer: { cancel(): void } | null = null;
  /** The look at the disk's room while held for want of it. */
  private roomTimer: { cancel(): void } | null = null;

  /** `release` is called when a retry is due: the watcher then take()s the held changes into its next batch. */
  constructor(
    private readonly release: () => void,
    private readonly timers: Timers = realTimers,
    private readonly delays: readonly number[] = RETRY_DELAYS_MS,
  ) {}

  /** Paths and a re-walk waiting for their retry (0 once handed back). */
  get count(): number { return this.paths.size + (this.refreshWhy ? 1 : 0); }

  /** A retry is armed: a failure that will recur for any write (the disk) holds new changes back until then too. */
  get waiting(): boolean { return this.timer !== null; }

  /** What is held and why; null when nothing failed since the last write that landed. */
  get report(): HeldReport | null {
    if (this.since === null) return null;
    return { changes: this.count, reason: this.reason, since: this.since, attempts: this.attempts };
  }

  /**
   * A batch failed with `reason`: keeps its paths (and its re-walk), and arms the next retry. Returns the delay in ms.
   * With `fullDisk` (the folder whose disk had no room), the retry also comes as soon as room returns there: the
   * backoff bounds the cost of failing attempts, not how long a freed disk waits.
   */
  hold(paths: Iterable<string>, refreshWhy: string[] | null, reason: string, fullDisk?: string): number {
    for (const p of paths) this.paths.add(p);
    if (refreshWhy) this.refreshWhy = [...(this.refreshWhy ?? []), ...refreshWhy];
    this.reason = reason;
    this.since ??= new Date().toISOString();
    this.attempts++;
    const ms = this.delays[Math.min(this.attempts - 1, this.delays.length - 1)];
    this.disarm();
    this.timer = this.timers.after(ms, () => this.due());
    if (fullDisk !== undefined) this.watchRoom(fullDisk, roomLeft(fullDisk));
    return ms;
  }

  private due(): void {
    this.disarm();
    this.release();
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = null;
    this.roomTimer?.cancel();
    this.roomTimer = null;
  }

  /** Looks at `dir`'s room every ROOM_POLL_MS: once it has grown by NEARLY_FULL_BYTES since the failure, the retry is due. */
  private watchRoom(dir: string, atFailure: number): void {
    if (!Number.isFinite(atFailure)) return;
    this.roomTimer = this.timers.after(ROOM_POLL_MS, () => {
      this.roomTimer = null;
      if (this.timer === null) return;
      if (roomLeft(dir) >= atFailure + NEARLY_FULL_BYTES) this.due();
      else this.watchRoom(dir, atFailure);
    });
  }

  /** Hands back everything held, for the next batch; the outage's record stays until landed(). */
  take(): { paths: string[]; refreshWhy: string[] | null } {
    const taken = { paths: [...this.paths], refreshWhy: this.refreshWhy };
    this.paths.clear();
    this.refreshWhy = null;
    return taken;
  }

  /** A batch with nothing held in it failed or landed: whether an outage is on record. */
  get failing(): boolean { return this.since !== null; }

  /** A batch landed and nothing is held any more: the outage is over. Returns its attempts and since when it lasted. */
  landed(): { attempts: number; since: string } | null {
    if (this.since === null || this.count > 0) return null;
    const over = { attempts: this.attempts, since: this.since };
    this.since = null;
    this.reason = '';
    this.attempts = 0;
    return over;
  }

  clear(): void {
    this.disarm();
    this.paths.clear();
    this.refreshWhy = null;
  }
}
