// A daemon started on an index that is up to date has nothing to catch up
// with. chokidar reports every symlink its start-up scan meets as added
// (ignoreInitial or not), and the watcher once took those for changes: on
// sveltejs/kit (CLAUDE.md -> AGENTS.md) the first answer after `evidex index`
// said "catching up: 4 changes" with nothing touched. A change really made
// once the watcher is up is still seen and marked until it is written. The
// re-walk that follows every scan is no change either: status counts none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import type { IndexHandle } from '../indexer/api.js';
import { openEvidexIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { stateDirFor } from '../local/state.js';
import { Methods } from '../protocol/messages.js';
import { evidex } from './helpers/cli.js';
import { daemonEnv, waitFor, waitWatcherReady } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { gatedQueue } from './helpers/gated-queue.js';

test.after(() => cleanupTemp());

/** A committed git repository with symlinks at the root, deep down, and to a folder (each one an `add` in chokidar's scan). */
function repoWithLinks(): string {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(join(root, 'pkg/deep/er'), { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), '# agents\n');
  symlinkSync('AGENTS.md', join(root, 'CLAUDE.md'));
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `pkg/m${i}.py`), `def keep_${i}():\n    return ${i}\n`);
  writeFileSync(join(root, 'pkg/deep/er/real.py'), 'def linked_target():\n    return 1\n');
  symlinkSync('real.py', join(root, 'pkg/deep/er/alias.py'));
  symlinkSync('pkg/deep', join(root, 'deep_link'));
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'links']);
  return root;
}

test('the watcher\'s start-up scan over symlinks sees no change; a link made afterwards is one, until written', async () => {
  const root = repoWithLinks();
  const handle: IndexHandle = await openEvidexIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  // The daemon's write queue, held shut by the test: whatever the watcher saw stays unwritten until it opens.
  const { exclusive, open } = gatedQueue();
  const batches: string[][] = [];
  const watcher = await RepoWatcher.start({ root, rules: await handle.rules(), index: handle, exclusive, onApplied: (a) => { if (!a.refreshed) batches.push(a.paths); } });
  try {
    // start() resolves on chokidar's 'ready', after every add of its scan (the links' adds among them).
    assert.is(watcher.sawUnwritten, false, 'the scan saw no change');
    assert.is(watcher.catchingUp, null, JSON.stringify(watcher.catchingUp));
    assert.is(watcher.settled(60_000), null, 'nothing for a caller to wait for');
    // The re-walk the daemon asks for after every scan is a re-walk, not a change seen (status once said "1 change seen").
    watcher.requestRefresh('catch-up after the watcher scan');
    const rewalk = watcher.catchingUp;
    assert.equal(rewalk && { changes: rewalk.changes, rewalk: rewalk.rewalk }, { changes: 0, rewalk: 'catch-up after the watcher scan' });
    assert.is(watcher.sawUnwritten, false);

    symlinkSync('AGENTS.md', join(root, 'GEMINI.md'));
    const behind = await waitFor('the new link seen', () => (watcher.catchingUp?.changes ? watcher.catchingUp : null), 30_000);
    assert.ok(behind.changes >= 1, JSON.stringify(behind));
    assert.is(watcher.sawUnwritten, true);
    const waited = watcher.settled(60_000);
    assert.ok(waited, 'a caller waits for the new link');
    open();
    assert.is(await waited, true, 'the wait ended because the change landed');
    await watcher.idle();
    assert.is(watcher.catchingUp, null, 'in step once written');
    assert.equal(batches.map((b) => b.filter((p) => p !== 'GEMINI.md')).filter((b) => b.length > 0), [], `only the new link was a change: ${JSON.stringify(batches)}`);
    // A link adds no name to the index: what it leads to is indexed under its real path already.
    assert.is((await handle.runTool('search_code', { query: 'GEMINI.md' })).total, 0, 'the new link is no file of its own');
    assert.is((await handle.runTool('search_code', { query: 'AGENTS.md' })).total, 1, 'its target is indexed once');
  } finally {
    open();
    await watcher.close();
    await handle.close();
  }
});

test('`evidex index`, then a daemon as a command starts it: answers say nothing of catching up, and its log shows no watcher batch', async () => {
  const root = repoWithLinks();
  const home = tempDir('home');
  const env = daemonEnv(home);
  const cli = (args: string[]) => evidex(args, { cwd: root, home });
  assert.is((await cli(['index'])).code, 0);
  let c: Client | undefined;
  try {
    // The first query starts the daemon, as a user's does.
    const first = await cli(['symbol', 'linked_target']);
    assert.is(first.code, 0, first.stderr);
    assert.not.match(first.stderr, /catching up/);
    c = await connect(root, { env });
    const client = c;
    await waitWatcherReady(client);
    await waitFor('the start-up re-walk done', async () => (await client.request(Methods.indexStatus)).daemon.catchingUp === undefined, 30_000, 50);
    const r = await client.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: 'linked_target' } });
    assert.equal(r.evidence.map((e) => e.path), ['pkg/deep/er/real.py'], 'once, under its real path: no link adds a name');
    assert.is(r.catching_up, undefined);
    const footer = await cli(['symbol', 'linked_target']);
    assert.match(footer.stderr, /^1 of 1 shown · index generation \d+$/m);
    // Every watcher batch is logged (`watch: PATHS: N changed, …`); the re-walk that follows the scan is no batch of changes.
    const log = readFileSync(join(stateDirFor(root, env), 'daemon.log'), 'utf8');
    assert.equal(log.split('\n').filter((l) => / watch: (?!re-walked)/.test(l)), [], log);
  } finally {
    await c?.close();
    await cli(['daemon', 'stop']);
  }
});

test.run();
