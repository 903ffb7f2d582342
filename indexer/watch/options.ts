// What a RepoWatcher is given and what it reports (watch.ts).
import type { BuildProgress, BuildSummary, UpdateSummary } from '../api.js';
import type { RepoRules } from '../discover/rules.js';
import type { Timers } from './rechecks.js';

export type WatchMode = 'auto' | 'poll' | 'off';
export type WatchState = 'starting' | 'watching' | 'polling' | 'polling (inotify limit reached)' | 'off';
/** What a watcher is opened as (a restart opens the same). */
export type OpenTarget = 'watching' | 'polling' | 'polling (inotify limit reached)';

export interface WatchApplied {
  paths: string[];            // what the batch re-checked (empty for a refresh)
  refreshed: boolean;         // the whole tree was re-walked (see `why`)
  why?: string;               // for a re-walk: which ignore files changed, or who asked
  summary?: UpdateSummary;
  ms: number;                 // the batch's own work, from its turn in the write queue
  waitedMs?: number;          // how long it waited for that turn (behind the start-up build, say)
}

export interface WatchOptions {
  /** Real path of the repository root. */
  root: string;
  /** The rules the index walks with (what chokidar skips is decided as the walk decides). */
  rules: RepoRules;
  index: {
    /** `onProgress`: files read of those the batch has to read (BuildProgress), shown while it runs (catchingUp.progress). */
    update(paths: string[], onProgress?: (p: BuildProgress) => void): Promise<UpdateSummary>;
    /** `onProgress`: how far the re-walk has come (its parse phase counts the files still to read, BuildProgress). */
    refresh(onProgress?: (p: BuildProgress) => void): Promise<BuildSummary>;
    ignoreCandidates?(): { indexed: string[]; ignored: string[] };
  };
  /** Runs `fn` alone among all index writers (the daemon's write queue). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** How long to gather events before applying them (default 4 ms: a temp-write + rename lands in one batch). */
  batchMs?: number;
  mode?: WatchMode;
  /** Poll interval when polling (default 500 ms). */
  pollMs?: number;
  log?(line: string): void;
  onApplied?(info: WatchApplied): void;
  /** The root's own watch reported the root itself deleted or moved: the owner checks which folder stands there now (daemon/root-watch.ts). */
  onRootTouched?(): void;
  /** The clock of the retries of batches that could not be written (default: the process's own; tests move their own). */
  timers?: Timers;
}

