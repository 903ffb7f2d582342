// Brings the store in line with the tree: full build, catch-up (refresh) and
// incremental update. Discovery decides what may be indexed (indexer/discover),
// workers parse (parse-worker.ts), this module decides what to write and
// writes it through Store.commit — the only writer.
//
// Crash safety: the state is `building` from a refresh's first write to its last. Every commit
// holds whole files (row, text, buckets, symbols, imports and lookup keys together), so after a kill
// the index is a mix of old and new whole files; the next refresh compares size+mtime, then content
// hashes, and finishes the job. A refresh cancelled through its AbortSignal (a daemon stopping, its
// root replaced, Ctrl-C on `evidex index`) parses no more, commits what it parsed and stops.
import { stat } from 'node:fs/promises';
import { RepoRules, DEFAULT_MAX_FILE_BYTES, parentOf } from '../discover/rules.js';
import { checkPath, walkRepo, type WalkEntry } from '../discover/walk.js';
import { RepoLinks } from '../discover/links.js';
import { SecretLinks } from '../discover/secret-links.js';
import { whyLeftOut } from '../discover/why-left-out.js';
import { LeftOutSet, type LeftOut, type LeftOutReason } from '../discover/left-out.js';
import { listByBytes, mayBeNotUtf8 } from '../discover/names.js';
import { isPathTooLong } from '../discover/path-limits.js';
import type { FileWrite, ImportRec, Store, StoreOp, TsResolution } from '../store/store.js';
import { cmp } from '../store/path-order.js';
import type { ParseResult, ParseTask } from './messages.js';
import { readVettedText } from './parse-worker.js';
import { defaultWorkers, EarlyWorkers } from './pool.js';
import { lookAndRead, lookMany, settleReplaced } from './settled-read.js';
import { ReadSlabs } from './read-slabs.js';
import { walkUntilSettled, type SettleWalks } from './settled-walk.js';
import { isPackageInit } from '../python/modules.js';
import type { PyImport, TsImport } from '../model.js';
import { tsImportCounts, type BuildProgress, type BuildSummary, type UpdateSummary } from './summary.js';
import { initFilesOf, isUnder, packageDirsOf, resolvePython, sameSet } from './resolve.js';
import { TsImports, type FileChange, type ResolvedFile } from './ts-imports.js';
import { parseTasks, parseWalked, POOL_FILES, type WalkedTask } from './parse-walked.js';
import { saveCompileCache, useCompileCache } from '../typescript/load.js';

/** A build commits whenever this many files or bytes of text have accumulated, or this much time has passed: bounded
 *  transactions, and parsed work becomes durable (and queryable) steadily rather than all at the end. */
const COMMIT_FILES = 400;
const COMMIT_BYTES = 16 << 20;
const COMMIT_MS = 500;

export interface BuilderOptions {
  maxFileBytes?: number;
  extraSecrets?: string[];
  extraIgnore?: string[];   // gitignore-syntax lines applied at the root, before .evidexignore
  workers?: number;
  /** Folder for the compiler's code cache (typescript/compile-cache.ts), shared by the builds of one home; null or absent: none. */
  compileCache?: string | null;
}

export class Builder {
  private rules: RepoRules | null = null;
  /** TypeScript/JavaScript resolution: what to resolve after a build or an update, and against which tree. */
  readonly ts: TsImports;
  /** Files parsed (content read and extracted) since this builder was made — tests check that unchanged files are not re-parsed. */
  parsed = 0;
  /** What the walks left out (binary files aside: the store knows those), for status and the CLI's hint. */
  private readonly walkLeftOut = new LeftOutSet();
  /** Settles when the first walk of the whole tree has ended (null before one starts): until then leftOut() knows only the binary files. */
  private firstWalk: Promise<void> | null = null;
  /** Whole-tree walks whose left-out set was recorded. */
  private walksRecorded = 0;
  /** The symbolic links inside the root, which TypeScript resolution follows (links.ts), kept as walks and updates meet them. */
  private readonly links = new RepoLinks();
  private readonly secretLinks = new SecretLinks(); // the files links made secret (secret-links.ts)

  constructor(readonly root: string, private readonly store: Store, private readonly opts: BuilderOptions) {
    this.ts = new TsImports(root, store, this.links);
    if (opts.compileCache) useCompileCache(opts.compileCache);
  }

  /** See TsImports.warm: readies the save path of TypeScript files (in slices, writing nothing). */
  warmTs(stopped: () => boolean): Promise<void> { return this.ts.warm(stopped); }

  /** TypeScript/JavaScript files resolved since this builder was made — tests check that a change resolves again only what it can affect. */
  get tsResolved(): number { return this.ts.resolvedFiles; }

  /** The rules once currentRules() has loaded them, else null (no I/O). */
  get loadedRules(): RepoRules | null { return this.rules; }

  async currentRules(): Promise<RepoRules> {
    if (this.rules) return this.rules;
    this.rulesUnused = true;
    return (this.rules = await RepoRules.load(this.root, { maxFileBytes: this.opts.maxFileBytes, extraSecrets: this.opts.extraSecrets, extraIgnore: this.opts.extraIgnore }));
  }
  private rulesUnused = false; // just loaded, and no refresh has walked with them: that refresh need not read them again (four git commands)

  private get maxBytes(): number { return this.rules?.maxFileBytes ?? this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES; }

  /** Turns one parse result into store ops under the given package folders; a TypeScript file's statements resolved by `ts`. */
  private opFor(res: ParseResult, pkgDirs: ReadonlySet<string>, ts: (path: string, raw: readonly TsImport[]) => ResolvedFile | undefined): StoreOp | null {
    const indexed = this.store.fileByPath(res.path);
    switch (res.kind) {
      case 'file': {
        this.parsed++;
        let mods: string[] = [];
        let imports: ImportRec[] = [];
        let tsres: TsResolution | undefined;
        if (res.lang === 'py') ({ mods, imports } = resolvePython(res.path, res.imports as PyImport[], pkgDirs));
        else if (res.lang === 'ts') {
          const r = ts(res.path, res.imports as TsImport[]);
          if (!r) throw new Error(`internal: no resolution for ${res.path}`);
          ({ imports, tsres } = r);
        }
        const file: FileWrite = {
          path: res.path, size: res.size, mtimeMs: res.mtimeMs, hash: res.hash, lines: res.lines,
          text: res.text, tri: res.tri, lang: res.lang, defs: res.defs, imports, mods, tsres,
        };
        return { op: 'put', file };
      }
      case 'same':
        return indexed && (indexed.size !== res.size || indexed.mtimeMs !== res.mtimeMs)
          ? { op: 'touch', path: res.path, size: res.size, mtimeMs: res.mtimeMs } : null;
      case 'excluded':
        return { op: 'skip', path: res.path, size: res.size, mtimeMs: res.mtimeMs };
      case 'gone':
        return indexed || this.store.skipped.has(res.path) ? { op: 'remove', path: res.path } : null;
      case 'error':
        // Unreadable right now (permissions, I/O): keep what we had; the next refresh tries again.
        return null;
      case 'replaced':
        // Another file took the name between the look and the read (an atomic save): keep what we
        // had, never drop it as if deleted; the rename's own event has the watcher look again.
        return null;
    }
  }

  /** Re-resolve ops for indexed Python files (not in `skip`) whose names depend on a package folder that flipped. */
  private resolveOps(oldDirs: ReadonlySet<string>, newDirs: ReadonlySet<string>, skip: ReadonlySet<string>): StoreOp[] {
    const flipped = [...oldDirs].filter((d) => !newDirs.has(d)).concat([...newDirs].filter((d) => !oldDirs.has(d)));
    if (flipped.length === 0) return [];
    const ops: StoreOp[] = [];
    for (const f of this.store.ordered()) {
      if (!f.py || skip.has(f.path) || !flipped.some((d) => isUnder(f.path, d))) continue;
      const { mods, imports } = resolvePython(f.path, this.store.imports(f.fid).map((i) => i.raw as PyImport), newDirs);
      ops.push({ op: 'resolve', path: f.path, mods, imports });
    }
    return ops;
  }

  /**
   * Full walk: first build or catch-up. Re-parses only files whose size/mtime and then content hash differ.
   * `signal` cancels it between commits (it rejects with the signal's reason). With `settle`, the tree is walked
   * until two walks agree (settled-walk.ts: a folder just put at the root's path may still be filling).
   */
  async refresh(onProgress?: (p: BuildProgress) => void, signal?: AbortSignal, settle?: SettleWalks): Promise<BuildSummary & { changedPaths: string[]; removedPaths: string[]; unchangedPaths: string[] }> {
    signal?.throwIfAborted();
    const t0 = performance.now();
    // A build from nothing will parse: its workers start now and as the walk finds work, and start up while the rules load and the tree is walked.
    const early = this.store.fileCount === 0 ? new EarlyWorkers(this.workerCount, this.opts.compileCache ?? null) : null;
    try {
      // Ignore files may have changed since the rules were read (unless just now): read them afresh, into the
      // same instance, which the daemon's watcher shares (IndexHandle.rules()).
      if (this.rules && !this.rulesUnused) await this.rules.reloadAll();
      const rules = await this.currentRules().finally(() => { this.rulesUnused = false; });
      onProgress?.({ phase: 'walk', done: 0, total: 0 });
      let walkEnded = (): void => undefined;
      this.firstWalk ??= new Promise<void>((resolve) => { walkEnded = resolve; });
      let walked: WalkEntry[];
      try {
        const walk = await walkUntilSettled(this.root, async (again) => {
          if (again && this.rules) await this.rules.reloadAll(); // an ignore file may have come with the rest
          return walkRepo(this.root, rules, { maxFileBytes: this.opts.maxFileBytes, onFile: early && !again ? (e) => early.found(e.size) : undefined });
        }, settle, signal);
        walked = walk.files;
        this.walkLeftOut.replace(walk.leftOut); this.links.replace(walk.links); this.secretLinks.replace(walk.secretLinks);
        this.walksRecorded++;
      } finally {
        walkEnded(); // after the set is replaced: a caller waiting on firstWalk must see it
      }
      onProgress?.({ phase: 'walk', done: walked.length, total: walked.length });
      signal?.throwIfAborted();
      return await this.reconcile(walked, null, onProgress, t0, signal, early);
    } finally {
      // Not handed to parseTasks (the build failed or was cancelled first): ended here.
      await early?.end();
    }
  }

  private get workerCount(): number { return this.opts.workers ?? defaultWorkers(); }

  /**
   * Makes the index hold exactly `walked` within `scope` (null = the whole tree,
   * else a folder prefix): parses new/changed files, removes the rest.
   */
  private async reconcile(
    walked: WalkEntry[], scope: string | null, onProgress: ((p: BuildProgress) => void) | undefined, t0: number, signal?: AbortSignal,
    early: EarlyWorkers | null = null,
  ): Promise<BuildSummary & { changedPaths: string[]; removedPaths: string[]; unchangedPaths: string[] }> {
    const store = this.store;
    const inScope = (p: string): boolean => scope === null || isUnder(p, scope);
    const seen = new Set(walked.map((w) => w.path));
    const tasks: Array<ParseTask & { size: number }> = [];
    const unchangedPaths: string[] = [];
    for (const w of walked) {
      const f = store.fileByPath(w.path);
      const sk = store.skipped.get(w.path);
      if (f && f.size === w.size && f.mtimeMs === w.mtimeMs) unchangedPaths.push(w.path);
      else if (!f && sk && sk.size === w.size && sk.mtimeMs === w.mtimeMs) continue; // known binary, untouched
      else tasks.push({ path: w.path, abs: w.abs, dev: w.dev, ino: w.ino, knownHash: f?.hash, size: w.size });
    }
    const removedPaths = store.ordered().filter((f) => inScope(f.path) && !seen.has(f.path)).map((f) => f.path);
    // An interrupted build left resolutions it meant to redo unrecorded: this one redoes them all.
    const resolveAll = store.state !== 'ready' && store.fileCount > 0;
    // TypeScript files are resolved as they are parsed, against the tree the walk found.
    const walkedByPath = new Map(walked.map((w) => [w.path, w]));
    const resolveTs = this.ts.beginBuild(walkedByPath, new Set(tasks.map((t) => t.path)), removedPaths, (e) => readVettedText(e, this.maxBytes));

    // Package folders as they will be once this pass is done (walk's view).
    const outside = store.ordered().filter((f) => !inScope(f.path)).map((f) => f.path);
    const target = packageDirsOf([...outside, ...seen]);
    const oldDirs = new Set(store.pkgDirs);
    if (tasks.length || removedPaths.length || !sameSet(oldDirs, target) || store.state !== 'ready') {
      // First write of the pass: mark building, switch package folders, re-resolve
      // unchanged files under flipped folders — all in one commit.
      const parsing = new Set(tasks.map((t) => t.path));
      store.commit(this.resolveOps(oldDirs, target, parsing), { state: 'building', pkgDirs: [...target].sort() });
    }

    const changedPaths: string[] = [];
    /** What the build changed, for TypeScript resolution at its end, and the TypeScript files it wrote. */
    const changes: FileChange[] = [];
    const tsWritten = new Set<string>();
    let done = 0;
    /** Files read and found binary or over the size cap: said beside the progress's count, which they stay in. */
    let excluded = 0;
    let ops: StoreOp[] = [], opBytes = 0;
    let lastFlush = performance.now();
    const flush = (): void => {
      if (ops.length) this.commitTs(ops);
      ops = []; opBytes = 0; lastFlush = performance.now();
    };
    // Cancelled (`signal`), the pool sends no more chunks but hands over those in flight: they are taken as any
    // others and committed below, so the next build parses only what this one never parsed.
    const take = (results: ParseResult[]): void => {
      for (const res of results) {
        const op = this.opFor(res, target, (path, raw) => resolveTs?.(path, raw));
        if (res.kind === 'file') {
          changedPaths.push(res.path);
          changes.push({ path: res.path, how: store.fileByPath(res.path) ? 'text' : 'appeared' });
          if (res.lang === 'ts') tsWritten.add(res.path);
        }
        else if (res.kind === 'same') unchangedPaths.push(res.path);
        else if ((res.kind === 'gone' || res.kind === 'excluded') && store.fileByPath(res.path)) removedPaths.push(res.path);
        if (op) { ops.push(op); if (op.op === 'put') opBytes += op.file.text.length; }
        if (res.kind === 'excluded') excluded++;
      }
      done += results.length;
      if (ops.length >= COMMIT_FILES || opBytes >= COMMIT_BYTES || performance.now() - lastFlush >= COMMIT_MS) flush();
      // The total is what the walk found to read, known at the start and never changed: binary-ness is known only once
      // a file is read, and a total less the binary files found so far shrank late (Effect: …/3536 until one binary,
      // read near the end, made it 3535). What reading left out is said beside it, so done - leftOut is what was indexed.
      onProgress?.({ phase: 'parse', done, total: tasks.length, leftOut: excluded });
    };
    if (tasks.length) onProgress?.({ phase: 'parse', done: 0, total: tasks.length, leftOut: 0 }); // the parse's time starts here, not at its first file
    await parseTasks(tasks, this.maxBytes, this.workerCount, take, this.opts.compileCache ?? null, early?.take(), undefined, signal);
    flush();
    signal?.throwIfAborted();
    onProgress?.({ phase: 'write', done: 0, total: removedPaths.length });
    const removals: StoreOp[] = [];
    const changedSet = new Set(changedPaths);
    for (const p of new Set(removedPaths)) if (store.fileByPath(p) && !changedSet.has(p)) removals.push({ op: 'remove', path: p });
    // Forget skip records of paths the walk no longer lists.
    for (const p of store.skipped.keys()) if (inScope(p) && !seen.has(p)) removals.push({ op: 'remove', path: p });
    if (removals.length) this.commitTs(removals);
    for (const o of removals) if (o.op === 'remove') changes.push({ path: o.path, how: 'disappeared' });
    const unseen = resolveTs ? walked.filter((w) => !store.fileByPath(w.path)).map((w) => w.path) : []; // the walk's tree was taken to exist only by TS/JS files parsed here
    await this.resolveTs(changes, tsWritten, resolveAll, unseen, signal);
    saveCompileCache(); // the compiler has resolved (and maybe parsed) on this thread by now

    // Package folders as they really are now (an __init__.py may have been binary or vanished meanwhile).
    const actual = packageDirsOf(store.ordered().map((f) => f.path));
    const finalOps = sameSet(new Set(store.pkgDirs), actual) ? [] : this.resolveOps(new Set(store.pkgDirs), actual, new Set());
    if (finalOps.length || store.state !== 'ready' || !sameSet(new Set(store.pkgDirs), actual)) {
      store.commit(finalOps, { state: 'ready', pkgDirs: [...actual].sort() });
    }
    onProgress?.({ phase: 'done', done: store.fileCount, total: store.fileCount });
    const c = store.counts;
    return {
      files: store.fileCount, parsed: changedPaths.length, unchanged: unchangedPaths.length, removed: new Set(removedPaths).size,
      symbols: c.symbols, imports: c.imports, lines: c.lines, seconds: (performance.now() - t0) / 1000, tsImports: tsImportCounts(c.ts, c.tsImports),
      changedPaths, removedPaths: [...new Set(removedPaths)], unchangedPaths,
    };
  }

  /**
   * The end of a build: re-resolves the stored TypeScript files its changes
   * can affect (those it wrote were resolved as they were parsed), in bounded
   * commits, yielding between them so queries are answered meanwhile; cancelled, it stops between two
   * (the index stays `building`, so the next build resolves every file again).
   */
  private async resolveTs(changes: readonly FileChange[], written: ReadonlySet<string>, all: boolean, unseen: readonly string[], signal?: AbortSignal): Promise<void> {
    const ops = this.ts.afterBuild(changes, written, all, unseen);
    for (let i = 0; i < ops.length; i += COMMIT_FILES) {
      if (signal?.aborted) { this.ts.reset(); signal.throwIfAborted(); } // the resolutions not committed are not the store's
      this.commitTs(ops.slice(i, i + COMMIT_FILES));
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Commits ops that change TypeScript resolutions, keeping TsImports in step (and starting it afresh if the commit fails). */
  private commitTs(ops: readonly StoreOp[], patch?: Parameters<Store['commit']>[1]): number {
    let generation: number;
    try {
      generation = this.store.commit(ops, patch);
    } catch (err) {
      this.ts.reset();
      throw err;
    }
    this.ts.committed(ops);
    return generation;
  }

  /**
   * Re-checks these paths and applies the result as ONE commit: changed
   * files re-parsed, gone/excluded ones removed, package-dependent names of other
   * files re-resolved when an __init__.py came or went. A changed ignore file
   * means the whole tree may be differently visible: that becomes a refresh.
   * The work before the commit yields to the event loop (slices.ts, and the
   * parse pool for a folder of many files), so queries are answered meanwhile
   * and see the store as it was until the commit lands whole.
   */
  async update(paths: string[], onProgress?: (p: BuildProgress) => void): Promise<UpdateSummary> {
    const rules = await this.currentRules();
    // In path order: a folder comes before what is under it, so its walk covers their folders.
    const named = [...new Set(paths.map((p) => p.replace(/^\.\/+/, '').replace(/\/+$/, '')).filter((p) => p !== '' && p !== '.'))];
    const clean = [...new Set([...named, ...await this.secretLinks.touched(rules, named)])].sort(cmp); // and what a named link makes secret
    if (clean.some((p) => rules.isIgnoreFile(p))) {
      const r = await this.refresh();
      return { changed: r.changedPaths, removed: r.removedPaths, unchanged: r.unchangedPaths, generation: this.store.generation };
    }
    const store = this.store;
    const results: ParseResult[] = [];
    const toParse: WalkedTask[] = []; // files to parse, each with its place in `results` (the last word per path wins, below)
    /** Folders walked (or dropped) by this update: a folder under one of them is covered. Files named on their own are still checked by hash. */
    const folders: string[] = [];
    // The bytes read here live until the commit below: in slabs, off malloc's main heap (read-slabs.ts).
    const reads = { maxFileBytes: this.opts.maxFileBytes, maxBytes: this.maxBytes, slabs: new ReadSlabs() };
    // A mass change (a checkout): the paths are looked at together and their files parsed with the walked ones, in the pool
    // (POOL_FILES); one at a time, each read and parsed on this thread, trpc's 2,000 took longer than a cold build.
    const looks = clean.length >= POOL_FILES ? await lookMany(this.root, rules, clean, { maxFileBytes: this.opts.maxFileBytes }) : null;
    const namedSlots: number[] = []; // places of named files parsed in the pool (settleReplaced)
    for (const [i, path] of clean.entries()) {
      const known = store.fileByPath(path)?.hash;
      let entry: WalkEntry | null | 'gone';
      let result: ParseResult | undefined;
      if (looks) entry = looks[i]!;
      else ({ entry, result } = await lookAndRead(this.root, rules, path, known, reads));
      // Below a folder this update walked, the walk has recorded it already (a deep chain names hundreds of such paths).
      if (!folders.some((d) => isUnder(path, d))) await this.noteLeftOut(rules, path, entry);
      if (entry === null || entry === 'gone') await this.links.recheck(rules, path, entry === 'gone');
      if (entry !== null && entry !== 'gone') {
        if (result) results.push(result);
        else {
          namedSlots.push(results.length);
          toParse.push({ slot: results.length, task: { path, abs: entry.abs, dev: entry.dev, ino: entry.ino, knownHash: known, size: entry.size } });
          results.push({ path, kind: 'error', message: 'not parsed' }); // its place, until parsed
        }
        // A folder replaced by a file (`mv d elsewhere && touch d`: no event names d's files).
        for (const g of this.heldUnder(path)) results.push({ path: g, kind: 'gone' });
        continue;
      }
      // A binary file the store skips is one too: deleted, it must leave the left-out count and read_evidence's reason.
      const wasFile = store.fileByPath(path) !== undefined || store.skipped.has(path);
      if (wasFile) results.push({ path, kind: 'gone' });
      // A deleted file has nothing under it: skip the scan of the file table (the common case on a save path).
      if (wasFile && entry === 'gone') continue;
      // A folder: deleted or renamed away (drop what was under it) or appeared (index what it holds).
      if (folders.some((d) => isUnder(path, d))) continue;
      folders.push(path);
      const under = [...this.heldUnder(path)];
      const isDir = entry === null && (await stat(`${this.root}/${path}`).then((s) => s.isDirectory(), () => false));
      if (isDir && !rules.isIgnored(path, true) && !isPathTooLong(rules.realRoot, path)) {
        const { files, leftOut, links, secretLinks } = await walkRepo(this.root, rules, { maxFileBytes: this.opts.maxFileBytes, under: path });
        this.walkLeftOut.replace(leftOut, path); this.links.replace(links, path); this.secretLinks.replace(secretLinks, path);
        const listed = new Set(files.map((w) => w.path));
        for (const f of under) if (!listed.has(f)) results.push({ path: f, kind: 'gone' });
        for (const w of files) {
          const f = store.fileByPath(w.path);
          if (f && f.size === w.size && f.mtimeMs === w.mtimeMs) { results.push({ path: w.path, kind: 'same', size: w.size, mtimeMs: w.mtimeMs }); continue; }
          toParse.push({ slot: results.length, task: { path: w.path, abs: w.abs, dev: w.dev, ino: w.ino, knownHash: f?.hash, size: w.size } });
          results.push({ path: w.path, kind: 'error', message: 'not parsed' }); // its place, until parsed
        }
      } else {
        for (const f of under) results.push({ path: f, kind: 'gone' });
      }
    }
    // Read: what the looks found to read; then the parse, which reads the rest (a status's `N of M`, while a checkout's batch runs).
    const total = results.length;
    const read = (done: number) => onProgress?.({ phase: 'parse', done: total - toParse.length + done, total });
    read(0);
    for (const [slot, res] of await parseWalked(toParse, this.maxBytes, this.workerCount, this.opts.compileCache ?? null, reads.slabs, read)) results[slot] = res;
    await settleReplaced(this.root, rules, results, namedSlots, (path) => store.fileByPath(path)?.hash, reads);
    // The last word per path wins (a folder walk may repeat a path also given alone).
    const byPath = new Map<string, ParseResult>();
    for (const r of results) byPath.set(r.path, r);

    // Package folders after this update.
    const oldDirs = new Set(store.pkgDirs);
    const newDirs = new Set(oldDirs);
    // Indexed after this update: what this update says, else what the index holds (an unreadable file is kept).
    const present = (p: string): boolean => {
      const r = byPath.get(p);
      return r && r.kind !== 'error' && r.kind !== 'replaced' ? r.kind === 'file' || r.kind === 'same' : store.fileByPath(p) !== undefined;
    };
    for (const r of byPath.values()) {
      if (!isPackageInit(r.path)) continue;
      const dir = parentOf(r.path);
      // A folder stays a package while either of its __init__.py and __init__.pyi is there.
      if (initFilesOf(dir).some(present)) newDirs.add(dir); else newDirs.delete(dir);
    }
    // TypeScript statements of the files written, and those of other files the update's changes can affect,
    // resolved against the tree as this commit leaves it.
    const puts = new Map<string, { bytes: Uint8Array; ts: readonly TsImport[] | null }>();
    const leaving = new Set<string>();
    for (const r of byPath.values()) {
      if (r.kind === 'file') puts.set(r.path, { bytes: r.text, ts: r.lang === 'ts' ? r.imports as TsImport[] : null });
      else if ((r.kind === 'gone' || r.kind === 'excluded') && store.fileByPath(r.path)) leaving.add(r.path);
    }
    const summary: UpdateSummary = { changed: [], removed: [], unchanged: [], generation: store.generation };
    // From resolveUpdate (which yields) to the commit (which does not), the resolution state runs ahead of the
    // store; every way out of here either commits (committed() brings them level) or resets it.
    try {
      onProgress?.({ phase: 'write', done: 0, total: byPath.size });
      const ts = await this.ts.resolveUpdate(puts, leaving);
      const ops: StoreOp[] = [];
      for (const r of byPath.values()) {
        const op = this.opFor(r, newDirs, (path) => ts.files.get(path));
        if (r.kind === 'file') summary.changed.push(r.path);
        else if ((r.kind === 'gone' || r.kind === 'excluded') && store.fileByPath(r.path)) summary.removed.push(r.path);
        else summary.unchanged.push(r.path);
        if (op) ops.push(op);
      }
      const touched = new Set([...byPath.values()].filter((r) => r.kind === 'file' || r.kind === 'gone' || r.kind === 'excluded').map((r) => r.path));
      ops.push(...this.resolveOps(oldDirs, newDirs, touched), ...ts.ops);
      const dirsChanged = !sameSet(oldDirs, newDirs);
      if (ops.length || dirsChanged || store.markedBuilding) summary.generation = this.commitTs(ops, dirsChanged ? { pkgDirs: [...newDirs].sort() } : {});
      else this.ts.committed([]); // nothing to write: the tree it resolved against is the store's
    } catch (err) {
      this.ts.reset();
      throw err;
    }
    return summary;
  }

  /**
   * Resolves once a whole-tree walk has recorded what is left out. A daemon on
   * a complete index answers before its start-up refresh has walked (or even
   * started): then this walks the tree itself, reading nothing and writing
   * nothing to the store, and records the result unless a refresh did first.
   */
  leftOutKnown(): Promise<void> {
    return (this.firstWalk ??= (async () => {
      const rules = await this.currentRules();
      const { leftOut, links } = await walkRepo(this.root, rules, { maxFileBytes: this.opts.maxFileBytes });
      if (this.walksRecorded === 0) { this.walkLeftOut.replace(leftOut); this.links.replace(links); this.walksRecorded++; }
    })().catch(() => undefined));
  }

  /** Whether a whole-tree walk has recorded what is left out (leftOutKnown() has settled, or a refresh walked). */
  get leftOutRecorded(): boolean { return this.walksRecorded > 0; }

  /** Every file left out, with its reason: the walks' and the binary files the store skips. */
  *leftOut(): Generator<LeftOut> {
    for (const [path, reason] of this.walkLeftOut.entries()) yield { path, reason };
    for (const [path, { size }] of this.store.skipped) yield { path, reason: this.skippedFor(size) };
  }

  /** Why the store skips a file of this size: its content ruled it out, as binary, or grown past the cap between the look and the read. */
  private skippedFor(size: number): LeftOutReason { return size > this.maxBytes ? 'tooLarge' : 'binary'; }

  /** Why the file at `path` is left out, as the walks and the store last knew it; null when they know of no reason (indexed, missing, or not walked yet). */
  leftOutReason(path: string): LeftOutReason | null { const s = this.store.skipped.get(path); return s ? this.skippedFor(s.size) : this.walkLeftOut.get(path) ?? null; }

  /** The paths the store holds under folder `dir`: its indexed files, then the binary ones it skips (a few hundred at most, so a scan). */
  private *heldUnder(dir: string): Generator<string> {
    for (const f of this.store.filesUnder(dir)) yield f.path;
    for (const p of this.store.skipped.keys()) if (isUnder(p, dir)) yield p;
  }

  /** Records what one re-checked path now is: indexed (or gone) forgets it, left out records why; a name shown with U+FFFD lists its folder by bytes. */
  private async noteLeftOut(rules: RepoRules, path: string, entry: WalkEntry | null | 'gone'): Promise<void> {
    if (entry === 'gone') {
      this.walkLeftOut.dropUnder(path);
      if (!mayBeNotUtf8(path)) return;
      // An event named a file Node could not decode: its folder says which names are not UTF-8 now.
      const folder = parentOf(path);
      const listed = await listByBytes(folder === '' ? rules.realRoot : `${rules.realRoot}/${folder}`).catch(() => null);
      this.walkLeftOut.dropInFolder(folder, 'nameNotUtf8');
      for (const name of listed?.notUtf8 ?? []) this.walkLeftOut.set(folder === '' ? name : `${folder}/${name}`, 'nameNotUtf8');
      return;
    }
    const why = entry === null ? await whyLeftOut(rules, path, { maxFileBytes: this.opts.maxFileBytes }) : null;
    // Below a folder now left out as a whole, the folder is the entry, as a walk records it (it would not enter it).
    const at = why === 'ignored' || why === 'worktree' ? rules.excludedFolder(parentOf(path))?.at ?? path : path;
    // A folder left out as a whole is one entry: what was recorded below it no longer counts.
    if (why === 'ignored' || why === 'worktree' || why === 'pathTooLong') this.walkLeftOut.dropUnder(at);
    this.walkLeftOut.set(at, why);
  }
}
