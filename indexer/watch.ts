// Keeps an index in step with the working tree: chokidar events are batched
// over a few milliseconds and applied as one `update(paths)` through the
// caller's `exclusive` queue, so writes never run concurrently and events that
// arrive meanwhile wait for the next round (never lost). Why it is built this
// way is in docs/design.md and docs/architecture.md ("The watcher"); the parts
// live in watch/:
//   skips.ts          what chokidar is told to skip (folders the rules exclude; files unless polling)
//   rechecks.ts       new folders walked again (a file written before the watch)
//   additions.ts      folders chokidar does not watch itself, added to its watch:
//                     excluded ones let in again (pruned.ts), ones made while
//                     chokidar read or re-read their parent (unwatched.ts)
//   folders.ts        a folder replaced under its name (its watch died)
//   queued.ts         what no batch has taken yet; a re-walk queued while a batch
//                     waits for its turn joins it (one checkout, one re-walk)
//   git-sources.ts    git's own ignore sources watched, git-change.ts what a change means
//   held.ts           a batch that could not be written, kept and retried (a full
//                     disk holds new events too; any other failure is narrowed
//                     to the paths that fail)
//   catch-up.ts       since when the index is behind what was seen
//   chokidar.ts       its options, the scan's symlink adds that are no change,
//                     and which folders it watches
//   deletions.ts      a batch with many paths gone held until the deletion settles
//   worktree-events.ts  `.git` files: work trees of this repository come and go
// A changed .gitignore/.evidexignore below the root re-walks its own folder
// only; the root's, a replaced folder, or a catch-up re-walk the tree.
import type { FSWatcher } from 'chokidar';
import { basename, join } from 'node:path';
import { parentOf, underRoot } from './discover/rules.js';
import { isScanLinkAdd, isWatchLimitError, openChokidar, watchedFolders } from './watch/chokidar.js';
import { REPLACED_FOLDER_CHECK_MS, WatchedFolders } from './watch/folders.js';
import { gitSourcesChanged } from './watch/git-change.js';
import { heardPath, inEvidexState } from './watch/worktree-events.js';
import { GitSourceWatch } from './watch/git-sources.js';
import { CatchUpMarks, shortWhy, type CatchingUp } from './watch/catch-up.js';
import { DeletionHold } from './watch/deletions.js';
import { failureReason, HeldChanges, heldLine, tryOneByOne, type HeldReport } from './watch/held.js';
import type { OpenTarget, WatchApplied, WatchMode, WatchOptions, WatchState } from './watch/options.js';
import { QueuedChanges, type Batch } from './watch/queued.js';
import { Rechecks, realTimers } from './watch/rechecks.js';
import { chokidarSkips, isIgnoredFolder } from './watch/skips.js';
import { WatchAdditions } from './watch/additions.js';
import { isNoSpace, NoSpaceError } from './write-failure.js';

export type { CatchingUp, HeldReport, WatchApplied, WatchMode, WatchOptions, WatchState };

export class RepoWatcher {
  private fsw: FSWatcher | null = null;
  private stateValue: WatchState = 'starting';
  private noteValue: string | undefined;
  /** What no batch has taken yet (watch/queued.ts). */
  private readonly queue = new QueuedChanges();
  private readonly gitSources: GitSourceWatch;
  /** Folders chokidar does not watch itself, added to its watch (watch/additions.ts). */
  private readonly additions: WatchAdditions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private switching = false;
  /** The next flush restarts chokidar before its re-walk (a folder's watch died with the folder). */
  private restartWanted = false;
  /** start() has returned: restarts wait until then (a restart would close the watcher start() waits on). */
  private started = false;
  /** What open() was last asked for: a restart opens the same. */
  private target: OpenTarget = 'watching';
  /** Whether chokidar watches files too (polling) or folders only (fs.watch). */
  private get watchFiles(): boolean { return this.target !== 'watching'; }
  /** What chokidar skips (watch/skips.ts). */
  private readonly ignored: ReturnType<typeof chokidarSkips>;
  /** Ends the wait of an open() whose watcher is closed before its scan ends (chokidar never says 'ready' then). */
  private abortOpen: (() => void) | null = null;
  /** Each watched folder's identity when chokidar watched it (at ready, and as chokidar reports new folders). */
  private readonly folders = new WatchedFolders();
  private readonly rechecks = new Rechecks((paths) => {
    if (this.closed) return;
    for (const p of paths) if (!inEvidexState(this.opts.rules, p)) this.queue.paths.add(p); // became evidex's state since it came: nothing to walk
    this.marks.saw();
    this.schedule();
    // chokidar read each new folder and then watched it: a subfolder made in between it missed.
    this.additions.lookBelow(paths);
  });
  private idleWaiters: (() => void)[] = [];
  /** Batches that could not be written, waiting for their retry. */
  private readonly held: HeldChanges;
  /** The held changes failed on the disk itself: new events wait for the retry too (they would fail alike). */
  private heldForDisk = false;
  /** Paths (and a re-walk, as one) of the batch being applied: all until it lands (batchSize); as its re-walk reads, those still to read (inFlight). */
  private inFlight = 0;
  private batchSize = 0;
  /** Why the running batch re-walks, when it does. */
  private rewalking: string | null = null;
  /** Since when changes seen are not all committed (watch/catch-up.ts). */
  private readonly marks = new CatchUpMarks();
  /** When events last came, and the wait of a batch held while a deletion goes on (watch/deletions.ts). */
  private readonly deletions: DeletionHold;
  lastUpdate: string | null = null;

  private constructor(private readonly opts: WatchOptions) {
    this.ignored = chokidarSkips({ root: opts.root, rules: opts.rules, watchFiles: () => this.watchFiles, skipped: (rel) => this.additions.skipped(rel) });
    this.additions = new WatchAdditions({
      root: opts.root,
      ignored: this.ignored,
      isIgnoredFolder: (rel) => this.isIgnoredFolder(rel),
      current: () => (this.started && !this.closed ? this.fsw : null),
      recheck: (rel) => this.rechecks.add(rel),
      log: (line) => this.opts.log?.(line),
    });
    this.held = new HeldChanges(() => this.retryHeld(), opts.timers ?? realTimers);
    this.deletions = new DeletionHold(opts.timers ?? realTimers);
    this.gitSources = new GitSourceWatch(() => {
      if (this.closed) return;
      this.queue.gitSources = true;
      this.marks.saw();
      this.schedule();
    }, (line) => this.opts.log?.(line));
  }

  /** Starts watching; resolves once chokidar has scanned the tree (events from then on are caught). */
  static async start(opts: WatchOptions): Promise<RepoWatcher> {
    const w = new RepoWatcher(opts);
    const mode = opts.mode ?? 'auto';
    if (mode === 'off') { w.stateValue = 'off'; return w; }
    await w.open(mode === 'poll' ? 'polling' : 'watching');
    w.gitSources.follow(opts.rules.gitSourceFiles);
    w.started = true;
    // The rules may have been read anew while chokidar scanned (the start-up catch-up runs beside it).
    w.additions.newlyVisible();
    if (w.restartWanted) w.requestRefresh('a folder was replaced while the watcher started');
    return w;
  }

  get state(): WatchState { return this.stateValue; }
  get note(): string | undefined { return this.noteValue; }
  /** Paths and refreshes waiting to be applied (not counting the batch being applied), held ones included. */
  get queued(): number { return this.ready + this.held.count; }
  /** Paths and refreshes the next batch takes. */
  private get ready(): number { return this.queue.size; }
  /**
   * Changes kept because their write failed, and why; null when every write has landed. While an outage is on record, `changes` counts
   * all not written: held, waiting for the next batch, and the running batch whole (its re-walk's progress counts files read, not written).
   */
  get heldChanges(): HeldReport | null {
    const r = this.held.report;
    return r && { ...r, changes: this.queued + Math.max(this.inFlight, this.batchSize) };
  }

  /**
   * Changes seen and not yet in the index, since when, and a re-walk queued or running; null when in step.
   * A re-walk no change asked for (the one after every scan) is no change seen: `changes` is 0 then.
   */
  get catchingUp(): CatchingUp | null {
    const { since } = this.marks;
    const rewalk = this.rewalking ?? (this.queue.rewalk ? this.queue.why : null);
    if (since === null && rewalk === null) return null;
    return {
      changes: since === null ? 0 : this.queued + this.inFlight,
      since: since ?? new Date().toISOString(),
      ...(rewalk !== null ? { rewalk: shortWhy(rewalk) } : {}),
      ...(this.marks.progress ? { progress: { ...this.marks.progress } } : {}),
    };
  }

  /** Changes were seen that are not in the index yet (a re-walk alone, asked for by no change, is not one). */
  get sawUnwritten(): boolean { return this.marks.since !== null; }
  /** Null when every change seen so far is in the index; else settles once it is (true) or after `ms` (false). */
  settled(ms: number): Promise<boolean> | null { return this.marks.settled(ms); }

  /** Queues a full re-walk (catch-up): the next batch, or the one waiting for its turn (watch/queued.ts). */
  requestRefresh(why = 'requested'): void {
    this.queue.requestRewalk(why);
    this.schedule();
  }

  /** Paths of the batch held while a deletion goes on (0: none). */
  get holdingDeletion(): number { return this.deletions.holding; }

  /** Resolves when nothing is queued or running (tests and shutdown use it). */
  idle(): Promise<void> {
    if (!this.timer && !this.running && this.queued === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    this.rechecks.clear();
    this.additions.close();
    this.held.clear();
    this.gitSources.close();
    this.deletions.end();
    await this.closeFsw();
    await this.running;
    this.stateValue = 'off';
    this.marks.release();
    this.wakeIdle();
  }

  private rel(abs: string): string | null { return underRoot(this.opts.root, abs); }

  /** Closes the chokidar instance; an open() still waiting for its scan returns at once. */
  private async closeFsw(): Promise<void> {
    const fsw = this.fsw;
    this.fsw = null;
    this.abortOpen?.();
    this.abortOpen = null;
    await fsw?.close();
  }

  private async open(target: OpenTarget): Promise<void> {
    this.target = target;
    this.additions.reset();
    const polling = this.watchFiles;
    const fsw = openChokidar(this.opts.root, this.ignored, polling, this.opts.pollMs);
    this.fsw = fsw;
    let scanned = false;
    fsw.on('all', (event, path, stats) => {
      if (isScanLinkAdd(scanned, event, stats)) return;
      if (event === 'addDir' && stats) this.folders.added(path, stats);
      else if (event === 'unlinkDir') this.folders.removed(path);
      this.onEvent(event, path);
    });
    // The folder watches' raw events name every touched entry: they are how files' changes
    // arrive (chokidar itself reports folders and links only), temp files that live only
    // microseconds included (update() ignores no-op paths).
    if (!polling) fsw.on('raw', (ev, evPath, details) => this.onRaw(ev, evPath, (details as { watchedPath?: string })?.watchedPath));
    fsw.on('error', (err) => this.onError(err as Error));
    let abort!: () => void;
    const ready = await new Promise<boolean>((resolve) => {
      abort = () => resolve(false);
      this.abortOpen = abort;
      fsw.once('ready', () => { scanned = true; resolve(true); });
    });
    if (this.abortOpen === abort) this.abortOpen = null;
    if (!ready || this.fsw !== fsw) return; // closed (or replaced) while it scanned
    if (!polling) this.folders.reset(watchedFolders(fsw, this.opts.root)); // the identity of each (a stat each)
    if (this.stateValue !== 'polling (inotify limit reached)' || target !== 'watching') this.stateValue = target;
  }

  private onEvent(event: string, abs: string): void {
    if (this.closed) return;
    this.deletions.saw();
    const heard = heardPath(this.opts.rules, this.rel(abs)); // null: the root, or in a `.git` folder
    if (heard === null) return;
    const { rel, worktree } = heard;
    if (worktree) { this.additions.newlyVisible(); event = 'raw'; } // the folder became, or stopped being, a work tree of this repository
    if (event === 'addDir' || event === 'unlinkDir') {
      // A folder that went away: update() drops what was under it. One that appeared: update()
      // walks it. chokidar reports addDir before it has read and watched the folder, so a file
      // written there in between would be named by no event: the folder is walked once more
      // after its watch is surely in place (unchanged files cost a stat each).
      if (event === 'addDir' && rel !== '' && !this.watchFiles) this.rechecks.add(rel);
      if (this.isIgnoredFolder(rel)) return;
      this.queue.paths.add(rel);
      this.marks.saw();
      this.schedule();
      return;
    }
    if (this.opts.rules.isIgnoreFile(rel)) {
      this.queue.ignoreFileChanged(rel);
    } else if (!this.isIgnoredFolder(parentOf(rel))) {
      // A file its own name excludes is looked at too (update counts it left out, or forgets it when gone);
      // below an excluded folder nothing is: the folder counts once.
      this.queue.paths.add(rel);
    } else return;
    this.marks.saw();
    this.schedule();
  }

  private onRaw(ev: string, evPath: string | null | undefined, watchedPath: string | undefined): void {
    if (this.closed || !evPath || !watchedPath) return;
    // Every fs.watch is a folder's (files have none): it names a child...
    const child = join(watchedPath, evPath);
    this.onEvent('raw', child);
    if (ev !== 'rename') return;
    // An entry came or went: a folder made now may be one chokidar's throttled re-read forgets (watch/additions.ts).
    this.additions.renamedIn(watchedPath);
    // ...or the folder itself, deleted or moved away (a child named like its folder looks the
    // same: checkFolder tells them apart); and a name whose folder's watch died may be a folder again.
    if (evPath === basename(watchedPath)) {
      if (watchedPath === this.opts.root) this.opts.onRootTouched?.();
      this.checkFolderSoon(watchedPath);
    }
    if (this.folders.isDead(child)) this.checkFolderSoon(child);
  }

  /** checkFolder once chokidar's own re-read of the parent (which may forget the folder) has had its turn. */
  private checkFolderSoon(abs: string): void {
    setTimeout(() => this.checkFolder(abs), REPLACED_FOLDER_CHECK_MS).unref();
  }

  /** A watched folder's name was touched as a whole: restart when another folder now stands there (the old one's watch died). */
  private checkFolder(abs: string): void {
    if (this.closed || this.watchFiles) return;
    if (this.folders.check(abs) !== 'replaced') return;
    this.restartWanted = true;
    this.marks.saw();
    this.requestRefresh(`${this.rel(abs) ?? 'the root'} was replaced`);
  }

  private isIgnoredFolder(rel: string): boolean { return isIgnoredFolder(this.opts.rules, rel); }

  private onError(err: Error): void {
    if (this.closed) return;
    if (isWatchLimitError(err) && this.stateValue === 'watching' && !this.switching) {
      void this.fallBackToPolling(err);
      return;
    }
    this.opts.log?.(`watcher error: ${err.message}`);
  }

  /** Out of inotify watches (or file handles): keep serving, poll instead, and re-walk to catch what was missed. */
  private async fallBackToPolling(err: Error): Promise<void> {
    this.switching = true;
    const code = (err as NodeJS.ErrnoException).code;
    this.noteValue = `${code}: ${err.message}`;
    this.opts.log?.(`watcher: ${code} (${err.message}); falling back to polling`);
    this.stateValue = 'polling (inotify limit reached)';
    await this.closeFsw().catch(() => undefined);
    if (this.closed) return;
    await this.open('polling (inotify limit reached)');
    this.switching = false;
    this.requestRefresh('fell back to polling');
  }

  private schedule(): void {
    if (this.closed || this.timer || this.running) return;
    if (this.heldForDisk && this.held.waiting) return; // retryHeld() schedules
    this.timer = setTimeout(() => { this.timer = null; this.running = this.flush(); }, this.opts.batchMs ?? 4);
  }

  private async flush(): Promise<void> {
    // A folder was replaced: its watch died, and any ignore file in it changed unseen.
    const b = this.queue.take(this.restartWanted);
    let restart = this.takeRestart(b);
    const t0 = performance.now();
    // When the write queue gave the batch its turn: `ms` is the batch's own work, the wait before it is told apart.
    let turn = t0;
    const applied = (a: Omit<WatchApplied, 'ms' | 'waitedMs'>) => this.opts.onApplied?.({ ...a, ms: performance.now() - turn, waitedMs: turn - t0 });
    this.took(b);
    try {
      // Many paths gone at once: held until the deletion settles, what comes meanwhile joining (watch/deletions.ts).
      if (!b.gitSources && this.deletions.goesOn(this.opts.root, b.paths, b.refresh, b.ignoreFiles)) {
        await this.deletions.hold(b.paths, this.queue.paths, () => this.closed, () => this.folders.check(this.opts.root), this.opts);
        this.took(b);
      }
      await this.opts.exclusive(async () => {
        turn = performance.now();
        // Closed while this batch waited its turn (a stop, or the root replaced): the tree it saw is not the root's now.
        if (this.closed) return;
        // A re-walk queued while this batch waited joins it: it reads every ignore source as it is now (watch/queued.ts).
        if (this.queue.foldInto(b, this.restartWanted)) {
          restart ||= this.takeRestart(b);
          this.took(b);
        }
        const { paths, ignoreFiles, scoped } = b;
        if (b.gitSources && !b.refresh) {
          const change = await gitSourcesChanged(this.opts.rules, this.opts.index);
          this.gitSources.follow(this.opts.rules.gitSourceFiles);
          if (change.rewalk) { b.refresh = true; this.rewalking = change.why; } // named while it runs, as a re-walk queued as such is
          else {
            paths.push(...change.paths);
            this.additions.newlyVisible();
          }
          b.why = change.why ?? b.why;
        }
        const why = b.why;
        if (b.refresh && scoped) {
          for (const f of ignoreFiles) await this.opts.rules.reloadIgnoreFile(f);
          this.additions.newlyVisible();
          const batch = [...scoped, ...paths];
          const summary = await this.opts.index.update(batch, this.marks.read);
          this.lastUpdate = new Date().toISOString();
          applied({ paths: batch, refreshed: false, why, summary });
        } else if (b.refresh) {
          for (const f of ignoreFiles) await this.opts.rules.reloadIgnoreFile(f);
          // A replaced folder's watch died with it, and its ignore files raised no event: all are
          // read again first, so chokidar prunes by the rules as they are; the re-walk then
          // catches up with what changed while it was unwatched.
          if (restart && !this.closed && this.fsw) {
            await this.opts.rules.reloadAll();
            await this.restart();
          }
          // Not in the index yet, as the re-walk reads: the files it has still to read and itself (not the batch's count as it began).
          await this.opts.index.refresh((p) => { this.marks.read(p); if (p.phase !== 'walk') this.inFlight = p.phase === 'parse' ? p.total - p.done + 1 : 1; });
          this.gitSources.follow(this.opts.rules.gitSourceFiles);
          // The re-walk read every ignore source anew: folders chokidar skipped may be in view. It also listed folders chokidar missed.
          this.additions.newlyVisible();
          this.additions.lookBelow();
          this.lastUpdate = new Date().toISOString();
          applied({ paths: [], refreshed: true, why });
        } else if (paths.length) {
          const summary = await this.opts.index.update(paths, this.marks.read);
          this.lastUpdate = new Date().toISOString();
          applied({ paths, refreshed: false, summary });
        }
      });
      this.landed();
      this.marks.landed();
    } catch (e) {
      await this.keep(b.paths, b.refresh ? (b.why ? [b.why] : []) : null, e);
    } finally {
      this.running = this.rewalking = this.marks.progress = null;
      this.inFlight = this.batchSize = 0;
      if (this.ready > 0 && !this.closed) this.schedule();
      else this.wakeIdle();
    }
  }

  /** The batch holds everything seen so far: counted (reading git's sources is a change seen, as `ready` counts it) and named. */
  private took(b: Batch): void {
    this.inFlight = this.batchSize = b.paths.length + (b.refresh || b.gitSources ? 1 : 0);
    this.marks.take();
    this.rewalking = b.refresh ? b.why || 'requested' : null;
  }

  /** Whether the batch restarts chokidar before its re-walk: a replaced folder's watch died. Restarts wait for start() (a restart would close the watcher it waits on); start() asks again. */
  private takeRestart(b: Batch): boolean {
    const restart = b.refresh && this.restartWanted && this.started;
    if (restart) this.restartWanted = false;
    return restart;
  }

  /** A retry is due: what was held joins the next batch. */
  private retryHeld(): void {
    if (this.closed) return;
    const { paths, refreshWhy } = this.held.take();
    for (const p of paths) this.queue.paths.add(p);
    if (refreshWhy) this.queue.requestRewalk(...refreshWhy);
    this.schedule();
  }

  /** A batch landed: an outage it ends is logged once. */
  private landed(): void {
    if (!this.held.failing || this.held.count > 0) return;
    this.heldForDisk = false;
    const over = this.held.landed();
    if (over) this.opts.log?.(`watcher: the kept changes landed (${over.attempts} failed attempt(s) since ${over.since})`);
  }

  /**
   * A batch failed: nothing of it is dropped. A full disk holds the whole batch for the next retry. Any other failure may be one
   * path's (a name the system refuses): each path is tried alone, the ones that land land, and only those that fail are held.
   */
  private async keep(paths: string[], refreshWhy: string[] | null, e: unknown): Promise<void> {
    let failed = paths;
    let error = e;
    // A lone path is tried alone too when it failed beside a re-walk: the re-walk may be what failed.
    if (!isNoSpace(e) && paths.length > (refreshWhy ? 0 : 1) && !this.closed) {
      ({ failed, error } = await this.opts.exclusive(() => tryOneByOne(paths, e, () => this.closed, async (p) => {
        const summary = await this.opts.index.update([p]);
        this.lastUpdate = new Date().toISOString();
        this.opts.onApplied?.({ paths: [p], refreshed: false, summary, ms: 0 });
      })).catch((x: unknown) => ({ failed: paths, error: x })));
      if (failed.length === 0 && !refreshWhy) { this.landed(); return; }
    }
    if (this.closed) return;
    const reason = failureReason(error);
    const first = !this.held.failing || this.held.report?.reason !== reason;
    this.heldForDisk = isNoSpace(error);
    const ms = this.held.hold(failed, refreshWhy, reason, error instanceof NoSpaceError ? error.stateDir : undefined);
    // A line for every failed attempt (at most one per backoff step): it also ends whatever lmdb wrote to the log unfinished.
    this.opts.log?.(heldLine(this.held.report!, first, ms));
  }

  private async restart(): Promise<void> {
    const target = this.target;
    await this.closeFsw();
    if (!this.closed) await this.open(target);
  }

  private wakeIdle(): void {
    if (this.timer || this.running || this.queued > 0) return;
    this.marks.caughtUp();
    const ws = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of ws) w();
  }
}
