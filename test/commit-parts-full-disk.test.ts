// A commit in parts cut short by a full disk (store/commit-parts.ts), on a REAL
// small disk: its first part lands and marks LMDB `building` (a stop between
// parts is repaired as an interrupted build), its second is refused with
// no_space before LMDB is called. When the retry then finds nothing left to
// write (the files of the refused part were taken back meanwhile), it still
// lands an empty commit that writes the state back: LMDB says what the index
// is, and the next start does not repair a whole index as an interrupted build.
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test as uvu } from 'uvu';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { PART_OPS } from '../indexer/store/commit-parts.js';
import { isNoSpace } from '../indexer/write-failure.js';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';

const test = testUnless(mountReason());
uvu.after(() => {
  SmallDisk.unmountAll();
  cleanupTemp();
});

const DISK_BYTES = 32 << 20;
const lmdbState = (index: EvidexIndex) => (index.store as any).tables.readMeta().state as string;

test('a commit in parts cut short by a full disk, retried with nothing left to write: the retry writes the state back', async () => {
  const disk = SmallDisk.mount(DISK_BYTES);
  const stateDir = join(disk.dir, 'state');
  const root = join(realpathSync(tempDir('parts-full')), 'repo');
  mkdirSync(join(root, 'a'), { recursive: true });
  mkdirSync(join(root, 'b'));
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `m${i}.py`), `def before_${i}():\n    return ${i}\n`);
  git(root, ['init', '-q']);
  let index = await openEvidexIndex(root, { stateDir });
  try {
    await index.refresh();
    // PART_OPS files fill the first part; ten more (last in path order) are the second.
    const first = Array.from({ length: PART_OPS }, (_, i) => `a/f${String(i).padStart(3, '0')}.py`);
    const second = Array.from({ length: 10 }, (_, i) => `b/g${i}.py`);
    first.forEach((p, i) => writeFileSync(join(root, p), `def mark_${i}():\n    return ${i}\n`));
    second.forEach((p, i) => writeFileSync(join(root, p), `def more_${i}():\n    return ${i}\n`));
    // The disk filled to leave a little more room each time, until the batch is let through: each part is charged
    // pages the whole is charged once (commit-room.ts), so the first room that lets the whole through is too
    // little for its second part once the first has landed. A refused batch changes nothing; the index is opened
    // again each time, so no free page of its data file counts (CommitRoom, at open).
    let e: unknown = null;
    for (let leave = 0; ; leave += 16 << 10) {
      assert.ok(leave < DISK_BYTES, 'the batch was let through before the disk was empty');
      disk.release();
      disk.fill(leave);
      await index.close();
      index = await openEvidexIndex(root, { stateDir });
      e = await index.update([...first, ...second]).then(() => null, (x: unknown) => x);
      if (!isNoSpace(e) || index.store.fileByPath(first[0]!)) break;
    }
    assert.ok(isNoSpace(e), `the second part is refused: ${String(e)}`);
    assert.ok(first.every((p) => index.store.fileByPath(p)), 'the first part landed');
    assert.not.ok(second.some((p) => index.store.fileByPath(p)), 'the second did not');
    assert.is(index.store.state, 'ready', 'the index is whole: every file it holds is as the tree has it');
    assert.is(lmdbState(index), 'building', 'a stop now would be repaired as an interrupted build');
    assert.ok(index.store.markedBuilding);

    // The second part's files are taken back before the retry: it finds every file as the index holds it.
    for (const p of second) rmSync(join(root, p));
    const generation = index.store.generation;
    const r = await index.update([...first, ...second]);
    assert.equal([r.changed, r.removed], [[], []], 'nothing left to write');
    assert.is(lmdbState(index), 'ready', 'the retry wrote the state back');
    assert.is(index.store.generation, generation + 1, 'as a commit of its own');
    assert.not.ok(index.store.markedBuilding);

    // The next start finds a ready index: a catch-up, not the repair of an interrupted build.
    await index.close();
    index = await openEvidexIndex(root, { stateDir });
    assert.is(index.store.state, 'ready');
  } finally {
    await index.close();
    disk.unmount();
  }
});

uvu.run();
