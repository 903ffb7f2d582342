// What the index leaves out, by path and reason (docs/tools.md, What is
// indexed; issue "exclusions said"): index/status and `evidex daemon status`
// count it by reason, and a search from the CLI whose query appears in a
// left-out file's NAME says so in one line. Names only: nothing here reads,
// holds or shows a file's content.
//
// A full walk replaces the set; the watcher's updates change the paths they
// name (a folder's walk, the folder's part). An ignored folder counts once
// (it is not entered); a file that becomes ignored while the daemon runs
// (renamed into an ignored name, made beside indexed files, a new pattern)
// counts as soon as the watcher's update looks at it, and stops counting
// when it goes or comes into view. Binary files are not here: the store keeps
// them (it must, to skip them unread), and the index adds them when it counts.

export const LEFT_OUT_REASONS = ['secret', 'tooLarge', 'binary', 'ignored', 'pathTooLong', 'nameNotUtf8', 'worktree'] as const;
export type LeftOutReason = (typeof LEFT_OUT_REASONS)[number];
/** Why a folder is left out as a whole (why-left-out.ts): an ignore rule, a work tree of the repository, git's own folder, a path too long. */
export const FOLDER_LEFT_OUT_REASONS = ['ignored', 'worktree', 'gitDir', 'state', 'pathTooLong'] as const;
export type FolderLeftOutReason = (typeof FOLDER_LEFT_OUT_REASONS)[number];
/** The reasons the walk decides (binary needs the content: the builder decides it). */
export type WalkLeftOutReason = Exclude<LeftOutReason, 'binary'>;
export interface LeftOut { path: string; reason: LeftOutReason }
export type LeftOutCounts = Record<LeftOutReason, number>;

export interface LeftOutQuery {
  caseSensitive?: boolean;
  /** Only paths starting with this (root-relative). */
  pathPrefix?: string;
  limit: number;
}

export function noLeftOut(): LeftOutCounts {
  return { secret: 0, tooLarge: 0, binary: 0, ignored: 0, pathTooLong: 0, nameNotUtf8: 0, worktree: 0 };
}

function under(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

export class LeftOutSet {
  private readonly byPath = new Map<string, WalkLeftOutReason>();

  /** Replaces what is known at and below `folder` ('' = everything) with what a walk of it met. */
  replace(entries: Iterable<{ path: string; reason: WalkLeftOutReason }>, folder = ''): void {
    if (folder === '') this.byPath.clear();
    else this.dropUnder(folder);
    for (const e of entries) this.byPath.set(e.path, e.reason);
  }

  /** One path's verdict: left out for `reason`, or (null) indexed or gone. */
  set(path: string, reason: WalkLeftOutReason | null): void {
    if (reason === null) this.byPath.delete(path);
    else this.byPath.set(path, reason);
  }

  /** Forgets a path and everything below it (deleted, or about to be walked again). */
  dropUnder(path: string): void {
    this.byPath.delete(path);
    const prefix = `${path}/`;
    for (const p of this.byPath.keys()) if (p.startsWith(prefix)) this.byPath.delete(p);
  }

  /** Forgets the entries of `folder` itself (not deeper) that have this reason. */
  dropInFolder(folder: string, reason: WalkLeftOutReason): void {
    for (const [p, r] of this.byPath) {
      if (r !== reason || !under(p, folder)) continue;
      const rest = folder === '' ? p : p.slice(folder.length + 1);
      if (!rest.includes('/')) this.byPath.delete(p);
    }
  }

  /** Why `path` itself is left out, as last recorded; undefined when it is not (indexed, gone, or below a folder left out as a whole). */
  get(path: string): WalkLeftOutReason | undefined { return this.byPath.get(path); }

  get size(): number { return this.byPath.size; }

  entries(): IterableIterator<[string, WalkLeftOutReason]> { return this.byPath.entries(); }
}

/**
 * The left-out files whose path holds `query` (as search_code matches paths) (ASCII case
 * folded unless `caseSensitive`), in path order, at most `limit`; `total`
 * counts them all.
 */
export function leftOutByName(all: Iterable<LeftOut>, query: string, opts: LeftOutQuery): { items: LeftOut[]; total: number } {
  const fold = (s: string): string => (opts.caseSensitive ? s : s.toLowerCase());
  const q = fold(query);
  if (q === '') return { items: [], total: 0 };
  const prefix = opts.pathPrefix ?? '';
  return firstInPathOrder(all, (e) => e.path.startsWith(prefix) && fold(e.path).includes(q), opts.limit);
}

/** Entries named in index/status beside their count (`secretPaths`, `worktreePaths`): enough to find the one or two a repository has, little enough for one line. */
export const NAMED_LEFT_OUT = 3;

/**
 * The first NAMED_LEFT_OUT paths left out for `reason`, in path order:
 * `evidex index` and `evidex daemon status` name the secrets and the work
 * trees of the repository beside their count, as read_evidence's refusal
 * names one (a count alone leaves a person to hunt for the file). Paths only,
 * never content.
 */
export function pathsLeftOut(all: Iterable<LeftOut>, reason: 'secret' | 'worktree'): string[] {
  return firstInPathOrder(all, (e) => e.reason === reason, NAMED_LEFT_OUT).items.map((e) => e.path);
}

/** The entries `keep` takes, in path order, at most `limit`; `total` counts them all. */
function firstInPathOrder(all: Iterable<LeftOut>, keep: (e: LeftOut) => boolean, limit: number): { items: LeftOut[]; total: number } {
  const hits: LeftOut[] = [];
  for (const e of all) if (keep(e)) hits.push(e);
  hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { items: hits.slice(0, limit), total: hits.length };
}
