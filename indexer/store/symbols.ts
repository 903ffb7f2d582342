// In-memory lookup of definitions by name and of import statements by target,
// derived from the `defs` and `imports` tables (like the trigram postings: built
// after open, patched in the same synchronous step as every commit). It holds
// each definition's span, so find_symbol and find_importers cost one Map lookup
// plus the items they return — not a decode of every matching file's rows (a
// common name such as `__init__` lives in hundreds of files).
import type { PyDef } from '../model.js';

/** `seq`: position in the file's own list, the tie-break that keeps file order among equal spans. */
export interface DefRef { fid: number; seq: number; start: number; end: number; kind: PyDef['kind']; qualname: string; name: string }
export interface ImportRef { fid: number; seq: number; start: number; end: number; targets: readonly string[] }

interface FileRefs { defs: DefRef[]; imports: ImportRef[] }

export class SymbolIndex {
  private readonly byName = new Map<string, DefRef[]>();
  private readonly byTarget = new Map<string, ImportRef[]>();
  private readonly files = new Map<number, FileRefs>();

  /** Whether the file's rows are in (the background build skips files a commit already added). */
  has(fid: number): boolean { return this.files.has(fid); }

  /** Adds a file's definitions and import statements (replacing what it had). */
  set(fid: number, defs: ReadonlyArray<Pick<PyDef, 'name' | 'qualname' | 'kind' | 'start' | 'end'>>, imports: ReadonlyArray<{ start: number; end: number; targets: readonly string[] }>): void {
    this.delete(fid);
    const refs: FileRefs = {
      defs: defs.map((d, seq) => ({ fid, seq, start: d.start, end: d.end, kind: d.kind, qualname: d.qualname, name: d.name })),
      imports: imports.map((i, seq) => ({ fid, seq, start: i.start, end: i.end, targets: i.targets })),
    };
    this.files.set(fid, refs);
    for (const d of refs.defs) {
      push(this.byName, d.name, d);
      if (d.qualname !== d.name) push(this.byName, d.qualname, d);
    }
    for (const i of refs.imports) for (const t of new Set(i.targets)) push(this.byTarget, t, i);
  }

  /** Replaces only a file's import statements (its package layout changed). */
  setImports(fid: number, imports: ReadonlyArray<{ start: number; end: number; targets: readonly string[] }>): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.set(fid, refs.defs, imports);
  }

  delete(fid: number): void {
    const refs = this.files.get(fid);
    if (!refs) return;
    this.files.delete(fid);
    const keys = new Set<string>();
    for (const d of refs.defs) { keys.add(d.name); keys.add(d.qualname); }
    for (const k of keys) drop(this.byName, k, fid);
    const targets = new Set<string>();
    for (const i of refs.imports) for (const t of i.targets) targets.add(t);
    for (const t of targets) drop(this.byTarget, t, fid);
  }

  /** Definitions whose simple name or qualname is `key` (any order). */
  defs(key: string): readonly DefRef[] { return this.byName.get(key) ?? []; }
  /** Import statements with `target` among their targets (any order). */
  importers(target: string): readonly ImportRef[] { return this.byTarget.get(target) ?? []; }

  clear(): void { this.byName.clear(); this.byTarget.clear(); this.files.clear(); }
}

function push<V>(map: Map<string, V[]>, key: string, v: V): void {
  const list = map.get(key);
  if (list) list.push(v); else map.set(key, [v]);
}

function drop<V extends { fid: number }>(map: Map<string, V[]>, key: string, fid: number): void {
  const list = map.get(key);
  if (!list) return;
  const kept = list.filter((r) => r.fid !== fid);
  if (kept.length) map.set(key, kept); else map.delete(key);
}
