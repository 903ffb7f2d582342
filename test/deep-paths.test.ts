// No single path breaks the index (issue 30, point 0): a chain of 2,200
// folders made with relative mkdirs (past PATH_MAX, 4096) is left out with its
// reason, counted, and the rest of the tree — files inside the chain up to the
// limit included — is indexed, at the cold build and when the chain is made
// while the daemon runs; later saves still land. Such a chain can only be made
// and removed relatively: python3 makes it step by step, `rm -rf` removes it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { MAX_INDEXED_PATH_BYTES } from '../indexer/discover/path-limits.js';
import { Methods } from '../protocol/messages.js';
import type { Client } from '../client/connection.js';
import { checkedCaller, fixtureCopy, startWatched, stopWatched, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';

const LEVELS = 2200;
/** Depth of a file whose path is just under MAX_INDEXED_PATH_BYTES (`x/` is two bytes a level). */
const EDGE_DEPTH = Math.floor((MAX_INDEXED_PATH_BYTES - 'chain/edge_mark.py'.length) / 2) - 1;

/** Makes `chain/x/x/.../x` (LEVELS deep) under `root` with a file near the limit and one at the bottom, by relative steps. */
const MAKE_CHAIN = `
import os, sys
os.chdir(sys.argv[1]); os.mkdir('chain'); os.chdir('chain')
for i in range(${LEVELS}):
    if i == ${EDGE_DEPTH}:
        open('edge_mark.py', 'w').write('EDGE_MARK = 1\\n')
    os.mkdir('x'); os.chdir('x')
open('bottom.txt', 'w').write('BOTTOM_MARK\\n')
`;

function removeChain(root: string): void {
  spawnSync('rm', ['-rf', join(root, 'chain')]);
}

const withPython = testUnless(lacks.python3());

let d: TestDaemon | undefined;
let c: Client | undefined;
const roots: string[] = [];
test.after.each(async () => {
  for (const r of roots.splice(0)) removeChain(r);
  await stopWatched(d, c);
  d = c = undefined;
});
test.after(() => cleanupTemp());

withPython('cold build: the chain is left out as one path too long, the rest is indexed', async () => {
  const root = fixtureCopy();
  roots.push(root);
  assert.is(spawnSync('python3', ['-c', MAKE_CHAIN, root]).status, 0);
  const index = await openEvidexIndex(root, { stateDir: tempDir('state') });
  try {
    await index.refresh();
    const status = index.status();
    assert.is(status.state, 'ready');
    assert.is(status.leftOut.pathTooLong, 1, JSON.stringify(status.leftOut));
    const search = async (q: string) => (await index.runTool('search_code', { query: q })).evidence.map((e) => e.path);
    assert.ok((await search('COLLECTION_NAME')).length > 0, 'the fixture is indexed');
    const edge = await search('EDGE_MARK');
    assert.is(edge.length, 2, 'the file just under the limit is indexed (path and line)');
    assert.ok(Buffer.byteLength(edge[0]) <= MAX_INDEXED_PATH_BYTES && Buffer.byteLength(edge[0]) > MAX_INDEXED_PATH_BYTES - 8, edge[0]);
    assert.equal(await search('BOTTOM_MARK'), []);
    const left = await index.leftOutByName('chain/x', { limit: 5 });
    assert.is(left.total, 1);
    assert.is(left.items[0].reason, 'pathTooLong');
    assert.ok(Buffer.byteLength(left.items[0].path) > MAX_INDEXED_PATH_BYTES);
    // A catch-up over the same tree changes nothing and fails nothing.
    const again = await index.refresh();
    assert.is(again.parsed, 0);
  } finally { await index.close(); }
});

withPython('made while the daemon runs: left out and counted, the daemon keeps indexing later saves', async () => {
  const root = fixtureCopy();
  roots.push(root);
  ({ d, c } = await startWatched(root));
  const call = checkedCaller(() => c!, () => root);
  const made = await new Promise<number | null>((resolve) => spawn('python3', ['-c', MAKE_CHAIN, root]).on('exit', resolve));
  assert.is(made, 0);
  await waitFor('the chain counted', async () => (await c!.request(Methods.indexStatus)).index.leftOut.pathTooLong === 1, 30_000);
  await waitFor('the file near the limit indexed', async () => (await call('search_code', { query: 'EDGE_MARK' })).total === 2, 60_000);
  writeFileSync(join(root, 'src', 'later_save.py'), 'LATER_SAVE = 1\n');
  await waitFor('a later save lands', async () => (await call('search_code', { query: 'LATER_SAVE' })).total === 2, 60_000);
  const s = await c.request(Methods.indexStatus);
  assert.is(s.index.state, 'ready');
  assert.is((await call('search_code', { query: 'BOTTOM_MARK' })).total, 0);
  assert.not.match(d.log(), /failed|ENAMETOOLONG/, 'no update failed');
  // The chain goes: its count goes with it, and saves still land.
  removeChain(root);
  await waitFor('the chain forgotten', async () => (await c!.request(Methods.indexStatus)).index.leftOut.pathTooLong === 0, 30_000);
  writeFileSync(join(root, 'src', 'later_save.py'), 'LATER_SAVE_2 = 1\n');
  await waitFor('a save after it lands', async () => (await call('search_code', { query: 'LATER_SAVE_2' })).total === 1, 60_000);
});

test.run();
