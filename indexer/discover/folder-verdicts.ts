// A yes/no verdict per folder below a root, read from the disk once and kept
// until forgotten: what OwnWorktrees (a folder is a work tree of this
// repository) and StateFolders (a folder holds evidex's state) both keep, so
// the walk, the rules and the watcher ask the disk once per folder, and a
// change to the marker file (a `.git` file, evidex's tag) makes the watcher
// forget that folder's verdict alone.

/** Verdicts on folders (POSIX paths relative to the root); the root itself is never one. */
export abstract class FolderVerdicts {
  protected readonly verdicts = new Map<string, boolean>();

  /** Reads folder `rel`'s verdict from the disk. */
  protected abstract judge(rel: string): boolean;

  /** The verdict on `rel`, read once until forgotten; false for the root. */
  protected verdict(rel: string): boolean {
    if (rel === '') return false;
    let known = this.verdicts.get(rel);
    if (known === undefined) {
      known = this.judge(rel);
      this.verdicts.set(rel, known);
    }
    return known;
  }

  /** The verdict on `rel` as last read, undefined when not read since last forgotten. */
  known(rel: string): boolean | undefined {
    return this.verdicts.get(rel);
  }

  /** Forgets the verdict on `rel` (its marker, or the folder itself, came, changed or went); true when one was known. */
  forget(rel: string): boolean {
    return this.verdicts.delete(rel);
  }
}
