// The main index asks statfs before each commit (store/commit-room.ts), on a
// REAL small disk: a commit the disk has no room for is refused with no_space
// without LMDB being called (lmdb 3.5.6 reports a page write that failed with
// a message that can overrun its buffer), and one that fits, with little room
// to spare, is written. Three batch shapes: one small file, 200 small files,
// one 1 MB file of 25,000 definitions; and 200 files rewritten in place.
// And CommitRoom's choice of when to count the data file's free pages, on
// probes the test sets (it counts them only near a full disk).
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { commitPages, CommitRoom, COUNT_PAGES_WITHIN, jsonLength } from '../indexer/store/commit-room.js';
import { oldestReader, Tables, type FileCounts, type FileWrite } from '../indexer/store/tables.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';
import { test as uvu } from 'uvu';

const test = testUnless(mountReason());
uvu.after(() => {
  SmallDisk.unmountAll();
  cleanupTemp();
});

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
  test(`${shape.name}: refused with no_space on a full disk, LMDB never called; written with the room the check asked for, which is no less than it grows the file by`, async () => {
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

      // As much room as the check asked for: it lands, and LMDB needed no more of the disk than that.
      const room: number = (index.store as any).room.asked;
      assert.ok(room >= grew, `asked ${room} bytes for a batch that grows the file by ${grew}`);
      disk.release();
      disk.fill(room);
      assert.is(disk.free, room);
      const fits = await commitBatch(shape, root, index);
      assert.is(fits.error, undefined, `${room} bytes free for a batch that grew the file by ${grew}: ${String(fits.error)}`);
      assert.ok(statSync(data).size - size <= room, 'the data file grew by no more than the room asked for');
      assert.is(index.store.generation, generation + 1);
      for (const [p, text] of Object.entries(shape.batch)) assert.is(index.store.text(index.store.fileByPath(p)!.fid), text, p);
      console.log(`\n    ${shape.name}: data file grew ${grew} bytes on a disk with room; the check asked for ${room} (${(room / grew).toFixed(2)} times); written with that free, refused with 0 free`);
    } finally {
      await index.close();
    }
  });
}

test('a full disk after a daemon ran a while: every commit the check lets through fits in the data file\'s free pages (LMDB asks the disk for nothing)', async () => {
  const disk = SmallDisk.mount(16 << 20);
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'test', 'helpers', 'full-disk-commits.js'), join(disk.dir, 'state'), tempDir('full-disk-commits')], {
    cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    let err = '';
    child.stdout!.on('data', (b) => { out += b; });
    child.stderr!.on('data', (b) => { err += b; });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) => child.once('exit', (c, s) => res([c, s])));
    assert.not.match(err, /Write error/, `LMDB met the full disk: ${err.trim()}`);
    assert.is(code, 0, `exit ${code} ${signal ?? ''}: ${err.trim()}`);
    const r = JSON.parse(out.trim().split('\n').pop()!) as { landed: string[]; refused: string[]; sizeAtFill: number; size: number };
    assert.is(r.size, r.sizeAtFill, 'the data file did not grow on the full disk');
    assert.ok(r.landed.includes('state building'), `the state mark fits in the free pages: ${JSON.stringify(r)}`);
    assert.ok(r.refused.length > 0, `the files did not all fit: ${JSON.stringify(r)}`);
    console.log(`\n    on a full disk: landed ${r.landed.join(', ')}; refused ${r.refused.length}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** A CommitRoom on probes the test sets: `free` bytes on the disk, the data file's `counts` in pages (each count is recorded). */
function probed(): { room: CommitRoom; disk: { free: number; counts: FileCounts; asked: number } } {
  const disk = { free: 0, counts: { free: 0, file: 100, used: 100, keyed: 10 }, asked: 0 };
  const room = new CommitRoom(4096, { free: () => disk.free, pages: () => { disk.asked++; return { ...disk.counts }; } });
  return { room, disk };
}

const one: FileWrite = { path: 'a.py', size: 6, mtimeMs: 1, hash: 'h', lines: 1, text: Buffer.from('X = 1\n'), tri: new Uint8Array(16), lang: 'py', defs: [], imports: [], mods: ['a'] };
/** A put whose text needs a run of overflow pages (20 KB: six pages). */
const long: FileWrite = { ...one, path: 'b.py', text: Buffer.alloc(20_000, 'x') };
const PAGE = 4096;

uvu('commitPages: a small file takes single pages only; a value past two pages is a run; the state mark is the base pages alone', () => {
  assert.is(commitPages([one], 1, PAGE).runs, 0);
  const l = commitPages([long], 1, PAGE);
  assert.is(l.runs, 5, 'the text: one run of five pages');
  assert.ok(l.all > l.runs, `${l.all} pages in all`);
  assert.equal(commitPages([], 0, PAGE), { all: 16, runs: 0 });
  // Counted: a put may copy every lookup-table page, and copies no more pages than the trees hold.
  const far = commitPages([one], 1, PAGE).all;
  assert.is(commitPages([one], 1, PAGE, { free: 0, file: 50, used: 1000, keyed: 100 }).all, far + 100);
  assert.is(commitPages([one], 1, PAGE, { free: 0, file: 50, used: 3, keyed: 100 }).all, far - 6 + 3);
  // The freelist's own records need runs once the page numbers they may list pass a page.
  assert.is(commitPages([], 0, PAGE, { free: 0, file: 100, used: 100, keyed: 0 }).runs, 0);
  assert.is(commitPages([], 0, PAGE, { free: 0, file: 5000, used: 5000, keyed: 0 }).runs, 2 * 10);
});

uvu('CommitRoom: far from a full disk a commit fits without counting the data file; within COUNT_PAGES_WITHIN it counts it', () => {
  const { room, disk } = probed();
  disk.free = commitPages([one], 1, PAGE).all * PAGE + COUNT_PAGES_WITHIN;
  assert.ok(room.fits([one], 1));
  assert.is(disk.asked, 0, 'not counted');
  room.landed();
  disk.free -= 1;
  room.fits([one], 1);
  assert.is(disk.asked, 1, 'counted within the margin');
});

uvu('CommitRoom: of the free pages, a commit counts those before the last counted commit less those it may have reused; none at open or after a commit far from full; runs from the disk', () => {
  const { room, disk } = probed();
  const mark = commitPages([], 0, PAGE).all;
  // At open the free pages include those the last commit freed, which LMDB does not reuse yet.
  disk.free = 0;
  disk.counts = { free: 100, file: 150, used: 50, keyed: 10 };
  assert.not.ok(room.fits([], 0), 'at open, none of the free pages count');
  disk.free = mark * PAGE;
  assert.ok(room.fits([], 0), 'the disk alone has room');
  room.landed();
  // 100 free before it; it did not grow the file, so it may have reused all it allocated.
  disk.free = 0;
  assert.ok(room.fits([], 0), `100 - ${mark} free pages count`);
  disk.counts = { ...disk.counts, free: mark - 1 };
  assert.not.ok(room.fits([], 0), 'no more than the file has free now');
  disk.counts = { ...disk.counts, free: 100 };
  assert.ok(room.fits([], 0), 'a refused commit changed nothing');

  // A landed commit that counted 20 free pages before it: what the next counts depends on how much it grew the file.
  disk.counts = { free: 20, file: 150, used: 130, keyed: 10 };
  assert.ok(room.fits([], 0));
  room.landed();
  disk.counts = { free: 100, file: 150, used: 50, keyed: 10 };
  assert.not.ok(room.fits([], 0), `it grew nothing: it may have reused ${mark} of the 20, so ${20 - mark} count`);
  disk.counts = { free: 100, file: 150 + mark, used: 50 + mark, keyed: 10 };
  assert.ok(room.fits([], 0), `it grew the file by all it allocated: all 20 count`);
  room.landed();

  // A run of overflow pages is asked of the disk, whatever the file has free.
  disk.counts = { free: 100, file: 150 + mark, used: 50 + mark, keyed: 10 };
  const l = commitPages([long], 1, PAGE, disk.counts);
  assert.ok(l.all - l.runs <= 100 - mark, `its ${l.all - l.runs} single pages fit in the free pages`);
  assert.not.ok(room.fits([long], 1), 'its run does not');
  disk.free = l.runs * PAGE;
  assert.ok(room.fits([long], 1), 'the run from the disk, the rest from free pages');

  // After a commit far from a full disk, none count.
  disk.free = 1e12;
  assert.ok(room.fits([], 0));
  room.landed();
  disk.free = 0;
  assert.not.ok(room.fits([], 0), 'after a commit that did not count, none');
});

uvu('jsonLength: an import statement and a TsResolution count as long as their JSON, without writing it (escapes aside)', async () => {
  // Real records: both fixtures indexed, every statement's raw form and every file's TsResolution.
  const values: unknown[] = [];
  for (const fixture of ['mobileai-local-rag', 'ts-monorepo']) {
    const root = join(tempDir('json-length'), fixture);
    cpSync(join(PROJECT_ROOT, 'fixtures', fixture), root, { recursive: true });
    const index = await openEvidexIndex(root, { stateDir: join(tempDir('json-length-state'), 'state') });
    try {
      await index.refresh();
      for (const f of index.store.ordered()) for (const imp of index.store.imports(f.fid)) values.push(imp.raw);
      for (const [, res] of index.store.tsResolutions()) values.push(res);
    } finally {
      await index.close();
    }
  }
  assert.ok(values.length > 100, `${values.length} records`);
  let mismatched = 0;
  for (const v of values) if (jsonLength(v) !== JSON.stringify(v).length) mismatched++;
  assert.is(mismatched, 0, `${mismatched} of ${values.length} counted otherwise than their JSON`);
  // Every kind of value, and the one difference: a string's escapes are not counted (the rows hold it unescaped).
  const odd = { a: [], b: {}, c: [1, -20, 3.5, 1e21, 0], d: null, e: true, f: false, g: undefined, h: [undefined, 'x'], i: -0 };
  assert.is(jsonLength(odd), JSON.stringify(odd).length);
  assert.is(jsonLength('say "hi"\n'), JSON.stringify('say "hi"\n').length - 3);
});

uvu('Tables.pages: while another process holds an older snapshot open, none of the free pages count as reusable (LMDB keeps those freed since it); once it is gone they do', async () => {
  const dir = join(tempDir('pages-reader'), 'index');
  const tables = await Tables.open(dir);
  let reader: ChildProcess | undefined;
  try {
    const big = (i: number): FileWrite => ({ ...one, path: `f${i}.py`, text: Buffer.alloc(20_000, 'x'), tri: new Uint8Array(4096) });
    tables.transaction(() => { for (let i = 0; i < 20; i++) tables.putFile(i + 1, big(i), false); });
    // A reader in another process, on the snapshot that still has the 20 files.
    reader = spawn(process.execPath, ['-e', `
      const { open } = require('lmdb');
      const env = open({ path: ${JSON.stringify(dir)}, maxDbs: 16, readOnly: true });
      const txn = env.useReadTransaction();
      process.stdout.write('holding\\n');
      process.stdin.on('end', () => { txn.done(); process.exit(0); });
      process.stdin.resume();
    `], { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    const held = reader;
    await new Promise<void>((res, rej) => { held.stdout!.once('data', () => res()); held.once('exit', (c) => rej(new Error(`reader exited ${c}`))); });
    // Two commits after it: the first frees the files' pages, the second lets LMDB count them free.
    tables.transaction(() => { for (let i = 0; i < 20; i++) tables.removeFile(i + 1); });
    tables.transaction(() => tables.putFile(100, one, false));
    assert.is(tables.pages().free, 0, 'nothing counted while it reads');
    held.stdin!.end();
    await new Promise((res) => held.once('exit', res));
    tables.transaction(() => tables.putFile(101, one, false));
    tables.transaction(() => tables.putFile(102, one, false));
    assert.ok(tables.pages().free * tables.pageSize > 20 * 20_000 / 2, `${tables.pages().free} pages counted once it is gone`);
  } finally {
    if (reader && reader.exitCode === null) reader.kill('SIGKILL');
    await tables.close();
  }
});

uvu('oldestReader: the smallest txnid of the rows readerList prints, reset slots ("-") aside', () => {
  const head = '\t\tpid\t\t thread\t\t txnid\n';
  assert.is(oldestReader(head), Infinity);
  assert.is(oldestReader(`${head}      2009 7f72e7271c80 -\n`), Infinity);
  assert.is(oldestReader(`${head}      2009 7f72e7271c80 12\n      2010 7f72e7271c81 9\n      2011 7f72e7271c82 -\n`), 9);
});

uvu.run();
