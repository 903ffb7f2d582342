// openIndex: the indexer's one entry point (API in ./api.ts). Wires the LMDB
// store (indexer/store), the builder (indexer/build) and the tools
// (indexer/query/tools.ts) for one repository root, and serialises writers:
// refresh() and update() never run at the same time, while queries run
// whenever they are called and see whole updates only.
import { join, resolve } from 'node:path';
import type { BuildProgress, BuildSummary, IndexHandle, IndexSample, IndexStatus, OpenOptions, ToolResult, UpdateSummary } from './api.js';
import { Builder, tsImportCounts } from './build/builder.js';
import type { RepoRules } from './discover/rules.js';
import { ToolError } from './errors.js';
import type { ToolCall } from './query/schemas.js';
import { runTool } from './query/tools.js';
import { FORMAT_VERSION, Store } from './store/store.js';

/** OpenOptions plus what only evidex's own callers (the daemon, `evidex index`, tests) pass. */
export interface EvidexOpenOptions extends OpenOptions {
  /** Extra ignore lines (gitignore syntax) applied at the root, e.g. ['site-packages/']. */
  extraIgnore?: string[];
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

  constructor(root: string, readonly store: Store, opts: EvidexOpenOptions) {
    this.root = root;
    this.builder = new Builder(root, store, {
      maxFileBytes: opts.maxFileBytes, extraSecrets: opts.extraSecrets, extraIgnore: opts.extraIgnore, workers: opts.workers,
    });
  }

  status(): IndexStatus {
    const c = this.store.counts;
    return {
      root: this.root, formatVersion: FORMAT_VERSION, generation: this.store.generation,
      files: this.store.fileCount, pythonFiles: c.py, tsImports: tsImportCounts(c.ts, c.tsImports), symbols: c.symbols, imports: c.imports, lines: c.lines, bytes: c.bytes,
      lastUpdate: this.store.lastUpdate, state: this.store.state, warm: this.warmed && this.warming === null,
    };
  }

  rules(): Promise<RepoRules> {
    return this.builder.currentRules();
  }

  /** See IndexHandle.runTool: a value when the rules are loaded and the tool reads only the index, else a promise. */
  runTool(call: ToolCall): ToolResult | Promise<ToolResult> {
    this.checkServing(call);
    const rules = this.builder.loadedRules;
    if (rules) return runTool({ root: this.root, store: this.store, rules }, call);
    return this.rules().then((r) => runTool({ root: this.root, store: this.store, rules: r }, call));
  }

  private checkServing(call: ToolCall): void {
    if (this.closed) throw new ToolError('index_unavailable', 'the index is closed');
    if (call.name !== 'read_git_diff' && this.store.state === 'empty') {
      throw new ToolError('index_unavailable', 'no index yet for this repository: it has not been built');
    }
  }

  sample(n: number): IndexSample {
    return this.store.sample(n);
  }

  /** Runs writers one after another, in call order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(() => {
      if (this.closed) throw new Error('the index is closed');
      return fn();
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  refresh(onProgress?: (p: BuildProgress) => void): Promise<BuildSummary> {
    return this.serial(async () => {
      const { changedPaths: _c, removedPaths: _r, unchangedPaths: _u, ...summary } = await this.builder.refresh(onProgress);
      this.warm();
      return summary;
    });
  }

  update(paths: string[]): Promise<UpdateSummary> {
    return this.serial(async () => {
      const summary = await this.builder.update(paths);
      // A large update leaves new versions unloaded (see MemoryIndex.commitMode); load them in the background.
      if (!this.store.textComplete) void this.warm();
      return summary;
    });
  }

  /**
   * Loads every file's search text into memory in the background (small
   * slices, yielding to queries and writes), so search latency does not
   * depend on which files earlier queries happened to touch.
   */
  warm(): Promise<void> {
    return (this.warming ??= (async () => {
      // A bulk update landing mid-pass can unload files the pass already visited: go round again (bounded).
      for (let pass = 0; pass < 4 && !this.store.stopWarming; pass++) {
        await this.store.warmSearchCache();
        if (this.store.textComplete) break;
      }
      this.warmed = !this.store.stopWarming && this.store.textComplete;
      // Then the save path of TypeScript files (the compiler's code compiled before the first save needs it).
      if (this.warmed) await this.builder.warmTs(() => this.closed || this.store.stopWarming);
    })().finally(() => {
      this.warming = null;
      // Still incomplete (updates kept landing, or one landed as this finished and was handed
      // this promise): try again shortly rather than leave searches on the slower path.
      if (!this.closed && !this.store.stopWarming && !this.store.textComplete) {
        setTimeout(() => { if (!this.closed) void this.warm(); }, WARM_RETRY_MS).unref();
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

/** Opens the index of `root` kept under `opts.stateDir/index/` (created if missing). Call refresh() to build or catch up. */
export async function openIndex(root: string, opts: OpenOptions): Promise<IndexHandle> {
  return openEvidexIndex(root, opts);
}

/** openIndex with the concrete type (tests and benchmarks read parse counts and the store). */
export async function openEvidexIndex(root: string, opts: EvidexOpenOptions): Promise<EvidexIndex> {
  if (!opts || typeof opts.stateDir !== 'string' || opts.stateDir === '') throw new Error('openIndex: opts.stateDir is required');
  const store = await Store.open(join(resolve(opts.stateDir), 'index'));
  return new EvidexIndex(resolve(root), store, opts);
}
