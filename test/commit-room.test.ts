// The main index asks statfs before each commit (store/commit-room.ts), on a
// REAL small disk: a commit the disk has no room for is refused with no_space
// without LMDB being called (lmdb 3.5.6 reports a page write that failed with
// a message that can overrun its buffer), and one that fits, with little room
// to spare, is written. Three batch shapes: one small file, 200 small files,
// one 1 MB file of 25,000 definitions; and 200 files rewritten in place.
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';
import { test as uvu } from 'uvu';

const test = testUnless(mountReason());
uvu.after(() => {
  SmallDisk.unmountAll();
  cleanupTemp();
});

/** Room left besides a batch's own growth of the data file, in the test that it fits: "little more". */
const SPARE = 1.5;

type Shape = { name: string; before: Record<string, string>; batch: Record<string, string> };

const defs = (tag: string, i: number) => Array.from({ length: 10 }, (_, j) => `def ${tag}_${i}_${j}():\n    return ${j}\n`).join('');
const many = (n: number, file: (i: number) => [string, string]) => Object.fromEntries(Array.from({ length: n }, (_, i) => file(i)));
const big = () => {
  let s = '';
  for (let i = 0; s.length < 1 << 20; i++) s += `V_${i} = ${(i * 7919) % 100003}  # ${((i * 2654435761) >>> 0).toString(36)}\n`;
  return s;
};

const SHAPES: Shape[] = [
  { name: 'one small file', before: {}, batch: { 'during/one.py': 'X = 1\n' } },
  { name: '200 small files', before: {}, batch: many(200, (i) => [`during/f${i}.py`, `MARK_${i} = ${i}\n`]) },
  { name: 'one 1 MB file', before: {}, batch: { 'during/big.py': big() } },
  { name: '200 files rewritten', before: many(200, (i) => [`during/u${i}.py`, defs('f', i)]), batch: many(200, (i) => [`during/u${i}.py`, defs('g', i)]) },
];

/** A git work tree of 20 small Python files and the shape's `before` files, its index built in `stateDir`. */
async function built(shape: Shape, stateDir: string): Promise<{ root: string; index: EvidexIndex; data: string }> {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(join(root, 'during'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `m${i}.py`), `def before_${i}():\n    return ${i}\n`);
  for (const [p, text] of Object.entries(shape.before)) writeFileSync(join(root, p), text);
  git(root, ['init', '-q']);
  const index = await openEvidexIndex(root, { stateDir });
  await index.refresh();
  return { root, index, data: join(stateDir, 'index', 'data.mdb') };
}

/** Writes the batch into the tree and indexes it; the number of LMDB write transactions it opened and what it threw. */
async function commitBatch(shape: Shape, root: string, index: EvidexIndex): Promise<{ transactions: number; error?: any }> {
  for (const [p, text] of Object.entries(shape.batch)) writeFileSync(join(root, p), text);
  const tables = (index.store as any).tables;
  const transaction = tables.transaction;
  let transactions = 0;
  tables.transaction = (fn: () => void) => { transactions++; return transaction.call(tables, fn); };
  try {
    await index.update(Object.keys(shape.batch));
    return { transactions };
  } catch (error) {
    return { transactions, error };
  } finally {
    tables.transaction = transaction;
  }
}

/** Bytes the batch adds to the data file on a disk with room. */
async function growth(shape: Shape): Promise<number> {
  const { root, index, data } = await built(shape, join(tempDir('state'), 'state'));
  try {
    const before = statSync(data).size;
    const r = await commitBatch(shape, root, index);
    assert.is(r.error, undefined);
    return statSync(data).size - before;
  } finally {
    await index.close();
  }
}

for (const shape of SHAPES) {
  test(`${shape.name}: refused with no_space on a full disk, LMDB never called; written with ${SPARE} times its growth free`, async () => {
    const grew = await growth(shape);
    const disk = SmallDisk.mount(16 << 20);
    const stateDir = join(disk.dir, 'state');

    const { root, index, data } = await built(shape, stateDir);
    try {
      const size = statSync(data).size;
      const generation = index.store.generation;
      disk.fill();
      const full = await commitBatch(shape, root, index);
      assert.is(full.error?.code, 'no_space', String(full.error));
      assert.is(full.error.message, `no space left on ${stateDir} (state folder)`);
      assert.is(full.transactions, 0, 'refused before LMDB was asked to write');
      assert.is(statSync(data).size, size, 'the data file is as it was');
      assert.is(index.store.generation, generation, 'nothing landed');

      // Little more room than the batch grows the file by: it lands.
      disk.release();
      const room = Math.ceil((grew * SPARE) / 4096) * 4096;
      disk.fill(room);
      assert.is(disk.free, room);
      const fits = await commitBatch(shape, root, index);
      assert.is(fits.error, undefined, `${room} bytes free for a batch that grew the file by ${grew}: ${String(fits.error)}`);
      assert.is(index.store.generation, generation + 1);
      for (const [p, text] of Object.entries(shape.batch)) assert.is(index.store.text(index.store.fileByPath(p)!.fid), text, p);
      console.log(`\n    ${shape.name}: data file grew ${grew} bytes on a disk with room; written with ${room} free, refused with 0 free`);
    } finally {
      await index.close();
    }
  });
}

uvu.run();
