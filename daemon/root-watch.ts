// The root is an identity, not a path (docs/architecture.md, "The root"). The
// daemon holds the folder it was started for: its real path, resolved once
// (daemon/main.ts) and never again per call, and which folder stood there
// (device, inode, birth time: local/folder-identity.ts). RootWatch notices
// when that changes — the folder deleted, moved away, or another one put at
// its path (`rm -rf repo && git clone … repo`) — from the root's parent
// folder's events (its entries by name), the root's own watch (the repository
// watcher reports the root deleted or moved: `touched`), and a check every
// second as the backstop for what neither reports (a folder higher up moved
// away or replaced by a link). Noticing is all it does: the daemon decides
// what follows (server.ts).
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { folderIdentityAt } from '../local/folder-identity.js';
import { EntryWatch, type EntryWatchCause } from './entry-watch.js';

/** What happened to the root: no folder at its path any more, or a folder other than the indexed one (or one back after none). */
export type RootChange = 'gone' | 'replaced';

/** The backstop check's period. */
export const ROOT_CHECK_MS = 1000;

export interface RootWatchOptions {
  /** The root's real path. */
  root: string;
  onChange(change: RootChange, why: string): void;
  log(line: string): void;
  everyMs?: number;
}

export class RootWatch {
  /** The folder standing at the root's path as last seen; null while none is. */
  private current: string | null;
  private watch: EntryWatch | null = null;

  constructor(private readonly opts: RootWatchOptions) {
    this.current = this.folderNow();
  }

  /** True while the folder the daemon started with (or the last one it re-indexed) is at the path. */
  get present(): boolean { return this.current !== null; }

  start(): void {
    if (this.watch || dirname(this.opts.root) === this.opts.root) return; // `/` has no parent to watch; the timer alone
    this.watch = new EntryWatch({
      dir: dirname(this.opts.root),
      names: new Set([basename(this.opts.root)]),
      check: (cause) => this.check(cause),
      everyMs: this.opts.everyMs ?? ROOT_CHECK_MS,
      log: this.opts.log,
    });
  }

  /** The repository watcher's own watch on the root reported it deleted or moved. */
  touched(): void {
    this.check('renamed');
  }

  close(): void {
    this.watch?.close();
    this.watch = null;
  }

  /**
   * The folder at the root's path, or null: none there, or the path no longer
   * its own real path (a folder above it replaced by a link: the path now
   * names a folder elsewhere, which another root's daemon would serve).
   */
  private folderNow(): string | null {
    try {
      if (realpathSync(this.opts.root) !== this.opts.root) return null;
    } catch {
      return null;
    }
    return folderIdentityAt(this.opts.root);
  }

  /** Compares what stands at the path now with what stood there. */
  check(cause: EntryWatchCause): void {
    const now = this.folderNow();
    const was = this.current;
    if (now === was) {
      // Without a birth time (it reads 0) a folder made again on the freed inode looks the same:
      // an event that renamed the root's own name is then taken at its word.
      if (now === null || cause !== 'renamed' || !now.endsWith(':0')) return;
    }
    this.current = now;
    if (now === null) this.opts.onChange('gone', `${this.opts.root} is gone (deleted, or moved away)`);
    else if (was === null) this.opts.onChange('replaced', `a folder is at ${this.opts.root} again`);
    else this.opts.onChange('replaced', `${this.opts.root} was replaced: another folder stands at that path`);
  }
}
