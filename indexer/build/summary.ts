// What a build reports: its progress while it runs, and what a refresh or an
// update did once done (the CLI's summary, index/status, the watcher's log).
import type { ResolutionCounts } from '../store/store.js';

/** Reported while a refresh runs (the CLI's progress line, the daemon's index/progress notifications). */
export interface BuildProgress {
  phase: 'walk' | 'parse' | 'write' | 'done';
  done: number;                // files processed so far in this phase (parse: read, those then left out included)
  total: number;               // files known in this phase (0 while unknown; parse: the files the walk found to read, fixed)
  /** parse: of the files read, those left out once their content was known (binary, grown over the size cap). */
  leftOut?: number;
}

/** What a refresh did, once it is done. */
export interface BuildSummary {
  files: number; parsed: number; unchanged: number; removed: number;
  symbols: number; imports: number; lines: number; seconds: number;
  /** TypeScript/JavaScript import statements by outcome (api.ts, TsImportCounts). */
  tsImports: TsImportCounts;
}

/** TypeScript/JavaScript import statements of the whole index: resolved to a file of the repository, or nowhere, and why. */
export interface TsImportCounts {
  files: number;               // TypeScript and JavaScript files indexed
  resolved: number;            // statements that reached a file of the repository
  unresolved: { external: number; missing: number; config: number };
}

export function tsImportCounts(files: number, c: ResolutionCounts): TsImportCounts {
  return { files, resolved: c[0], unresolved: { external: c[1], missing: c[2], config: c[3] } };
}

/** What an update of named paths did (the watcher's unit of work). */
export interface UpdateSummary {
  changed: string[];           // re-indexed (new or different content)
  removed: string[];           // gone from the index (deleted, now ignored, now binary...)
  unchanged: string[];         // same content hash: nothing rewritten
  generation: number;
}
