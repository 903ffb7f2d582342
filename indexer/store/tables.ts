// The LMDB environment of one index and its tables (layout in ./FORMAT.md):
// opening, the format-version check, the row codecs, the one write
// transaction and the row reads. The only module that imports lmdb, so the
// on-disk layout is read and written in one place; everything in memory is
// derived from what this module returns.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Definition, Lang, RawImport, Unresolved } from '../model.js';

/**
 * Bump whenever a table's key or value layout changes, or what rows hold under
 * the rules (FORMAT.md says what each version changed): an index of another
 * version is rebuilt from scratch.
 */
export const FORMAT_VERSION = 9;

/**
 * What a new LMDB environment's first writes need, with room to spare (its
 * meta pages and first transaction took 20 KB on a tmpfs). LMDB does not
 * survive running out of room in them: on a 2 MB tmpfs with 8-16 KB left,
 * the daemon died of SIGSEGV or SIGBUS with nothing in its log.
 */
const NEW_ENV_BYTES = 64 << 10;

/** Throws the disk's own ENOSPC, before LMDB is opened, when a new environment has no room for its first writes. */
function roomForNewEnv(dir: string): void {
  const probe = join(dir, 'room-check.tmp');
  try {
    writeFileSync(probe, Buffer.alloc(NEW_ENV_BYTES));
  } finally {
    rmSync(probe, { force: true });
  }
}

/** LMDB keys longer than this (UTF-8 bytes) are not stored in the lookup tables (LMDB's hard limit is 511). */
const MAX_KEY_BYTES = 400;

export type IndexState = 'empty' | 'building' | 'ready';

/**
 * An import statement with the targets it resolved to when written
 * (docs/tools.md, Python and TypeScript rules; FORMAT.md, `imports`).
 */
export interface ImportRec {
  start: number;
  end: number;
  targets: string[];
  raw: RawImport;
  /** A TypeScript/JavaScript statement that resolved nowhere in the repository: why. */
  why?: Unresolved;
}

/**
 * What a TypeScript/JavaScript file's resolution rested on (the `tsres`
 * table), so a later change re-resolves only the files it can affect.
 */
export interface TsResolution {
  /** The governing config ('' = the compiler's defaults). */
  cfg: string;
  /** Keys of the paths and folders whose existence the resolution asked about (a file's folder + name up to its first dot, or a folder). */
  probes: string[];
  /** Paths whose text it read (configs, package.json files). */
  reads: string[];
}

/** A file's TypeScript/JavaScript statements by outcome: [in the repository, external, missing, unreadable config]. */
export type ResolutionCounts = [repo: number, external: number, missing: number, config: number];

/** One file as a commit writes it. */
export interface FileWrite {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
  lines: number;
  text: Uint8Array;       // the file's bytes (decoded with decodeText when read)
  tri: Uint8Array;        // encoded trigram buckets (trigrams.ts)
  lang: Lang;
  defs: Definition[];
  imports: ImportRec[];
  mods: string[];
  /** For a TypeScript/JavaScript file: what its resolution rested on. */
  tsres?: TsResolution;
}

/**
 * A `files` row: path, size, mtime, hash, lines, is Python, is TypeScript or
 * JavaScript, module names, number of definitions and imports, and (TS/JS
 * only) its statements by resolution outcome.
 */
export interface FileRow { p: string; s: number; m: number; h: string; n: number; py: boolean; ts?: true; mods: string[]; nd: number; ni: number; tr?: ResolutionCounts }
type DefRow = [name: string, qualname: string, kind: Definition['kind'], start: number, end: number];

/** What `meta` holds besides the format version. */
export interface Meta { generation: number; state: IndexState; lastUpdate: string | null; nextFileId: number; pkgDirs: string[] }

/** The distinct `sym` keys of a file's definitions (simple names and qualnames): one put per key, not per definition. */
function symKeys(defs: ReadonlyArray<{ name: string; qualname: string }>): Set<string> {
  const keys = new Set<string>();
  for (const d of defs) {
    if (keyOk(d.name)) keys.add(d.name);
    if (keyOk(d.qualname)) keys.add(d.qualname);
  }
  return keys;
}

function keyOk(key: string): boolean {
  return key.length > 0 && Buffer.byteLength(key) <= MAX_KEY_BYTES;
}

function decodeDefs(rows: readonly DefRow[]): Definition[] {
  return rows.map(([name, qualname, kind, start, end]) => ({ name, qualname, kind, start, end }));
}

/** Where ResolutionCounts counts the statements of each reason (index 0: those resolved in the repository). */
export const UNRESOLVED_AT = { external: 1, missing: 2, config: 3 } as const satisfies Record<Unresolved, 1 | 2 | 3>;

/** A TypeScript/JavaScript file's statements by outcome (a statement resolved in the repository has a `./` target). */
export function resolutionCounts(imports: readonly ImportRec[]): ResolutionCounts {
  const c: ResolutionCounts = [0, 0, 0, 0];
  for (const i of imports) c[i.why ? UNRESOLVED_AT[i.why] : 0]++;
  return c;
}

/** The data file's pages as the room check counts them (Tables.pages, commit-room.ts). */
export interface FileCounts {
  /** Pages no tree holds, less what dupSort sub-trees may hold; 0 while a reader holds an older snapshot. */
  free: number;
  /** Pages of the data file. */
  file: number;
  /** Pages the trees hold, sub-trees' bound included: a commit copies no more of them than there are. */
  used: number;
  /** Pages of the lookup tables (sym, target), sub-trees' bound included: what removing a file's old keys may copy. */
  keyed: number;
}

export class Tables {
  private env: RootDatabase;
  private meta: Database<any, string>;
  private filesDb: Database<FileRow, number>;
  private textDb: Database<Buffer, number>;
  private triDb: Database<Buffer, number>;
  private skipDb: Database<[number, number], string>;
  private defsDb: Database<DefRow[], number>;
  private impsDb: Database<ImportRec[], number>;
  private symDb: Database<number, string>;
  private targetDb: Database<number, string>;
  private tsresDb: Database<TsResolution, number>;

  private constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'data.mdb'))) roomForNewEnv(dir);
    // noMetaSync: one flush per commit instead of two (data, then the meta page).
    // Still atomic and consistent; a system crash (not a process crash) may undo
    // the last commit, which the next start's catch-up re-parses from the tree
    // like any other change (docs/design.md, "Why LMDB"). Halves a save's commit.
    this.env = open({ path: dir, maxDbs: 16, noMetaSync: true });
    this.meta = this.env.openDB({ name: 'meta', encoding: 'msgpack' });
    this.filesDb = this.env.openDB({ name: 'files', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.textDb = this.env.openDB({ name: 'text', keyEncoding: 'uint32', encoding: 'binary', compression: true });
    this.triDb = this.env.openDB({ name: 'tri', keyEncoding: 'uint32', encoding: 'binary' });
    this.skipDb = this.env.openDB({ name: 'skip', encoding: 'msgpack' });
    this.defsDb = this.env.openDB({ name: 'defs', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.impsDb = this.env.openDB({ name: 'imports', keyEncoding: 'uint32', encoding: 'msgpack' });
    this.symDb = this.env.openDB({ name: 'sym', dupSort: true, encoding: 'ordered-binary' });
    this.targetDb = this.env.openDB({ name: 'target', dupSort: true, encoding: 'ordered-binary' });
    this.tsresDb = this.env.openDB({ name: 'tsres', keyEncoding: 'uint32', encoding: 'msgpack' });
  }

  /**
   * Opens (or creates) the tables in `dir`. An index written by another format
   * version — or one that predates versioning — is deleted and started afresh:
   * it is derived data, the next refresh rebuilds it.
   */
  static async open(dir: string): Promise<Tables> {
    let t = new Tables(dir);
    const version = t.meta.get('formatVersion');
    if (version !== FORMAT_VERSION) {
      const empty = version === undefined && t.filesDb.getKeysCount() === 0;
      if (!empty) {
        await t.env.close();
        rmSync(dir, { recursive: true, force: true });
        t = new Tables(dir);
      }
      t.env.transactionSync(() => {
        t.meta.putSync('formatVersion', FORMAT_VERSION);
        t.meta.putSync('generation', 0);
        t.meta.putSync('state', 'empty');
        t.meta.putSync('nextFileId', 1);
        t.meta.putSync('pkgDirs', []);
      });
    }
    return t;
  }

  close(): Promise<void> { return this.env.close(); }

  // ---------------------------------------------------------------- reading

  readMeta(): Meta {
    return {
      generation: this.meta.get('generation') ?? 0,
      state: this.meta.get('state') ?? 'empty',
      lastUpdate: this.meta.get('lastUpdate') ?? null,
      nextFileId: this.meta.get('nextFileId') ?? 1,
      pkgDirs: this.meta.get('pkgDirs') ?? [],
    };
  }

  *fileRows(): Generator<[number, FileRow]> {
    for (const { key, value } of this.filesDb.getRange()) yield [key, value];
  }

  *skipRows(): Generator<[path: string, size: number, mtimeMs: number]> {
    for (const { key, value } of this.skipDb.getRange()) yield [key, value[0], value[1]];
  }

  /** Every file's encoded trigram buckets, for the files `keep` accepts. */
  triRows(keep: (fid: number) => boolean): Array<[number, Uint8Array]> {
    return this.triRowsFrom(0, Infinity).filter(([fid]) => keep(fid));
  }

  /** Every file's encoded trigram buckets from file id `from` on, ascending, at most `limit` files (a rebuild in slices reads them a part at a time). */
  triRowsFrom(from: number, limit: number): Array<[number, Uint8Array]> {
    const lists: Array<[number, Uint8Array]> = [];
    for (const { key, value } of this.triDb.getRange(Number.isFinite(limit) ? { start: from, limit } : { start: from })) lists.push([key, value]);
    return lists;
  }

  /** The file's bytes as indexed. */
  text(fid: number): Buffer | undefined { return this.textDb.getBinary(fid); }

  /** The file's encoded trigram buckets. */
  tri(fid: number): Buffer | undefined { return this.triDb.getBinary(fid); }

  /** The file's definitions, decoded (a new array each call). */
  defs(fid: number): Definition[] { return decodeDefs(this.defsDb.get(fid) ?? []); }

  /** The file's import statements as stored ([] for a file of neither language). */
  imports(fid: number): ImportRec[] { return this.impsDb.get(fid) ?? []; }

  /** A TypeScript/JavaScript file's resolution record. */
  tsResolution(fid: number): TsResolution | undefined { return this.tsresDb.get(fid); }

  /** Every TypeScript/JavaScript file's resolution record. */
  *tsResolutions(): Generator<[number, TsResolution]> {
    for (const { key, value } of this.tsresDb.getRange()) yield [key, value];
  }

  /** Files defining something whose name or qualname is `name`; null when the key is too long for the table (the caller then scans). */
  /** Every name and qualname the `sym` table lists, once each, in key order. */
  *symbolKeys(): Generator<string> { for (const k of this.symDb.getKeys()) yield k as string; }
  symbolFiles(name: string): number[] | null { return keyOk(name) ? [...this.symDb.getValues(name)] : null; }
  /** Files with an import statement that has `target` among its targets; null when the key is too long for the table. */
  targetFiles(target: string): number[] | null { return keyOk(target) ? [...this.targetDb.getValues(target)] : null; }
  /** Every target the `target` table lists, once each, in key order. */
  *targetKeys(): Generator<string> { for (const k of this.targetDb.getKeys()) yield k as string; }
  /**
   * The targets starting with `parent` and a `.`, once each, in key order (a
   * range of the table's sorted keys: `.` is followed by `/`, so they are the
   * keys from `parent.` up to `parent/`). A target too long for the table is not among them.
   */
  targetsUnder(parent: string): string[] {
    return keyOk(`${parent}/`) ? [...this.targetDb.getKeys({ start: `${parent}.`, end: `${parent}/` })] as string[] : [];
  }

  // ---------------------------------------------------------------- writing

  /** The data file's page size (LMDB's root stats only, none of the tables'). */
  get pageSize(): number {
    return (this.env.getStats() as { pageSize: number }).pageSize;
  }

  /**
   * The data file's pages for the room check (commit-room.ts, FileCounts):
   * its size, the pages its trees hold (every table, the main table, the
   * freelist's tree, the two meta pages) and the rest, free. A dupSort
   * table's sub-trees (a name defined in a few hundred files) are not in
   * LMDB's counts of it: they are bounded by the table's values, 128 bytes
   * each (a value is under 20 on a leaf page at least half full, and a
   * sub-tree holds a hundred or more), and counted as held. With a reader
   * open on an older snapshot, none are free: LMDB keeps the pages freed
   * since it, and which those are is not known outside LMDB.
   */
  pages(): FileCounts {
    type Counts = { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number; entryCount: number };
    const pagesOf = (c: Counts): number => c.treeBranchPageCount + c.treeLeafPageCount + c.overflowPages;
    const root = this.env.getStats() as Counts & { lastPageNumber: number; lastTxnId: number; free: Counts };
    let used = 2 + pagesOf(root) + pagesOf(root.free);
    for (const db of [this.meta, this.filesDb, this.textDb, this.triDb, this.skipDb, this.defsDb, this.impsDb, this.tsresDb]) {
      used += pagesOf(db.getStats() as Counts);
    }
    let keyed = 0;
    for (const db of [this.symDb, this.targetDb]) {
      const c = db.getStats() as Counts;
      keyed += pagesOf(c) + Math.ceil((c.entryCount * 128) / root.pageSize);
    }
    used += keyed;
    const file = root.lastPageNumber + 1;
    const free = oldestReader(this.env.readerList()) < root.lastTxnId ? 0 : Math.max(0, file - used);
    return { free, file, used, keyed };
  }

  /** Runs `fn` as one write transaction: everything it writes lands together, or (if it throws) nothing does. */
  transaction(fn: () => void): void { this.env.transactionSync(fn); }

  // The writes below run inside transaction().

  /** Writes a file's rows and lookup keys under `fid`, replacing the stored version (if `replacing`) and its keys. Returns the `files` row. */
  putFile(fid: number, f: FileWrite, replacing: boolean): FileRow {
    if (replacing) this.unlinkKeys(fid);
    const row: FileRow = {
      p: f.path, s: f.size, m: f.mtimeMs, h: f.hash, n: f.lines, py: f.lang === 'py', mods: f.lang === 'py' ? f.mods : [],
      nd: f.defs.length, ni: f.imports.length,
    };
    if (f.lang === 'ts') { row.ts = true; row.tr = resolutionCounts(f.imports); }
    this.filesDb.putSync(fid, row);
    this.textDb.putSync(fid, f.text as Buffer);
    this.triDb.putSync(fid, f.tri as Buffer);
    if (f.lang !== null) {
      this.defsDb.putSync(fid, f.defs.map((d): DefRow => [d.name, d.qualname, d.kind, d.start, d.end]));
      this.impsDb.putSync(fid, f.imports);
    } else {
      this.defsDb.removeSync(fid); this.impsDb.removeSync(fid);
    }
    if (f.tsres) this.tsresDb.putSync(fid, f.tsres); else this.tsresDb.removeSync(fid);
    this.linkKeys(fid, f.defs, f.imports);
    return row;
  }

  /** Records a new stat for unchanged content; false when the file has no row. */
  touchFile(fid: number, size: number, mtimeMs: number): boolean {
    const row = this.filesDb.get(fid);
    if (!row) return false;
    row.s = size; row.m = mtimeMs;
    this.filesDb.putSync(fid, row);
    return true;
  }

  /** Removes every row and lookup key of a file. */
  removeFile(fid: number): void {
    this.unlinkKeys(fid);
    for (const db of [this.filesDb, this.textDb, this.triDb, this.defsDb, this.impsDb, this.tsresDb]) db.removeSync(fid);
  }

  /**
   * Rewrites a file's import targets (and a Python file's module names, a
   * TypeScript file's resolution record) when what they were resolved under
   * changed; returns the new row, or null when the file has no row.
   */
  resolveFile(fid: number, mods: string[], imports: ImportRec[], tsres?: TsResolution): FileRow | null {
    const row = this.filesDb.get(fid);
    if (!row) return null;
    this.unlinkKeys(fid, true);
    if (row.py) row.mods = mods;
    if (row.ts) row.tr = resolutionCounts(imports);
    this.filesDb.putSync(fid, row);
    this.impsDb.putSync(fid, imports);
    if (tsres) this.tsresDb.putSync(fid, tsres);
    this.linkKeys(fid, [], imports);
    return row;
  }

  putSkip(path: string, size: number, mtimeMs: number): void { this.skipDb.putSync(path, [size, mtimeMs]); }
  removeSkip(path: string): void { this.skipDb.removeSync(path); }

  /** Writes the given `meta` entries (those absent stay as they are). */
  putMeta(m: Partial<Meta>): void {
    for (const [k, v] of Object.entries(m)) if (v !== undefined) this.meta.putSync(k, v);
  }

  /** Adds the lookup-table entries of a file (sym: names and qualnames; target). Module names are looked up in memory (FileTable). */
  private linkKeys(fid: number, defs: Definition[], imports: ImportRec[]): void {
    for (const k of symKeys(defs)) this.symDb.putSync(k, fid);
    for (const imp of imports) for (const t of imp.targets) if (keyOk(t)) this.targetDb.putSync(t, fid);
  }

  /** Removes what linkKeys added for the stored version of a file (reads the old rows inside the transaction). */
  private unlinkKeys(fid: number, keepDefs = false): void {
    if (!keepDefs) {
      const defs = (this.defsDb.get(fid) ?? []).map(([name, qualname]) => ({ name, qualname }));
      for (const k of symKeys(defs)) this.symDb.removeSync(k, fid);
    }
    for (const imp of this.impsDb.get(fid) ?? []) for (const t of imp.targets) if (keyOk(t)) this.targetDb.removeSync(t, fid);
  }

  /**
   * Every row, lookup entry and skip record, keyed by path instead of file id
   * (ids differ between two builds of the same tree), for `files` in the order
   * given. For tests that compare an updated index with a fresh one.
   */
  dump(files: ReadonlyArray<{ fid: number; path: string; size: number; hash: string; lines: number; py: boolean; mods: string[] }>, pathOf: (fid: number) => string): {
    files: unknown[]; sym: string[]; target: string[]; skip: string[]; rows: Record<string, string[]>;
  } {
    const table = (db: Database<number, string>): string[] => {
      const out: string[] = [];
      for (const { key, value } of db.getRange()) out.push(`${String(key)} -> ${pathOf(value)}`);
      return out.sort();
    };
    const rowsOf = (db: Database<any, number>): string[] => [...db.getKeys()].map((fid) => pathOf(fid as number)).sort();
    return {
      files: files.map((f) => ({
        path: f.path, size: f.size, hash: f.hash, lines: f.lines, py: f.py, mods: f.mods,
        defs: this.defsDb.get(f.fid) ?? null,
        imports: (this.impsDb.get(f.fid) ?? []).map((i) => (i.why ? [i.start, i.end, i.targets, i.why] : [i.start, i.end, i.targets])),
        text: (this.textDb.getBinary(f.fid) ?? Buffer.alloc(0)).toString('base64').length,
        tri: Buffer.from(this.triDb.getBinary(f.fid) ?? []).toString('base64'),
      })),
      sym: table(this.symDb), target: table(this.targetDb),
      skip: [...this.skipDb.getRange()].map(({ key, value }) => `${String(key)} ${value[0]}`).sort(),
      rows: {
        files: rowsOf(this.filesDb), text: rowsOf(this.textDb), tri: rowsOf(this.triDb), defs: rowsOf(this.defsDb), imports: rowsOf(this.impsDb),
        tsres: [...this.tsresDb.getRange()].map(({ key, value }) => `${pathOf(key)} ${JSON.stringify(value)}`).sort(),
      },
    };
  }
}

/**
 * The oldest snapshot a reader holds open, from LMDB's reader table as
 * `readerList()` prints it (a header, then `pid thread txnid` a row, `-` for a
 * slot whose transaction is reset); Infinity when none is open.
 */
export function oldestReader(list: string): number {
  let oldest = Infinity;
  for (const row of list.split('\n')) {
    const txn = row.trim().split(/\s+/)[2];
    if (txn !== undefined && /^\d+$/.test(txn)) oldest = Math.min(oldest, Number(txn));
  }
  return oldest;
}
