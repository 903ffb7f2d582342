// A large commit is written as several LMDB transactions of bounded size
// (store/commit-parts.ts: lmdb keeps the pages a transaction dirtied for the
// life of the environment), yet stays one generation that a query sees
// wholly or not at all; a failure in a later part leaves the parts before it
// in LMDB and in memory alike, and LMDB marked building so that a stop then
// is repaired as an interrupted build is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { commitParts, PART_BYTES, PART_OPS } from '../indexer/store/commit-parts.js';
import { opBytes } from '../indexer/store/commit-room.js';
import type { FileWrite, StoreOp } from '../indexer/store/store.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { freshDump } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { mulberry32 } from './helpers/random.js';

const file = (path: string, text: string): FileWrite => ({
  path, size: text.length, mtimeMs: 1, hash: path, lines: 1, text: Buffer.from(text), tri: new Uint8Array(0), lang: null, defs: [], imports: [], mods: [],
});

/** Counts the LMDB write transactions the store opens while `fn` runs. */
async function transactionsOf(index: EvidexIndex, fn: () => unknown): Promise<number> {
  const tables = (index.store as any).tables;
  const transaction = tables.transaction;
  let n = 0;
  tables.transaction = (body: () => void) => { n++; return transaction.call(tables, body); };
  try { await fn(); } finally { tables.transaction = transaction; }
  return n;
}

test('commitParts: in order, each part within PART_OPS and PART_BYTES (an op larger alone), cut only where the next op would not fit', () => {
  const rnd = mulberry32(31);
  const ops: Array<FileWrite | null> = [];
  for (let i = 0; i < 3000; i++) {
    const r = rnd();
    // Row-only ops, small files, and now and then one larger than a part.
    ops.push(r < 0.3 ? null : file(`f${i}.py`, 'x'.repeat(r < 0.97 ? Math.floor(rnd() * 40_000) : PART_BYTES + 1)));
  }
  const parts = commitParts(ops, (o) => o);
  assert.equal(parts.flat(), ops, 'every op once, in order');
  const bytes = (part: Array<FileWrite | null>) => part.reduce((s, o) => s + opBytes(o), 0);
  for (const [i, part] of parts.entries()) {
    assert.ok(part.length > 0 && part.length <= PART_OPS, `part ${i}: ${part.length} ops`);
    assert.ok(part.length === 1 || bytes(part) <= PART_BYTES, `part ${i}: ${bytes(part)} bytes in ${part.length} ops`);
    const next = parts[i + 1]?.[0];
    if (next !== undefined) assert.ok(part.length === PART_OPS || bytes(part) + opBytes(next) > PART_BYTES, `part ${i} was cut with room for the next op`);
  }
  assert.ok(parts.length > 3000 / PART_OPS, `${parts.length} parts`);
  assert.equal(commitParts([], (o) => o), [[]], 'a commit of nothing is one empty part (its meta)');
});

test('a batch of more than two parts: that many transactions, one generation, the same index as a fresh build', async () => {
  const root = tempDir('parts-repo');
  const n = 2 * PART_OPS + 40;
  const paths = Array.from({ length: n }, (_, i) => `m${i}.py`);
  for (const p of paths) writeFileSync(join(root, p), 'def old_name():\n    pass\n');
  const stateDir = join(tempDir('parts-state'), 'state');
  const index = await openEvidexIndex(root, { stateDir });
  try {
    await index.refresh();
    await index.warm();
    const generation = index.store.generation;
    for (const p of paths) writeFileSync(join(root, p), 'def new_name():\n    pass\n');
    // A query racing it sees it wholly or not at all: store.test's race runs such a batch.
    const transactions = await transactionsOf(index, () => index.update(paths));
    assert.is(transactions, Math.ceil(n / PART_OPS), 'one transaction per part');
    assert.is(index.store.generation, generation + 1, 'one generation');
    const after = await index.runTool('find_symbol', { name: 'new_name', limit: 200 });
    assert.is(after.total, n);
    assertEvidenceChecks(root, after.evidence);
    assert.equal(index.store.dump(), await freshDump(root, join(tempDir('parts-fresh'), 'state')));
  } finally {
    await index.close();
  }
});

test('a part that fails after others landed: what landed is in LMDB and in memory alike, the generation counted, LMDB marked building until a commit lands whole', async () => {
  const root = tempDir('parts-repo');
  writeFileSync(join(root, 'a.txt'), 'hello\n');
  const good = Array.from({ length: PART_OPS + 20 }, (_, i) => file(`d/f${i}.txt`, `line ${i}\n`));
  const puts = good.map((f): StoreOp => ({ op: 'put', file: f }));
  // A key longer than LMDB takes: it throws inside the second part's transaction.
  const bad: StoreOp = { op: 'skip', path: `d/${'x'.repeat(4000)}`, size: 1, mtimeMs: 1 };
  const ops = [...puts.slice(0, PART_OPS + 10), bad, ...puts.slice(PART_OPS + 10)];
  const withoutState = (d: Record<string, unknown>) => ({ ...d, state: undefined });
  for (const [patch, stateAfter] of [
    [{ state: 'ready', pkgDirs: ['pkg'] }, 'ready'], // the state and package folders go with the last part: not written
    [{ state: 'building' }, 'building'],            // a build's own mark goes with the first: written
  ] as const) {
    const stateDir = join(tempDir('parts-state'), 'state');
    let index = await openEvidexIndex(root, { stateDir });
    const lmdbState = () => (index.store as any).tables.readMeta().state as string;
    try {
      await index.refresh();
      const generation = index.store.generation;
      assert.is(index.store.state, 'ready');
      const again = () => ({ state: patch.state, pkgDirs: 'pkgDirs' in patch ? [...patch.pkgDirs] : undefined });
      assert.throws(() => index.store.commit(ops, again()), /size|key/i);
      for (const [i, f] of good.entries()) {
        const meta = index.store.fileByPath(f.path);
        if (i < PART_OPS) assert.is(meta && index.store.text(meta.fid), `line ${i}\n`, f.path);
        else assert.is(meta, undefined, `${f.path}: its part did not land`);
      }
      assert.is(index.store.generation, generation + 1, 'the landed part is a generation');
      assert.is(index.store.state, stateAfter);
      assert.equal(index.store.pkgDirs, []);
      assert.is(lmdbState(), 'building', 'a stop now would be repaired as an interrupted build');
      const inMemory = index.store.dump();

      // Stopped here (a kill): LMDB holds what memory held, marked building; the next build repairs it and marks it ready.
      await index.close();
      index = await openEvidexIndex(root, { stateDir });
      assert.equal(withoutState(index.store.dump()), withoutState(inMemory), 'LMDB holds what memory held');
      assert.is(index.store.state, 'building');
      assert.is(index.store.generation, generation + 1, 'generation persisted');
      await index.refresh();
      assert.is(lmdbState(), 'ready');

      // Not stopped: the commit retried lands whole, and writes the state back.
      assert.throws(() => index.store.commit(ops, again()), /size|key/i);
      assert.is(lmdbState(), 'building');
      index.store.commit(puts, again());
      for (const f of good) assert.ok(index.store.fileByPath(f.path), f.path);
      assert.is(lmdbState(), patch.state);
      assert.is(index.store.state, patch.state);
      const whole = index.store.dump();
      await index.close();
      index = await openEvidexIndex(root, { stateDir });
      assert.equal(index.store.dump(), whole, 'LMDB holds what memory held');
    } finally {
      await index.close();
    }
  }
});

test.after(() => cleanupTemp());
test.run();
