// Paths as a person types and reads them (docs/cli.md, Paths). The tools
// speak root-relative paths only; a person stands in a folder. Inside the
// root, every path a command prints is relative to the current folder, as rg
// and git grep print them, and every path typed is taken relative to it, so
// whatever a command prints — a result line, a hint to run next — works as
// typed from the same folder. Outside the root (`--repo` naming another
// folder), a path typed that names a path inside the root from the current
// folder is taken so, and paths are printed from the current folder when the
// root lies below it (`--repo packages/client` prints
// `packages/client/src/a.ts`); anything else stays root-relative, as it was.
// `--json` and `evidex call` keep the tools' own paths.
//
// One Place per command: the root and the current folder, by their real
// paths, resolved once where the command starts (local/root.ts).
import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { readBackName } from '../local/human.js';
import type { RealRoot } from '../local/root.js';
import { shownFrom, withPathsShown } from '../local/shown-from.js';

/** What `--path-prefix` takes to mean the whole repository from anywhere (`--path-prefix /`). */
export const WHOLE_REPOSITORY = '/';

export class Place {
  /**
   * The current folder from the root, with a trailing "/" ("src/"), "" at the
   * root itself; null when the current folder is not inside the root.
   */
  readonly here: string | null;
  /**
   * The root from the current folder, with its "/" ("packages/client/"), when
   * the current folder lies outside the root and the root below it; else null.
   */
  readonly below: string | null;

  constructor(readonly root: RealRoot, readonly cwd: string) {
    const rel = relative(root.path, cwd);
    const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    this.here = !inside ? null : rel === '' ? '' : `${rel.split(sep).join('/')}/`;
    const down = relative(cwd, root.path);
    this.below = inside || outside(down) ? null : `${down.split(sep).join('/')}/`;
  }

  /**
   * A path typed on the command line, as the tools take it: relative to the
   * root. Taken relative to the current folder when that lies inside the root
   * (as every shell tool does); outside it, relative to the current folder
   * when from there it names a path inside the root
   * (`packages/client/src/a.ts` with `--repo packages/client`), else relative
   * to the root, as before; an absolute path inside the root is made relative
   * to it. A path outside the root is
   * refused here (OutsideRoot): the tools take root-relative paths only, so
   * their own words ("it is absolute") would not be the reason. A name typed
   * as evidex shows it (its `\xHH` escapes, local/human.ts) is read back when
   * only that form names something on disk.
   * A folder (`.` in src/, or `src/`) comes back with a trailing "/": as a
   * prefix it means what is inside it, not every path starting with "src".
   */
  toRoot(typed: string): string {
    const arg = this.readBack(typed);
    if (!isAbsolute(arg) && this.here === null && !this.typedFromHere(arg)) return arg;
    const abs = resolve(this.cwd, arg);
    const rel = relative(this.root.path, abs);
    if (outside(rel)) throw new OutsideRoot(typed, this.root.path, this.rootRelativeMeant(arg));
    const posixRel = rel.split(sep).join('/');
    return posixRel !== '' && (/[/\\]$/.test(arg) || isFolder(abs)) ? `${posixRel}/` : posixRel;
  }

  /**
   * For an absolute path outside the root that names a path of the repository
   * read from the root (`/src/app.py`, typed as `--path-prefix /` means the
   * whole repository): that path, and how it is typed from here. Undefined
   * when it names nothing there.
   */
  private rootRelativeMeant(arg: string): { rootPath: string; typed: string } | undefined {
    if (!isAbsolute(arg)) return undefined;
    const abs = resolve(this.root.path, arg.replace(/^[/\\]+/, ''));
    const rel = relative(this.root.path, abs);
    if (rel === '' || outside(rel) || !exists(abs)) return undefined;
    const rootPath = rel.split(sep).join('/');
    return { rootPath, typed: this.shown(rootPath) };
  }

  /** toRoot for an argument that must name a file: the root itself (`.` at the root, its absolute path) is refused as the folder it is. */
  fileToRoot(typed: string): string {
    const rel = this.toRoot(typed);
    if (rel === '') throw new RootNotFile(typed, this.root.path);
    return rel;
  }

  /** Whether `arg` is a path that leaves the root (absolute, or climbing out with ".."), so no module name. */
  leavesRoot(arg: string): boolean {
    if (!isAbsolute(arg) && !arg.startsWith('..')) return false;
    try { this.toRoot(arg); return false; } catch (e) { if (e instanceof OutsideRoot) return true; throw e; }
  }

  /** `typed`, or the name it shows (readBackName) when that one is on disk and `typed` is not. */
  private readBack(typed: string): string {
    const name = readBackName(typed);
    if (name === null || exists(this.onDisk(typed)) || !exists(this.onDisk(name))) return typed;
    return name;
  }

  private onDisk(arg: string): string {
    return this.here === null && !isAbsolute(arg) && !this.typedFromHere(arg) ? resolve(this.root.path, arg) : resolve(this.cwd, arg);
  }

  /**
   * Whether `arg`, relative, names from the current folder a path inside the
   * root (the root itself is none): there or not, so a refusal names the path
   * where it was looked for, as typed.
   */
  private typedFromHere(arg: string): boolean {
    const rel = relative(this.root.path, resolve(this.cwd, arg));
    return rel !== '' && !outside(rel);
  }

  /** A `--path-prefix` as the tools take it: `/` is the whole repository (no prefix), else toRoot; undefined for no filter. */
  prefixToRoot(arg: string): string | undefined {
    return arg === WHOLE_REPOSITORY ? undefined : this.toRoot(arg) || undefined;
  }

  /** Whether `arg`, taken as toRoot takes it, names a file on disk inside the root (`importers app.py` is a path, `importers pkg.mod` a name). */
  namesFile(arg: string): boolean {
    const abs = this.onDisk(this.readBack(arg));
    const rel = relative(this.root.path, abs);
    if (rel === '' || outside(rel)) return false;
    try { return statSync(abs).isFile(); } catch { return false; }
  }

  /** Whether `arg`, taken as toRoot takes it, names a folder on disk inside the root (the root itself too). */
  namesFolder(arg: string): boolean {
    const abs = this.onDisk(this.readBack(arg));
    if (outside(relative(this.root.path, abs))) return false;
    try { return statSync(abs).isDirectory(); } catch { return false; }
  }

  /**
   * A root-relative path as a person reads it here: relative to the current
   * folder inside the root ("../docs/a.md") or above it ("packages/client/src/a.ts"), else as is;
   * "./-dash.ts" for one that would read as an option.
   */
  shown(rootPath: string): string {
    if (this.here !== null) return typable(shownFrom(this.here, rootPath));
    return this.below === null ? rootPath : rootPath === '' ? this.below.slice(0, -1) : typable(`${this.below}${rootPath}`);
  }
}

/**
 * A refusal's message as a person reads it here: each root-relative path the
 * command sent (`paths`) shown from the current folder, where the message
 * names it whole ("src/nope.py" typed as nope.py in src/). Only those exact
 * paths, bounded as a message quotes them, are touched: the rest of the text
 * is the daemon's.
 */
export function messageHere(place: Place, message: string, paths: readonly string[]): string {
  return withPathsShown(message, paths, (p) => place.shown(p));
}

/** Where a command runs: its root (--repo, else the work tree of the current folder, else the folder) and the current folder, each resolved once. */
export async function placeOf(p: { flags: { repo?: string } }): Promise<Place> {
  const { whereabouts } = await import('../local/root.js');
  const w = await whereabouts(p.flags.repo);
  return new Place(w.root, w.cwd);
}

/** A path typed on the command line that lies outside the repository: refused before anything is sent (errors.ts: path_denied). */
export class OutsideRoot extends Error {
  constructor(readonly typed: string, readonly root: string, meant?: { rootPath: string; typed: string }) {
    super(`path ${JSON.stringify(typed)} refused: it is outside the repository (${root}); evidex reads only the repository's files`
      + (meant ? `; paths are taken from the current folder: for the repository's ${meant.rootPath}, type ${meant.typed}` : ''));
    this.name = 'OutsideRoot';
  }
}

/** The repository's root typed where a file's path goes (`evidex read .`): the tools would take it as "", an empty name. */
export class RootNotFile extends Error {
  constructor(readonly typed: string, readonly root: string) {
    super(`${JSON.stringify(typed)} is the repository's root folder (${root}), not a file`);
    this.name = 'RootNotFile';
  }
}

/** A path as typed back to a command: one starting with "-" would be read as an option, so it is written "./-dash.ts". */
function typable(shown: string): string {
  return shown.startsWith('-') ? `./${shown}` : shown;
}

/** Whether `rel` (a path relative to the root, as path.relative gives it) lies outside the root. */
function outside(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

function isFolder(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}
