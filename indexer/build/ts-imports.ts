// TypeScript and JavaScript import resolution as the builder runs it: which
// files to resolve after a build or an update, against which view of the
// tree, and what each file's resolution rested on (docs/architecture.md,
// TypeScript resolution). A file's resolution is kept with the keys of the
// paths it looked for (existenceKey: folder + name up to the first dot) and
// the paths whose text it read; a file appearing or disappearing, a folder
// coming or going, or a config or package.json changing re-resolves exactly
// the files whose keys it touches. The `typescript` package is loaded only
// once the index holds a TypeScript or JavaScript file.
import type { RepoLinks } from '../discover/links.js';
import type { TsImport } from '../model.js';
import type { ImportRec, Store, StoreOp, TsResolution } from '../store/store.js';
import { extractTs } from '../typescript/extract.js';
import { TsResolver } from '../typescript/resolve.js';
import { specTarget, specTargets, targetName } from '../typescript/targets.js';
import { isResolutionInput, isTsJsPath } from '../typescript/paths.js';
import { dirOf, existenceKey, type RepoView } from '../typescript/view.js';
import { changedPackages, declaresPackages, type WorkspacePackages } from '../typescript/workspaces.js';
import { FolderTree, StoreView, WalkView, WithFilesView } from './ts-view.js';
import { Slices } from './slices.js';

/** A file that changed in a way resolution may care about. */
/** `linked`: a symbolic link came, went or was retargeted there (the index holds no name through it, but resolution follows it). */
export interface FileChange { path: string; how: 'appeared' | 'disappeared' | 'text' | 'linked' }

/** A TypeScript file written by an update, with its statements resolved. */
export interface ResolvedFile { imports: ImportRec[]; tsres: TsResolution }

/** Names whose appearing, disappearing or change moves the configs and package scopes of every file below their folder. */
const CHAIN_NAMES = new Set(['package.json', 'tsconfig.json', 'jsconfig.json']);

/** Which files' resolution rests on which existence keys and which files' text. */
class Dependents {
  private readonly probes = new Map<string, Set<string>>();
  private readonly reads = new Map<string, Set<string>>();
  private readonly of = new Map<string, TsResolution>();

  set(path: string, res: TsResolution): void {
    this.delete(path);
    this.of.set(path, res);
    for (const k of res.probes) add(this.probes, k, path);
    for (const r of res.reads) add(this.reads, r, path);
  }

  delete(path: string): void {
    const res = this.of.get(path);
    if (!res) return;
    this.of.delete(path);
    for (const k of res.probes) drop(this.probes, k, path);
    for (const r of res.reads) drop(this.reads, r, path);
  }

  withProbe(key: string): Iterable<string> { return this.probes.get(key) ?? []; }
  withRead(path: string): Iterable<string> { return this.reads.get(path) ?? []; }
}

function isEmpty(xs: Iterable<unknown>): boolean {
  for (const _ of xs) return false;
  return true;
}

function add(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  if (s) s.add(v); else m.set(k, new Set([v]));
}
function drop(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  if (s?.delete(v) && s.size === 0) m.delete(k);
}

export class TsImports {
  private resolver: TsResolver | null = null;
  private folders: FolderTree | null = null;
  private dependents: Dependents | null = null;
  /** The package map as of the last batch (null: not known in this process). */
  private lastPackages: WorkspacePackages | null = null;
  /** Files resolved since this was made (tests check that a change resolves again only what it can affect). */
  resolvedFiles = 0;
  /** warm() has run in this process. */
  private warmedUp = false;
  /**
   * Set while an update is between resolveUpdate() and its commit (committed()
   * or reset() ends it): the folder tree and the resolver then hold the tree
   * as the update will leave it, which the store does not yet hold. The
   * update yields meanwhile, so other readers of that state must not take it
   * for the store's: warm() waits for `settled`, wouldReach() builds a tree
   * of its own from the store.
   */
  private pendingUpdate: { settled: Promise<void>; end: () => void } | null = null;

  /** The symbolic links inside the root, which resolution follows (links.ts): the builder's, kept in step by its walks and updates. */
  constructor(private readonly root: string, private readonly store: Store, private readonly links: RepoLinks) {}

  /** Link names taken from `links` whose re-resolution is not committed yet (takeLinks()). */
  private linksTaken: string[] = [];

  private tree(): FolderTree {
    return (this.folders ??= new FolderTree(this.store.ordered().map((f) => f.path)));
  }

  private deps(): Dependents {
    if (!this.dependents) {
      const d = new Dependents();
      for (const [fid, res] of this.store.tsResolutions()) {
        const f = this.store.file(fid);
        if (f) d.set(f.path, res);
      }
      this.dependents = d;
    }
    return this.dependents;
  }

  private resolverFor(view: RepoView, sameTree = false): TsResolver {
    if (!this.resolver) this.resolver = new TsResolver(this.root, view);
    this.resolver.begin(view, sameTree);
    return this.resolver;
  }

  /**
   * Readies what a save of a TypeScript file needs — the compiler loaded, the
   * folder tree and the dependents read, the package map — and runs the
   * parser and the resolver over stored files for up to `budgetMs`, so their
   * code is compiled before the first save is (the compiler's parser runs
   * several times slower until V8 has optimised it). In slices of `sliceMs`,
   * yielding between; it writes nothing. Once per process.
   */
  async warm(stopped: () => boolean, budgetMs = 400, sliceMs = 8): Promise<void> {
    if (this.warmedUp || this.store.counts.ts === 0) return;
    this.warmedUp = true;
    const files = this.store.ordered().filter((f) => f.ts);
    let spent = 0;
    for (let i = 0; i < files.length && spent < budgetMs;) {
      await new Promise((r) => setImmediate(r));
      // An update is resolving (its view set on the shared resolver): a slice now would swap the view under it.
      while (this.pendingUpdate) await this.pendingUpdate.settled;
      if (stopped()) return;
      const t0 = performance.now();
      // Fresh each slice: an update may have changed the tree meanwhile (it keeps tree and dependents in step).
      const resolver = this.resolverFor(new StoreView(this.store, this.tree(), this.links), true);
      this.deps();
      void resolver.packages;
      while (i < files.length && performance.now() - t0 < sliceMs) {
        const f = this.store.file(files[i++].fid);
        const text = f && this.store.text(f.fid);
        if (!f || text === undefined) continue;
        try { resolver.resolveFile(f.path, extractTs(text, f.path).imports); } catch { /* warm-up only: the save path guards itself */ }
      }
      spent += performance.now() - t0;
    }
  }

  /**
   * The file each statement (of `file`, as stored) would resolve to if the
   * files `extra` were indexed too — the compiler asked again over the index
   * with them laid over it — when it is one of them; else null. Asked only
   * for statements that resolved nowhere (`evidex index --unresolved`), so
   * only they pay; the builder's resolver and its caches are not touched.
   */
  wouldReach(stmts: ReadonlyArray<{ file: string; raw: TsImport }>, extra: ReadonlySet<string>): Array<string | null> {
    if (extra.size === 0) return stmts.map(() => null);
    // Mid-update the kept tree is the tree the update will leave, not the store's: a tree of the store's own then.
    const tree = this.pendingUpdate ? new FolderTree(this.store.ordered().map((f) => f.path)) : this.tree();
    const resolver = new TsResolver(this.root, new WithFilesView(new StoreView(this.store, tree, this.links), extra));
    return stmts.map(({ file, raw }) => {
      const target = resolveOrNot(resolver, file, [raw]).imports[0].targets[0];
      return target !== undefined && target.startsWith('./') && extra.has(targetName(target)) ? targetName(target) : null;
    });
  }

  /** After a failed commit: what was derived from the uncommitted view is thrown away and read afresh when next needed; the link changes it took are owed again. */
  reset(): void {
    this.links.putBack(this.linksTaken);
    this.linksTaken = [];
    this.endUpdate();
    this.folders = null;
    this.dependents = null;
    this.lastPackages = null;
    this.resolver?.reset();
  }

  /** The TypeScript files (paths) `changes` can affect, besides those being written. */
  private affected(changes: readonly FileChange[], folders: readonly string[], packagesMoved: readonly string[]): Set<string> {
    const deps = this.deps();
    const out = new Set<string>();
    const take = (paths: Iterable<string>): void => { for (const p of paths) out.add(p); };
    for (const c of changes) {
      take(deps.withRead(c.path));
      if (c.how === 'text') continue;
      take(deps.withProbe(existenceKey(c.path)));
      const name = c.path.slice(c.path.lastIndexOf('/') + 1);
      if (CHAIN_NAMES.has(name)) for (const f of this.store.filesUnder(dirOf(c.path))) if (f.ts) out.add(f.path);
    }
    for (const d of folders) take(deps.withProbe(d));
    if (packagesMoved.length) {
      const names = new Set(packagesMoved.map(specTarget));
      const { hits } = this.store.plan.importStatements(names, undefined, { offset: 0, end: Number.MAX_SAFE_INTEGER });
      for (const h of hits) out.add(this.store.file(h.fid)!.path);
    }
    return out;
  }

  /** Re-resolves a stored file; null when nothing would change. */
  private again(resolver: TsResolver, path: string): StoreOp | null {
    const f = this.store.fileByPath(path);
    if (!f || !f.ts) return null;
    const stored = this.store.imports(f.fid);
    this.resolvedFiles++;
    const { imports, resting } = resolveOrNot(resolver, path, stored.map((i) => i.raw as TsImport));
    const recs = stored.map((s, i): ImportRec => withOutcome(s.raw as TsImport, imports[i]));
    const same = recs.every((r, i) => sameOutcome(r, stored[i])) && sameResting(resting, this.store.tsResolution(f.fid));
    return same ? null : { op: 'resolve', path, mods: [], imports: recs, tsres: resting };
  }

  /**
   * Resolves an update's TypeScript files and re-resolves the stored ones its
   * changes can affect, against the tree as it will be once it is committed.
   * `puts`: every file the update writes (bytes, and TS statements or null);
   * `removed`: paths leaving the index. Call committed() after the commit,
   * reset() if it failed or will not be made. Its loops run in slices
   * (slices.ts), yielding: from its first change of the tree until then,
   * `pendingUpdate` keeps warm() and wouldReach() off that state. Updates
   * themselves never overlap (IndexHandle serialises writers).
   */
  async resolveUpdate(puts: ReadonlyMap<string, { bytes: Uint8Array; ts: readonly TsImport[] | null }>, removed: ReadonlySet<string>): Promise<{ files: Map<string, ResolvedFile>; ops: StoreOp[] }> {
    const files = new Map<string, ResolvedFile>();
    const links = this.takeLinks();
    const anyTs = [...puts.values()].some((p) => p.ts !== null);
    if (!anyTs && this.store.counts.ts === 0) {
      this.folders = null; // not kept in step: read afresh when next needed
      return { files, ops: [] };
    }
    const tree = this.tree();
    this.beginUpdate();
    const slices = new Slices();
    const changes: FileChange[] = [];
    for (const p of puts.keys()) changes.push({ path: p, how: this.store.fileByPath(p) ? 'text' : 'appeared' });
    for (const p of removed) if (this.store.fileByPath(p)) changes.push({ path: p, how: 'disappeared' });
    for (const p of links) changes.push({ path: p, how: 'linked' });
    const touchesPackages = changes.some((c) => declaresPackages(c.path));
    const before = touchesPackages ? this.resolverFor(new StoreView(this.store, tree, this.links)).packages : null;
    const folders: string[] = [];
    for (const c of changes) {
      if (c.how === 'appeared') folders.push(...tree.add(c.path));
      else if (c.how === 'disappeared') folders.push(...tree.remove(c.path));
    }
    const bytes = new Map([...puts].map(([p, v]) => [p, v.bytes]));
    const view = new StoreView(this.store, tree, this.links, bytes, removed);
    if (!this.resolver) this.resolver = new TsResolver(this.root, view);
    for (const c of changes) this.resolver.changed(c.path, c.how === 'text' ? 'text' : 'exists');
    // A save of a file no resolution reads (the common case: a source file) changes nothing the compiler looked at.
    const deps = this.deps();
    const sameTree = changes.every((c) => c.how === 'text' && !isResolutionInput(c.path) && isEmpty(deps.withRead(c.path)));
    const resolver = this.resolverFor(view, sameTree);
    const moved = before ? changedPackages(before, resolver.packages) : [];
    for (const [path, p] of puts) {
      if (p.ts === null) continue;
      await slices.next();
      this.resolvedFiles++;
      const { imports, resting } = resolveOrNot(resolver, path, p.ts);
      files.set(path, { imports: p.ts.map((raw, i) => withOutcome(raw, imports[i])), tsres: resting });
    }
    const ops: StoreOp[] = [];
    for (const path of this.affected(changes, folders, moved)) {
      if (puts.has(path) || removed.has(path)) continue;
      await slices.next();
      const op = this.again(resolver, path);
      if (op) ops.push(op);
    }
    this.lastPackages = resolver.packages;
    return { files, ops };
  }

  /**
   * The start of a build: resolution of the TypeScript files it parses, as
   * their results arrive, against the tree its walk found (`walked`; the
   * files in `parsing` are read from disk, the rest from the store). Null
   * when the tree holds no TypeScript file (nothing to load or resolve).
   */
  beginBuild(walked: ReadonlyMap<string, { abs: string; dev: number; ino: number }>, parsing: ReadonlySet<string>, removed: readonly string[],
    readVetted: (entry: { abs: string; dev: number; ino: number }) => string | undefined): ((path: string, raw: readonly TsImport[]) => ResolvedFile) | null {
    if (![...parsing].some(isTsJsPath)) return null; // nothing the build parses needs resolving
    const view = new WalkView(this.store, walked, parsing, new FolderTree(walked.keys()), readVetted, this.links);
    if (!this.resolver) this.resolver = new TsResolver(this.root, view);
    // What the build may change, parsed configs and the package map forget: they are read again from the walk's tree.
    for (const p of parsing) this.resolver.changed(p, this.store.fileByPath(p) ? 'text' : 'exists');
    for (const p of removed) this.resolver.changed(p, 'exists');
    const resolver = this.resolverFor(view);
    return (path, raw) => {
      this.resolvedFiles++;
      const { imports, resting } = resolveOrNot(resolver, path, raw);
      return { imports: raw.map((r, i) => withOutcome(r, imports[i])), tsres: resting };
    };
  }

  /**
   * At the end of a build, once its files are committed: the resolve ops for
   * the stored TypeScript files its `changes` can affect (those it wrote,
   * `written`, were resolved as they were parsed) — or, with `all`, for every
   * TypeScript file it did not write (the build before it was interrupted).
   * `unseen`: paths the walk listed that did not make it into the index
   * (binary, unreadable, gone meanwhile), which the files resolved during the
   * build took to exist.
   */
  afterBuild(walkChanges: readonly FileChange[], written: ReadonlySet<string>, all: boolean, unseen: readonly string[]): StoreOp[] {
    // Links that came, went or were retargeted since the last resolution: what rested on their names is resolved again.
    const changes = [...walkChanges, ...this.takeLinks().map((path): FileChange => ({ path, how: 'linked' }))];
    if (this.store.counts.ts === 0 || (changes.length === 0 && unseen.length === 0 && !all)) { this.linksTaken = []; return []; }
    this.folders = null;
    this.dependents = null;
    const view = new StoreView(this.store, this.tree(), this.links);
    if (this.resolver) for (const c of changes) this.resolver.changed(c.path, c.how === 'text' ? 'text' : 'exists');
    if (this.resolver) for (const p of unseen) this.resolver.changed(p, 'exists');
    const resolver = this.resolverFor(view);
    const packagesMoved = changes.some((c) => declaresPackages(c.path));
    let everything = all || (packagesMoved && this.lastPackages === null);
    if (!everything && packagesMoved && this.lastPackages) everything = changedPackages(this.lastPackages, resolver.packages).length > 0;
    const targets = new Set<string>();
    if (everything) {
      for (const f of this.store.ordered()) if (f.ts && !written.has(f.path)) targets.add(f.path);
    } else {
      for (const p of this.affected(changes, this.foldersMoved(changes), [])) if (!written.has(p)) targets.add(p);
    }
    // What the walk listed but the index did not take: the files resolved during the build took it to exist.
    const gone = unseen.map((path): FileChange => ({ path, how: 'disappeared' }));
    for (const p of this.affected(gone, this.foldersMoved(gone), [])) targets.add(p);
    const ops: StoreOp[] = [];
    for (const path of targets) {
      const op = this.again(resolver, path);
      if (op) ops.push(op);
    }
    this.lastPackages = resolver.packages;
    if (ops.length === 0) this.linksTaken = []; // nothing to commit: nothing owed
    return ops;
  }

  /**
   * The folders a build made or emptied, from its changes and the store after
   * it: a folder whose files all appeared in the build is new, one that holds
   * no file now and lost one is gone.
   */
  private foldersMoved(changes: readonly FileChange[]): string[] {
    const appeared = new Set(changes.filter((c) => c.how === 'appeared').map((c) => c.path));
    const out = new Set<string>();
    for (const c of changes) {
      if (c.how === 'text') continue;
      for (let d = dirOf(c.path); d !== '' && !out.has(d); d = dirOf(d)) {
        const now = this.store.filesUnder(d);
        if (c.how === 'disappeared' ? now.length === 0 : now.every((f) => appeared.has(f.path))) out.add(d); else break;
      }
    }
    return [...out];
  }

  private beginUpdate(): void {
    if (this.pendingUpdate) throw new Error('internal: an update resolves while another has not committed');
    let end = (): void => undefined;
    const settled = new Promise<void>((r) => { end = r; });
    this.pendingUpdate = { settled, end };
  }

  private endUpdate(): void {
    this.pendingUpdate?.end();
    this.pendingUpdate = null;
  }

  /**
   * The link changes not yet resolved, held (linksTaken) until a commit of
   * what they changed lands: a failed one puts them back (reset()), so the
   * retried batch re-resolves what rested on them.
   */
  private takeLinks(): string[] {
    this.linksTaken = [...new Set([...this.linksTaken, ...this.links.takeChanged()])];
    return [...this.linksTaken];
  }

  /** After a commit of these ops: the dependents follow what is now stored. */
  committed(ops: readonly StoreOp[]): void {
    this.linksTaken = [];
    this.endUpdate();
    if (!this.dependents) return;
    for (const o of ops) {
      if (o.op === 'remove' || o.op === 'skip') this.dependents.delete(o.path);
      else if (o.op === 'resolve' && o.tsres) this.dependents.set(o.path, o.tsres);
      else if (o.op === 'put') {
        if (o.file.tsres) this.dependents.set(o.file.path, o.file.tsres); else this.dependents.delete(o.file.path);
      }
    }
  }
}

/**
 * A file's statements resolved; when the compiler throws on what the
 * repository holds (a hostile config or package.json), every statement is
 * kept unresolved as missing, resting on the file alone, and the build or
 * update goes on.
 */
function resolveOrNot(resolver: TsResolver, path: string, raw: readonly TsImport[]): ReturnType<TsResolver['resolveFile']> {
  try {
    return resolver.resolveFile(path, raw);
  } catch {
    return {
      imports: raw.map((imp) => ({ targets: specTargets(imp.spec), why: 'missing' as const })),
      resting: { cfg: '', probes: [existenceKey(path)], reads: [] },
    };
  }
}

function withOutcome(raw: TsImport, r: { targets: string[]; why?: ImportRec['why'] }): ImportRec {
  const rec: ImportRec = { start: raw.start, end: raw.end, targets: r.targets, raw };
  if (r.why) rec.why = r.why;
  return rec;
}

function sameOutcome(a: ImportRec, b: ImportRec): boolean {
  return a.why === b.why && a.targets.length === b.targets.length && a.targets.every((t, i) => t === b.targets[i]);
}

function sameResting(a: TsResolution, b: TsResolution | undefined): boolean {
  return b !== undefined && a.cfg === b.cfg && a.probes.join('\0') === b.probes.join('\0') && a.reads.join('\0') === b.reads.join('\0');
}
