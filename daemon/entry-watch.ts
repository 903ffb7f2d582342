// Named entries of one folder, watched for the daemon's own footing: its root
// as an entry of the root's parent (root-watch.ts), and daemon.json, the lock
// and the token in its state folder (state-claim.ts). An fs.watch on the
// folder (inotify names every entry created, removed or renamed in it, and
// the folder's own removal or move) calls `check` at once for the names asked
// for; a timer calls it every `everyMs` anyway, as the backstop for what no
// event reports (a folder higher up moved away, a watch that could not be
// made or died with its folder). The timer also re-makes the watch when
// another folder has come to stand at `dir`.
import { watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import { folderIdentityAt } from '../local/folder-identity.js';

/** Why `check` runs: an event that renamed (created, removed, moved) a watched name, another event on one, or the timer. */
export type EntryWatchCause = 'renamed' | 'changed' | 'timer';

export interface EntryWatchOptions {
  dir: string;
  /** Entries of `dir` whose events call `check`; the folder's own name (its removal or move) always does. */
  names: ReadonlySet<string>;
  check(cause: EntryWatchCause): void;
  /** The backstop period. */
  everyMs: number;
  log(line: string): void;
}

export class EntryWatch {
  private fsw: FSWatcher | null = null;
  /** The folder the watch was made on: another one at `dir` needs a new watch. */
  private watched: string | null = null;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private warned = false;

  constructor(private readonly opts: EntryWatchOptions) {
    this.open();
    this.timer = setInterval(() => {
      if (folderIdentityAt(this.opts.dir) !== this.watched) this.open();
      this.opts.check('timer');
    }, opts.everyMs);
    // The daemon's server keeps the process alive; this alone should not.
    this.timer.unref();
  }

  private open(): void {
    this.fsw?.close();
    this.fsw = null;
    this.watched = folderIdentityAt(this.opts.dir);
    if (this.watched === null || this.closed) return;
    const self = basename(this.opts.dir);
    try {
      const fsw = watch(this.opts.dir, { persistent: false }, (event, name) => {
        const n = name === null ? null : String(name);
        if (n === null || n === self || this.opts.names.has(n)) this.opts.check(event === 'rename' ? 'renamed' : 'changed');
      });
      fsw.on('error', () => { if (this.fsw === fsw) { fsw.close(); this.fsw = null; this.watched = null; } });
      this.fsw = fsw;
    } catch (e) {
      // EACCES, out of inotify watches...: the timer alone then, said once.
      if (!this.warned) this.opts.log(`cannot watch ${this.opts.dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); checking it every ${this.opts.everyMs} ms instead`);
      this.warned = true;
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.fsw?.close();
    this.fsw = null;
  }
}
