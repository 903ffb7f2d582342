// Where a query's answers are. search_code asks which blocks of which files
// can hold its lines; find_symbol and find_importers ask for the definitions
// and import statements that match, in answer order, counted in full and cut
// to a window. Each question has one entry point here, which answers from the
// in-memory structures when they cover the whole index (warm) and from the
// LMDB rows otherwise (cold, while warm-up runs): the same hits in the same
// order either way, so the tools above never ask which state the index is in.
// The in-memory answers of find_symbol and find_importers also come in slices
// (in-slices.ts): their work is bounded by the page except for a name with
// very many definitions or importers, which is gathered and ordered in steps
// that yield when the slice is due (the driver, query/pace.ts, keeps the
// answer to one generation).
import { isTsImport, type Definition } from '../model.js';
import type { FileMeta, FileTable } from './file-table.js';
import type { ImportSpan, MemoryIndex } from './memory.js';
import { drain, DUE_EVERY, dueEvery, neverDue, sortInSlices, type Due } from './in-slices.js';
import { cmp } from './path-order.js';
import { firstWhere, holds } from './sorted.js';
import type { SearchText } from './search-text.js';
import { importOrder, type ImportRef } from './symbols.js';
import type { Tables } from './tables.js';

/** A file a search must scan, with its blocks to scan (see QueryPlanner.candidateBlocks). */
export interface CandidateFile { f: FileMeta; st: SearchText; from: number; to: number }

/** The positions offset .. end-1 of an answer order: the hits to return. */
export interface Window { offset: number; end: number }

/** The hits in a window of the answer order, and how many there are in all. */
export interface Hits<T> { total: number; hits: T[] }

/** Statements under modules (QueryPlanner.importsUnder): how many, and how many under each target that got one. */
export interface StatementsUnder { total: number; byTarget: Array<[string, number]> }

/** One definition: its file, span (decorators included), kind and qualname. */
export interface DefinitionHit { fid: number; start: number; end: number; kind: Definition['kind']; qualname: string }

export interface DefinitionQuery {
  kind?: Definition['kind'];
  /** Only files whose path starts with this. */
  prefix?: string;
  /** Definitions that also match: those with qualname exactly `qual` in one of `fids` (a module-qualified name, resolved by the caller). */
  quals: ReadonlyArray<{ qual: string; fids: readonly number[] }>;
}

export class QueryPlanner {
  constructor(private readonly files: FileTable, private readonly memory: MemoryIndex, private readonly tables: Tables) {}

  // ---------------------------------------------------------------- search_code

  /** See TrigramLineCounts.rarestAt: where to anchor a scan for `q` (lowercased). */
  rarestCharAt(q: string): number { return this.memory.lineCounts.rarestAt(q); }

  /**
   * Lines of the whole index whose lowercased text holds `t` (three UTF-16
   * units, lowercased); null when that is not known exactly: a non-ASCII
   * trigram, or not every file's text in memory yet.
   */
  linesWithTrigram(t: string): number | null {
    return this.memory.textComplete ? this.memory.lineCounts.count(t) : null;
  }

  /**
   * Where a query's lines can be: the files (in path order, optionally only
   * those under a path prefix), each with the blocks whose signature holds every
   * bucket, ascending: `blocks[from..to)` (blocks null: every block, from 0 to
   * the file's block count). With no buckets (a query too short for a trigram),
   * every block of every file. Files whose text is not in memory yet (a cold
   * daemon) are read from LMDB here, yielding when `due` between them: a
   * search for "e" read all 6,500 of a tree's files in one step, 4.5 s.
   */
  *candidateBlocks(buckets: readonly number[] | null, prefix: string | undefined, due: Due): Generator<void, { blocks: Int32Array | null; files: CandidateFile[] }, void> {
    const under = (f: FileMeta) => prefix === undefined || f.path.startsWith(prefix);
    const memory = this.memory;
    if (!buckets) {
      const files: CandidateFile[] = [];
      for (const f of this.files.ordered()) {
        if (!under(f)) continue;
        const st = yield* this.textOf(f.fid, due);
        files.push({ f, st, from: 0, to: st.blockCount });
      }
      return { blocks: null, files };
    }
    const rows = memory.sigs.queryRows(buckets);
    const files: CandidateFile[] = [];
    if (memory.textComplete) {
      // Every file is in the signatures: one pass over them finds every block.
      const { n, fid, block } = memory.sigs.match(rows);
      for (let i = 0; i < n;) {
        let j = i + 1;
        while (j < n && fid[j] === fid[i]) j++;
        const f = this.files.get(fid[i])!;
        if (under(f)) files.push({ f, st: memory.loadedText(f.fid)!, from: i, to: j });
        i = j;
      }
      // A copy: match() hands out its scratch, which the next query's match() writes over, and a
      // search in slices holds its blocks across its pauses, where other searches run.
      return { blocks: block.slice(0, n), files: this.files.sortByPathOf(files) };
    }
    // Not all in memory yet: the file-level postings pick the files, which are loaded (and signed) as needed.
    const all: number[] = [];
    for (const id of yield* memory.postingsCandidates(buckets, due)) {
      const f = this.files.get(id)!;
      if (!under(f)) continue;
      const st = yield* this.textOf(id, due);
      const from = all.length;
      for (const b of memory.sigs.matchFile(id, rows)) all.push(b);
      if (all.length > from) files.push({ f, st, from, to: all.length });
    }
    return { blocks: Int32Array.from(all), files: this.files.sortByPathOf(files) };
  }

  /** The file's search text, read from LMDB if it is not in memory (a pause after it when `due`: reading one is ~0.7 ms). */
  private *textOf(fid: number, due: Due): Generator<void, SearchText, void> {
    const loaded = this.memory.loadedText(fid);
    if (loaded) return loaded;
    const st = this.memory.searchText(fid);
    if (due()) yield;
    return st;
  }

  /** Each file's place in path order (by file id): callers that sort by path compare these, not the paths. */
  pathRank(): Int32Array { return this.files.pathRank(); }

  // ---------------------------------------------------------------- find_symbol

  /**
   * Definitions whose simple name or qualname is `name`, or that match one of
   * `q.quals`, each once, in answer order (path, start line, qualname); `total`
   * counts them all.
   */
  definitions(name: string, q: DefinitionQuery, w: Window): Hits<DefinitionHit> {
    return drain(this.definitionsInSlices(name, q, w, neverDue));
  }

  /**
   * `definitions` in slices (in-slices.ts): a name with 100,000 definitions
   * is gathered and ordered in steps that yield when `due`. The rows (read
   * only until the symbol index is warm) answer in one go.
   */
  *definitionsInSlices(name: string, q: DefinitionQuery, w: Window, due: Due): Generator<void, Hits<DefinitionHit>, void> {
    if (!this.memory.symbolsReady) return this.definitionsFromRows(name, q, w);
    return yield* this.definitionsInMemory(name, q, w, due);
  }

  /**
   * Every simple name with a definition, once each: from the symbol index, or
   * from the `sym` table's keys while it is still being read (a key holding a
   * dot is a qualname, listed under its last part too).
   */
  definitionNames(): Iterable<string> {
    if (this.memory.symbolsReady) return this.memory.symbols.names();
    return [...this.tables.symbolKeys()].filter((k) => !k.includes('.'));
  }

  /** definitionNames() and each one lowercased, at the same index (kept by the symbol index between changes). */
  definitionNamesLowered(): { names: readonly string[]; lower: readonly string[] } {
    if (this.memory.symbolsReady) return this.memory.symbols.lowerNames();
    const names = [...this.definitionNames()];
    return { names, lower: names.map((n) => n.toLowerCase()) };
  }

  /** From the symbol index: the page is cut from the first `end` in order without sorting the rest. */
  private *definitionsInMemory(name: string, { kind, prefix, quals }: DefinitionQuery, w: Window, due: Due): Generator<void, Hits<DefinitionHit>, void> {
    const rank = this.files.pathRank();
    const sym = this.memory.symbols;
    const before = (a: number, b: number): boolean => {
      const ra = rank[sym.fid(a)], rb = rank[sym.fid(b)];
      if (ra !== rb) return ra < rb;
      if (sym.start(a) !== sym.start(b)) return sym.start(a) < sym.start(b);
      const qa = sym.qualname(a), qb = sym.qualname(b);
      return qa !== qb ? qa < qb : sym.seq(a) < sym.seq(b);
    };
    const keep = (d: number): boolean =>
      (kind === undefined || sym.kind(d) === kind) && (prefix === undefined || this.files.get(sym.fid(d))!.path.startsWith(prefix));
    const tick = dueEvery(due);
    let all = sym.defs(name);
    if (quals.length) {
      // A definition can match more than one way (its qualname, and as M.Q): each counts once.
      const set = new Set<number>();
      for (const d of all) { set.add(d); if (tick()) yield; }
      for (const { qual, fids } of quals) {
        const inFiles = new Set(fids);
        for (const d of sym.defsWithQualname(qual)) { if (inFiles.has(sym.fid(d))) set.add(d); if (tick()) yield; }
      }
      all = [...set];
    }
    if (kind !== undefined || prefix !== undefined) {
      const kept: number[] = [];
      for (const d of all) { if (keep(d)) kept.push(d); if (tick()) yield; }
      all = kept;
    }
    const top = yield* firstInOrder(all, w.end, before, due);
    const hits: DefinitionHit[] = [];
    for (let i = w.offset; i < top.length; i++) {
      const d = top[i];
      hits.push({ fid: sym.fid(d), start: sym.start(d), end: sym.end(d), kind: sym.kind(d), qualname: sym.qualname(d) });
    }
    return { total: all.length, hits };
  }

  /** From the LMDB rows, while the symbol index is still being read: the files the `sym` table names, in path order. */
  private definitionsFromRows(name: string, { kind, prefix, quals }: DefinitionQuery, w: Window): Hits<DefinitionHit> {
    // File id -> the qualnames a definition there may have to match as module-qualified.
    const qualsIn = new Map<number, Set<string>>();
    for (const { qual, fids } of quals) {
      for (const fid of fids) (qualsIn.get(fid) ?? qualsIn.set(fid, new Set()).get(fid)!).add(qual);
    }
    const named = this.tables.symbolFiles(name) ?? this.files.matching((f) => f.nDefs > 0);
    const candidates = new Set([...named, ...qualsIn.keys()]);
    const fids = this.files.sortByPath([...candidates].filter((fid) => this.files.isLive(fid) && (prefix === undefined || this.files.get(fid)!.path.startsWith(prefix))));
    const hits: DefinitionHit[] = [];
    let total = 0;
    for (const fid of fids) {
      const q = qualsIn.get(fid);
      const defs = this.memory.defs(fid)
        .filter((d) => (d.name === name || d.qualname === name || q?.has(d.qualname)) && (kind === undefined || d.kind === kind))
        .sort((a, b) => a.start - b.start || (a.qualname < b.qualname ? -1 : a.qualname > b.qualname ? 1 : 0));
      for (const d of defs) {
        if (total >= w.offset && total < w.end) hits.push({ fid, start: d.start, end: d.end, kind: d.kind, qualname: d.qualname });
        total++;
      }
    }
    return { total, hits };
  }

  // ---------------------------------------------------------------- find_importers

  /**
   * Import statements with a target in `names`, each once, in answer order
   * (path, start line, position in the file), under `prefix` when given;
   * `total` counts them all. A hit's text is read by Store.importText.
   */
  importStatements(names: ReadonlySet<string>, prefix: string | undefined, w: Window): Hits<ImportSpan> {
    return drain(this.importStatementsInSlices(names, prefix, w, neverDue));
  }

  /** `importStatements` in slices (in-slices.ts): several names' lists are merged in steps that yield when `due`; the rows answer in one go. */
  *importStatementsInSlices(names: ReadonlySet<string>, prefix: string | undefined, w: Window, due: Due): Generator<void, Hits<ImportSpan>, void> {
    if (!this.memory.symbolsReady) return this.importsFromRows(names, prefix, w);
    return yield* this.importsInMemory(names, prefix, w, due);
  }

  /** From the symbol index, whose per-target lists are kept sorted: one name is a slice of its list, several a merge. */
  private *importsInMemory(names: ReadonlySet<string>, prefix: string | undefined, w: Window, due: Due): Generator<void, Hits<ImportSpan>, void> {
    const rank = this.files.pathRank();
    const pathOf = (r: ImportRef): string => this.files.get(r.fid)!.path;
    // The files under a prefix are one run of each list.
    // Names nothing imports (a Python name asked as a package too, or the other way round) are left out, so one
    // name with importers is still a slice of its list rather than a merge.
    const lists: Array<readonly ImportRef[]> = [];
    for (const n of names) {
      const list = underPrefix(this.memory.symbols.importersInOrder(n, rank), pathOf, prefix);
      if (list.length) lists.push(list);
    }
    if (lists.length <= 1) {
      const list = lists[0] ?? [];
      return { total: list.length, hits: list.slice(w.offset, w.end) };
    }
    const hits: ImportRef[] = [];
    let total = 0;
    const tick = dueEvery(due);
    for (const r of mergeInOrder(lists, importOrder(rank))) {
      if (total >= w.offset && total < w.end) hits.push(r);
      total++;
      if (tick()) yield;
    }
    return { total, hits };
  }

  /**
   * The statements under module `parents` that `answered` leaves out: those
   * with a target starting with a parent and a `.` and none in `answered`,
   * under `prefix` when given. Each is counted once, under the first such
   * target in key order (`from P.m import n` under `P.m`, which sorts before
   * `P.m.n`); `byTarget` holds the targets that got one, in key order. The
   * targets are a range of the symbol index's sorted Python targets (of the
   * `target` table's sorted keys while warm-up runs), so a call costs the
   * statements under its parents, not a look at every target.
   */
  *importsUnder(parents: readonly string[], answered: ReadonlySet<string>, prefix: string | undefined, due: Due): Generator<void, StatementsUnder, void> {
    const targets: string[] = [];
    const children: boolean[] = [];
    for (const p of parents) {
      for (const t of this.memory.symbolsReady ? yield* this.memory.symbols.targetsUnder(p, due) : this.tables.targetsUnder(p)) {
        targets.push(t);
        // A statement in the answer (`from P import n`) has no target deeper than P.n.
        children.push(t.indexOf('.', p.length + 1) < 0);
      }
    }
    const under: StatementsUnder = { total: 0, byTarget: [] };
    if (targets.length === 0) return under;
    const counted = this.memory.symbolsReady ? this.refsUnder(answered, prefix) : this.rowsUnder(answered, prefix);
    // In plain calls of DUE_EVERY targets (a loop inside a generator runs slower), the clock read between them.
    for (let from = 0; from < targets.length; from += DUE_EVERY) {
      if (from > 0 && due()) yield;
      countUnder(targets, children, from, Math.min(from + DUE_EVERY, targets.length), counted, under);
    }
    return under;
  }

  /** importsUnder's count of a target from the symbol index: a statement not seen before and in no list of `answered` (each sorted, so a binary search). */
  private refsUnder(answered: ReadonlySet<string>, prefix: string | undefined): (target: string, childOfParent: boolean) => number {
    const rank = this.files.pathRank();
    const order = importOrder(rank);
    const lists = [...answered].map((n) => this.memory.symbols.importersInOrder(n, rank)).filter((l) => l.length > 0);
    const seen = new Set<ImportRef>();
    const inAnswer = (r: ImportRef): boolean => {
      // Equal in importOrder is the very statement (file, then place in it).
      for (const l of lists) if (holds(l, r, order)) return true;
      return false;
    };
    return (target, childOfParent) => {
      let n = 0;
      for (const r of this.memory.symbols.importers(target)) {
        if (seen.has(r) || (prefix !== undefined && !this.files.get(r.fid)!.path.startsWith(prefix))) continue;
        seen.add(r);
        if (!childOfParent || !inAnswer(r)) n++;
      }
      return n;
    };
  }

  /** importsUnder's count of a target from the LMDB rows, while the symbol index is still being read. */
  private rowsUnder(answered: ReadonlySet<string>, prefix: string | undefined): (target: string, childOfParent: boolean) => number {
    const seen = new Set<string>();
    return (target) => {
      let n = 0;
      for (const fid of this.tables.targetFiles(target) ?? []) {
        if (!this.files.isLive(fid) || (prefix !== undefined && !this.files.get(fid)!.path.startsWith(prefix))) continue;
        this.memory.imports(fid).forEach((imp, seq) => {
          if (!imp.targets.includes(target) || seen.has(`${fid}:${seq}`)) return;
          seen.add(`${fid}:${seq}`);
          if (!imp.targets.some((t) => answered.has(t))) n++;
        });
      }
      return n;
    };
  }

  /** From the LMDB rows, while the symbol index is still being read: the files the `target` table names, in path order. */
  private importsFromRows(names: ReadonlySet<string>, prefix: string | undefined, w: Window): Hits<ImportSpan> {
    const fids = new Set<number>();
    for (const n of names) {
      for (const fid of this.tables.targetFiles(n) ?? this.files.matching((f) => f.nImports > 0)) if (this.files.isLive(fid)) fids.add(fid);
    }
    const hits: ImportSpan[] = [];
    let total = 0;
    for (const fid of this.files.sortByPath([...fids])) {
      if (prefix !== undefined && !this.files.get(fid)!.path.startsWith(prefix)) continue;
      const stmts = this.memory.imports(fid).map((imp, seq) => ({ imp, seq })).filter(({ imp }) => imp.targets.some((t) => names.has(t)));
      stmts.sort((a, b) => a.imp.start - b.imp.start || a.seq - b.seq);
      for (const { imp, seq } of stmts) {
        if (total >= w.offset && total < w.end) {
          hits.push({ fid, seq, start: imp.start, end: imp.end, reexport: isTsImport(imp.raw) && imp.raw.reexport === true });
        }
        total++;
      }
    }
    return { total, hits };
  }
}

/** Adds the statements `counted` finds under targets[from..to) to `under`. */
function countUnder(targets: readonly string[], children: readonly boolean[], from: number, to: number, counted: (t: string, childOfParent: boolean) => number, under: StatementsUnder): void {
  for (let i = from; i < to; i++) {
    const n = counted(targets[i], children[i]);
    if (n > 0) under.byTarget.push([targets[i], n]);
    under.total += n;
  }
}

/**
 * The first `k` of `xs` in the order `before`: a full sort when that is most
 * of them, else one pass keeping a short sorted list (a common name such as
 * `__init__` has thousands of definitions, a page is at most 200 past its offset).
 */
function* firstInOrder<T>(xs: readonly T[], k: number, before: (a: T, b: T) => boolean, due: Due): Generator<void, T[], void> {
  if (k * 4 >= xs.length) return (yield* sortInSlices([...xs], (a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0), due)).slice(0, k);
  const top: T[] = [];
  // The pass runs in plain calls of DUE_EVERY elements (a loop inside a generator runs slower), the clock read between them.
  for (let from = 0; from < xs.length; from += DUE_EVERY) {
    if (from > 0 && due()) yield;
    keepFirst(xs, from, Math.min(from + DUE_EVERY, xs.length), k, before, top);
  }
  return top;
}

/** Merges xs[from..to) into `top`, the first `k` in the order `before` kept sorted. */
function keepFirst<T>(xs: readonly T[], from: number, to: number, k: number, before: (a: T, b: T) => boolean, top: T[]): void {
  for (let i = from; i < to; i++) {
    const x = xs[i];
    if (top.length === k && !before(x, top[k - 1])) continue;
    let lo = 0, hi = top.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (before(x, top[mid])) hi = mid; else lo = mid + 1; }
    top.splice(lo, 0, x);
    if (top.length > k) top.pop();
  }
}

/**
 * The part of a list sorted by path whose paths start with `prefix` (all of
 * it when there is none): paths sharing a prefix are one run in path order,
 * found by two binary searches.
 */
function underPrefix<T>(list: readonly T[], pathOf: (x: T) => string, prefix: string | undefined): readonly T[] {
  if (prefix === undefined) return list;
  const from = firstWhere(list, 0, (x) => cmp(pathOf(x), prefix) >= 0);
  return list.slice(from, firstWhere(list, from, (x) => !pathOf(x).startsWith(prefix)));
}

/**
 * The union of sorted lists in order, each element once: a statement
 * with several targets among the names sits in several lists, and comes up
 * in them one after the other (equal in order means the same statement).
 */
function* mergeInOrder<T>(lists: ReadonlyArray<readonly T[]>, order: (a: T, b: T) => number): Generator<T, void, void> {
  const at = lists.map(() => 0);
  let last: T | undefined;
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i] < lists[i].length && (best < 0 || order(lists[i][at[i]], lists[best][at[best]]) < 0)) best = i;
    }
    if (best < 0) return;
    const x = lists[best][at[best]++];
    if (x !== last) yield x;
    last = x;
  }
}
