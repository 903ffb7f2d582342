// The store on its own terms: a commit is all or nothing (LMDB and memory),
// generations rise and persist, incremental postings patches keep search exact
// after many edits, and a query racing an update sees it wholly or not at all
// (a large one written in several transactions too).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import type { ToolCall } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { mulberry32 } from './helpers/random.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';
import { runPyOracle } from './helpers/corpus.js';
import { cmp } from '../indexer/store/path-order.js';
import { lacks, testUnless } from './helpers/skip.js';
import { PART_OPS } from '../indexer/store/commit-parts.js';

const tmp = tempDir('store');
let n = 0;

const WORDS = ['alpha', 'beta', 'Gamma', 'delta', 'ÉCOLE', 'straße', 'ΑΣ', 'def', 'class', 'import os', 'return', '\t', '  ', 'x = 1', '😀', 'naïve'];

function randomText(rnd: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(rnd() * 30);
  for (let i = 0; i < count; i++) {
    const k = Math.floor(rnd() * 6);
    lines.push(Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(rnd() < 0.5 ? ' ' : ''));
  }
  return lines.join(rnd() < 0.2 ? '\r\n' : '\n') + (rnd() < 0.7 ? '\n' : '');
}

async function search(idx: EvidexIndex, query: string, cs: boolean): Promise<unknown> {
  const r = await idx.runTool('search_code', { query, case_sensitive: cs, limit: 200 });
  assertEvidenceChecks(idx.root, r.evidence);
  return { total: r.total, evidence: r.evidence };
}

test('a failing commit changes nothing, in LMDB or in memory', async () => {
  const root = tempDir('store-repo');
  writeFileSync(join(root, 'a.txt'), 'hello\n');
  const sd = join(tmp, `state-${n++}`);
  let idx = await openEvidexIndex(root, { stateDir: sd });
  await idx.refresh();
  const before = idx.store.dump();
  const gen = idx.status().generation;
  const good = { path: 'b.txt', size: 3, mtimeMs: 1, hash: 'x', lines: 1, text: Buffer.from('new'), tri: new Uint8Array(0), lang: null as null, defs: [], imports: [], mods: [] };
  // The second op is malformed (no text buffer): LMDB throws inside the transaction.
  const bad = { ...good, path: 'c.txt', text: undefined as unknown as Uint8Array };
  assert.throws(() => idx.store.commit([{ op: 'put', file: good }, { op: 'put', file: bad }]));
  assert.is(idx.status().generation, gen);
  assert.is(idx.store.fileByPath('b.txt'), undefined, 'memory untouched');
  assert.equal(idx.store.dump(), before);
  await idx.close();
  idx = await openEvidexIndex(root, { stateDir: sd });
  assert.equal(idx.store.dump(), before, 'LMDB untouched');
  assert.is(idx.status().generation, gen, 'generation persisted');
  await idx.close();
});

/**
 * find_importers from the in-memory symbol index (whose statement texts and
 * sorted lists are kept between calls) and from the LMDB rows of the same
 * index: the same items, each checkable against the file on disk.
 */
async function importersBothWays(idx: EvidexIndex, module_name: string): Promise<number> {
  const call = { name: 'find_importers', args: { module_name } } as ToolCall;
  assert.ok(idx.store.symbolsReady);
  const mem = await idx.runTool(call.name, call.args);
  idx.store.symbolsReady = false; // the rows path
  let rows;
  try { rows = await idx.runTool(call.name, call.args); } finally { idx.store.symbolsReady = true; }
  assertEvidenceChecks(idx.root, mem.evidence);
  assert.equal(mem.evidence, rows.evidence, `find_importers ${module_name}: memory and rows agree`);
  return mem.total;
}

test('after many random incremental edits, search answers equal a fresh index (postings patches stay exact)', async () => {
  const rnd = mulberry32(99);
  const root = tempDir('store-repo');
  // A package marker among them: creating or deleting it re-resolves d1's imports.
  const names = [...Array.from({ length: 12 }, (_, i) => `d${i % 3}/f${i}.${i % 2 ? 'py' : 'txt'}`), 'd1/__init__.py'];
  for (const d of ['d0', 'd1', 'd2']) mkdirSync(join(root, d));
  for (const p of names) writeFileSync(join(root, p), randomText(rnd));
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, `state-${n++}`) });
  await idx.refresh();
  await idx.warm();
  let imported = 0;
  for (let round = 0; round < 40; round++) {
    const touched = names.filter(() => rnd() < 0.25);
    for (const p of touched) {
      if (rnd() < 0.15) rmSync(join(root, p), { force: true });
      else writeFileSync(join(root, p), randomText(rnd));
    }
    await idx.update(touched);
    // Asked between edits, so answers kept from the last round must follow the
    // files: moved lines, new and re-added files (new path ranks), removals.
    imported += await importersBothWays(idx, 'os');
  }
  assert.ok(imported > 40, `import statements were found (${imported})`);
  const fresh = await openEvidexIndex(root, { stateDir: join(tmp, `state-${n++}`) });
  await fresh.refresh();
  for (const w of [...WORDS, 'alp', 'ha b', 'ss', 'SS', 'σ', 'ας', 'ret', 'ÉCO', 'éco', 'f1', 'd0/', 'zzz']) {
    for (const cs of [false, true]) {
      assert.equal(await search(idx, w, cs), await search(fresh, w, cs), `search ${JSON.stringify(w)} cs=${cs}`);
    }
  }
  // Symbols and importers: the in-memory index, patched by every commit above,
  // against the same answers read from the LMDB rows of a fresh index.
  await idx.warm();
  assert.ok(idx.store.symbolsReady, 'warm-up completes the symbol index');
  fresh.store.symbolsReady = false; // force the rows path
  const symCalls: ToolCall[] = ['x', 'os', 'alpha', 'Gamma', 'nothing'].flatMap((name) => [
    { name: 'find_symbol', args: { name, limit: 200 } },
    { name: 'find_symbol', args: { name, kind: 'variable', limit: 1 } },
    { name: 'find_importers', args: { module_name: name } },
  ] as ToolCall[]);
  let found = 0;
  for (const c of symCalls) {
    const a = await idx.runTool(c.name, c.args);
    const b = await fresh.runTool(c.name, c.args);
    assertEvidenceChecks(idx.root, a.evidence);
    assert.equal({ t: a.total, e: a.evidence }, { t: b.total, e: b.evidence }, JSON.stringify(c));
    found += a.total;
  }
  assert.ok(found > 0, 'some definitions and imports were found');
  await fresh.close();
  await idx.close();
});

/** Every page of a list tool's answer, `size` items at a time: the answer as a caller reads it. */
async function pagesOf(idx: EvidexIndex, call: (offset: number) => ToolCall, size: number): Promise<{ total: number; items: string[] }> {
  const items: string[] = [];
  for (let offset = 0; ; offset += size) {
    const c = call(offset);
    const r = await idx.runTool(c.name, c.args);
    assertEvidenceChecks(idx.root, r.evidence);
    items.push(...r.evidence.map((e) => `${e.path}:${e.start_line}-${e.end_line} ${e.kind} ${e.name}`));
    if (r.evidence.length < size) return { total: r.total, items };
  }
}

testUnless(lacks.python3())('names and import targets too long for the LMDB lookup tables are found, warm and cold, page by page, as Python\'s ast says', async () => {
  // 210 "é" are 420 UTF-8 bytes: past the lookup tables' 400-byte keys, within the schemas' 500 and 1000 characters.
  const long = 'é'.repeat(210);
  const mod = `${long}.sub`;
  const root = tempDir('store-repo');
  write(root, {
    'a.py': `def ${long}():\n    pass\n\n${long} = 1\nimport ${mod}\n`,
    'b.py': `import os\nclass K:\n    def ${long}(self):\n        import ${mod} as m, os\n    ${long}: int = 2\n`,
    'c/d.py': `from ${mod} import x, ${long}\ndef other():\n    from ${long} import y\n`,
    'c/e.py': 'def short():\n    pass\n',
  });
  const files = ['a.py', 'b.py', 'c/d.py', 'c/e.py'];
  const oracle = runPyOracle(root, files);
  assert.ok(oracle.every((f) => f.ok), 'the oracle parses every file');
  const byLine = (a: string, b: string): number => {
    const [pa, ra] = a.split(':'), [pb, rb] = b.split(':');
    return cmp(pa, pb) || parseInt(ra, 10) - parseInt(rb, 10) || (a < b ? -1 : a > b ? 1 : 0);
  };
  // The words of docs/tools.md over the oracle's rows: simple name, qualname, or M.Q with M a module name of the file.
  const symbolAnswer = (name: string): string[] => oracle.flatMap((f) => f.defs
    .filter((d) => d.name === name || d.qualname === name || f.modules.some((m) => name === `${m}.${d.qualname}`))
    .map((d) => `${f.path}:${d.start}-${d.end} ${d.kind} ${d.qualname}`)).sort(byLine);
  const importersAnswer = (target: string): string[] => oracle.flatMap((f) => f.imports
    .filter((i) => i.targets.includes(target))
    .map((i) => `${f.path}:${i.start}-${i.end} import ${target}`)).sort(byLine);

  const idx = await openEvidexIndex(root, { stateDir: join(tmp, `state-${n++}`) });
  await idx.refresh();
  await idx.warm();
  let found = 0;
  for (const ready of [true, false]) {
    idx.store.symbolsReady = ready; // false: the rows path, which must scan the files for these keys
    try {
      for (const name of [long, `K.${long}`, `a.${long}`, `b.K.${long}`]) {
        const want = symbolAnswer(name);
        for (const size of [1, 2, 200]) {
          const got = await pagesOf(idx, (offset) => ({ name: 'find_symbol', args: { name, offset, limit: size } }), size);
          assert.equal(got, { total: want.length, items: want }, `find_symbol ${name.slice(-12)} pages of ${size} (symbol index: ${ready})`);
        }
        found += want.length;
      }
      for (const target of [mod, `${mod}.${long}`, long, `${long}.y`]) {
        const want = importersAnswer(target);
        for (const size of [1, 200]) {
          const got = await pagesOf(idx, (offset) => ({ name: 'find_importers', args: { module_name: target, offset, limit: size } }), size);
          assert.equal(got, { total: want.length, items: want }, `find_importers ${target.slice(-12)} pages of ${size} (symbol index: ${ready})`);
        }
        found += want.length;
      }
    } finally {
      idx.store.symbolsReady = true;
    }
  }
  assert.ok(found >= 2 * 12, `definitions and statements were found (${found})`);
  await idx.close();
});

test('filesUnder(dir) is exactly the indexed files below dir, in path order, for names that sort around "/"', async () => {
  const root = tempDir('store-repo');
  // Names that sort just before and after "a/" (- . 0), a prefix that is not a folder (ab), astral and BMP-high characters.
  const names = ['a!', 'a-b/x', 'a.py', 'a/b/c', 'a/b0', 'a/😀/d', 'a/\uffff', 'a0/z', 'ab/y', 'b/a/q', '😀/a', '\uffff/a'];
  write(root, Object.fromEntries(names.map((f) => [f, `${f}\n`])));
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, `state-${n++}`) });
  await idx.refresh();
  const all = idx.store.ordered().map((f) => f.path);
  assert.equal([...all].sort(), [...names].sort(), 'all indexed');
  for (const dir of ['', 'a', 'a/b', 'a/😀', 'b', 'b/a', '😀', '\uffff', 'a-b', 'ab', 'zz', 'a/b/c']) {
    const want = all.filter((p) => dir === '' || p.startsWith(`${dir}/`));
    assert.equal(idx.store.filesUnder(dir).map((f) => f.path), want, `under ${JSON.stringify(dir)}`);
  }
  await idx.close();
});

test('a query racing an update sees the index before or after it, never between (one written in several transactions too)', async () => {
  const root = tempDir('store-repo');
  const count = 2 * PART_OPS + 40;
  const files = Array.from({ length: count }, (_, i) => `m${i}.py`);
  for (const p of files) writeFileSync(join(root, p), 'def old_name():\n    pass\n');
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, `state-${n++}`) });
  await idx.refresh();
  for (const p of files) writeFileSync(join(root, p), 'def new_name():\n    pass\n');
  const update = idx.update(files); // one generation, written in three transactions (commit-parts.ts)
  const seen = new Set<string>();
  let done = false;
  void update.then(() => { done = true; });
  while (!done) {
    const [a, b] = await Promise.all([
      idx.runTool('find_symbol', { name: 'old_name', limit: 200 }),
      idx.runTool('find_symbol', { name: 'new_name', limit: 200 }),
    ]);
    if (a.generation === b.generation) seen.add(`${a.total}+${b.total}`);
    await new Promise((r) => setImmediate(r));
  }
  await update;
  assert.ok(seen.size > 0, 'no query ran during the update');
  for (const s of seen) assert.ok(s === `${count}+0` || s === `0+${count}`, `half an update seen: ${s}`);
  const after = await idx.runTool('find_symbol', { name: 'new_name', limit: 200 });
  assert.is(after.total, count);
  await idx.close();
});

test.after(() => cleanupTemp());
test.run();
