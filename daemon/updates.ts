// Keeping the index in step with the tree, the daemon's only writes: the
// start-up catch-up (a first build, or a compare-by-hash refresh of what
// changed while no daemon ran), the watcher's batches, and a client's
// index/refresh — all through one WriteQueue, so they never overlap. (Tool
// calls that must wait for the start-up build wait in the index itself:
// IndexHandle.runTool.)
//
// Every write runs under the current epoch's AbortSignal: a stop, or the
// root replaced under the daemon (reindex), cancels a build at its next
// commit instead of waiting for it (the index stays crash-safe: a cut-short
// build is finished by the next one).
import type { BuildProgress, BuildSummary, IndexHandle } from '../indexer/api.js';
import type { RepoRules } from '../indexer/discover/rules.js';
import { RepoWatcher, type CatchingUp, type HeldReport, type WatchMode } from '../indexer/watch.js';
import { isNoSpace } from '../indexer/write-failure.js';
import type { SettleWalks } from '../indexer/build/settled-walk.js';
import type { RefreshResult, WatcherState } from '../protocol/messages.js';
import { WriteQueue } from './write-queue.js';
import { WritesAhead } from './writes-ahead.js';

/** The start-up catch-up of a complete index, as an answer names it while it runs (CatchingUp's `rewalk`). */
export const START_CHECK = 'start-up check for changes made while no daemon ran';
/** What an answer names while the start-up catch-up, cut short by a full disk, waits for room (CatchingUp's `rewalk`). */
export const HELD_BUILD = 'index build cut short by a full disk, retried once there is room';
/**
 * How long a call waits for that check before it is answered marked: long
 * enough for a small tree's (~0.3 s on 479 files), short enough that a warm
 * start on a large one still answers within a second.
 */
const START_CHECK_WAIT_MS = 300;

export interface IndexUpdatesOptions {
  root: string;
  /** The index's own rules (one instance, re-read in place by every refresh), which the watcher decides with. */
  rules: RepoRules;
  watch: WatchMode;
  log: (line: string) => void;
  /** The watcher's own watch on the root reported it deleted or moved (root-watch.ts judges). */
  onRootTouched?: () => void;
  /** A write landed that changed or removed `files` files (not the start-up catch-up: warm-up's collection follows that one). */
  onWritten?: (files: number) => void;
}

/**
 * A re-index walks the new tree again every REINDEX_WALK_GAP_MS until two walks
 * agree (a clone is still checking files out), at most REINDEX_MAX_WALKS times;
 * while the root is a clone still fetching (only a `.git` without an index), for
 * up to REINDEX_MAX_UNFINISHED_WALKS more: ten minutes of walks of one folder.
 */
const REINDEX_WALK_GAP_MS = 250;
const REINDEX_MAX_WALKS = 40;
const REINDEX_MAX_UNFINISHED_WALKS = 2400;
const untilFilled: SettleWalks = {
  between: () => new Promise((r) => setTimeout(r, REINDEX_WALK_GAP_MS).unref()),
  maxWalks: REINDEX_MAX_WALKS,
  maxUnfinished: REINDEX_MAX_UNFINISHED_WALKS,
};

export class IndexUpdates {
  private readonly queue = new WriteQueue();
  /** What each write did as it landed: a client's refresh says what ran ahead of it. */
  private readonly ahead = new WritesAhead();
  private watcher: RepoWatcher | null = null;
  /** Cancels the writes of the current epoch (a stop, or the root replaced under them). */
  private abort = new AbortController();
  /** Counts suspensions: a watcher or catch-up of an earlier epoch is dropped when it comes back. */
  private epoch = 0;
  private stopped = false;
  /** Root changes' suspensions and re-indexes, one after another: a watcher is closed before the next one starts. */
  private transitions: Promise<void> = Promise.resolve();
  startupState: 'running' | 'done' | 'failed' = 'running';
  /** How far the start-up build (or a re-index) has come, while it runs: clients waiting for it show it. */
  startupProgress: BuildProgress | undefined;
  startupError: string | undefined;
  /** Since when the catch-up has been cut short for want of room (null: it was not): the watcher's re-walk, kept and retried until it lands, finishes it. */
  private startupHeldSince: string | null = null;
  /** Settles once the start-up catch-up is over: true if it succeeded. Never rejects. */
  startup: Promise<boolean> = Promise.resolve(false);
  /**
   * While the start-up catch-up of an index that was complete when opened runs
   * (the files may have changed while no daemon ran, and it is what finds out):
   * since when. Calls on such an index are answered at once, not held for the
   * catch-up (seconds on a large tree), so they wait up to START_CHECK_WAIT_MS
   * and are otherwise marked. Null once it is over, and for a first build,
   * which calls wait for in the index itself.
   */
  private startCheckSince: string | null = null;
  /** Settles once the current epoch's watcher has scanned the tree (or failed to start). Never rejects. */
  private watcherStarted: Promise<void> = Promise.resolve();

  constructor(private readonly handle: IndexHandle, private readonly opts: IndexUpdatesOptions) {}

  /**
   * Starts the catch-up and the watcher in the background. On a complete
   * index the watcher starts once the start-up check is over: its start-up
   * scan walks the same tree on the same thread, and alongside it the check
   * took 0.69-1.48 s on a stdlib copy instead of 0.16-0.23 s, while calls wait
   * for the check. A change made in between is found by the re-walk that
   * follows every scan (startWatcher), as one made during the check is.
   */
  begin(): void {
    const complete = this.handle.status().state === 'ready';
    if (complete) this.startCheckSince = new Date().toISOString();
    this.startup = this.catchUp(undefined, complete ? 'start-up check' : 'index build');
    void this.startup.then(() => { this.startCheckSince = null; });
    if (!complete) { this.startWatcher(); return; }
    const { epoch } = this;
    // Stopped, or the root replaced (reindex starts its own watcher) while the check ran: no watcher of this epoch.
    this.watcherStarted = this.startup.then(() => {
      if (this.stopped || epoch !== this.epoch) return undefined;
      this.startWatcher();
      return this.watcherStarted;
    });
  }

  /**
   * The root now holds another tree (root-watch.ts): what runs on the old one
   * is cancelled at once and its watcher closed, then the new tree is caught
   * up from the top and watched, as at start. Resolves true once it is
   * indexed; false when stopped, superseded by a later change, or failed.
   */
  async reindex(why: string): Promise<boolean> {
    this.cancel(why);
    const { epoch } = this;
    const started = this.transitions.then(async () => {
      await this.closeWatcher();
      if (this.stopped || epoch !== this.epoch) return null;
      this.startupState = 'running';
      this.startupError = undefined;
      this.startup = this.catchUp(untilFilled, 're-index of the replaced root');
      this.startWatcher();
      return { done: this.startup };
    });
    this.transitions = started.then(() => undefined, () => undefined);
    const s = await started;
    return s === null ? false : s.done;
  }

  /** Cancels the running write at its next commit and closes the watcher: the tree it watched is no longer the root's. */
  suspend(why: string): Promise<void> {
    this.cancel(why);
    const run = this.transitions.then(() => this.closeWatcher());
    this.transitions = run.catch(() => undefined);
    return run;
  }

  /** Ends the current epoch: its writes are cancelled, and a watcher or catch-up of it that comes back later is dropped. */
  private cancel(why: string): void {
    this.epoch++;
    this.abort.abort(new Error(why));
    this.abort = new AbortController();
  }

  private async closeWatcher(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close().catch((e: Error) => this.opts.log(`closing the watcher: ${e.message}`));
  }

  /** The start-up catch-up (the first), or a re-index of a replaced root (every later one). */
  private catchUps = 0;

  /** `what`: the catch-up's name among the writes a client's refresh waited for. */
  private catchUp(settle: SettleWalks | undefined, what: string): Promise<boolean> {
    const t0 = performance.now();
    const first = this.catchUps++ === 0;
    const { epoch } = this;
    const { signal } = this.abort;
    let lastPhase = '';
    const phases = new PhaseTimes(t0);
    return this.queue.run(() => { phases.mark('queue'); return this.handle.refresh((p) => {
      if (epoch === this.epoch) this.startupProgress = p;
      if (p.phase !== lastPhase) { lastPhase = p.phase; phases.mark(p.phase); this.opts.log(`index: ${p.phase} (${p.done}/${p.total})`); }
      else if (p.phase === 'walk' && p.total > 0) phases.mark('compare'); // the walk is over: what it found is compared with the index
    }, signal, settle); }).finally(() => {
      if (epoch === this.epoch) this.startupProgress = undefined;
    }).then((s) => {
      // Warm-up's collection follows the start-up catch-up: only a later one is told to onWritten.
      if (first) this.ahead.add(what, s.parsed, s.removed); else this.wrote(s, what);
      if (epoch !== this.epoch) return false;
      this.startupState = 'done';
      this.opts.log(`index ready: ${s.files} files (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed) in ${((performance.now() - t0) / 1000).toFixed(2)} s (${phases.told()})`);
      return true;
    }, (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      if (signal.aborted) {
        this.opts.log(`index build stopped after ${((performance.now() - t0) / 1000).toFixed(2)} s (${message}); what it wrote stays, and the next build carries on from it`);
        return false;
      }
      if (epoch !== this.epoch) return false;
      this.startupState = 'failed';
      this.startupError = message;
      this.startupHeldSince = isNoSpace(e) ? new Date().toISOString() : null;
      this.opts.log(`index build failed: ${this.startupError}${this.startupHeldSince ? '; the watcher\'s catch-up retries it until it lands' : ''}`);
      return false;
    });
  }

  private startWatcher(): void {
    const { log } = this.opts;
    const watchStart = performance.now();
    const { epoch } = this;
    const { signal } = this.abort;
    this.watcherStarted = RepoWatcher.start({
      root: this.opts.root,
      rules: this.opts.rules,
      // The watcher's re-walks run under this epoch's signal too.
      index: {
        update: (paths, onProgress) => this.handle.update(paths, onProgress).then((s) => {
          this.ahead.add('catch-up of changes the watcher saw', s.changed.length, s.removed.length);
          this.opts.onWritten?.(s.changed.length + s.removed.length);
          return s;
        }),
        refresh: (onProgress) => this.handle.refresh(onProgress, signal).then((s) => this.wrote(s, 're-walk of the tree by the watcher')),
        ignoreCandidates: () => this.handle.ignoreCandidates(),
      },
      exclusive: (fn) => this.queue.run(fn),
      mode: this.opts.watch,
      log,
      onRootTouched: this.opts.onRootTouched,
      onApplied: (a) => {
        if (a.refreshed && this.startupHeldSince && epoch === this.epoch) {
          this.startupHeldSince = null;
          this.startupState = 'done';
          this.startupError = undefined;
        }
        // The wait for the write queue is told apart: a batch queued behind the start-up build is not a slow batch.
        const took = `${a.ms.toFixed(1)} ms${(a.waitedMs ?? 0) >= 1 ? `, after ${a.waitedMs!.toFixed(0)} ms waiting for its turn` : ''}`;
        if (a.refreshed) log(`watch: re-walked (${a.why}) in ${took}`);
        else if (a.summary) {
          const s = a.summary;
          const shown = a.paths.length <= 3 ? a.paths.join(' ') : `${a.paths.slice(0, 3).join(' ')} +${a.paths.length - 3}`;
          log(`watch: ${shown}: ${s.changed.length} changed, ${s.removed.length} removed, ${s.unchanged.length} unchanged → generation ${s.generation} (${took})`);
        }
      },
    }).then((w) => {
      if (epoch !== this.epoch) { void w.close(); return; }
      this.watcher = w;
      log(`watcher ${w.state} (${(performance.now() - watchStart).toFixed(0)} ms to scan)`);
      // The start-up refresh walked while the watcher was still scanning; a change in that window
      // could have been seen by neither, so one more (cheap, hash-comparing) catch-up closes it.
      if (w.state !== 'off') w.requestRefresh('catch-up after the watcher scan');
    }, (e: unknown) => {
      log(`watcher failed to start: ${e instanceof Error ? e.message : String(e)}; serving without live updates`);
    });
  }

  /**
   * A client's index/refresh, queued behind whatever write is running, and
   * what the writes that ran ahead of it did (`waited_for`). One the
   * disk had no room for may have marked the index building before its writes
   * failed, and only a refresh that ends marks it ready again: the watcher's
   * re-walk, held and retried like any batch until it lands, finishes it.
   */
  refresh(onProgress: (p: BuildProgress) => void): Promise<Omit<RefreshResult, 'generation' | 'left_out_folder'>> {
    const { signal } = this.abort;
    const asked = this.ahead.mark();
    let waited: RefreshResult['waited_for'];
    return this.queue.run(() => {
      waited = this.ahead.since(asked);
      return this.handle.refresh(onProgress, signal);
    }).then((s) => ({ ...this.wrote(s, 'refresh another client asked for'), ...(waited ? { waited_for: waited } : {}) }), (e: unknown) => {
      if (isNoSpace(e) && !signal.aborted) this.watcher?.requestRefresh('index/refresh cut short by a full disk');
      throw e;
    });
  }

  /** A refresh's files parsed and removed, told to onWritten and counted as `what` among the writes ahead of a client's refresh. */
  private wrote(s: BuildSummary, what: string): BuildSummary {
    this.ahead.add(what, s.parsed, s.removed);
    this.opts.onWritten?.(s.parsed + s.removed);
    return s;
  }

  get watcherState(): WatcherState {
    return this.watcher ? this.watcher.state : (this.opts.watch === 'off' ? 'off' : 'starting');
  }
  /** Why the watcher is polling or off, when it is. */
  get watcherNote(): string | undefined { return this.watcher?.note; }
  get lastWatchUpdate(): string | null { return this.watcher?.lastUpdate ?? null; }
  /** Changes the watcher could not write yet, and why (null: every write landed). */
  get waiting(): HeldReport | null { return this.watcher?.heldChanges ?? null; }
  /** Changes the watcher has seen and not yet written, since when, and a re-walk queued or running (null: in step). */
  get catchingUp(): CatchingUp | null { return this.watcher?.catchingUp ?? null; }
  /**
   * What an answer says: catchingUp, only when changes were seen and not written (not for a precautionary re-walk),
   * or, while the start-up catch-up looks for changes made while no daemon ran, that check, or, while that
   * catch-up (a first build, say) cut short by a full disk waits for room, that: answers come from what it wrote.
   */
  get answerNote(): CatchingUp | null {
    if (this.watcher?.sawUnwritten) return this.watcher.catchingUp;
    if (this.startupHeldSince !== null) return { changes: 0, since: this.startupHeldSince, rewalk: HELD_BUILD };
    return this.startCheckSince === null ? null : { changes: 0, since: this.startCheckSince, rewalk: START_CHECK };
  }
  /**
   * Null when every change seen so far is written, or when a write failed and
   * waits for its retry (a full disk: waiting would only slow every answer by
   * `ms`, each still marked catching up); else settles once it is (true) or
   * after `ms` (false).
   */
  settled(ms: number): Promise<boolean> | null {
    if (this.waiting) return null;
    const seen = this.watcher?.settled(ms) ?? null;
    if (seen || this.startCheckSince === null) return seen;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.min(ms, START_CHECK_WAIT_MS));
      void this.startup.then((ok) => { clearTimeout(timer); resolve(ok); });
    });
  }
  /** Updates queued behind the one running (watcher batches, refreshes). */
  get pendingUpdates(): number { return (this.watcher?.queued ?? 0) + Math.max(0, this.queue.waiting - 1); }

  /** Resolves when the catch-up is over and the watcher has applied everything it has seen. */
  async idle(): Promise<void> {
    await this.startup;
    await this.watcherStarted;
    await this.watcher?.idle();
  }

  /** For a shutdown: cancels the running write at its next commit and stops watching (a watcher still starting is closed as soon as it has). */
  stop(why: string): Promise<void> {
    this.stopped = true;
    return this.suspend(why);
  }

  /** Waits up to `ms` for the running and queued writes; true if they all finished. */
  drain(ms: number): Promise<boolean> {
    return this.queue.drain(ms);
  }
}


/**
 * Where a catch-up's time went, for its log line: its turn in the write queue,
 * the rules read (ignore files, git's sources), the walk, the compare with
 * what the index stored, the parse, the writes (TypeScript resolution among
 * them), each ended by the next phase the refresh reports.
 */
class PhaseTimes {
  private readonly marks: Array<[string, number]>;
  constructor(t0: number) { this.marks = [['turn', t0]]; }

  /** The refresh reached `phase` ('queue': its turn came). */
  mark(phase: string): void {
    this.marks.push([phase === 'queue' ? 'rules' : phase, performance.now()]);
  }

  /** `turn 0 ms, rules 21 ms, walk 12 ms, compare 3 ms, parse 240 ms, write 48 ms`. */
  told(): string {
    const out: string[] = [];
    for (let i = 0; i + 1 < this.marks.length; i++) {
      const [name, at] = this.marks[i]!;
      out.push(`${name} ${(this.marks[i + 1]![1] - at).toFixed(0)} ms`);
    }
    return out.join(', ');
  }
}
