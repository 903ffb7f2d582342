// Keeps an index in step with the working tree: chokidar events are batched
// over a few milliseconds and applied as one `update(paths)`; a changed
// .gitignore/.evidexignore reloads the rules and re-walks. Every write goes
// through the caller's `exclusive` queue, so updates never run concurrently
// with each other or with a refresh, and events that arrive meanwhile wait for
// the next round (never lost).
//
// Why re-check paths instead of trusting event types: editors save by writing a
// temp file and renaming it over the original, git checkouts delete and create,
// and events can arrive out of order. update() looks at each path on disk as it
// is now, so any interleaving of add/change/unlink ends in the right state.
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { Stats } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { BuildSummary, UpdateSummary } from './api.js';

/** What the watcher needs from the repository's rules (RepoRules in indexer/discover/rules.ts provides it). */
export interface WatchRules {
  isIgnored(relPath: string, isDir: boolean): boolean;
  isIgnoreFile(relPath: string): boolean;
  reloadIgnoreFile(relPath: string): Promise<void>;
}

export type WatchMode = 'auto' | 'poll' | 'off';
export type WatchState = 'starting' | 'watching' | 'polling' | 'polling (inotify limit reached)' | 'off';

export interface WatchApplied {
  paths: string[];            // what the batch re-checked (empty for a refresh)
  refreshed: boolean;         // the whole tree was re-walked (see `why`)
  why?: string;               // for a re-walk: which ignore files changed, or who asked
  summary?: UpdateSummary;
  ms: number;
}

export interface WatchOptions {
  /** Real path of the repository root. */
  root: string;
  rules: WatchRules;
  index: { update(paths: string[]): Promise<UpdateSummary>; refresh(): Promise<BuildSummary> };
  /** Runs `fn` alone among all index writers (the daemon's write queue). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** How long to gather events before applying them (default 4 ms: a temp-write + rename lands in one batch). */
  batchMs?: number;
  mode?: WatchMode;
  /** Poll interval when polling (default 500 ms). */
  pollMs?: number;
  log?(line: string): void;
  onApplied?(info: WatchApplied): void;
}

const isWatchLimitError = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
};

export class RepoWatcher {
  private fsw: FSWatcher | null = null;
  private stateValue: WatchState = 'starting';
  private noteValue: string | undefined;
  private readonly pending = new Set<string>();
  private readonly pendingIgnoreFiles = new Set<string>();
  private needRefresh = false;
  private refreshWhy: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private switching = false;
  private idleWaiters: (() => void)[] = [];
  lastUpdate: string | null = null;

  private constructor(private readonly opts: WatchOptions) {}

  /** Starts watching; resolves once chokidar has scanned the tree (events from then on are caught). */
  static async start(opts: WatchOptions): Promise<RepoWatcher> {
    const w = new RepoWatcher(opts);
    const mode = opts.mode ?? 'auto';
    if (mode === 'off') { w.stateValue = 'off'; return w; }
    await w.open(mode === 'poll' ? 'polling' : 'watching');
    return w;
  }

  get state(): WatchState { return this.stateValue; }
  get note(): string | undefined { return this.noteValue; }
  /** Paths and refreshes waiting to be applied (not counting the batch being applied). */
  get queued(): number { return this.pending.size + (this.needRefresh ? 1 : 0); }

  /** Queues a full re-walk (catch-up) behind whatever is pending. */
  requestRefresh(why = 'requested'): void {
    this.needRefresh = true;
    this.refreshWhy.push(why);
    this.schedule();
  }

  /** Resolves when nothing is queued or running (tests and shutdown use it). */
  idle(): Promise<void> {
    if (!this.timer && !this.running && this.queued === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    const fsw = this.fsw;
    this.fsw = null;
    await fsw?.close();
    await this.running;
    this.stateValue = 'off';
    this.wakeIdle();
  }

  private rel(abs: string): string | null {
    const r = relative(this.opts.root, abs);
    if (r === '' || r.startsWith('..')) return null;
    return sep === '/' ? r : r.split(sep).join('/');
  }

  private ignored = (abs: string, stats?: Stats): boolean => {
    const rel = this.rel(abs);
    if (rel === null) return false; // the root itself
    if (rel === '.git' || rel.startsWith('.git/')) return true;
    // Only folders are pruned here (chokidar then never watches inside them). Files are
    // filtered when a batch is built, because a file's rules can change with an ignore file.
    if (stats?.isDirectory()) {
      try { return this.opts.rules.isIgnored(rel, true); } catch { return false; }
    }
    return false;
  };

  private async open(target: 'watching' | 'polling' | 'polling (inotify limit reached)'): Promise<void> {
    const polling = target !== 'watching';
    const fsw = chokidarWatch(this.opts.root, {
      ignoreInitial: true,
      ignored: this.ignored,
      // No awaitWriteFinish (it adds >= 200 ms) and no atomic (it holds unlinks back 100 ms):
      // update() re-checks each path on disk, which already makes write+rename end right.
      awaitWriteFinish: false,
      atomic: false,
      followSymlinks: false,
      alwaysStat: true,
      usePolling: polling,
      interval: this.opts.pollMs ?? 500,
      binaryInterval: this.opts.pollMs ?? 500,
      persistent: true,
    });
    this.fsw = fsw;
    fsw.on('all', (event, path) => this.onEvent(event, path));
    // chokidar drops a second `change` of one path within 50 ms (its own throttle) and may
    // miss a temp file that lives only microseconds; the raw fs.watch events see every
    // touched directory entry, so they are fed in too (update() ignores no-op paths).
    if (!polling) fsw.on('raw', (_ev, evPath, details) => this.onRaw(evPath, (details as { watchedPath?: string })?.watchedPath));
    fsw.on('error', (err) => this.onError(err as Error));
    await new Promise<void>((resolve) => fsw.once('ready', () => resolve()));
    if (this.stateValue !== 'polling (inotify limit reached)' || target !== 'watching') this.stateValue = target;
  }

  private onEvent(event: string, abs: string): void {
    if (this.closed) return;
    const rel = this.rel(abs);
    if (rel === null) return;
    if (rel === '.git' || rel.startsWith('.git/')) return;
    // A folder appearing or going away: chokidar reports each file inside as its own add/unlink.
    if (event === 'addDir' || event === 'unlinkDir') return;
    if (this.opts.rules.isIgnoreFile(rel)) {
      this.pendingIgnoreFiles.add(rel);
      this.needRefresh = true;
    } else {
      let skip = false;
      try { skip = this.opts.rules.isIgnored(rel, false); } catch { skip = false; }
      if (!skip) this.pending.add(rel);
    }
    this.schedule();
  }

  private onRaw(evPath: string | null | undefined, watchedPath: string | undefined): void {
    if (this.closed || !evPath || !watchedPath) return;
    // A directory's watcher names a child; a file's own watcher names the file itself.
    // When the watched path's basename equals the name, it is (almost always) the file's
    // own watcher, but a folder d/ holding d would look the same: take both readings.
    const child = join(watchedPath, evPath);
    if (basename(watchedPath) === evPath) this.onEvent('raw', watchedPath);
    this.onEvent('raw', child);
  }

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
    const old = this.fsw;
    this.fsw = null;
    await old?.close().catch(() => undefined);
    if (this.closed) return;
    await this.open('polling (inotify limit reached)');
    this.switching = false;
    this.requestRefresh('fell back to polling');
  }

  private schedule(): void {
    if (this.closed || this.timer || this.running) return;
    this.timer = setTimeout(() => { this.timer = null; this.running = this.flush(); }, this.opts.batchMs ?? 4);
  }

  private async flush(): Promise<void> {
    const paths = [...this.pending].sort();
    this.pending.clear();
    const refresh = this.needRefresh;
    const ignoreFiles = [...this.pendingIgnoreFiles];
    const why = [...ignoreFiles.map((f) => `${f} changed`), ...this.refreshWhy].join(', ');
    this.needRefresh = false;
    this.refreshWhy = [];
    this.pendingIgnoreFiles.clear();
    const t0 = performance.now();
    try {
      await this.opts.exclusive(async () => {
        if (refresh) {
          for (const f of ignoreFiles) await this.opts.rules.reloadIgnoreFile(f);
          // A folder that was ignored is not watched; after a rules change, rescan so newly
          // included folders are watched too, then re-walk (which also drops newly ignored files).
          if (ignoreFiles.length && !this.closed && this.fsw) await this.restart();
          await this.opts.index.refresh();
          this.lastUpdate = new Date().toISOString();
          this.opts.onApplied?.({ paths: [], refreshed: true, why, ms: performance.now() - t0 });
        } else if (paths.length) {
          const summary = await this.opts.index.update(paths);
          this.lastUpdate = new Date().toISOString();
          this.opts.onApplied?.({ paths, refreshed: false, summary, ms: performance.now() - t0 });
        }
      });
    } catch (e) {
      this.opts.log?.(`watcher: applying ${refresh ? 'a refresh' : `${paths.length} path(s)`} failed: ${(e as Error).message}`);
    } finally {
      this.running = null;
      if (this.queued > 0 && !this.closed) this.schedule();
      else this.wakeIdle();
    }
  }

  private async restart(): Promise<void> {
    const old = this.fsw;
    const target = this.stateValue === 'starting' || this.stateValue === 'off' ? 'watching' : this.stateValue;
    this.fsw = null;
    await old?.close();
    if (!this.closed) await this.open(target);
  }

  private wakeIdle(): void {
    if (this.timer || this.running || this.queued > 0) return;
    const ws = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of ws) w();
  }
}
