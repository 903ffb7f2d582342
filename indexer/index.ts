// openIndex: the indexer's one entry point (API in ./api.ts). Wires the LMDB
// store (indexer/store), the builder (indexer/build) and the tools
// (indexer/query/tools.ts) for one repository root, and serialises writers:
// refresh() and update() never run at the same time, while queries run
// whenever they are called and see whole updates only.
import { join, resolve } from 'node:path';
import type {
  BuildProgress, BuildSummary, IndexHandle, IndexSample, IndexStatus, OpenOptions, Pace, ToolResult, UnresolvedImports, UnresolvedQuery, UpdateSummary,
} from './api.js';
import { compileCacheDirFor } from '../local/state.js';
import { Builder } from './build/builder.js';
import { tsImportCounts } from './build/summary.js';
import type { SettleWalks } from './build/settled-walk.js';
import { leftOutByName, noLeftOut, pathsLeftOut, type LeftOut, type LeftOutCounts, type LeftOutQuery } from './discover/left-out.js';
import type { RepoRules } from './discover/rules.js';
import { CompactionSchedule, type CompactClock } from './compaction-schedule.js';
import { asToolError, ToolError } from './errors.js';
import { checkToolCall } from './query/arg-bounds.js';
import { NotIndexedError } from './query/args.js';
import type { LeftOutFolder, ToolCall } from './query/schemas.js';
import { runTool } from './query/tools.js';
import type { WouldReach } from './query/missing-file.js';
import { unresolvedImports } from './query/unresolved.js';
import { folderLeftOut } from './query/prefix-note.js';
import { FORMAT_VERSION, Store } from './store/store.js';
import { asWriteFailure, isNoSpace } from './write-failure.js';

/** OpenOptions plus what only evidex's own callers (the daemon, `evidex index`, tests) pass. */
export interface EvidexOpenOptions extends OpenOptions {
  /** Extra ignore lines (gitignore syntax) applied at the root, e.g. ['site-packages/']. */
  extraIgnore?: string[];
  /** The clock and the timer a text map compaction waits on (tests' hooks; default performance.now and setTimeout). */
  compactClock?: CompactClock;
}

/** Pause before another warm-up pass when the last ended with files still unloaded. */
const WARM_RETRY_MS = 250;
export class EvidexIndex implements IndexHandle {
  readonly root: string;
  readonly builder: Builder;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;
  private warming: Promise<void> | null = null;
  /** Set once a warm-up has finished: every file's search text and the symbol index are in memory. */
  private warmed = false;
  /** The index held every file of a finished build when opened: calls need not wait for the first refresh. */
  private readonly completeAtOpen: boolean;
  /** Whether refresh() has been called: the first one is the build (or catch-up) that calls may wait for. */
  private refreshed = false;
  /** The first refresh, while it runs on an index that was not complete when opened: calls wait for it. */
  firstBuild: Promise<void> | null = null;
  /** Why the first refresh failed; from then on every call is refused with it. */
  private buildFailure: string | undefined;

  /** The state folder: a write that fails for want of room there says so (write-failure.ts). */
  private readonly stateDir: string;
  /** When a text map compaction may be written: once the writes are quiet (compaction-schedule.ts). */
  private readonly compaction: CompactionSchedule;

  constructor(root: string, readonly store: Store, opts: EvidexOpenOptions) {
    this.root = root;
    this.stateDir = resolve(opts.stateDir);
    this.completeAtOpen = store.state === 'ready';
    this.compaction = new CompactionSchedule({
      due: () => this.store.textMapDue, closed: () => this.closed, writes: () => this.writes, run: () => void this.warmPass(),
    }, opts.compactClock);
    this.builder = new Builder(root, store, {
      maxFileBytes: opts.maxFileBytes, extraSecrets: opts.extraSecrets, extraIgnore: opts.extraIgnore, workers: opts.workers,
      compileCache: compileCacheDirFor(this.stateDir),
    });
  }

  status(): IndexStatus {
    const c = this.store.counts;
    const textMap = this.store.textMapState;
    return {
      root: this.root, formatVersion: FORMAT_VERSION, generation: this.store.generation,
      files: this.store.fileCount, pythonFiles: c.py, tsImports: tsImportCounts(c.ts, c.tsImports), symbols: c.symbols, imports: c.imports, lines: c.lines, bytes: c.bytes,
      lastUpdate: this.store.lastUpdate, state: this.store.state, warm: this.warmed && this.warming === null,
      leftOut: this.leftOutCounts(), secretPaths: pathsLeftOut(this.builder.leftOut(), 'secret'), worktreePaths: pathsLeftOut(this.builder.leftOut(), 'worktree'),
      ...(textMap !== null ? { textMap } : {}),
    };
  }

  private leftOutCounts(): LeftOutCounts {
    const counts = noLeftOut();
    for (const e of this.builder.leftOut()) counts[e.reason]++;
    return counts;
  }

  ignoreCandidates(): { indexed: string[]; ignored: string[] } {
    const ignored: string[] = [];
    for (const e of this.builder.leftOut()) if (e.reason === 'ignored') ignored.push(e.path);
    return { indexed: this.store.ordered().map((f) => f.path), ignored };
  }

  async leftOutByName(query: string, opts: LeftOutQuery): Promise<{ items: LeftOut[]; total: number }> {
    // A complete index answers during its start-up catch-up, but what the tree leaves out is known once that walk is over.
    await this.builder.leftOutKnown();
    return leftOutByName(this.builder.leftOut(), query, opts);
  }

  rules(): Promise<RepoRules> {
    return this.builder.currentRules();
  }

  /**
   * See IndexHandle.runTool: checked, then answered — a value when the rules are
   * loaded and the tool reads only the index, else a promise. A call that
   * fails the check is refused at once, even while the first build runs.
   */
  runTool(name: unknown, args: unknown, pace?: Pace): ToolResult | Promise<ToolResult> {
    const call = checkToolCall(name, args);
    const build = this.firstBuild;
    return build ? build.then(() => this.answer(call, pace)) : this.answer(call, pace);
  }

  async unresolvedImports(q: UnresolvedQuery): Promise<UnresolvedImports> {
    if (this.firstBuild) await this.firstBuild;
    this.checkServing(true);
    // Whether a listed statement reaches a file left out is known once a walk has said what is left out.
    await this.builder.leftOutKnown();
    const rules = await this.rules(); // a prefix that is a folder they leave out is said to be one (prefix-note.ts)
    return unresolvedImports(this.store, q, { leftOut: this.builder.leftOut(), wouldReach: (stmts, extra) => this.builder.ts.wouldReach(stmts, extra) }, rules);
  }

  async leftOutFolder(folder: string): Promise<Omit<LeftOutFolder, 'note'> | null> {
    return folderLeftOut(await this.rules(), folder);
  }

  /** `again`: the call is asked a second time, once the walk said what it leaves out (refusedBeforeWalk). */
  private answer(call: ToolCall, pace: Pace | undefined, again = false): ToolResult | Promise<ToolResult> {
    try {
      this.checkServing(call.name !== 'read_git_diff');
      const rules = this.builder.loadedRules;
      const ctx = {
        root: this.root, store: this.store, leftOut: (path: string) => this.builder.leftOutReason(path),
        wouldReach: (stmts: Parameters<WouldReach>[0], extra: ReadonlySet<string>) => this.builder.ts.wouldReach(stmts, extra),
      };
      const r = rules ? runTool({ ...ctx, rules }, call, pace) : this.rules().then((loaded) => runTool({ ...ctx, rules: loaded }, call, pace));
      return r instanceof Promise ? r.catch((e: unknown) => this.refusedBeforeWalk(e, call, pace, again) ?? Promise.reject(this.failure(e))) : r;
    } catch (e) {
      const later = this.refusedBeforeWalk(e, call, pace, again);
      if (later) return later;
      throw asToolError(e);
    }
  }

  /**
   * A refusal of a file that is there, given before any walk recorded why
   * files are left out (a daemon answering from a complete index before its
   * start-up walk): the call asked again once one has, so the refusal says
   * why (over the size cap, binary) as it will afterwards. Null otherwise.
   */
  private refusedBeforeWalk(e: unknown, call: ToolCall, pace: Pace | undefined, again: boolean): Promise<ToolResult> | null {
    if (again || !(e instanceof NotIndexedError) || !e.fileThere || this.builder.leftOutRecorded) return null;
    return this.builder.leftOutKnown().then(() => this.answer(call, pace, true));
  }

  /**
   * What an answer that failed while it waited (for its next slice, for the
   * rules) is refused with: an answer the index was closed under (its text
   * map unmapped, a stop) is refused as a call after the close is, not as a bug.
   */
  private failure(e: unknown): ToolError {
    return this.closed && !(e instanceof ToolError) ? closedError() : asToolError(e);
  }

  /** Refuses a call the index cannot answer now; `needsIndex`: it reads the index (read_git_diff alone does not). */
  private checkServing(needsIndex: boolean): void {
    if (this.buildFailure !== undefined) throw new ToolError('index_unavailable', `the index could not be built: ${this.buildFailure}`);
    if (this.closed) throw closedError();
    if (needsIndex && this.store.state === 'empty') {
      throw new ToolError('index_unavailable', 'no index yet for this repository: it has not been built');
    }
  }

  sample(n: number): IndexSample {
    return this.store.sample(n);
  }

  /** Runs writers one after another, in call order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.compaction.queued();
    const run = this.writes.then(() => {
      if (this.closed) throw new Error('the index is closed');
      return fn();
    }).catch((e: unknown) => { throw asWriteFailure(e, this.stateDir); }).finally(() => this.compaction.settled());
    this.writes = run.catch(() => undefined);
    return run;
  }

  refresh(onProgress?: (p: BuildProgress) => void, signal?: AbortSignal, settle?: SettleWalks): Promise<BuildSummary> {
    const run = this.serial(async () => {
      const { changedPaths: _c, removedPaths: _r, unchangedPaths: _u, ...summary } = await this.builder.refresh(onProgress, signal, settle);
      this.compaction.landed();
      void this.warmPass();
      return summary;
    });
    if (!this.refreshed) this.firstRefresh(run, signal);
    return run;
  }

  /**
   * The first refresh is the build (or the catch-up after a restart) the
   * index answers from: calls on an index that was not complete when opened
   * wait for it, and if it fails no call is answered any more (the daemon
   * says why in its status; a new start builds again).
   */
  private firstRefresh(run: Promise<unknown>, signal: AbortSignal | undefined): void {
    this.refreshed = true;
    // Registered before the caller's own reaction to `run`: by the time the caller sees it settle, calls no longer wait.
    const settled = run.then(
      () => { this.firstBuild = null; },
      (e: unknown) => {
        this.firstBuild = null;
        // A cancelled build (a stop, the root replaced under it) did not fail, nor did one the disk had no room for
        // (it is retried once there is): what it wrote stays, and the next refresh is the first again.
        if (signal?.aborted || isNoSpace(e)) { this.refreshed = false; return; }
        this.buildFailure = e instanceof Error ? e.message : String(e);
      },
    );
    if (!this.completeAtOpen) this.firstBuild = settled;
  }

  update(paths: string[], onProgress?: (p: BuildProgress) => void): Promise<UpdateSummary> {
    return this.serial(async () => {
      const summary = await this.builder.update(paths, onProgress);
      this.compaction.landed();
      // A large update leaves new versions unloaded (see MemoryIndex.commitMode); load them in the background.
      // A text map due a new generation (mapped-text.ts) waits for the writes to go quiet.
      if (!this.store.textComplete) void this.warmPass();
      else this.compaction.whenQuiet();
      return summary;
    });
  }

  /**
   * Loads every file's search text into memory in the background (small
   * slices, yielding to queries and writes), so search latency does not
   * depend on which files earlier queries happened to touch.
   */
  warm(): Promise<void> {
    // Called by its owner (after a refresh, or a test): a text map generation due is written now, quiet or not.
    this.compaction.urge();
    return this.warmPass();
  }

  private warmPass(): Promise<void> {
    return (this.warming ??= (async () => {
      // A bulk update landing mid-pass can unload files the pass already visited: go round again (bounded).
      for (let pass = 0; pass < 4 && !this.store.stopWarming; pass++) {
        await this.store.warmSearchCache(undefined, () => this.compaction.mayCompact());
        if (this.store.textComplete) break;
      }
      this.warmed = !this.store.stopWarming && this.store.textComplete;
      // Then the save path of TypeScript files (the compiler's code compiled before the first save needs it).
      if (this.warmed) await this.builder.warmTs(() => this.closed || this.store.stopWarming);
    })().finally(() => {
      this.warming = null;
      // A compaction this pass was not let write waits for the writes to go quiet.
      this.compaction.passEnded(this.store.textComplete && !this.store.textMapDue);
      // Still incomplete (updates kept landing, or one landed as this finished and was handed
      // this promise): try again shortly rather than leave searches on the slower path.
      if (!this.closed && !this.store.stopWarming && !this.store.textComplete) {
        setTimeout(() => { if (!this.closed) void this.warmPass(); }, WARM_RETRY_MS).unref();
      }
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writes;
    this.closed = true;
    this.store.stopWarming = true;
    await this.warming;
    await this.store.close();
  }
}

/** A call on a closed index (a daemon stopping): one refusal, whether it came after the close or was answering when it came. */
const closedError = (): ToolError => new ToolError('index_unavailable', 'the index is closed');

/** Opens the index of `root` kept under `opts.stateDir/index/` (created if missing). Call refresh() to build or catch up. */
export async function openIndex(root: string, opts: OpenOptions): Promise<IndexHandle> {
  return openEvidexIndex(root, opts);
}

/** openIndex with the concrete type (tests and benchmarks read parse counts and the store). */
export async function openEvidexIndex(root: string, opts: EvidexOpenOptions): Promise<EvidexIndex> {
  if (!opts || typeof opts.stateDir !== 'string' || opts.stateDir === '') throw new Error('openIndex: opts.stateDir is required');
  const stateDir = resolve(opts.stateDir);
  const store = await Store.open(join(stateDir, 'index'), { dir: join(stateDir, 'text-map'), minBytes: opts.textMapMinBytes, log: opts.log, compacted: opts.onTextMapCompacted }, stateDir);
  return new EvidexIndex(resolve(root), store, opts);
}
