// One daemon per root, always findable (docs/architecture.md, "The state
// folder under a running daemon"). A running daemon holds its claim on the
// root through its state folder: the folder it started in, the lock naming
// it, and daemon.json, by which clients find and reach it. Events on those
// names (entry-watch.ts) and a check every second watch them; once any is
// gone or no longer this daemon's — the folder deleted or replaced, the lock
// or daemon.json removed or rewritten by another — the claim is lost and the
// daemon exits (onLost).
//
// Why exit rather than write them again: a daemon nobody can find still
// holds the lock, so the next command's start would fail; one that wrote
// its files back would fight a `rm -rf` of the state folder (writing into it
// as it is emptied, so the removal fails); and with the folder gone, its index
// is deleted files that no other daemon or command can see. Exiting ends all
// three at once: the next command starts a daemon where clients look, which
// catches up from the index if it is still there or builds a new one.
import { basename } from 'node:path';
import { folderIdentityAt } from '../local/folder-identity.js';
import { files, readDaemonInfo, readLockHolder, type DaemonInfo } from '../local/state.js';
import { EntryWatch } from './entry-watch.js';

/** The backstop check's period. */
export const CLAIM_CHECK_MS = 1000;

export interface StateClaimOptions {
  stateDir: string;
  /** What daemon.json says while this daemon runs. */
  info: DaemonInfo;
  /** The claim is lost: the daemon exits. */
  onLost(why: string): void;
  log(line: string): void;
  everyMs?: number;
}

export class StateClaim {
  private readonly folder: string | null;
  private watch: EntryWatch | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private done = false;

  constructor(private readonly opts: StateClaimOptions) {
    this.folder = folderIdentityAt(opts.stateDir);
  }

  start(): void {
    const f = files(this.opts.stateDir);
    this.watch = new EntryWatch({
      dir: this.opts.stateDir,
      names: new Set([f.daemonJson, f.lock].map((p) => basename(p))),
      check: () => { void this.check(); },
      everyMs: this.opts.everyMs ?? CLAIM_CHECK_MS,
      log: this.opts.log,
    });
  }

  /** Stops watching (a shutdown's first step, before it removes daemon.json and the lock itself). */
  close(): void {
    this.done = true;
    this.watch?.close();
    this.watch = null;
  }

  /** Runs a check, or one more after the running one (events come in bursts). */
  check(): Promise<void> {
    if (this.running) { this.again = true; return this.running; }
    this.running = (async () => {
      do {
        this.again = false;
        const why = await this.lostBecause().catch((e: Error) => `its state could not be read: ${e.message}`);
        if (why !== null && !this.done) {
          this.close();
          this.opts.onLost(why);
        }
      } while (this.again && !this.done);
    })().finally(() => { this.running = null; });
    return this.running;
  }

  /** Why the claim is lost, or null while it holds. */
  private async lostBecause(): Promise<string | null> {
    const { stateDir, info } = this.opts;
    if (folderIdentityAt(stateDir) !== this.folder) return `its state folder ${stateDir} was deleted or replaced`;
    const f = files(stateDir);
    const holder = await readLockHolder(f.lock);
    if (holder === 'missing') return `its lock ${f.lock} was removed`;
    if (holder?.pid !== process.pid) return `its lock ${f.lock} no longer names it`;
    const now = await readDaemonInfo(stateDir);
    if (now === null) return `its ${f.daemonJson} was removed`;
    if (now.pid !== info.pid || now.url !== info.url || now.token !== info.token) return `its ${f.daemonJson} no longer names it`;
    return null;
  }
}
