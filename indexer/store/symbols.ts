// In-memory lookup of definitions by name and of import statements by target,
// derived from the `defs` and `imports` tables (like the trigram postings: built
// after open, patched in the same synchronous step as every commit). It holds
// each definition's span, so find_symbol and find_importers cost one Map lookup
// plus the items they return — not a decode of every matching file's rows (a
// common name such as `__init__` lives in hundreds of files).
import { isTsImport, SYMBOL_KINDS, type Definition, type RawImport } from '../model.js';
import { ownString } from '../text.js';

const KINDS = SYMBOL_KINDS;

/**
 * One import statement. `seq`: position in the file's own list, the tie-break
 * that keeps file order among equal spans. `text`: the statement's lines as the
 * index holds them, set by Store.importText on first use (or by warm-up). A ref
 * never outlives its file's text: any new text of the file replaces its refs.
 */
export interface ImportRef { fid: number; seq: number; start: number; end: number; targets: readonly string[]; reexport: boolean; text?: string }

/** The definitions of one simple name; `key` is the one string instance kept for that name. */
interface NameEntry { key: string; slots: number[] }

interface FileRefs { defs: number[]; imports: ImportRef[] }

type DefIn = Pick<Definition, 'name' | 'qualname' | 'kind' | 'start' | 'end'>;
type ImportIn = { start: number; end: number; targets: readonly string[]; raw?: RawImport };

/** The in-memory form of a file's statements (a re-export, `export … from`, is marked: find_importers follows them). */
function refsOf(fid: number, imports: readonly ImportIn[]): ImportRef[] {
  return imports.map((i, seq) => ({
    fid, seq, start: i.start, end: i.end, targets: i.targets, reexport: i.raw !== undefined && isTsImport(i.raw) && i.raw.reexport === true,
  }));
}

/**
 * Definitions live in columns (typed arrays indexed by a slot number) and are
 * listed under their simple name only: a qualname `A.b` is found through `b`'s
 * list, then compared. A qualname equal to the name is not stored again. This
 * keeps the stdlib's ~200k definitions to a few tens of bytes each (an object
 * per definition with its own strings cost ~170 bytes).
 */
export class SymbolIndex {
  private readonly byName = new Map<string, NameEntry>();
  private readonly byTarget = new Map<string, ImportRef[]>();
  /** The path rank each importer list was last sorted for (importersInOrder); a list that changed since has none. */
  private readonly sortedFor = new WeakMap<ImportRef[], Int32Array>();
  private readonly files = new Map<number, FileRefs>();
  private cap = 0;
  private sFid = new Int32Array(0);
  private sStart = new Int32Array(0);
  private sEnd = new Int32Array(0);
  private sSeq = new Int32Array(0);
  private sKind = new Uint8Array(0);
  private sEntry: Array<NameEntry | undefined> = [];
  private sQual: Array<string | undefined> = [];
  private free: number[] = [];
  private used = 0;
  private lowered: { names: readonly string[]; lower: readonly string[] } | null = null;

  /** Whether the file's rows are in (the background build skips files a commit already added). */
  has(fid: number): boolean { return this.files.has(fid); }

  /** Adds a file's definitions and import statements (replacing what it had). */
  set(fid: number, defs: readonly DefIn[], imports: readonly ImportIn[]): void {
    this.delete(fid);
    const slots: number[] = [];
    defs.forEach((d, seq) => {
      const s = this.alloc();
      this.sFid[s] = fid; this.sStart[s] = d.start; this.sEnd[s] = d.end; this.sSeq[s] = seq;
      this.sKind[s] = KINDS.indexOf(d.kind);
      let e = this.byName.get(d.name);
      // Most names have one definition: start with an exact-size array (push on [] reserves 17 slots).
      if (!e) { e = { key: ownString(d.name), slots: [s] }; this.byName.set(e.key, e); this.lowered = null; } else e.slots.push(s);
      this.sEntry[s] = e;
      this.sQual[s] = d.qualname === d.name ? undefined : ownString(d.qualname);
      slots.push(s);
    });
    const refs: FileRefs = { defs: slots, imports: refsOf(fid, imports) };
    this.files.set(fid, refs);
    ownTargets(refs.imports);
    for (const i of refs.imports) for (const t of new Set(i.targets)) this.addImporter(t, i);
  }

  /** Replaces only a file's import statements (its package layout changed). */
  setImports(fid: number, imports: readonly ImportIn[]): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.dropImports(fid, refs);
    refs.imports = refsOf(fid, imports);
    ownTargets(refs.imports);
    for (const i of refs.imports) for (const t of new Set(i.targets)) this.addImporter(t, i);
  }

  delete(fid: number): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.files.delete(fid);
    const gone = new Set(refs.defs);
    const entries = new Set<NameEntry>();
    for (const s of refs.defs) entries.add(this.sEntry[s]!);
    for (const e of entries) {
      e.slots = e.slots.filter((s) => !gone.has(s));
      if (e.slots.length === 0) { this.byName.delete(e.key); this.lowered = null; }
    }
    for (const s of refs.defs) { this.sEntry[s] = undefined; this.sQual[s] = undefined; this.free.push(s); }
    this.dropImports(fid, refs);
  }

  private dropImports(fid: number, refs: FileRefs): void {
    const targets = new Set<string>();
    for (const i of refs.imports) for (const t of i.targets) targets.add(t);
    for (const t of targets) {
      const list = this.byTarget.get(t);
      if (!list) continue;
      const kept = list.filter((r) => r.fid !== fid);
      if (kept.length) this.byTarget.set(t, kept); else this.byTarget.delete(t);
    }
  }

  private addImporter(target: string, ref: ImportRef): void {
    const list = this.byTarget.get(target);
    if (!list) { this.byTarget.set(target, [ref]); return; }
    list.push(ref);
    this.sortedFor.delete(list);
  }

  private alloc(): number {
    const s = this.free.pop();
    if (s !== undefined) return s;
    if (this.used === this.cap) this.grow();
    return this.used++;
  }

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2);
    const g = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => { const b = make(cap); b.set(a); return b; };
    this.sFid = g(this.sFid, (n) => new Int32Array(n));
    this.sStart = g(this.sStart, (n) => new Int32Array(n));
    this.sEnd = g(this.sEnd, (n) => new Int32Array(n));
    this.sSeq = g(this.sSeq, (n) => new Int32Array(n));
    this.sKind = g(this.sKind, (n) => new Uint8Array(n));
    this.cap = cap;
  }

  /** Slots of the definitions whose simple name or qualname is `key` (any order). */
  defs(key: string): number[] {
    const dot = key.lastIndexOf('.');
    const e = this.byName.get(dot < 0 ? key : key.slice(dot + 1));
    // A dotless key matches every definition listed under it: its name is the key, and a dotless qualname is the name.
    if (dot < 0) return e ? e.slots : [];
    const byQual = e ? e.slots.filter((s) => this.sQual[s] === key) : [];
    // A name may hold dots itself (`declare module "lodash.debounce"`): such definitions are listed under the whole name.
    const named = this.byName.get(key);
    return named ? [...byQual, ...named.slots] : byQual;
  }
  /** Slots of the definitions whose qualname is exactly `qual` (a dotless one: top-level definitions of that name only). */
  defsWithQualname(qual: string): number[] {
    const dot = qual.lastIndexOf('.');
    const e = this.byName.get(dot < 0 ? qual : qual.slice(dot + 1));
    if (!e) return [];
    const stored = dot < 0 ? undefined : qual; // a qualname equal to the name is stored as undefined
    return e.slots.filter((s) => this.sQual[s] === stored);
  }
  fid(s: number): number { return this.sFid[s]; }
  start(s: number): number { return this.sStart[s]; }
  end(s: number): number { return this.sEnd[s]; }
  seq(s: number): number { return this.sSeq[s]; }
  kind(s: number): Definition['kind'] { return KINDS[this.sKind[s]]; }
  qualname(s: number): string { return this.sQual[s] ?? this.sEntry[s]!.key; }

  /** Import statements with `target` among their targets (any order). */
  importers(target: string): readonly ImportRef[] { return this.byTarget.get(target) ?? []; }

  /**
   * importers(target) in answer order: by `rank[fid]` (the store's path rank),
   * line, then file order. Sorted in place when first asked for a rank, then
   * kept until the list or the rank changes, so a module imported in thousands
   * of places is not re-sorted on every call.
   */
  importersInOrder(target: string, rank: Int32Array): readonly ImportRef[] {
    const list = this.byTarget.get(target);
    if (!list) return [];
    if (this.sortedFor.get(list) !== rank) {
      list.sort(importOrder(rank));
      this.sortedFor.set(list, rank);
    }
    return list;
  }

  /** The import statements of one file, in file order. */
  importsOf(fid: number): readonly ImportRef[] { return this.files.get(fid)?.imports ?? []; }

  /** Every simple name with a definition, and every imported module name (insertion order). */
  names(): IterableIterator<string> { return this.byName.keys(); }
  /**
   * names() and each one lowercased, at the same index: near-miss suggestions
   * compare every name, ignoring case, with a name that found nothing. Made
   * on first use and kept until a name comes or goes.
   */
  lowerNames(): { names: readonly string[]; lower: readonly string[] } {
    if (this.lowered === null) {
      const names = [...this.byName.keys()];
      this.lowered = { names, lower: names.map((n) => n.toLowerCase()) };
    }
    return this.lowered;
  }
  targets(): IterableIterator<string> { return this.byTarget.keys(); }
  get nameCount(): number { return this.byName.size; }
  get targetCount(): number { return this.byTarget.size; }

  clear(): void {
    this.byName.clear(); this.byTarget.clear(); this.files.clear(); this.lowered = null;
    this.cap = 0; this.used = 0; this.free = [];
    this.sFid = new Int32Array(0); this.sStart = new Int32Array(0); this.sEnd = new Int32Array(0);
    this.sSeq = new Int32Array(0); this.sKind = new Uint8Array(0); this.sEntry = []; this.sQual = [];
  }
}

/** Gives each statement its own copy of its targets (kept for the daemon's life; see ownString). */
function ownTargets(refs: ImportRef[]): void {
  for (const r of refs) r.targets = r.targets.map(ownString);
}

/** Answer order of import statements: path rank, first line, then position in the file's list. */
export function importOrder(rank: Int32Array): (a: ImportRef, b: ImportRef) => number {
  return (a, b) => rank[a.fid] - rank[b.fid] || a.start - b.start || a.seq - b.seq;
}
