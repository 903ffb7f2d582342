// The other names a symlink gives a file. The walk indexes a followed symlink
// under its own name (`alias.py -> real.py`, and `dl/v.py` through `dl -> d`),
// but chokidar (followSymlinks: false, so each file is watched once) names only
// the real path when content changes. So the watcher keeps an AliasMap built
// from a links-only walk, and adds every alias name of each changed path to
// the batch. The map is rebuilt at start, after each refresh, and before a
// batch that touches a symlink (created, deleted, retargeted, or a dangling
// link's target appearing); the links that changed are re-checked too.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoRules } from '../discover/rules.js';
import { walkRepo, type WalkLink } from '../discover/walk.js';

/**
 * The other names under which the walk indexes a real path, from the symlinks a
 * links-only walk met. The walk already enumerates every name a link has
 * (`d/a.py -> ../x.py` is also met as `dl/a.py` through `dl -> d`) and stops at
 * loops, so one lookup per folder level of a real path finds all its names:
 * no recursion here, hence nothing to loop on.
 */
export class AliasMap {
  /** Real file → link names that are that file. */
  private readonly fileAliases = new Map<string, string[]>();
  /** Real folder → link names that are that folder. */
  private readonly dirAliases = new Map<string, string[]>();
  /** Every link met → what it is now (compared after a rescan to find the links that changed). */
  readonly links = new Map<string, string>();
  /** Folders holding a link (a folder's removal or rename takes its links along). */
  private readonly linkDirs = new Set<string>();
  /** What dangling links name, and the folders above those: the link comes alive when they appear. */
  private readonly wakeAt = new Set<string>();
  private readonly wakeDirs = new Set<string>();

  constructor(found: readonly WalkLink[]) {
    for (const l of found) {
      this.links.set(l.path, `${l.followed ?? (l.dangling ? 'dangling' : 'unfollowed')}:${l.target ?? ''}`);
      for (const dir of ancestors(l.path)) this.linkDirs.add(dir);
      if (l.target === null) continue;
      if (l.followed) push(l.followed === 'file' ? this.fileAliases : this.dirAliases, l.target, l.path);
      else if (l.dangling) {
        this.wakeAt.add(l.target);
        for (const dir of ancestors(l.target)) this.wakeDirs.add(dir);
      }
    }
  }

  get size(): number { return this.links.size; }

  /** The other names `rel` (a real path: no symlinked folder in it) is indexed under. */
  aliasesOf(rel: string): string[] {
    const out: string[] = [];
    for (const a of this.fileAliases.get(rel) ?? []) out.push(a);
    if (this.dirAliases.size === 0) return out;
    // `rel` under (or being) a linked folder F: each name A of F gives A + the rest.
    const viaDir = (folder: string, rest: string): void => {
      for (const a of this.dirAliases.get(folder) ?? []) out.push(rest === '' ? a : `${a}/${rest}`);
    };
    viaDir('', rel);
    for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) viaDir(rel.slice(0, i), rel.slice(i + 1));
    viaDir(rel, '');
    return out;
  }

  /** True when a change at `rel` may add, remove or retarget a link (so the map must be rebuilt). */
  touches(rel: string): boolean {
    if (this.links.has(rel) || this.linkDirs.has(rel)) return true;
    if (this.wakeAt.size === 0) return false;
    if (this.wakeAt.has(rel) || this.wakeDirs.has(rel)) return true;
    for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) if (this.wakeAt.has(rel.slice(0, i))) return true;
    return false;
  }

  /** Link names whose state differs between two maps (added, removed, retargeted, followed or not). */
  static changed(before: AliasMap, after: AliasMap): string[] {
    const out: string[] = [];
    for (const [p, what] of after.links) if (before.links.get(p) !== what) out.push(p);
    for (const p of before.links.keys()) if (!after.links.has(p)) out.push(p);
    return out;
  }
}

function push(m: Map<string, string[]>, k: string, v: string): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The folders above a POSIX relative path ('' for the root included). */
function ancestors(rel: string): string[] {
  const out = [''];
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) out.push(rel.slice(0, i));
  return out;
}

/**
 * The watcher's current AliasMap and how it is kept: rebuilt by a links-only
 * walk that decides exactly as the index's walk does (same root, same rules).
 * Empty until the first scan ends; `expand` waits for that scan, so no batch
 * is applied without its aliases.
 */
export class LinkAliases {
  private map = new AliasMap([]);
  private ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly root: string,
    private readonly rules: RepoRules,
    private readonly log?: (line: string) => void,
  ) {}

  /** Runs the first scan (beside chokidar's own); resolves when it ends. */
  start(): Promise<void> {
    this.ready = this.rescan().then(() => undefined);
    return this.ready;
  }

  /** The symlinks currently known (link name → what it is). */
  get links(): ReadonlyMap<string, string> { return this.map.links; }

  /**
   * The batch plus every alias name of its paths. When a path may have added,
   * removed or retargeted a symlink, the map is rebuilt first (the new link's
   * names need the new map) and the links that changed are re-checked as well:
   * for a folder link the builder then walks (or drops) everything under it.
   */
  async expand(paths: string[]): Promise<string[]> {
    await this.ready;
    const out = new Set(paths);
    if (paths.some((p) => this.map.touches(p) || this.isLink(p))) {
      for (const p of await this.rescan()) out.add(p);
    }
    if (this.map.size > 0) for (const p of paths) for (const a of this.map.aliasesOf(p)) out.add(a);
    return [...out].sort();
  }

  /** Rebuilds the map from a links-only walk; answers the link names that changed. */
  async rescan(): Promise<string[]> {
    try {
      const { links = [] } = await walkRepo(this.root, this.rules, { links: 'only' });
      const next = new AliasMap(links);
      const changed = AliasMap.changed(this.map, next);
      this.map = next;
      return changed;
    } catch (e) {
      // Keep the old map: aliases may go stale until the next refresh, but real paths still update.
      this.log?.(`watcher: scanning for symlinks failed: ${(e as Error).message}`);
      return [];
    }
  }

  private isLink(rel: string): boolean {
    try { return lstatSync(join(this.root, rel)).isSymbolicLink(); } catch { return false; }
  }
}
