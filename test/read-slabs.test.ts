// An update's reads on the main thread are kept in slabs (indexer/build/read-slabs.ts),
// mapped apart from malloc's main heap, and the index is the same for it:
//  - ReadSlabs cuts disjoint arrays from one slab of SLAB_BYTES, over glibc's mmap
//    threshold of the daemon, and gives a file larger than a slab one of its own;
//  - parseOne with slabs reads the file's exact bytes and the same buckets as
//    without, both cut from the slab, also after a binary file was sniffed (the
//    sniff buffer is shared) and for a file larger than a slab;
//  - an update of many files in one batch, one of them larger than a slab and
//    one binary, leaves the index a fresh build makes, and every file's lines
//    are the file's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOne } from '../indexer/build/parse-worker.js';
import { ReadSlabs, SLAB_BYTES } from '../indexer/build/read-slabs.js';
import { openEvidexIndex } from '../indexer/index.js';
import { freshDump } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** The daemon's fixed mmap threshold (client/connection.ts, DAEMON_MALLOC_ENV): a slab must be above it to be mapped. */
const MMAP_THRESHOLD = 128 << 10;

test('ReadSlabs: disjoint arrays cut from one slab over the mmap threshold, a larger one in a slab of its own', () => {
  assert.ok(SLAB_BYTES > MMAP_THRESHOLD, `a slab (${SLAB_BYTES} bytes) is mapped apart from the heap`);
  const slabs = new ReadSlabs();
  const a = slabs.alloc(1000); a.fill(1);
  const b = slabs.alloc(3000); b.fill(2);
  assert.is(a.buffer, b.buffer, 'two small arrays share a slab');
  assert.is(a.buffer.byteLength, SLAB_BYTES);
  assert.is(a.length, 1000); assert.is(b.length, 3000);
  assert.ok(a.every((x) => x === 1), 'filling one does not touch the other');
  const big = slabs.alloc(SLAB_BYTES + 5);
  assert.is(big.length, SLAB_BYTES + 5);
  assert.is.not(big.buffer, a.buffer, 'a larger array gets its own slab');
  const c = slabs.copy(Uint8Array.of(7, 8, 9));
  assert.equal([...c], [7, 8, 9]);
  assert.is(slabs.slabs, 3, 'a slab is not reused once one was made after it');
});

test('parseOne with slabs: the exact bytes and the same buckets as without, cut from the slab', () => {
  const root = tempDir('read-slabs-parse');
  const large = `${'x = "slab"\n'.repeat(Math.ceil((SLAB_BYTES + 1000) / 11))}`;
  write(root, {
    'a.py': 'def alpha():\n    return 1\n',
    'bin.dat': Buffer.from([0, 1, 2, 3, 0, 255, 0, 7]),
    'b.py': 'class Beta:\n    """DOC"""\n',
    'large.py': large,
  });
  const slabs = new ReadSlabs();
  const task = (p: string) => { const st = lstatSync(join(root, p)); return { path: p, abs: join(root, p), dev: st.dev, ino: st.ino }; };
  for (const p of ['a.py', 'bin.dat', 'b.py', 'large.py']) {
    const own = parseOne(task(p), 4 << 20);
    const slabbed = parseOne(task(p), 4 << 20, slabs);
    if (p === 'bin.dat') { assert.is(slabbed.kind, 'excluded', 'a binary file is still told apart'); continue; }
    assert.ok(slabbed.kind === 'file' && own.kind === 'file', p);
    if (slabbed.kind !== 'file' || own.kind !== 'file') continue;
    assert.equal(Buffer.from(slabbed.text), readFileSync(join(root, p)), `${p}: the file's bytes`);
    assert.equal([...slabbed.tri], [...own.tri], `${p}: the same buckets`);
    assert.is(slabbed.hash, own.hash);
    assert.ok(slabbed.text.buffer.byteLength >= SLAB_BYTES, `${p}: its text lies in a slab`);
    assert.is(slabbed.tri.buffer, p === 'large.py' ? slabbed.tri.buffer : slabbed.text.buffer, `${p}: its buckets beside it`);
  }
  assert.is(slabs.slabs, 3, 'the small files share the first slab; the large one has its own, its buckets the next');
});

test('an update of many files, one larger than a slab and one binary, leaves what a fresh build holds', async () => {
  const root = tempDir('read-slabs-update');
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`pkg/m${i}.py`] = `def f${i}():\n    return ${i}\n`;
  write(root, files);
  const idx = await openEvidexIndex(root, { stateDir: join(tempDir('read-slabs-state'), 's') });
  await idx.refresh();
  const changed: Record<string, string | Buffer> = {};
  for (let i = 0; i < 120; i += 2) changed[`pkg/m${i}.py`] = `def f${i}():\n    return "SLABBED_${i}"\n`;
  changed['pkg/big.py'] = `${'y = "SLAB_BIG"\n'.repeat(Math.ceil((SLAB_BYTES + 4096) / 15))}`;
  changed['pkg/blob.bin'] = Buffer.from([0, 0, 0, 1]);
  write(root, changed);
  const summary = await idx.update(Object.keys(changed));
  assert.is(summary.changed.length, 61, 'the 60 edited files and the large one written (the binary one is skipped)');
  assert.is((await idx.runTool('search_code', { query: 'SLABBED_' })).total, 60);
  const line = (await idx.runTool('read_evidence', { path: 'pkg/m42.py', start_line: 2, end_line: 2 })) as { evidence: Array<{ snippet: string }> };
  assert.is(line.evidence[0].snippet, '    return "SLABBED_42"', 'the evidence is the file\'s line');
  assert.equal(idx.store.dump(), await freshDump(root, join(tempDir('read-slabs-fresh'), 's')), 'the update left what a fresh build holds');
  await idx.close();
});

test.run();
