// The face the indexer shows to the daemon and the in-process CLI: open an
// index for a root, keep it fresh, answer validated tool calls. The daemon holds
// one IndexHandle per root; nothing outside indexer/ touches LMDB directly.
import type { BuildProgress, BuildSummary, TsImportCounts, UpdateSummary } from './build/summary.js';
import type { SettleWalks } from './build/settled-walk.js';
import type { LeftOut, LeftOutCounts, LeftOutQuery, LeftOutReason } from './discover/left-out.js';
import type { RepoRules } from './discover/rules.js';
import type { Pace } from './query/pace.js';
import type { LeftOutFolder, ToolResult } from './query/schemas.js';
import type { UnresolvedImports, UnresolvedQuery, UnresolvedStatement } from './query/unresolved.js';
import type { IndexSample } from './store/store.js';

// Defined beside what produces them (the tools, the builder, the store); named here too, as the face outside code imports.
export type {
  BuildProgress, BuildSummary, IndexSample, LeftOut, LeftOutCounts, LeftOutFolder, LeftOutReason, Pace, ToolResult, TsImportCounts,
  UnresolvedImports, UnresolvedQuery, UnresolvedStatement, UpdateSummary,
};

export interface IndexStatus {
  root: string;
  formatVersion: number;
  generation: number;          // rises by one with every applied update (a file, a batch, a build step)
  files: number;
  pythonFiles: number;
  /** TypeScript/JavaScript files, and their import statements by outcome: resolved in the repository, or nowhere and why. */
  tsImports: TsImportCounts;
  symbols: number;
  imports: number;
  lines: number;
  bytes: number;               // source bytes indexed
  lastUpdate: string | null;   // ISO time of the last applied update
  state: 'empty' | 'building' | 'ready';
  /** In-memory search text and symbol index fully loaded (queries before that are correct, just slower). */
  warm: boolean;
  /** Files left out, by reason (docs/tools.md, What is indexed): an ignored folder counts once. */
  leftOut: LeftOutCounts;
  /** The first few secret files' paths (left-out.ts, pathsLeftOut), which `leftOut.secret` counts: named, never read. */
  secretPaths: string[];
  /** Where the one-byte search text is: `generation 2, 131.0 MiB: 5012 files' text in it, 3 in the heap (0.1 MiB); 0.1 MiB of it no longer read`, or `none: …` and why (docs/cli.md); absent from an older daemon. */
  textMap?: string;
  /** The first few work trees of this repository below the root (discover/worktrees.ts), which `leftOut.worktree` counts; absent from an older daemon. */
  worktreePaths?: string[];
}

export interface OpenOptions {
  /** Folder for this root's LMDB environment (the daemon passes <state>/<root-id>/). */
  stateDir: string;
  maxFileBytes?: number;       // default 2 MiB
  extraSecrets?: string[];     // glob patterns added to the built-in secret list (docs/tools.md)
  workers?: number;            // parse threads for a build (default: cores)
  /** One-byte search text from which it moves out of the heap into a memory map (default 64 MiB; Infinity: never). */
  textMapMinBytes?: number;
  /** Where the index's rare notes go (the daemon's log): a text map it could not write. */
  log?: (line: string) => void;
  /**
   * Told after a compaction of the text map (a generation that replaced another), with the files whose text it
   * moved: the replaced pieces and the heap text are garbage then, as after a large write (the daemon collects).
   */
  onTextMapCompacted?: (files: number) => void;
}

export interface IndexHandle {
  readonly root: string;
  status(): IndexStatus;
  /**
   * Runs one tool call as it came from a client or a model: checked here, once
   * (shape bounds, exact name, strict schema), then answered. The answer comes
   * as a value when it needs no I/O (every tool but read_git_diff, once the
   * rules are loaded: the first rules() or refresh() loads them), else as a
   * promise; the daemon sends a value in the same turn of the event loop.
   * An index that was not complete when opened answers only once the first
   * refresh() is over; if that refresh failed, every call is refused with
   * index_unavailable. Every failure is a ToolError (refusals as they are,
   * anything unexpected as internal_error), thrown with a value and rejected
   * with a promise, so `await runTool(...)` sees both alike.
   * With a `pace` (the daemon's fair scheduler), an answer whose work grows
   * with the index (search_code, and find_symbol or find_importers on a
   * crowded name) stops at the end of each slice and goes on
   * when the pace lets it, answering with a promise (query/pace.ts).
   */
  runTool(name: unknown, args: unknown, pace?: Pace): ToolResult | Promise<ToolResult>;
  /** The first refresh that runTool's answers wait for, while it runs; null when they wait for nothing. */
  readonly firstBuild: Promise<void> | null;
  /**
   * The ignore and secret rules the index walks with: one instance for the
   * index's life, re-read in place by every refresh, so a watcher given it
   * decides exactly as the walk does.
   */
  rules(): Promise<RepoRules>;
  /**
   * Walks the tree and brings the index up to date: a first full build, or a catch-up that re-parses only files whose content changed.
   * `signal` cancels it between commits (it rejects with the signal's reason; what was committed stays, and the next refresh carries on).
   * `settle`: walk until two walks agree first (a folder just put at the root's path may still be filling; build/settled-walk.ts).
   */
  refresh(onProgress?: (p: BuildProgress) => void, signal?: AbortSignal, settle?: SettleWalks): Promise<BuildSummary>;
  /**
   * Up to `n` each of the index's definition names, imported module names and
   * file paths, spread evenly over each list: tool arguments that are
   * representative of this index (the daemon's warm-up uses them). Reads only.
   */
  sample(n: number): IndexSample;
  /**
   * The left-out files whose path holds `query` (names and reasons only, never
   * content), in path order, at most `limit`; `total` counts them all. Waits
   * for the first walk of the tree (made here when no refresh has made one).
   */
  leftOutByName(query: string, opts: LeftOutQuery): Promise<{ items: LeftOut[]; total: number }>;
  /**
   * The TypeScript/JavaScript import statements that resolved nowhere, of the
   * asked reasons, a page of them (query/unresolved.ts). Waits for a first
   * build as runTool does, and is refused as it is (index_unavailable) when
   * there is no index to answer from.
   */
  unresolvedImports(q: UnresolvedQuery): Promise<UnresolvedImports>;
  /**
   * Whether `folder` (root-relative, with its "/": where `evidex index` was
   * typed) is a folder the rules leave out as a whole, and why, as a tool
   * answer's `left_out_folder` says it (query/prefix-note.ts); null when they keep it.
   */
  leftOutFolder(folder: string): Promise<Omit<LeftOutFolder, 'note'> | null>;
  /**
   * The paths a change of ignore patterns can flip: every indexed file, and
   * every entry the walks left out as ignored (a folder once). The watcher
   * re-checks those whose verdict changed instead of re-walking the tree.
   */
  ignoreCandidates(): { indexed: string[]; ignored: string[] };
  /** Re-indexes these repository-relative paths (changed, created, deleted or now ignored); each file is one transaction. */
  /** `onProgress`: files read of those the batch has to read, then its write (a checkout's batch is thousands). */
  update(paths: string[], onProgress?: (p: BuildProgress) => void): Promise<UpdateSummary>;
  close(): Promise<void>;
}
