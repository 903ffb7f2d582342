// evidex's own state inside the tree it indexes (discover/state-folders.ts): an
// EVIDEX_HOME under the root is never walked, watched or reported, so the daemon's own
// writes there (its audit log, its index) are no change — before, every write was one,
// and the daemon re-indexed its own log for ever. Another daemon's home under the same
// root is recognised by the same tag. Real daemons, real git, real files; each check
// waits for the watcher to apply a real change made after the daemons' writes (events
// arrive in order), then asserts what the writes before it did not do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { whyFolderLeftOut } from '../indexer/discover/why-left-out.js';
import { HOME_GITIGNORE, STATE_TAG, stateRoot } from '../local/home.js';
import { stateDirFor } from '../local/state.js';
import { Methods } from '../protocol/messages.js';
import { evidex } from './helpers/cli.js';
import { DAEMON_MAIN, fixtureCopy, isNotIndexed, startDaemon, stopDaemon, waitFor, waitWatcherReady, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

const daemons: TestDaemon[] = [];
const clients: Client[] = [];
test.after.each(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const d of daemons.splice(0)) await stopDaemon(d);
  cleanupTemp();
});

/** Files the walk lists under `root` now. */
async function walkedFiles(root: string): Promise<number> {
  return (await walkRepo(root, await RepoRules.load(root))).files.length;
}

/** Makes `rel` appear in the root in one rename (one event, one update), and waits for each daemon's watcher to apply it. */
async function changeAndWait(ds: TestDaemon[], rel: string): Promise<void> {
  const outside = join(tempDir('sentinel'), 'f.py');
  writeFileSync(outside, `SENTINEL = ${JSON.stringify(rel)}\n`);
  renameSync(outside, join(ds[0].root, rel));
  for (const d of ds) await waitFor(`the watcher applying ${rel}`, () => watchLines(d).some((l) => l.includes(rel)), 20_000);
}

/** The files the index holds and the binary ones it keeps unread: every file the walk listed. */
const listed = async (c: Client): Promise<number> => { const s = (await c.request(Methods.indexStatus)).index; return s.files + s.leftOut.binary; };
const generation = async (c: Client): Promise<number> => (await c.request(Methods.indexStatus)).index.generation;
const watchLines = (d: TestDaemon): string[] => d.log().split('\n').filter((l) => / watch: /.test(l));

test('an EVIDEX_HOME inside the root: tagged, not indexed, and the daemon writing there is no change', async () => {
  const root = fixtureCopy({ git: true });
  const expected = await walkedFiles(root);
  const home = join(root, '.evx');
  const d = await startDaemon(root, { home });
  daemons.push(d);
  const c = await connect(root, { env: d.env });
  clients.push(c);
  await waitWatcherReady(c);

  assert.ok(readFileSync(join(home, STATE_TAG.name), 'utf8').startsWith(`${STATE_TAG.signature}\n`), 'the home is tagged');
  assert.ok(existsSync(join(d.stateDir, STATE_TAG.name)), 'the state folder is tagged');
  assert.is(await listed(c), expected, 'nothing of .evx/ is indexed');
  assert.ok(await isNotIndexed(c, `.evx/${STATE_TAG.name}`));

  // Tool calls write the audit log into the state folder, under the root.
  const g0 = await generation(c);
  for (let i = 0; i < 20; i++) await c.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'def ' } });
  await waitFor('audit log written', () => existsSync(join(d.stateDir, 'audit.log')) && readFileSync(join(d.stateDir, 'audit.log'), 'utf8').split('\n').length > 20);
  await changeAndWait([d], 'sentinel_one.py');
  assert.is(await generation(c), g0 + 1, 'only the sentinel made a generation');
  assert.equal(watchLines(d).filter((l) => l.includes('.evx')), [], 'no watch line names the state folder');
  assert.is(await listed(c), expected + 1);
});

test('another daemon\'s home under the same root comes while one runs, and both leave both homes out', async () => {
  const root = fixtureCopy({ git: true });
  const expected = await walkedFiles(root);
  const a = await startDaemon(root, { home: join(root, '.evx') });
  daemons.push(a);
  const ca = await connect(root, { env: a.env });
  clients.push(ca);
  await waitWatcherReady(ca);

  // A second daemon for the same root, its home made inside the tree while the first one watches.
  const b = await startDaemon(root, { home: join(root, 'relhome') });
  daemons.push(b);
  const cb = await connect(root, { env: b.env });
  clients.push(cb);
  await waitWatcherReady(cb);
  const both: Array<[TestDaemon, Client]> = [[a, ca], [b, cb]];
  // The second home may have been seen for a moment before its tag was written: it is gone from the index now.
  await changeAndWait([a, b], 'sentinel_one.py');
  for (const [, c] of both) {
    await waitFor('both homes out of the index', async () => await listed(c) === expected + 1);
    assert.ok(await isNotIndexed(c, `relhome/${STATE_TAG.name}`));
    assert.ok(await isNotIndexed(c, `.evx/${STATE_TAG.name}`));
  }
  // Both daemons write in their homes; then one real change, which each applies as the only one.
  const before = await Promise.all(both.map(([, c]) => generation(c)));
  for (let i = 0; i < 10; i++) for (const [, c] of both) await c.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'import' } });
  await waitFor('audit logs written', () => [a, b].every((d) => existsSync(join(d.stateDir, 'audit.log'))));
  await changeAndWait([a, b], 'sentinel_two.py');
  assert.equal(await Promise.all(both.map(([, c]) => generation(c))), before.map((g) => g + 1), 'only the change made a generation');
  for (const d of [a, b]) {
    const lines = watchLines(d);
    const from = lines.findIndex((l) => l.includes('sentinel_one.py'));
    assert.equal(lines.slice(from).filter((l) => /relhome|\.evx/.test(l)), [], 'no watch line names a home once both are settled');
  }
});

test('an EVIDEX_HOME inside a git work tree shows nothing in git status: its .gitignore ignores all of it; the walk leaves it out by its tag', async () => {
  const root = fixtureCopy({ git: true });
  const home = join(root, '.evx');
  const status = (): string => git(root, ['status', '--porcelain', '--untracked-files=all']);
  assert.is(status(), '', 'a clean clone');
  try {
    const r = await evidex(['symbol', 'COLLECTION_NAME'], { cwd: root, home });
    assert.is(r.code, 0, r.stderr);
    assert.is(readFileSync(join(home, HOME_GITIGNORE.name), 'utf8'), HOME_GITIGNORE.text);
    assert.ok(existsSync(join(home, STATE_TAG.name)));
    // Only the home gets one: its state folder is tagged only.
    const stateDir = stateDirFor(realpathSync(root), { EVIDEX_HOME: home });
    assert.ok(existsSync(join(stateDir, STATE_TAG.name)));
    assert.not.ok(existsSync(join(stateDir, HOME_GITIGNORE.name)));
    assert.is(status(), '', 'the home, its tag, its state folder and the daemon\'s files are all ignored');
    assert.match(git(root, ['status', '--porcelain', '--ignored']), /^!! \.evx\/$/m, 'ignored by git, not absent');
    // evidex's own walk: out as evidex's state (by the tag), not as a folder git ignores.
    assert.equal(whyFolderLeftOut(await RepoRules.load(root), '.evx')?.reason, 'state');
    // Removed, it is written again by the next command; one the user wrote is left as it is.
    rmSync(join(home, HOME_GITIGNORE.name));
    assert.is((await evidex(['daemon', 'stop'], { cwd: root, home })).code, 0);
    assert.is((await evidex(['symbol', 'COLLECTION_NAME'], { cwd: root, home })).code, 0);
    assert.is(readFileSync(join(home, HOME_GITIGNORE.name), 'utf8'), HOME_GITIGNORE.text);
    writeFileSync(join(home, HOME_GITIGNORE.name), 'daemon.log\n');
    assert.is((await evidex(['daemon', 'stop'], { cwd: root, home })).code, 0);
    assert.is((await evidex(['symbol', 'COLLECTION_NAME'], { cwd: root, home })).code, 0);
    assert.is(readFileSync(join(home, HOME_GITIGNORE.name), 'utf8'), 'daemon.log\n');
  } finally {
    await evidex(['daemon', 'stop'], { cwd: root, home });
  }
});

test('a relative EVIDEX_HOME is refused in one line with exit 2, and nothing is made; a relative XDG_CACHE_HOME is ignored', async () => {
  const root = fixtureCopy({ git: true });
  for (const cwd of [root, join(root, 'src')]) {
    const r = await evidex(['symbol', 'COLLECTION_NAME'], { cwd, home: 'relhome' });
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stdout, '');
    assert.is(r.stderr, 'evidex: EVIDEX_HOME must be an absolute path; got "relhome" (e.g. EVIDEX_HOME="$PWD/relhome")\n');
    assert.not.ok(existsSync(join(cwd, 'relhome')), 'no home made where the command was typed');
  }
  const daemon = spawnSync(process.execPath, [DAEMON_MAIN, '--repo', root], { cwd: root, env: { ...process.env, EVIDEX_HOME: 'relhome' }, encoding: 'utf8' });
  assert.is(daemon.status, 2, daemon.stderr);
  assert.match(daemon.stderr, /^evidex daemon: EVIDEX_HOME must be an absolute path; got "relhome"/);
  assert.is(stateRoot({ XDG_CACHE_HOME: 'cache', HOME: '/home/u' }), '/home/u/.cache/evidex');
  assert.is(stateRoot({ XDG_CACHE_HOME: '/c', HOME: '/home/u' }), '/c/evidex');
  assert.throws(() => stateRoot({ EVIDEX_HOME: './x', HOME: '/home/u' }), /EVIDEX_HOME must be an absolute path; got "\.\/x"/);
});

test.run();
