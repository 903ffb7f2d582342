// An answer given while the watcher holds changes not yet in the index says
// so. A `git checkout` rewrites files and ignore files at once: until its
// batches and the re-walk they queue have landed, the watcher reports how many
// changes wait, since when and why it re-walks (index/status
// `daemon.catchingUp`, `evidex daemon status`), a tools/call answer carries
// `catching_up`, and the CLI's footer says the answer may be out of date.
// A caller waits for the changes seen before it asked, never for later ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexHandle } from '../indexer/api.js';
import { openEvidexIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { CatchUpMarks } from '../indexer/watch/catch-up.js';
import { stateDirFor } from '../local/state.js';
import { Methods } from '../protocol/messages.js';
import { evidex } from './helpers/cli.js';
import { daemonEnv, readyClient, waitFor } from './helpers/daemon.js';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { gatedQueue } from './helpers/gated-queue.js';

test.after(() => {
  SmallDisk.unmountAll();
  cleanupTemp();
});

/** A git repository with two commits: `old` (old_name.py, .gitignore without *.log) and `new` (the function renamed and moved, *.log ignored). */
function twoCommits(): string {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  for (let i = 0; i < 30; i++) writeFileSync(join(root, `pkg/m${i}.py`), `def keep_${i}():\n    return ${i}\n`);
  writeFileSync(join(root, 'pkg/old_name.py'), 'def create_old_client():\n    return 1\n');
  writeFileSync(join(root, '.gitignore'), '*.tmp\n');
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'old']);
  git(root, ['tag', 'old']);
  git(root, ['rm', '-q', 'pkg/old_name.py']);
  writeFileSync(join(root, 'pkg/new_name.py'), 'def create_new_client():\n    return 2\n');
  for (let i = 0; i < 30; i++) writeFileSync(join(root, `pkg/m${i}.py`), `def keep_${i}():\n    return ${i + 100}\n`);
  writeFileSync(join(root, '.gitignore'), '*.tmp\n*.log\n');
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'new']);
  git(root, ['tag', 'new']);
  git(root, ['checkout', '-q', 'old']);
  return root;
}

test('the marks: a wait ends once what was seen before it is written, not what came after', async () => {
  const marks = new CatchUpMarks(() => 1_000);
  assert.is(marks.settled(60_000), null, 'in step: nothing to wait for');
  assert.is(marks.since, null);
  marks.saw();
  marks.saw();
  const waited = marks.settled(60_000);
  assert.ok(waited, 'two changes seen, not written');
  marks.take();   // a batch takes both
  marks.saw();    // a third change arrives while it runs
  marks.landed(); // the batch lands
  assert.is(await waited, true, 'the wait ends with the batch that held what it waited for');
  assert.is(marks.since, new Date(1_000).toISOString(), 'the third change is still not written');
  assert.ok(marks.settled(60_000), 'a new caller waits for the third');
  marks.caughtUp();
  assert.is(marks.since, null);
});

test('a checkout seen by the watcher: catching up (changes, since, the re-walk) until its batches land, then in step', async () => {
  const root = twoCommits();
  const handle: IndexHandle = await openEvidexIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  // The daemon's write queue, with a gate the test opens: the checkout's batches wait behind it.
  const { exclusive, open } = gatedQueue();
  const watcher = await RepoWatcher.start({ root, rules: await handle.rules(), index: handle, exclusive });
  try {
    assert.is(watcher.catchingUp, null, 'nothing seen yet');
    assert.is(watcher.settled(60_000), null);
    git(root, ['checkout', '-q', 'new']);
    const behind = await waitFor('the checkout seen, with its re-walk', () => {
      const c = watcher.catchingUp;
      return c && c.changes >= 2 && c.rewalk ? c : null;
    }, 30_000);
    assert.match(behind.rewalk!, /\.gitignore changed/);
    assert.ok(Date.parse(behind.since) > 0, behind.since);
    assert.is((await handle.runTool('find_symbol', { name: 'create_new_client' })).total, 0, 'the index still holds the old tree');
    const waited = watcher.settled(60_000);
    assert.ok(waited, 'a caller has something to wait for');
    open();
    assert.is(await waited, true, 'the wait ended because the changes landed');
    await watcher.idle();
    assert.is(watcher.catchingUp, null, 'in step once every batch landed');
    assert.is((await handle.runTool('find_symbol', { name: 'create_new_client' })).total, 1);
    assert.is((await handle.runTool('find_symbol', { name: 'create_old_client' })).total, 0);
  } finally {
    open();
    await watcher.close();
    await handle.close();
  }
});

const held = mountReason();
(held ? test.skip : test)(`through a daemon: tools/call answers, index/status, \`daemon status\` and the CLI footer say the index is catching up${held ? ` (skipped: ${held})` : ''}`, async () => {
  // Writes that cannot land (the state folder's disk full) keep changes seen and unwritten for as long as the test needs.
  const disk = SmallDisk.mount(32 << 20);
  const root = twoCommits();
  const home = join(disk.dir, 'home');
  const env = daemonEnv(home);
  const cli = (args: string[]) => evidex(args, { cwd: root, home });
  assert.is((await cli(['daemon', 'start'])).code, 0);
  const ready = readyClient(root, env);
  try {
    const { client, run: call } = await ready.open();
    // The start-up's own catch-up re-walk shows in status (it is a re-walk), but no change was seen: answers are not marked.
    await waitFor('the start-up catch-up done', async () => (await client.request(Methods.indexStatus)).daemon.catchingUp === undefined, 30_000, 50);
    const inStep = await call('find_symbol', { name: 'create_old_client' });
    assert.is(inStep.total, 1);
    assert.is(inStep.catching_up, undefined, 'in step: nothing said');
    assert.is((await client.request(Methods.indexStatus)).daemon.catchingUp, undefined);

    disk.fill();
    git(root, ['checkout', '-q', 'new']);
    const status = await waitFor('catching up in index/status', async () => (await client.request(Methods.indexStatus)).daemon.catchingUp ?? null, 30_000, 50);
    assert.ok(status.changes >= 1, JSON.stringify(status));
    const r = await call('find_symbol', { name: 'create_new_client' });
    assert.is(r.total, 0, 'answered from the index as it is');
    assert.ok(r.catching_up && r.catching_up.changes >= 1, JSON.stringify(r));
    assert.is(r.catching_up!.since, status.since, 'behind since the same moment');

    const shown = await cli(['symbol', 'create_new_client']);
    assert.match(shown.stderr, /^0 of 0 shown · index generation \d+ · catching up: \d+ changes?( and a re-walk)? since \d\d:\d\d:\d\d not indexed yet( \(read \d+ of \d+ files\))?, this answer may be out of date$/m);
    const json = await cli(['call', 'find_symbol', '{"name":"create_new_client"}']);
    assert.equal(Object.keys(JSON.parse(json.stdout)), ['evidence', 'total'], 'evidex call keeps its shape');

    disk.release();
    await waitFor('in step again', async () => (await client.request(Methods.indexStatus)).daemon.catchingUp === undefined, 60_000, 50);
    const after = await call('find_symbol', { name: 'create_new_client' });
    assert.is(after.total, 1);
    assert.is(after.catching_up, undefined);
    const footer = await cli(['symbol', 'create_new_client']);
    assert.match(footer.stderr, /^1 of 1 shown · index generation \d+$/m);
  } finally {
    await ready.close();
    await cli(['daemon', 'stop']);
  }
});

test.run();
