// In-memory lookup of definitions by name and of import statements by target,
// derived from the `defs` and `imports` tables (like the trigram postings: built
// after open, patched in the same synchronous step as every commit). It holds
// each definition's span, so find_symbol and find_importers cost one Map lookup
// plus the items they return — not a decode of every matching file's rows (a
// common name such as `__init__` lives in hundreds of files).
import { isTsImport, SYMBOL_KINDS, type Definition, type RawImport } from '../model.js';
import { ownString } from '../text.js';
import type { Due } from './in-slices.js';
import { TargetOrder } from './target-order.js';

const KINDS = SYMBOL_KINDS;
/** End of a slot list. */
const NONE = -1;
/** sParent: the qualname is the name itself. */
const QUAL_IS_NAME = -1;
/** sParent: the qualname is kept as a string (oddQuals): it is not another definition's qualname, a dot, and the name. */
const QUAL_STORED = -2;

/**
 * One import statement. `seq`: position in the file's own list, the tie-break
 * that keeps file order among equal spans. `text`: the statement's lines as the
 * index holds them, set by Store.importText on first use (or by warm-up). A ref
 * never outlives its file's text: any new text of the file replaces its refs.
 */
export interface ImportRef { fid: number; seq: number; start: number; end: number; reexport: boolean; text?: string }

/** A file's import statements, and the targets they name (each once, as the one string kept per target). */
interface FileRefs { firstDef: number; imports: ImportRef[]; targets: string[] }

/** The statements importing one target; `key` is the one string instance kept for it. */
interface TargetEntry { key: string; refs: ImportRef[] }

type DefIn = Pick<Definition, 'name' | 'qualname' | 'kind' | 'start' | 'end'>;
type ImportIn = { start: number; end: number; targets: readonly string[]; raw?: RawImport };

/** The in-memory form of a file's statements (a re-export, `export … from`, is marked: find_importers follows them). */
function refsOf(fid: number, imports: readonly ImportIn[]): ImportRef[] {
  // `text` is in the literal so that setting it later does not give each ref a separate property store.
  return imports.map((i, seq) => ({
    fid, seq, start: i.start, end: i.end, reexport: i.raw !== undefined && isTsImport(i.raw) && i.raw.reexport === true, text: undefined,
  }));
}

/**
 * Definitions live in columns (typed arrays indexed by a slot number), with no
 * object or array per definition or per name: a name is a number (`byName`
 * gives it, `nameKeys` holds its one string), the definitions of a name are a
 * doubly linked list of slots (nameHead/nameTail, sNext/sPrev, in the order
 * they were added), those of a file a singly linked one (sFileNext). A
 * qualname is not stored when it can be derived: it is the name itself, or
 * an earlier definition's qualname in the same file, a dot and the name (a
 * method `A.b` points to its class `A`: sParent). Only the rest are kept as
 * strings (oddQuals). A qualname `A.b` is found through `b`'s list, then
 * compared piece by piece along the parents without building it.
 */
export class SymbolIndex {
  private readonly byName = new Map<string, number>();
  private nameKeys: Array<string | undefined> = [];
  private nameHead = new Int32Array(0);
  private nameTail = new Int32Array(0);
  private freeNames: number[] = [];
  private readonly byTarget = new Map<string, TargetEntry>();
  /** The Python targets in order, made on first use (find_importers' note on a module's submodules). */
  private readonly targetOrder = new TargetOrder(() => this.byTarget.keys(), (t) => this.byTarget.has(t));
  /** The path rank each importer list was last sorted for (importersInOrder); a list that changed since has none. */
  private readonly sortedFor = new WeakMap<ImportRef[], Int32Array>();
  private readonly files = new Map<number, FileRefs>();
  private cap = 0;
  private sFid = new Int32Array(0);
  private sStart = new Int32Array(0);
  private sEnd = new Int32Array(0);
  private sSeq = new Int32Array(0);
  private sKind = new Uint8Array(0);
  private sName = new Int32Array(0);
  private sNext = new Int32Array(0);
  private sPrev = new Int32Array(0);
  private sFileNext = new Int32Array(0);
  private sParent = new Int32Array(0);
  private readonly oddQuals = new Map<number, string>();
  private free: number[] = [];
  private used = 0;
  private lowered: { names: readonly string[]; lower: readonly string[] } | null = null;

  /** Whether the file's rows are in (the background build skips files a commit already added). */
  has(fid: number): boolean { return this.files.has(fid); }

  /** Adds a file's definitions and import statements (replacing what it had). */
  set(fid: number, defs: readonly DefIn[], imports: readonly ImportIn[]): void {
    this.delete(fid);
    // Qualname -> slot, for the definitions of this file so far: a later one's qualname is often one of them, a dot and its name.
    const quals = new Map<string, number>();
    let firstDef = NONE, last = NONE;
    defs.forEach((d, seq) => {
      const s = this.alloc();
      this.sFid[s] = fid; this.sStart[s] = d.start; this.sEnd[s] = d.end; this.sSeq[s] = seq;
      this.sKind[s] = KINDS.indexOf(d.kind);
      this.link(s, this.nameId(d.name));
      this.sParent[s] = this.parentOf(s, d, quals);
      if (!quals.has(d.qualname)) quals.set(d.qualname, s);
      this.sFileNext[s] = NONE;
      if (last === NONE) firstDef = s; else this.sFileNext[last] = s;
      last = s;
    });
    const imps = refsOf(fid, imports);
    this.files.set(fid, { firstDef, imports: imps, targets: this.addImporters(imports, imps) });
  }

  /** Replaces only a file's import statements (its package layout changed). */
  setImports(fid: number, imports: readonly ImportIn[]): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.dropImports(fid, refs);
    refs.imports = refsOf(fid, imports);
    refs.targets = this.addImporters(imports, refs.imports);
  }

  delete(fid: number): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.files.delete(fid);
    for (let s = refs.firstDef; s !== NONE; s = this.sFileNext[s]) {
      this.unlink(s);
      if (this.sParent[s] === QUAL_STORED) this.oddQuals.delete(s);
      this.free.push(s);
    }
    this.dropImports(fid, refs);
  }

  /** The id of a name, a new one if no definition has it. */
  private nameId(name: string): number {
    const id = this.byName.get(name);
    if (id !== undefined) return id;
    const n = this.freeNames.pop() ?? this.nameKeys.length;
    if (n >= this.nameHead.length) {
      const cap = Math.max(1024, Math.ceil(this.nameHead.length * 1.25));
      this.nameHead = resized(this.nameHead, cap); this.nameTail = resized(this.nameTail, cap);
    }
    const key = ownString(name);
    this.nameKeys[n] = key;
    this.nameHead[n] = NONE; this.nameTail[n] = NONE;
    this.byName.set(key, n);
    this.lowered = null;
    return n;
  }

  /** Appends slot s to its name's list. */
  private link(s: number, n: number): void {
    this.sName[s] = n;
    const tail = this.nameTail[n];
    this.sPrev[s] = tail; this.sNext[s] = NONE;
    if (tail === NONE) this.nameHead[n] = s; else this.sNext[tail] = s;
    this.nameTail[n] = s;
  }

  /** Takes slot s out of its name's list, and the name out of the index when that was its last definition. */
  private unlink(s: number): void {
    const n = this.sName[s], prev = this.sPrev[s], next = this.sNext[s];
    if (prev === NONE) this.nameHead[n] = next; else this.sNext[prev] = next;
    if (next === NONE) this.nameTail[n] = prev; else this.sPrev[next] = prev;
    if (this.nameHead[n] === NONE) {
      this.byName.delete(this.nameKeys[n]!);
      this.nameKeys[n] = undefined;
      this.freeNames.push(n);
      this.lowered = null;
    }
  }

  /** sParent of a new definition in slot s (its qualname kept in oddQuals when it cannot be derived). */
  private parentOf(s: number, d: DefIn, quals: ReadonlyMap<string, number>): number {
    if (d.qualname === d.name) return QUAL_IS_NAME;
    const cut = d.qualname.length - d.name.length - 1;
    if (cut > 0 && d.qualname.charCodeAt(cut) === 46 && d.qualname.endsWith(d.name)) {
      const parent = quals.get(d.qualname.slice(0, cut));
      if (parent !== undefined) return parent;
    }
    this.oddQuals.set(s, ownString(d.qualname));
    return QUAL_STORED;
  }

  /** The statements' targets, each listed once per file (as the index's one string for it), with the statements under them. */
  private addImporters(imports: readonly ImportIn[], refs: readonly ImportRef[]): string[] {
    const keys = new Map<string, string>();
    imports.forEach((imp, i) => {
      for (const t of new Set(imp.targets)) keys.set(t, this.addImporter(keys.get(t) ?? t, refs[i]));
    });
    return [...keys.values()];
  }

  /** Lists ref under target; returns the index's one string for the target. */
  private addImporter(target: string, ref: ImportRef): string {
    const e = this.byTarget.get(target);
    if (!e) {
      const key = ownString(target);
      this.byTarget.set(key, { key, refs: [ref] });
      this.targetOrder.added(key);
      return key;
    }
    e.refs.push(ref);
    this.sortedFor.delete(e.refs);
    return e.key;
  }

  private dropImports(fid: number, refs: FileRefs): void {
    for (const t of refs.targets) {
      const e = this.byTarget.get(t);
      if (!e) continue;
      const kept = e.refs.filter((r) => r.fid !== fid);
      if (kept.length) e.refs = kept;
      else { this.byTarget.delete(t); this.targetOrder.removed(t); }
    }
  }

  private alloc(): number {
    const s = this.free.pop();
    if (s !== undefined) return s;
    if (this.used === this.cap) this.grow();
    return this.used++;
  }

  private grow(): void {
    // By a quarter, not double: doubling could leave almost half of the ten columns unused for the daemon's life.
    this.resize(Math.max(1024, Math.ceil(this.cap * 1.25)));
  }

  /** Gives back the room past what is in use (warm-up's end: most of what the index will hold is in): the columns keep a 32nd more, arrays none. */
  fit(): void {
    const cap = Math.max(1024, this.used + (this.used >>> 5));
    if (cap + (cap >>> 4) < this.cap) this.resize(cap);
    const names = Math.max(1024, this.nameKeys.length + (this.nameKeys.length >>> 5));
    if (names + (names >>> 4) < this.nameHead.length) { this.nameHead = resized(this.nameHead, names); this.nameTail = resized(this.nameTail, names); }
    // Arrays grown by push keep room to grow by half again and 16 (importer lists: 2 MB of 3.9 on site-packages); slice() copies them to size.
    this.nameKeys = this.nameKeys.slice();
    for (const e of this.byTarget.values()) e.refs = e.refs.slice();
  }

  /** Re-lays the slot columns for `cap` slots (at least those in use). */
  private resize(cap: number): void {
    this.sFid = resized(this.sFid, cap); this.sStart = resized(this.sStart, cap); this.sEnd = resized(this.sEnd, cap);
    this.sSeq = resized(this.sSeq, cap); this.sKind = resized(this.sKind, cap);
    this.sName = resized(this.sName, cap); this.sNext = resized(this.sNext, cap); this.sPrev = resized(this.sPrev, cap);
    this.sFileNext = resized(this.sFileNext, cap); this.sParent = resized(this.sParent, cap);
    this.cap = cap;
  }

  /** Slots of the definitions listed under simple name `name`, in the order they were added. */
  private named(name: string): number[] {
    const n = this.byName.get(name);
    const out: number[] = [];
    if (n !== undefined) for (let s = this.nameHead[n]; s !== NONE; s = this.sNext[s]) out.push(s);
    return out;
  }

  /** Whether slot s's qualname is key.slice(0, end), compared along its parents without building it. */
  private qualIs(s: number, key: string, end: number): boolean {
    for (;;) {
      const p = this.sParent[s];
      if (p === QUAL_STORED) { const q = this.oddQuals.get(s)!; return q.length === end && key.startsWith(q); }
      const name = this.nameKeys[this.sName[s]]!;
      const at = end - name.length;
      if (at < 0 || !key.startsWith(name, at)) return false;
      if (p === QUAL_IS_NAME) return at === 0;
      if (at < 2 || key.charCodeAt(at - 1) !== 46) return false;
      s = p; end = at - 1;
    }
  }

  /** Slots of the definitions whose simple name or qualname is `key` (any order). */
  defs(key: string): number[] {
    const dot = key.lastIndexOf('.');
    // A dotless key matches every definition listed under it: its name is the key, and a dotless qualname is the name.
    if (dot < 0) return this.named(key);
    const byQual = this.named(key.slice(dot + 1)).filter((s) => this.sParent[s] !== QUAL_IS_NAME && this.qualIs(s, key, key.length));
    // A name may hold dots itself (`declare module "lodash.debounce"`): such definitions are listed under the whole name.
    return byQual.concat(this.named(key));
  }
  /** Slots of the definitions whose qualname is exactly `qual` (a dotless one: top-level definitions of that name only). */
  defsWithQualname(qual: string): number[] {
    const dot = qual.lastIndexOf('.');
    const slots = this.named(dot < 0 ? qual : qual.slice(dot + 1));
    // A qualname equal to the name is not kept apart from it: such a definition matches a dotless qual only.
    if (dot < 0) return slots.filter((s) => this.sParent[s] === QUAL_IS_NAME);
    return slots.filter((s) => this.sParent[s] !== QUAL_IS_NAME && this.qualIs(s, qual, qual.length));
  }
  fid(s: number): number { return this.sFid[s]; }
  start(s: number): number { return this.sStart[s]; }
  end(s: number): number { return this.sEnd[s]; }
  seq(s: number): number { return this.sSeq[s]; }
  kind(s: number): Definition['kind'] { return KINDS[this.sKind[s]]; }
  qualname(s: number): string {
    const p = this.sParent[s];
    const name = this.nameKeys[this.sName[s]]!;
    if (p === QUAL_IS_NAME) return name;
    if (p === QUAL_STORED) return this.oddQuals.get(s)!;
    return `${this.qualname(p)}.${name}`;
  }

  /** Import statements with `target` among their targets (any order). */
  importers(target: string): readonly ImportRef[] { return this.byTarget.get(target)?.refs ?? []; }

  /**
   * importers(target) in answer order: by `rank[fid]` (the store's path rank),
   * line, then file order. Sorted in place when first asked for a rank, then
   * kept until the list or the rank changes, so a module imported in thousands
   * of places is not re-sorted on every call.
   */
  importersInOrder(target: string, rank: Int32Array): readonly ImportRef[] {
    const list = this.byTarget.get(target)?.refs;
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
  /** The Python targets starting with `parent` and a `.`, in code-unit order (the first call sorts them all, in slices). */
  targetsUnder(parent: string, due: Due): Generator<void, string[], void> { return this.targetOrder.under(parent, due); }
  get nameCount(): number { return this.byName.size; }
  get targetCount(): number { return this.byTarget.size; }

  clear(): void {
    this.byName.clear(); this.byTarget.clear(); this.files.clear(); this.oddQuals.clear(); this.lowered = null; this.targetOrder.clear();
    this.nameKeys = []; this.freeNames = []; this.nameHead = new Int32Array(0); this.nameTail = new Int32Array(0);
    this.cap = 0; this.used = 0; this.free = [];
    for (const k of ['sFid', 'sStart', 'sEnd', 'sSeq', 'sName', 'sNext', 'sPrev', 'sFileNext', 'sParent'] as const) this[k] = new Int32Array(0);
    this.sKind = new Uint8Array(0);
  }
}

/** A copy of `a` with room for `cap` elements: its first `cap` ones, the rest zero. */
function resized<T extends Int32Array | Uint8Array>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a.length <= cap ? a : a.subarray(0, cap));
  return b;
}

/** Answer order of import statements: path rank, first line, then position in the file's list. */
export function importOrder(rank: Int32Array): (a: ImportRef, b: ImportRef) => number {
  return (a, b) => rank[a.fid] - rank[b.fid] || a.start - b.start || a.seq - b.seq;
}
