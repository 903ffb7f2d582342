// The in-memory symbol index (indexer/store/symbols.ts) keeps definitions in
// columns and derives most qualnames from another definition's. Here it is put
// beside a plain model (every definition and statement in a list, each query
// answered by scanning it) on the standard library's real definitions and on
// hand-made odd ones, through a seeded run of adds, changes, import-only
// changes and removes (and fit(), which cuts the columns to the slots in use): after every step each query answers exactly as the
// model does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPython } from '../indexer/python/extract.js';
import { decodeText } from '../indexer/text.js';
import type { Definition } from '../indexer/model.js';
import { SymbolIndex } from '../indexer/store/symbols.js';
import { listPyFiles, stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';

type Imp = { start: number; end: number; targets: string[] };
interface FileIn { defs: Definition[]; imports: Imp[] }

/** The model: each live file's definitions and statements as given. */
class Model {
  readonly files = new Map<number, FileIn>();
  defs(): Array<{ fid: number; seq: number; d: Definition }> {
    return [...this.files].flatMap(([fid, f]) => f.defs.map((d, seq) => ({ fid, seq, d })));
  }
}

const last = (key: string): string => key.slice(key.lastIndexOf('.') + 1);
const slotKey = (sym: SymbolIndex, s: number): string => `${sym.fid(s)}:${sym.seq(s)}`;
const sorted = (xs: string[]): string[] => [...xs].sort();

/** Every query of the index against the model, for the given keys. */
function agree(sym: SymbolIndex, model: Model, keys: readonly string[], targets: readonly string[], step: string): void {
  const all = model.defs();
  for (const key of keys) {
    // find_symbol's rule: the simple name is the key, or the qualname is and ends in the name.
    const want = all.filter(({ d }) => d.name === key || (d.qualname === key && d.name === last(key))).map(({ fid, seq }) => `${fid}:${seq}`);
    assert.equal(sorted(sym.defs(key).map((s) => slotKey(sym, s))), sorted(want), `${step}: defs(${key})`);
    const wantQ = all.filter(({ d }) => d.qualname === key && d.name === last(key)).map(({ fid, seq }) => `${fid}:${seq}`);
    assert.equal(sorted(sym.defsWithQualname(key).map((s) => slotKey(sym, s))), sorted(wantQ), `${step}: defsWithQualname(${key})`);
    for (const s of sym.defs(key)) {
      const d = model.files.get(sym.fid(s))!.defs[sym.seq(s)];
      assert.equal([sym.qualname(s), sym.kind(s), sym.start(s), sym.end(s)], [d.qualname, d.kind, d.start, d.end], `${step}: slot of ${key}`);
    }
  }
  assert.equal(sorted([...sym.names()]), sorted([...new Set(all.map(({ d }) => d.name))]), `${step}: names`);
  assert.is(sym.nameCount, new Set(all.map(({ d }) => d.name)).size);
  const statements = [...model.files].flatMap(([fid, f]) => f.imports.map((imp, seq) => ({ fid, seq, imp })));
  assert.equal(sorted([...sym.targets()]), sorted([...new Set(statements.flatMap(({ imp }) => imp.targets))]), `${step}: targets`);
  const rank = new Int32Array(1000).map((_, i) => (i * 7919) % 1000);
  for (const t of targets) {
    const want = statements.filter(({ imp }) => imp.targets.includes(t))
      .sort((a, b) => rank[a.fid] - rank[b.fid] || a.imp.start - b.imp.start || a.seq - b.seq)
      .map(({ fid, seq, imp }) => [fid, seq, imp.start, imp.end]);
    assert.equal(sym.importersInOrder(t, rank).map((r) => [r.fid, r.seq, r.start, r.end]), want, `${step}: importers(${t})`);
  }
  for (const [fid, f] of model.files) {
    assert.equal(sym.importsOf(fid).map((r) => [r.seq, r.start, r.end]), f.imports.map((i, seq) => [seq, i.start, i.end]), `${step}: importsOf(${fid})`);
  }
}

/** A seeded generator (mulberry32): the same run every time. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const def = (name: string, qualname: string, start: number, kind: Definition['kind'] = 'function'): Definition => ({ name, qualname, kind, start, end: start + 1 });

/** Definitions whose qualnames cannot all be derived from an earlier one's: the fallbacks. */
const ODD: FileIn[] = [
  // The method comes before its class; a qualname that does not end in the name; a name holding dots; a repeated class.
  { defs: [def('m', 'A.m', 2), def('A', 'A', 1, 'class'), def('x', 'y', 5), def('lodash.debounce', 'lodash.debounce', 7), def('z', 'N.lodash.z', 8)],
    imports: [{ start: 1, end: 1, targets: ['os', 'os.path', 'os'] }] },
  { defs: [def('A', 'A', 1, 'class'), def('m', 'A.m', 2), def('A', 'A', 10, 'class'), def('m', 'A.m', 11), def('n', 'A.m.n', 12), def('n', 'n', 20)],
    imports: [{ start: 3, end: 4, targets: ['os'] }, { start: 3, end: 4, targets: ['sys'] }] },
  { defs: [def('B', 'A.B', 1, 'class'), def('m', 'A.B.m', 2), def('m', 'B.m', 3), def('debounce', 'lodash.debounce', 4)], imports: [] },
];
const ODD_KEYS = ['m', 'A.m', 'A', 'x', 'y', 'lodash.debounce', 'debounce', 'z', 'N.lodash.z', 'lodash.z', 'n', 'A.m.n', 'm.n', 'A.B.m', 'B.m', 'A.B', 'B', '.m', 'A..m', 'nothing', 'Q.m', 'AXm', 'A.BXm', 'A.m.n.', 'AXm.n', 'A.mXn'];

test('odd qualnames: stored or derived, every query answers as a plain scan does', () => {
  const sym = new SymbolIndex();
  const model = new Model();
  const put = (fid: number, f: FileIn) => { sym.set(fid, f.defs, f.imports); model.files.set(fid, f); };
  ODD.forEach((f, i) => put(i + 1, f));
  agree(sym, model, ODD_KEYS, ['os', 'os.path', 'sys'], 'added');
  put(2, ODD[0]);
  agree(sym, model, ODD_KEYS, ['os', 'os.path', 'sys'], 'file 2 changed');
  sym.setImports(1, ODD[1].imports); model.files.set(1, { defs: ODD[0].defs, imports: ODD[1].imports });
  agree(sym, model, ODD_KEYS, ['os', 'os.path', 'sys'], 'file 1 imports changed');
  sym.delete(1); model.files.delete(1);
  agree(sym, model, ODD_KEYS, ['os', 'os.path', 'sys'], 'file 1 removed');
  sym.delete(2); sym.delete(3); model.files.clear();
  agree(sym, model, ODD_KEYS, ['os', 'sys'], 'all removed');
  put(4, ODD[1]);
  agree(sym, model, ODD_KEYS, ['os', 'sys'], 're-added');
});

testUnless(lacks.python3())('the standard library\'s definitions through 400 seeded adds, changes and removes answer as a plain scan does', () => {
  const root = stdlibRoot();
  const paths = listPyFiles(root).sort().slice(0, 300);
  const inputs: FileIn[] = [];
  for (const p of paths) {
    const x = extractPython(decodeText(readFileSync(join(root, p))));
    inputs.push({ defs: x.defs, imports: x.imports.map((i) => ({ start: i.start, end: i.end, targets: i.module ? [i.module, ...i.names.map((n) => `${i.module}.${n}`)] : i.names })) });
  }
  inputs.push(...ODD);
  const sym = new SymbolIndex();
  const model = new Model();
  const rand = rng(31);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const fids = Array.from({ length: 200 }, (_, i) => i + 1);
  for (let step = 0; step < 400; step++) {
    const fid = pick(fids);
    const r = rand();
    if (r < 0.6) { const f = pick(inputs); sym.set(fid, f.defs, f.imports); model.files.set(fid, f); } else if (r < 0.75 && model.files.has(fid)) {
      const f = pick(inputs);
      sym.setImports(fid, f.imports); model.files.set(fid, { defs: model.files.get(fid)!.defs, imports: f.imports });
    } else { sym.delete(fid); model.files.delete(fid); }
    // As at warm-up's end: the columns cut to the slots in use, then grown again by the next adds.
    if (step % 100 === 45) sym.fit();
    if (step % 20 !== 19) continue;
    // Keys: names and qualnames present now and ones that were (and may be gone), plus dotted keys nothing has.
    const keys = new Set<string>(ODD_KEYS);
    for (let k = 0; k < 60; k++) {
      const f = pick(inputs);
      if (!f.defs.length) continue;
      const d = pick(f.defs);
      keys.add(d.name); keys.add(d.qualname); keys.add(`Nope.${d.name}`); keys.add(`${d.qualname}.${d.name}`);
    }
    const targets = new Set<string>();
    for (let k = 0; k < 30; k++) { const f = pick(inputs); if (f.imports.length) targets.add(pick(pick(f.imports).targets) ?? 'os'); }
    agree(sym, model, [...keys], [...targets], `step ${step}`);
  }
  assert.ok(model.files.size > 50, 'the run keeps a good number of files live');
});

test.run();
