// Keeps an index in step with the working tree: chokidar events are batched
// over a few milliseconds and applied as one `update(paths)`; a changed
// .gitignore/.evidexignore reloads the rules and re-walks. Every write goes
// through the caller's `exclusive` queue, so updates never run concurrently
// with each other or with a refresh, and events that arrive meanwhile wait for
// the next round (never lost).
//
// Why re-check paths instead of trusting event types: editors save by writing a
// temp file and renaming it over the original, git checkouts delete and create,
// and events can arrive out of order. update() looks at each path on disk as it
// is now, so any interleaving of add/change/unlink ends in the right state.
//
// Why folders only: an inotify watch on a folder already reports every entry in
// it by name (created, modified, deleted, renamed), so with fs.watch the
// watcher holds one watch per folder and none per file (chokidar would add one
// per file: a tree of 200k files would run out of the per-user watches, 8,192
// by default on older kernels, and fall back to polling). Files are therefore
// hidden from chokidar (`ignored`), which still watches and re-reads every
// folder; the folder watches' raw events name the files, and update() looks at
// each named path on disk. Three things follow:
// - A folder that appears is queued whole (its files come with no event of
//   their own), and walked again twice later on, as chokidar reads a new folder
//   before it watches it and a file written in between is named by no event.
// - A folder deleted or moved away and made again under the same name before
//   chokidar re-reads its parent (`rm -rf d && mkdir d`, checkouts that turn a
//   folder into a file and back) keeps chokidar's dead watch, as chokidar sees
//   no new name. The folder's own watch reports the folder itself gone; the
//   watcher then compares what stands at that name with the folder as it was
//   watched (inode and birth time: a new folder often gets the inode number
//   just freed), and restarts chokidar (and re-walks) when it is another folder,
//   now or whenever one comes back while chokidar still holds the name. This
//   also tells a child named like its folder (`foo/foo`) from the folder itself,
//   which would otherwise restart the watcher on every write (it still does on
//   a file system that keeps no birth time).
// - An edit made through a hard link in a folder that is not watched (outside
//   the root, or ignored) is not seen until the next catch-up.
// Polling cannot work that way (a folder's stat does not change when a file in
// it is edited), so in polling mode chokidar polls files.
//
// Why symlinks need extra care: the walk indexes a followed symlink under its
// own name (`alias.py -> real.py`, and `dl/v.py` through `dl -> d`), but
// chokidar (followSymlinks: false, so each file is watched once) only names the
// real path when content changes. The watcher therefore keeps an AliasMap built
// from a links-only walk, and adds every alias name of each changed path to the
// batch. The map is rebuilt at start, after each refresh, and before a batch
// that touches a symlink (created, deleted, retargeted, or a dangling link's
// target appearing); the links that changed are re-checked too.
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { lstatSync, type Stats } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { BuildSummary, UpdateSummary } from './api.js';
import { inGitDir, type RepoRules } from './discover/rules.js';
import { walkRepo, type WalkLink } from './discover/walk.js';

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

export type WatchMode = 'auto' | 'poll' | 'off';
export type WatchState = 'starting' | 'watching' | 'polling' | 'polling (inotify limit reached)' | 'off';

export interface WatchApplied {
  paths: string[];            // what the batch re-checked (empty for a refresh)
  refreshed: boolean;         // the whole tree was re-walked (see `why`)
  why?: string;               // for a re-walk: which ignore files changed, or who asked
  summary?: UpdateSummary;
  ms: number;
}

export interface WatchOptions {
  /** Real path of the repository root. */
  root: string;
  /** The rules the index walks with (the links scan must decide exactly as the walk does). */
  rules: RepoRules;
  index: { update(paths: string[]): Promise<UpdateSummary>; refresh(): Promise<BuildSummary> };
  /** Runs `fn` alone among all index writers (the daemon's write queue). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** How long to gather events before applying them (default 4 ms: a temp-write + rename lands in one batch). */
  batchMs?: number;
  mode?: WatchMode;
  /** Poll interval when polling (default 500 ms). */
  pollMs?: number;
  log?(line: string): void;
  onApplied?(info: WatchApplied): void;
}

/**
 * When, after chokidar reports a new folder, it is walked again. chokidar reads
 * a folder and watches it a few milliseconds after reporting it, later when a
 * checkout creates thousands at once (the reads share libuv's thread pool).
 * Each walk of an unchanged folder costs a stat per file, off the save path.
 */
const NEW_FOLDER_RECHECKS_MS = [250, 2000];
/** How long after a folder's own watch reports it gone to look whether it is back (chokidar's re-read of the parent settles first). */
const REPLACED_FOLDER_CHECK_MS = 100;

/** How early a re-walk of a new folder may come, so that folders reported together (a tree made at once) are walked in one batch. */
const RECHECK_SLACK_MS = 100;

/** Which folder this is: its inode and birth time, or null where the file system keeps no birth time (the inode alone is reused at once). */
function folderId(st: Stats): string | null {
  return st.birthtimeMs > 0 ? `${st.ino}:${st.birthtimeMs}` : null;
}

type OpenTarget = 'watching' | 'polling' | 'polling (inotify limit reached)';

/**
 * The re-walks of new folders (NEW_FOLDER_RECHECKS_MS), each due a fixed time
 * after its folder was reported; all that are due within RECHECK_SLACK_MS are
 * handed over together, so a checkout's nested folders share batches, in which
 * update() walks a folder once however many of its ancestors are queued.
 */
export class Rechecks {
  /** One queue per delay, each in the order its folders were reported, so each is already in due order. */
  private readonly queues: Array<Array<[number, string]>>;
  private timer: NodeJS.Timeout | null = null;
  /** When the armed timer fires: a folder due earlier (a short delay after a long one) re-arms it. */
  private armedFor = Infinity;
  constructor(
    private readonly hand: (paths: string[]) => void,
    private readonly delays: readonly number[] = NEW_FOLDER_RECHECKS_MS,
    private readonly slack = RECHECK_SLACK_MS,
  ) {
    this.queues = delays.map(() => []);
  }

  add(rel: string): void {
    const now = performance.now();
    this.delays.forEach((ms, i) => this.queues[i].push([now + ms, rel]));
    this.arm();
  }

  clear(): void {
    for (const q of this.queues) q.length = 0;
    this.disarm();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
  }

  private arm(): void {
    const heads = this.queues.filter((q) => q.length > 0).map((q) => q[0][0]);
    if (heads.length === 0) return;
    const next = Math.min(...heads);
    if (this.timer && this.armedFor <= next) return;
    this.disarm();
    this.armedFor = next;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedFor = Infinity;
      const until = performance.now() + this.slack;
      const paths: string[] = [];
      for (const q of this.queues) {
        let n = 0;
        while (n < q.length && q[n][0] <= until) n++;
        for (const [, rel] of q.splice(0, n)) paths.push(rel);
      }
      this.hand(paths);
      this.arm();
    }, Math.max(0, next - performance.now()));
    this.timer.unref();
  }
}

const isWatchLimitError = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
};

export class RepoWatcher {
  private fsw: FSWatcher | null = null;
  private stateValue: WatchState = 'starting';
  private noteValue: string | undefined;
  private readonly pending = new Set<string>();
  private readonly pendingIgnoreFiles = new Set<string>();
  private needRefresh = false;
  private refreshWhy: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private switching = false;
  /** The next flush restarts chokidar before its re-walk (a folder's watch died with the folder). */
  private restartWanted = false;
  /** start() has returned: restarts wait until then (a restart would close the watcher start() waits on). */
  private started = false;
  /** What open() was last asked for: a restart opens the same. */
  private target: OpenTarget = 'watching';
  /** Whether chokidar watches files too (polling) or folders only (fs.watch): read by `ignored`. */
  private get watchFiles(): boolean { return this.target !== 'watching'; }
  /** Ends the wait of an open() whose watcher is closed before its scan ends (chokidar never says 'ready' then). */
  private abortOpen: (() => void) | null = null;
  /** Each watched folder's identity when chokidar watched it (at ready, and as chokidar reports new folders). */
  private readonly folderIds = new Map<string, string | null>();
  /** Folders whose own watch reported them gone while chokidar still holds their name: if a folder comes back there, restart. */
  private readonly deadFolders = new Set<string>();
  private readonly rechecks = new Rechecks((paths) => {
    if (this.closed) return;
    for (const p of paths) this.pending.add(p);
    this.schedule();
  });
  private idleWaiters: (() => void)[] = [];
  /** Alias names of real paths; empty until the first links scan ends (flush waits for it). */
  private aliases = new AliasMap([]);
  private aliasesReady: Promise<void> = Promise.resolve();
  lastUpdate: string | null = null;

  private constructor(private readonly opts: WatchOptions) {}

  /** Starts watching; resolves once chokidar has scanned the tree (events from then on are caught). */
  static async start(opts: WatchOptions): Promise<RepoWatcher> {
    const w = new RepoWatcher(opts);
    const mode = opts.mode ?? 'auto';
    if (mode === 'off') { w.stateValue = 'off'; return w; }
    // The links scan runs beside chokidar's own scan; batches wait for it, so no
    // event is applied without its aliases.
    w.aliasesReady = w.rescanLinks().then(() => undefined);
    await Promise.all([w.open(mode === 'poll' ? 'polling' : 'watching'), w.aliasesReady]);
    w.started = true;
    if (w.restartWanted) w.requestRefresh('a folder was replaced while the watcher started');
    return w;
  }

  get state(): WatchState { return this.stateValue; }
  get note(): string | undefined { return this.noteValue; }
  /** Paths and refreshes waiting to be applied (not counting the batch being applied). */
  get queued(): number { return this.pending.size + (this.needRefresh ? 1 : 0); }

  /** Queues a full re-walk (catch-up) behind whatever is pending. */
  requestRefresh(why = 'requested'): void {
    this.needRefresh = true;
    this.refreshWhy.push(why);
    this.schedule();
  }

  /** The symlinks currently known (link name → what it is), for status and tests. */
  get links(): ReadonlyMap<string, string> { return this.aliases.links; }

  /** Resolves when nothing is queued or running (tests and shutdown use it). */
  idle(): Promise<void> {
    if (!this.timer && !this.running && this.queued === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    this.rechecks.clear();
    await this.closeFsw();
    await this.running;
    this.stateValue = 'off';
    this.wakeIdle();
  }

  private rel(abs: string): string | null {
    const r = relative(this.opts.root, abs);
    if (r === '' || r.startsWith('..')) return null;
    return sep === '/' ? r : r.split(sep).join('/');
  }

  private ignored = (abs: string, stats?: Stats): boolean => {
    const rel = this.rel(abs);
    if (rel === null) return false; // the root itself
    if (inGitDir(rel)) return true;
    // Only folders are pruned by the rules here (chokidar then never watches inside them).
    // Files are filtered when a batch is built, because a file's rules can change with an ignore file.
    if (stats?.isDirectory()) return this.isIgnoredFolder(rel);
    // Nothing but folders gets a watch of its own unless polling: a folder's watch names its
    // entries (see the top of this file). Symlinks stay chokidar's, which reports them without
    // following; FIFOs, sockets and devices are never indexed.
    if (!this.watchFiles && stats && !stats.isSymbolicLink()) return true;
    return false;
  };

  /** Closes the chokidar instance; an open() still waiting for its scan returns at once. */
  private async closeFsw(): Promise<void> {
    const fsw = this.fsw;
    this.fsw = null;
    this.abortOpen?.();
    this.abortOpen = null;
    await fsw?.close();
  }

  private async open(target: OpenTarget): Promise<void> {
    this.target = target;
    const polling = this.watchFiles;
    const fsw = chokidarWatch(this.opts.root, {
      ignoreInitial: true,
      ignored: this.ignored,
      // No awaitWriteFinish (it adds >= 200 ms) and no atomic (it holds unlinks back 100 ms):
      // update() re-checks each path on disk, which already makes write+rename end right.
      awaitWriteFinish: false,
      atomic: false,
      followSymlinks: false,
      alwaysStat: true,
      usePolling: polling,
      interval: this.opts.pollMs ?? 500,
      binaryInterval: this.opts.pollMs ?? 500,
      persistent: true,
    });
    this.fsw = fsw;
    fsw.on('all', (event, path, stats) => {
      if (event === 'addDir' && stats) { this.folderIds.set(path, folderId(stats)); this.deadFolders.delete(path); }
      else if (event === 'unlinkDir') { this.folderIds.delete(path); this.deadFolders.delete(path); }
      this.onEvent(event, path);
    });
    // The folder watches' raw events name every touched entry: they are how files' changes
    // arrive (chokidar itself reports folders and links only), temp files that live only
    // microseconds included (update() ignores no-op paths).
    if (!polling) fsw.on('raw', (ev, evPath, details) => this.onRaw(ev, evPath, (details as { watchedPath?: string })?.watchedPath));
    fsw.on('error', (err) => this.onError(err as Error));
    let abort!: () => void;
    const ready = await new Promise<boolean>((resolve) => {
      abort = () => resolve(false);
      this.abortOpen = abort;
      fsw.once('ready', () => resolve(true));
    });
    if (this.abortOpen === abort) this.abortOpen = null;
    if (!ready || this.fsw !== fsw) return; // closed (or replaced) while it scanned
    if (!polling) this.recordFolders(fsw);
    if (this.stateValue !== 'polling (inotify limit reached)' || target !== 'watching') this.stateValue = target;
  }

  /** The identity of every folder chokidar now watches (a stat each, once per start or restart). */
  private recordFolders(fsw: FSWatcher): void {
    this.folderIds.clear();
    this.deadFolders.clear();
    for (const dir of Object.keys(fsw.getWatched())) {
      if (this.rel(dir) === null && dir !== this.opts.root) continue; // the root's parent, which chokidar lists too
      try { this.folderIds.set(dir, folderId(lstatSync(dir))); } catch { /* gone since: its events say so */ }
    }
  }

  private onEvent(event: string, abs: string): void {
    if (this.closed) return;
    const rel = this.rel(abs);
    if (rel === null) return;
    if (inGitDir(rel)) return;
    if (event === 'addDir' || event === 'unlinkDir') {
      // A folder that went away: update() drops what was under it. One that appeared: update()
      // walks it. chokidar reports addDir before it has read and watched the folder, so a file
      // written there in between would be named by no event: the folder is walked once more
      // after its watch is surely in place (unchanged files cost a stat each).
      if (event === 'addDir' && rel !== '' && !this.watchFiles) this.rechecks.add(rel);
      if (this.isIgnoredFolder(rel)) return;
      this.pending.add(rel);
      this.schedule();
      return;
    }
    if (this.opts.rules.isIgnoreFile(rel)) {
      this.pendingIgnoreFiles.add(rel);
      this.needRefresh = true;
    } else {
      let skip = false;
      try { skip = this.opts.rules.isIgnored(rel, false); } catch { skip = false; }
      if (!skip) this.pending.add(rel);
    }
    this.schedule();
  }

  private onRaw(ev: string, evPath: string | null | undefined, watchedPath: string | undefined): void {
    if (this.closed || !evPath || !watchedPath) return;
    // Every fs.watch is a folder's (files have none): it names a child...
    const child = join(watchedPath, evPath);
    this.onEvent('raw', child);
    if (ev !== 'rename') return;
    // ...or the folder itself, deleted or moved away (a child named like its folder looks the
    // same: checkFolder tells them apart); and a name whose folder's watch died may be a folder again.
    if (evPath === basename(watchedPath)) this.checkFolderSoon(watchedPath);
    if (this.deadFolders.has(child)) this.checkFolderSoon(child);
  }

  /** checkFolder once chokidar's own re-read of the parent (which may forget the folder) has had its turn. */
  private checkFolderSoon(abs: string): void {
    setTimeout(() => this.checkFolder(abs), REPLACED_FOLDER_CHECK_MS).unref();
  }

  /**
   * A watched folder's name was touched as a whole: the same folder is still
   * there (the event named a child of that name), another folder is (its watch
   * died: restart), or none is (dead until chokidar forgets the name, which it
   * reports as unlinkDir, or a folder comes back under it).
   */
  private checkFolder(abs: string): void {
    if (this.closed || this.watchFiles) return;
    const watched = this.folderIds.get(abs);
    if (watched === undefined) return; // not a folder chokidar watches (or no longer)
    let st: Stats | null = null;
    try { st = lstatSync(abs); } catch { st = null; }
    if (st?.isDirectory() && watched !== null && folderId(st) === watched) { this.deadFolders.delete(abs); return; }
    if (!st?.isDirectory()) { this.deadFolders.add(abs); return; }
    this.restartWanted = true;
    this.requestRefresh(`${this.rel(abs) ?? 'the root'} was replaced`);
  }

  private isIgnoredFolder(rel: string): boolean {
    try { return this.opts.rules.isIgnored(rel, true); } catch { return false; }
  }

  private onError(err: Error): void {
    if (this.closed) return;
    if (isWatchLimitError(err) && this.stateValue === 'watching' && !this.switching) {
      void this.fallBackToPolling(err);
      return;
    }
    this.opts.log?.(`watcher error: ${err.message}`);
  }

  /** Out of inotify watches (or file handles): keep serving, poll instead, and re-walk to catch what was missed. */
  private async fallBackToPolling(err: Error): Promise<void> {
    this.switching = true;
    const code = (err as NodeJS.ErrnoException).code;
    this.noteValue = `${code}: ${err.message}`;
    this.opts.log?.(`watcher: ${code} (${err.message}); falling back to polling`);
    this.stateValue = 'polling (inotify limit reached)';
    await this.closeFsw().catch(() => undefined);
    if (this.closed) return;
    await this.open('polling (inotify limit reached)');
    this.switching = false;
    this.requestRefresh('fell back to polling');
  }

  private schedule(): void {
    if (this.closed || this.timer || this.running) return;
    this.timer = setTimeout(() => { this.timer = null; this.running = this.flush(); }, this.opts.batchMs ?? 4);
  }

  private async flush(): Promise<void> {
    const paths = [...this.pending].sort();
    this.pending.clear();
    const refresh = this.needRefresh;
    const ignoreFiles = [...this.pendingIgnoreFiles];
    // A folder was replaced: its watch died, and any ignore file in it changed unseen.
    const replaced = this.restartWanted;
    // Restarts wait for start() (a restart would close the watcher it waits on); start() asks again.
    const restart = refresh && (replaced || ignoreFiles.length > 0) && this.started;
    if (restart) this.restartWanted = false;
    else if (ignoreFiles.length && !this.started) this.restartWanted = true;
    const why = [...ignoreFiles.map((f) => `${f} changed`), ...this.refreshWhy].join(', ');
    this.needRefresh = false;
    this.refreshWhy = [];
    this.pendingIgnoreFiles.clear();
    const t0 = performance.now();
    try {
      await this.opts.exclusive(async () => {
        if (refresh) {
          for (const f of ignoreFiles) await this.opts.rules.reloadIgnoreFile(f);
          // A folder that was ignored is not watched; after a rules change, rescan so newly
          // included folders are watched too, then re-walk (which also drops newly ignored files).
          // A replaced folder's ignore files raised no event (its watch was dead): all are read
          // again first, so chokidar prunes by the rules as they are.
          if (restart && !this.closed && this.fsw) {
            if (replaced) await this.opts.rules.reloadAll();
            await this.restart();
          }
          await this.opts.index.refresh();
          // The re-walk indexed every link as it now is; only the map needs to catch up.
          await this.rescanLinks();
          this.lastUpdate = new Date().toISOString();
          this.opts.onApplied?.({ paths: [], refreshed: true, why, ms: performance.now() - t0 });
        } else if (paths.length) {
          const batch = await this.withAliases(paths);
          const summary = await this.opts.index.update(batch);
          this.lastUpdate = new Date().toISOString();
          this.opts.onApplied?.({ paths: batch, refreshed: false, summary, ms: performance.now() - t0 });
        }
      });
    } catch (e) {
      this.opts.log?.(`watcher: applying ${refresh ? 'a refresh' : `${paths.length} path(s)`} failed: ${(e as Error).message}`);
    } finally {
      this.running = null;
      if (this.queued > 0 && !this.closed) this.schedule();
      else this.wakeIdle();
    }
  }

  /**
   * The batch plus every alias name of its paths. When a path may have added,
   * removed or retargeted a symlink, the map is rebuilt first (the new link's
   * names need the new map) and the links that changed are re-checked as well:
   * for a folder link the builder then walks (or drops) everything under it.
   */
  private async withAliases(paths: string[]): Promise<string[]> {
    await this.aliasesReady;
    const out = new Set(paths);
    if (paths.some((p) => this.aliases.touches(p) || this.isLink(p))) {
      for (const p of await this.rescanLinks()) out.add(p);
    }
    if (this.aliases.size > 0) for (const p of paths) for (const a of this.aliases.aliasesOf(p)) out.add(a);
    return [...out].sort();
  }

  private isLink(rel: string): boolean {
    try { return lstatSync(join(this.opts.root, rel)).isSymbolicLink(); } catch { return false; }
  }

  /** Rebuilds the alias map from a links-only walk; answers the link names that changed. */
  private async rescanLinks(): Promise<string[]> {
    try {
      const { links = [] } = await walkRepo(this.opts.root, this.opts.rules, { links: 'only' });
      const next = new AliasMap(links);
      const changed = AliasMap.changed(this.aliases, next);
      this.aliases = next;
      return changed;
    } catch (e) {
      // Keep the old map: aliases may go stale until the next refresh, but real paths still update.
      this.opts.log?.(`watcher: scanning for symlinks failed: ${(e as Error).message}`);
      return [];
    }
  }

  private async restart(): Promise<void> {
    const target = this.target;
    await this.closeFsw();
    if (!this.closed) await this.open(target);
  }

  private wakeIdle(): void {
    if (this.timer || this.running || this.queued > 0) return;
    const ws = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of ws) w();
  }
}
