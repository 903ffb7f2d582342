// A full collection after a large batch of index writes, once the daemon is
// quiet. A branch jump re-indexes hundreds of files: their parses, rows and
// replaced structures are garbage once written, and V8 keeps it, and the
// pages it sat in, until its memory reducer happens to run (measured on
// excalidraw, docs/performance/memory.md "After branch jumps": RssAnon 101-104 MB
// steady, up to 150-235 MB after a jump, back only after a minute idle; with
// this, at most 114 MB). The collection is the one of collect-garbage.ts;
// this module says when.
//
// When: once writes of at least MIN_FILES files, and at least 1/INDEX_SHARE of
// the index, have landed since the last collection (the garbage grows with the
// files written, the collection's pause with the heap, so a small batch on a
// large tree is not worth a pause); then after QUIET_MS with no further write
// (a jump lands as many watcher batches and re-walks over several seconds), with
// every seen change written, and only when no client's request runs or waits.
// A request that arrives during the collection waits for it (tens of ms on a
// thousand files, under a second on site-packages).
import { collectGarbage } from './collect-garbage.js';

/** Files written since the last collection before one is worth its pause. */
export const COLLECT_MIN_FILES = 100;
/** …and at least this fraction (1/n) of the files indexed. */
export const COLLECT_INDEX_SHARE = 10;
/** No write for this long: the batch is over. */
export const COLLECT_QUIET_MS = 2000;

export interface CollectAfterWritesOptions {
  minFiles?: number;
  quietMs?: number;
  /** Waits `ms` (a timer; a test's hook). */
  delay?: (ms: number) => Promise<void>;
  /** The collection (collectGarbage; a test's hook): resolves to its duration in ms, or null when refused. */
  collect?: () => Promise<number | null>;
}

export interface CollectAfterWritesDeps extends CollectAfterWritesOptions {
  /** Files in the index now. */
  indexedFiles: () => number;
  /** Resolves once every change seen is written (IndexUpdates.idle). */
  writesDone: () => Promise<void>;
  /** Resolves once no client's request runs or waits (FairTurns.whenIdle). */
  requestsDone: () => Promise<void>;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class CollectAfterWrites {
  /** Files written since the last collection. */
  private files = 0;
  /** Counts writes, so a wait can tell whether one landed meanwhile. */
  private writes = 0;
  private waiting = false;
  private stopped = false;

  constructor(private readonly deps: CollectAfterWritesDeps) {}

  /** A write of `files` files (changed, added or removed) landed. */
  written(files: number): void {
    if (this.stopped || files <= 0) return;
    this.files += files;
    this.writes++;
    this.consider();
  }

  stop(): void {
    this.stopped = true;
  }

  /** True while a collection waits for its moment (for status and tests). */
  get pending(): boolean { return this.waiting; }

  private consider(): void {
    if (this.waiting || this.stopped) return;
    const min = Math.max(this.deps.minFiles ?? COLLECT_MIN_FILES, Math.ceil(this.deps.indexedFiles() / COLLECT_INDEX_SHARE));
    if (this.files < min) return;
    this.waiting = true;
    void this.waitAndCollect().catch((e: unknown) => {
      this.deps.log(`heap collection after writes failed: ${e instanceof Error ? e.message : String(e)}`);
    }).finally(() => {
      this.waiting = false;
      this.consider();
    });
  }

  private async waitAndCollect(): Promise<void> {
    const { delay = sleep, quietMs = COLLECT_QUIET_MS, collect = collectGarbage } = this.deps;
    for (;;) {
      const seen = this.writes;
      await delay(quietMs);
      await this.deps.writesDone();
      if (this.stopped) return;
      if (this.writes !== seen) continue;
      await this.deps.requestsDone();
      if (this.stopped) return;
      if (this.writes !== seen) continue;
      // No await between the requests' end and the collection's start: no request can come in between.
      const files = this.files;
      this.files = 0;
      const ms = await collect();
      if (ms !== null) this.deps.log(`heap collected after ${files} files written, in ${ms.toFixed(0)} ms`);
      return;
    }
  }
}
