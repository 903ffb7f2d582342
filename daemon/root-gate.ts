// What a tool call meets when the root is not the tree the index was built
// from (root-watch.ts noticed): it is never answered from the old index. While
// no folder is at the root's path, every call is refused with the reason;
// while another folder there is being indexed from the top, calls wait for
// that index, as they wait for a first build. Once the root is the indexed
// tree again, calls pass straight through (no promise, no cost).
import { ToolError } from '../indexer/errors.js';
import type { RootState } from '../protocol/messages.js';

export class RootGate {
  private stateValue: RootState = 'present';
  private noteValue: string | undefined;
  /** Settles when the re-index under way ends (whatever its outcome); null unless re-indexing. */
  private settled: Promise<void> | null = null;

  get state(): RootState { return this.stateValue; }
  /** Since when and why the root is not the indexed tree (absent while it is). */
  get note(): string | undefined { return this.noteValue; }

  /**
   * Runs `run` when the root is the indexed tree; refuses while it is gone;
   * waits while it is re-indexed, then decides again (it may be gone, or
   * replaced once more, by then).
   */
  admit<T>(run: () => T | Promise<T>): T | Promise<T> {
    switch (this.stateValue) {
      case 'present': return run();
      case 'gone': throw new ToolError('index_unavailable', `nothing is answered from the index: ${this.noteValue}`);
      case 'reindexing': return this.settled!.then(() => this.admit(run));
    }
  }

  /** No folder at the root's path: refuse every call until one is back. */
  gone(why: string): void {
    this.stateValue = 'gone';
    this.noteValue = `${why} (since ${new Date().toISOString()}); evidex indexes the folder that comes back at that path`;
    this.settled = null;
  }

  /** Another folder is at the root's path and `done` indexes it: calls wait for it. */
  reindexing(why: string, done: Promise<unknown>): void {
    this.stateValue = 'reindexing';
    this.noteValue = `${why} (since ${new Date().toISOString()}); re-indexing it`;
    const settled: Promise<void> = done.then(() => undefined, () => undefined).then(() => {
      // Only the latest change decides: a newer one has replaced `settled` already.
      if (this.settled !== settled) return;
      this.stateValue = 'present';
      this.noteValue = undefined;
      this.settled = null;
    });
    this.settled = settled;
  }
}
