// Keeping the index in step with the tree, the daemon's only writes: the
// start-up catch-up (a first build, or a compare-by-hash refresh of what
// changed while no daemon ran), the watcher's batches, and a client's
// index/refresh — all through one WriteQueue, so they never overlap. (Tool
// calls that must wait for the start-up build wait in the index itself:
// IndexHandle.runTool.)
import type { BuildProgress, BuildSummary, IndexHandle } from '../indexer/api.js';
import type { RepoRules } from '../indexer/discover/rules.js';
import { RepoWatcher, type WatchMode } from '../indexer/watch.js';
import type { WatcherState } from '../protocol/messages.js';
import { WriteQueue } from './write-queue.js';

export interface IndexUpdatesOptions {
  root: string;
  /** The index's own rules (one instance, re-read in place by every refresh), which the watcher decides with. */
  rules: RepoRules;
  watch: WatchMode;
  log: (line: string) => void;
}

export class IndexUpdates {
  private readonly queue = new WriteQueue();
  private watcher: RepoWatcher | null = null;
  private closed = false;
  startupState: 'running' | 'done' | 'failed' = 'running';
  startupError: string | undefined;
  /** Settles once the start-up catch-up is over: true if it succeeded. Never rejects. */
  startup: Promise<boolean> = Promise.resolve(false);

  constructor(private readonly handle: IndexHandle, private readonly opts: IndexUpdatesOptions) {}

  /** Starts the catch-up and the watcher, both in the background. */
  begin(): void {
    this.startup = this.catchUp();
    this.startWatcher();
  }

  private catchUp(): Promise<boolean> {
    const t0 = performance.now();
    let lastPhase = '';
    return this.queue.run(() => this.handle.refresh((p) => {
      if (p.phase !== lastPhase) { lastPhase = p.phase; this.opts.log(`index: ${p.phase} (${p.done}/${p.total})`); }
    })).then((s) => {
      this.startupState = 'done';
      this.opts.log(`index ready: ${s.files} files (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed) in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
      return true;
    }, (e: unknown) => {
      this.startupState = 'failed';
      this.startupError = e instanceof Error ? e.message : String(e);
      this.opts.log(`index build failed: ${this.startupError}`);
      return false;
    });
  }

  private startWatcher(): void {
    const { log } = this.opts;
    const watchStart = performance.now();
    RepoWatcher.start({
      root: this.opts.root,
      rules: this.opts.rules,
      index: this.handle,
      exclusive: (fn) => this.queue.run(fn),
      mode: this.opts.watch,
      log,
      onApplied: (a) => {
        if (a.refreshed) log(`watch: re-walked (${a.why}) in ${a.ms.toFixed(1)} ms`);
        else if (a.summary) {
          const s = a.summary;
          const shown = a.paths.length <= 3 ? a.paths.join(' ') : `${a.paths.slice(0, 3).join(' ')} +${a.paths.length - 3}`;
          log(`watch: ${shown}: ${s.changed.length} changed, ${s.removed.length} removed, ${s.unchanged.length} unchanged → generation ${s.generation} (${a.ms.toFixed(1)} ms)`);
        }
      },
    }).then((w) => {
      if (this.closed) { void w.close(); return; }
      this.watcher = w;
      log(`watcher ${w.state} (${(performance.now() - watchStart).toFixed(0)} ms to scan)`);
      // The start-up refresh walked while the watcher was still scanning; a change in that window
      // could have been seen by neither, so one more (cheap, hash-comparing) catch-up closes it.
      if (w.state !== 'off') w.requestRefresh('catch-up after the watcher scan');
    }, (e: unknown) => {
      log(`watcher failed to start: ${e instanceof Error ? e.message : String(e)}; serving without live updates`);
    });
  }

  /** A client's index/refresh, queued behind whatever write is running. */
  refresh(onProgress: (p: BuildProgress) => void): Promise<BuildSummary> {
    return this.queue.run(() => this.handle.refresh(onProgress));
  }

  get watcherState(): WatcherState {
    return this.watcher ? this.watcher.state : (this.opts.watch === 'off' ? 'off' : 'starting');
  }
  /** Why the watcher is polling or off, when it is. */
  get watcherNote(): string | undefined { return this.watcher?.note; }
  get lastWatchUpdate(): string | null { return this.watcher?.lastUpdate ?? null; }
  /** Updates queued behind the one running (watcher batches, refreshes). */
  get pendingUpdates(): number { return (this.watcher?.queued ?? 0) + Math.max(0, this.queue.waiting - 1); }

  /** Resolves when the catch-up is over and the watcher has applied everything it has seen. */
  async idle(): Promise<void> {
    await this.startup;
    await this.watcher?.idle();
  }

  /** Stops watching (a watcher still starting is closed as soon as it has). */
  async stopWatching(): Promise<void> {
    this.closed = true;
    await this.watcher?.close().catch((e: Error) => this.opts.log(`closing the watcher: ${e.message}`));
  }

  /** Waits up to `ms` for the running and queued writes; true if they all finished. */
  drain(ms: number): Promise<boolean> {
    return this.queue.drain(ms);
  }
}

