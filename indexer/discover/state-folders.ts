// evidex's own state below the root (docs/tools.md, What is indexed): an EVIDEX_HOME, or a
// state folder, inside the tree a daemon indexes. Indexed, it is a loop: the daemon writes its
// log and its index there, the watcher reports that as a change, the update logs a line, and so
// on for ever (a new generation every few milliseconds at a quarter of a core). So such a
// folder is left out as a whole — never walked, watched or reported — whatever the ignore files
// say, as `.git/` is.
//
// Which folders: those holding evidex's tag (local/home.ts, STATE_TAG: the Cache Directory
// Tagging Specification's CACHEDIR.TAG with a line naming evidex), which evidex writes in its
// home and in every state folder when it makes or uses one (local/state.ts, ensureStateDir).
// Why a tag rather than the other rules at hand:
// - the daemon's own home by path would miss every other home: a second daemon for the same
//   root under another EVIDEX_HOME, a home left by an earlier run, a teammate's home checked in;
// - file names evidex writes (`daemon.log`, `data.mdb`, `root.json`) are names a project may
//   use for its own files, and leaving those out would hide them silently;
// - a layout guessed from several files (a lock beside daemon.json) is written in steps, and a
//   folder judged half-made would be indexed for good.
// The tag is one file with a fixed first line that nothing writes by accident, it marks the
// whole folder (a home's state folders and compile cache included), and it is read only in
// folders that hold a file of that name. A CACHEDIR.TAG without evidex's line (a Rust `target/`,
// a `.pytest_cache/`) is another tool's, and the ignore files decide about it as before.
import { join } from 'node:path';
import { STATE_TAG } from '../../local/home.js';
import { FolderVerdicts } from './folder-verdicts.js';
import { readSmallFile } from './small-file.js';

/** evidex's tag is three short lines; a longer file is not evidex's. */
const MAX_TAG_BYTES = 1024;

/** True when `text` is evidex's tag: the spec's signature first, and evidex's own line. */
export function isStateTag(text: string | null): boolean {
  return text !== null && text.startsWith(`${STATE_TAG.signature}\n`) && text.split('\n').includes(STATE_TAG.owner);
}

/** Which folders below one root hold evidex's state; each folder read once until forgotten. */
export class StateFolders extends FolderVerdicts {
  /** `changed`: a verdict that was known flipped (the rules forget the decisions made with it). */
  constructor(private readonly realRoot: string, private readonly changed: () => void) {
    super();
  }

  /** True when folder `rel` (POSIX, relative to the root; never the root itself) holds evidex's tag. */
  isStateFolder(rel: string): boolean {
    return this.verdict(rel);
  }

  protected judge(rel: string): boolean {
    return isStateTag(readSmallFile(join(this.realRoot, rel, STATE_TAG.name), MAX_TAG_BYTES));
  }

  /** Reads folder `rel`'s tag again at once (it was written, changed or removed); true when the verdict changed. */
  recheck(rel: string): boolean {
    const before = this.verdicts.get(rel) ?? false;
    this.verdicts.delete(rel);
    const changed = this.isStateFolder(rel) !== before;
    if (changed) this.changed();
    return changed;
  }

  /** The walk listed folder `rel`: whether it holds evidex's tag (read afresh when a file of that name is there, none when not). */
  asListed(rel: string, holdsTagFile: boolean): boolean {
    if (!holdsTagFile) {
      if (this.verdicts.get(rel) === true) { this.verdicts.set(rel, false); this.changed(); }
      else this.verdicts.set(rel, false);
      return false;
    }
    this.recheck(rel);
    return this.isStateFolder(rel);
  }

  /** The tag's file name, for the walk's listing and the watcher's events. */
  static readonly tagName = STATE_TAG.name;
}
