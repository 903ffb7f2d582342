// A binary file the index leaves out, deleted while the daemon runs (on its
// own, or with the folder it is in): the watcher's update forgets it, as it
// forgets a deleted indexed file. Before, the store's skip entry stayed: the
// left-out count kept it (webpack: 181 binary files, 362 after a nested
// worktree was added and removed again), and read_evidence called the gone
// file "left out of the index: binary". Real files, a real index (LMDB in a
// temp folder), the same update() the watcher calls with an event's paths.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

const BINARY = Buffer.from([0x61, 0, 0x62]);

test('a deleted binary file, alone or with its folder, leaves the left-out count and is no longer called binary', async () => {
  const root = tempDir('leftout-deleted');
  write(root, { 'keep.py': 'KEEP = 1\n', 'logo.png': BINARY, 'assets/a.bin': BINARY, 'assets/deep/b.bin': BINARY, 'assets/c.py': 'C = 1\n' });
  const index = await openEvidexIndex(root, { stateDir: tempDir('state') });
  const binary = () => index.status().leftOut.binary;
  const readError = async (path: string): Promise<string | null> => {
    try { await index.runTool('read_evidence', { path, start_line: 1 }); return null; } catch (e) { return (e as Error).message; }
  };
  try {
    await index.refresh();
    assert.is(binary(), 3);
    assert.match((await readError('logo.png'))!, /left out of the index: binary/);

    unlinkSync(join(root, 'logo.png'));
    await index.update(['logo.png']);
    assert.is(binary(), 2, 'the deleted file is not counted');
    const gone = (await readError('logo.png'))!;
    assert.not.match(gone, /binary \(a NUL/, gone);
    assert.match(gone, /not in the index/, gone);

    // The folder goes (one event names it): the binary files under it go with its indexed one.
    rmSync(join(root, 'assets'), { recursive: true });
    await index.update(['assets']);
    assert.is(binary(), 0, 'the binary files under the deleted folder are not counted');
    assert.match((await readError('assets/deep/b.bin'))!, /not in the index/);
    assert.is((await index.runTool('search_code', { query: 'C = 1' })).total, 0);

    // Made again under the same names: counted again (the walk of a new folder finds them).
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'assets', 'a.bin'), BINARY);
    await index.update(['assets']);
    assert.is(binary(), 1);
    assert.match((await readError('assets/a.bin'))!, /left out of the index: binary/);

    // A folder replaced by a file of the same name: what the folder held is forgotten.
    rmSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'assets'), 'ASSETS = 1\n');
    await index.update(['assets']);
    assert.is(binary(), 0);
    assert.is((await index.runTool('search_code', { query: 'ASSETS = 1' })).total, 1);
  } finally { await index.close(); }
});

test.run();
