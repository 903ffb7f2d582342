// What the watcher has seen and no batch has taken yet, and the batch a flush
// takes of it (watch.ts). A batch waits before it reads anything: for a
// deletion to settle (watch/deletions.ts), then for its turn in the write
// queue, seconds behind a checkout's other writes. A re-walk queued meanwhile
// (an ignore file changed, a folder replaced) is folded into it at its turn
// (foldInto): it reads every ignore source as it is then, so the rules it
// walks with are the new ones, and one checkout costs one re-walk, not a batch
// of its paths read with the old rules and a re-walk after it. What comes
// after the batch began reading waits for the next one, as before: a re-walk
// that read the old rules is followed by one with the new.
import { parentOf } from '../discover/rules.js';

export interface Batch {
  /** The paths to look at again (a full re-walk reads them anyway). */
  paths: string[];
  /** It re-walks: the folders of `scoped`, else the tree. */
  refresh: boolean;
  /** The ignore files that changed, read again first. */
  ignoreFiles: string[];
  /** git's own sources are to be read again (watch/git-change.ts). */
  gitSources: boolean;
  /** The re-walk's reasons, as one line. */
  why: string;
  /** Ignore files below the root alone changed: their folders are walked again, not the tree (null otherwise). */
  scoped: string[] | null;
}

/** A re-walk of the whole tree. */
const isFull = (b: Batch): boolean => b.refresh && b.scoped === null;

export class QueuedChanges {
  readonly paths = new Set<string>();
  private readonly ignoreFiles = new Set<string>();
  /** One of git's own ignore sources changed (watch/git-sources.ts). */
  gitSources = false;
  /** A re-walk is asked for (an ignore file changed, or `why` says who asked). */
  rewalk = false;
  private reasons: string[] = [];

  ignoreFileChanged(rel: string): void {
    this.ignoreFiles.add(rel);
    this.rewalk = true;
  }

  requestRewalk(...why: string[]): void {
    this.rewalk = true;
    this.reasons.push(...why);
  }

  /** Paths and refreshes the next batch takes (reading git's sources counts as one). */
  get size(): number { return this.paths.size + (this.rewalk || this.gitSources ? 1 : 0); }

  /** The queued re-walk's reasons. */
  get why(): string {
    return [...[...this.ignoreFiles].map((f) => `${f} changed`), ...this.reasons].join(', ');
  }

  /** Takes everything queued as one batch. `replaced`: a folder was replaced (any ignore file in it changed unseen: the tree is re-walked). */
  take(replaced: boolean): Batch {
    const batch: Batch = {
      paths: [...this.paths].sort(), refresh: this.rewalk, ignoreFiles: [...this.ignoreFiles], gitSources: this.gitSources, why: this.why, scoped: this.scope(replaced),
    };
    this.paths.clear();
    this.ignoreFiles.clear();
    this.reasons = [];
    this.rewalk = this.gitSources = false;
    return batch;
  }

  /** The folders the queued re-walk walks: ignore files below the root alone changed, and nothing else asks for the tree (null otherwise). */
  private scope(replaced: boolean): string[] | null {
    const files = [...this.ignoreFiles];
    // git's sources read again beside it: any path may be judged otherwise.
    if (!this.rewalk || replaced || this.gitSources || this.reasons.length > 0 || files.length === 0 || files.some((f) => parentOf(f) === '')) return null;
    return [...new Set(files.map(parentOf))];
  }

  /**
   * At `batch`'s turn, before it reads anything: a re-walk queued meanwhile joins it, and so does everything else
   * queued (the re-walk reads it too); a re-walk of the tree takes whatever is queued. Whether anything was folded.
   * A queued re-walk of folders is not joined to a batch that reads git's sources alone: together they would re-walk the tree.
   */
  foldInto(batch: Batch, replaced: boolean): boolean {
    if (this.size === 0) return false;
    if (!isFull(batch) && (!this.rewalk || (this.scope(replaced) !== null && batch.gitSources))) return false;
    const more = this.take(replaced);
    // Folders joined to folders, or to a batch of paths alone: still a re-walk of folders.
    batch.scoped = isFull(batch) || isFull(more) ? null : [...new Set([...batch.scoped ?? [], ...more.scoped!])];
    batch.paths = [...new Set([...batch.paths, ...more.paths])].sort();
    batch.ignoreFiles = [...new Set([...batch.ignoreFiles, ...more.ignoreFiles])];
    batch.gitSources ||= more.gitSources;
    batch.why = [batch.why, more.why].filter((w) => w !== '').join(', ');
    batch.refresh ||= more.refresh;
    return true;
  }
}
