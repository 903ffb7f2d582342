// A full disk loses no update (issue 31 point 2), on a REAL full disk: the
// state folder on a small tmpfs filled to the last byte. The watcher's batches
// that cannot be written are kept and retried with a backoff until they land
// (in process, on a clock the test moves; and through a real daemon, on its
// own clock); meanwhile index/status and `evidex daemon status` say how many
// changes wait and why; once space returns every file written during the
// outage is in the index, with no user action. `evidex index` on a full disk
// fails with its own code and one line, and what it could not finish is left
// to the watcher's re-walk, so the index is not left marked building. The
// daemon's log keeps whole lines although lmdb writes its own unterminated
// text into it. And a write that fails for one path (a folder chain past the
// system's path limit) holds back nothing else, and is retried until it lands.
// A first start on a full disk leaves nothing on it.
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import type { BuildProgress, IndexHandle } from '../indexer/api.js';
import { openEvidexIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { RETRY_DELAYS_MS } from '../indexer/watch/held.js';
import { files, stateDirFor } from '../local/state.js';
import { Methods } from '../protocol/messages.js';
import { evidex, type Run } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { daemonEnv, readyClient, waitFor } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';
import { test as uvu } from 'uvu';

const test = testUnless(mountReason());
uvu.after(() => {
  SmallDisk.unmountAll();
  cleanupTemp();
});

const WRITTEN = 200;
const MARK = 'FULL_DISK_MARK_';
const written = (): string[] => Array.from({ length: WRITTEN }, (_, i) => `during/f${String(i).padStart(3, '0')}.py`);

/** A git work tree of 20 small Python files. */
function repo(): string {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(join(root, 'during'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `m${i}.py`), `def before_${i}():\n    return ${i}\n`);
  git(root, ['init', '-q']);
  return root;
}

/** A repository whose state folder (EVIDEX_HOME) is on a new small disk of `bytes`, and `evidex` run in it with that home. */
function daemonRepoOnSmallDisk(bytes: number) {
  const disk = SmallDisk.mount(bytes);
  const root = repo();
  const home = join(disk.dir, 'home');
  const env = daemonEnv(home);
  const cli = (args: string[]) => evidex(args, { cwd: root, home });
  return { disk, root, env, stateDir: stateDirFor(root, env), cli };
}

/** The 200 files of the outage, one marker each. */
function writeDuringOutage(root: string): void {
  written().forEach((p, i) => writeFileSync(join(root, p), `${MARK}${i} = ${i}\n`));
}

/** Every path the index finds the marker in, checked against the disk. */
async function markedPaths(run: (name: string, args: unknown) => Promise<{ evidence: any[]; total: number }>, root: string): Promise<string[]> {
  const r = await run('search_code', { query: MARK, case_sensitive: true, limit: 200 });
  assertEvidenceChecks(root, r.evidence);
  return r.evidence.filter((e) => e.kind === 'content_match').map((e) => e.path as string).sort();
}

/**
 * A real index of `root` kept in `stateDir`, built, and its watcher on a clock the test moves (writes one at a time, as the daemon's queue runs them).
 * `onRewalk` is told each step of the watcher's re-walks as it happens.
 */
async function watched(root: string, stateDir: string, onRewalk?: (p: BuildProgress) => void) {
  const handle: IndexHandle = await openEvidexIndex(root, { stateDir });
  await handle.refresh();
  const clock = new ManualClock();
  const log: string[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  const index = {
    update: (paths: string[]) => handle.update(paths),
    refresh: (onProgress?: (p: BuildProgress) => void) => handle.refresh((p) => { onProgress?.(p); onRewalk?.(p); }),
    ignoreCandidates: () => handle.ignoreCandidates(),
  };
  const watcher = await RepoWatcher.start({ root, rules: await handle.rules(), index, exclusive, timers: clock, log: (l) => log.push(l) });
  const run = async (name: string, args: unknown) => handle.runTool(name, args);
  return { handle, watcher, clock, log, run };
}

/** Room a daemon's start needs on a tmpfs (lock, token, daemon.json, root.json, the log: a page each, with some to spare). */
const ROOM_FOR_A_START = 96 << 10;

const DISK_FULL = /^disk full: no space left on (.+) \(state folder\)$/;

test('in process: batches that cannot be written are held and retried on the clock until they land; none is lost', async () => {
  const disk = SmallDisk.mount(16 << 20);
  const root = repo();
  const stateDir = join(disk.dir, 'state');
  const { handle, watcher, clock, log, run } = await watched(root, stateDir);
  try {
    disk.fill();
    writeDuringOutage(root);
    // Every save reached the watcher, and the write of the first batch failed: held, or waiting behind the held ones.
    const first = await waitFor('every change kept after the first failed write', () => {
      const h = watcher.heldChanges;
      return h && watcher.queued === WRITTEN ? h : null;
    }, 60_000, 20);
    assert.is(first.attempts, 1, 'the clock has not moved: no retry yet');
    assert.match(first.reason, DISK_FULL);
    assert.is(DISK_FULL.exec(first.reason)![1], stateDir);
    assert.equal(await markedPaths(run, root), [], 'nothing of the outage is in the index yet');
    assert.is((await run('find_symbol', { name: 'before_7' })).total, 1, 'the index answers as before');

    // A retry while the disk is still full: it fails too, and now holds all 200.
    clock.advance(RETRY_DELAYS_MS[0]);
    const second = await waitFor('the second attempt', () => {
      const h = watcher.heldChanges;
      return h && h.attempts === 2 && h.changes === WRITTEN ? h : null;
    }, 60_000, 20);
    assert.match(second.reason, DISK_FULL);

    // Space returns; nothing happens until the next retry is due, then every change lands.
    disk.release();
    clock.advance(RETRY_DELAYS_MS[1]);
    await waitFor('the kept changes landed', () => watcher.heldChanges === null, 60_000, 20);
    await watcher.idle();
    assert.equal(await markedPaths(run, root), written(), 'all 200 files written during the outage are in the index');
    for (const i of [0, 99, 199]) {
      const r = await run('find_symbol', { name: `${MARK}${i}` });
      assert.is(r.total, 1, `${MARK}${i}`);
      assertEvidenceChecks(root, r.evidence);
    }
    assert.is(handle.status().files, 20 + WRITTEN);
    assert.ok(log.some((l) => /^watcher: \d+ change\(s\) could not be written; kept, and retried until they land \(next in 0\.25 s\): disk full: /.test(l)), log.join('\n'));
    assert.ok(log.some((l) => /^watcher: 200 kept change\(s\) still not written after 2 attempts \(next in 0\.50 s\): disk full: /.test(l)), log.join('\n'));
    assert.ok(log.some((l) => /^watcher: the kept changes landed \(2 failed attempt\(s\) since /.test(l)), log.join('\n'));

    // Saves after the outage land at once, as ever.
    writeFileSync(join(root, 'after.py'), `${MARK}after = 1\n`);
    await waitFor('a save after the outage', async () => (await markedPaths(run, root)).includes('after.py'), 30_000, 20);
  } finally {
    await watcher.close();
    await handle.close();
  }
});

test('in process: a link made while a batch is held is followed once it lands: its import resolves (the failed attempt gives the link back)', async () => {
  const disk = SmallDisk.mount(16 << 20);
  const root = repo();
  writeFileSync(join(root, 'lib.ts'), 'export const LIB = 1;\n');
  writeFileSync(join(root, 'imp.ts'), "import { LIB } from './cur';\n");
  const { handle, watcher, clock, run } = await watched(root, join(disk.dir, 'state'));
  const importers = async (): Promise<string[]> => (await run('find_importers', { module_name: 'lib.ts' })).evidence.map((e: any) => `${e.path}:${e.start_line}`);
  try {
    assert.equal(await importers(), [], 'no link yet: nothing resolves');
    disk.fill();
    writeDuringOutage(root);
    await waitFor('the first write failed', () => watcher.heldChanges && watcher.queued === WRITTEN, 60_000, 20);
    symlinkSync('lib.ts', join(root, 'cur.ts'));
    await waitFor('the link queued behind', () => watcher.queued === WRITTEN + 1, 60_000, 20);
    // A retry with the link in its batch, on the full disk: it fails, after taking the link's change.
    clock.advance(RETRY_DELAYS_MS[0]);
    await waitFor('the retry with the link failed', () => { const h = watcher.heldChanges; return h && h.attempts === 2 && h.changes === WRITTEN + 1; }, 60_000, 20);
    disk.release();
    clock.advance(RETRY_DELAYS_MS[1]);
    await waitFor('the kept changes landed', () => watcher.heldChanges === null, 60_000, 20);
    await watcher.idle();
    assert.equal(await markedPaths(run, root), written());
    assert.equal(await importers(), ['imp.ts:1'], 'the import through cur.ts -> lib.ts resolves');
  } finally {
    await watcher.close();
    await handle.close();
  }
});

// Seen under load as `129 changes waiting` after 200 saves: the daemon's catch-up re-walk after its watcher's scan
// still ran when the disk filled, so it was held with the saves, and while a retry re-walked, the count was its
// progress (the files it had still to read, down to 1 as it wrote), not the changes it held.
test('in process: a re-walk held with the changes counts them all until it lands, while its retries walk and parse too', async () => {
  const disk = SmallDisk.mount(16 << 20);
  const root = repo();
  const stateDir = join(disk.dir, 'state');
  const counts: string[] = [];
  let watcher: RepoWatcher | undefined;
  const counted = (p: BuildProgress) => counts.push(`${p.phase} ${p.done}/${p.total}: ${watcher!.heldChanges?.changes}`);
  const w = await watched(root, stateDir, counted);
  watcher = w.watcher;
  const { handle, clock, run } = w;
  try {
    disk.fill();
    writeDuringOutage(root);
    await waitFor('every change kept after the first failed write', () => watcher!.heldChanges && watcher!.queued === WRITTEN, 60_000, 20);
    watcher.requestRefresh('a re-walk asked for during the outage');
    assert.is(watcher.heldChanges!.changes, WRITTEN + 1, 'the re-walk waits for the retry too, and counts as one');

    // The retry re-walks (the 200 paths are in the tree it walks) and fails: the re-walk is held with them.
    clock.advance(RETRY_DELAYS_MS[0]);
    const second = await waitFor('the second attempt', () => {
      const h = watcher!.heldChanges;
      return h && h.attempts === 2 ? h : null;
    }, 60_000, 20);
    assert.match(second.reason, DISK_FULL);
    assert.is(second.changes, WRITTEN + 1);
    assert.ok(counts.some((c) => c.startsWith('walk ')), `the failed retry re-walked: ${counts.join('; ')}`);
    const failedRetry = counts.splice(0);

    disk.release();
    clock.advance(RETRY_DELAYS_MS[1]);
    await waitFor('the kept changes landed', () => watcher!.heldChanges === null, 60_000, 20);
    await watcher.idle();
    assert.ok(counts.some((c) => c.startsWith(`parse ${WRITTEN}/${WRITTEN}:`)), `the retry that landed parsed the 200: ${counts.join('; ')}`);
    const low = [...failedRetry, ...counts].filter((c) => !(Number(c.slice(c.lastIndexOf(' ') + 1)) >= WRITTEN + 1));
    assert.equal(low, [], 'while held, the count never drops below the changes held, whatever the re-walk has read');
    assert.equal(await markedPaths(run, root), written());
    assert.is(handle.status().files, 20 + WRITTEN);
  } finally {
    await watcher.close();
    await handle.close();
  }
});

test('through a daemon: status says how many changes wait and why, `evidex index` fails with no_space, and every change lands once space returns', async () => {
  const { disk, root, env, stateDir, cli } = daemonRepoOnSmallDisk(32 << 20);
  const started = await cli(['daemon', 'start']);
  assert.is(started.code, 0, started.stderr);
  const ready = readyClient(root, env);
  try {
    const { client, run } = await ready.open();

    disk.fill();
    writeDuringOutage(root);
    // 200 files, and whatever else the saves touched (their folder): each a path to look at again.
    let last: unknown;
    const held = await waitFor('200 changes waiting', async () => {
      const s = await client.request(Methods.indexStatus);
      last = { waiting: s.daemon.waiting, pending: s.daemon.pendingUpdates };
      const w = s.daemon.waiting;
      return w && w.changes >= WRITTEN ? w : null;
    }, 60_000, 50).catch((e: Error) => { throw new Error(`${e.message}; last status: ${JSON.stringify(last)}`); });
    assert.match(held.reason, DISK_FULL);
    assert.is(DISK_FULL.exec(held.reason)![1], stateDir);

    const status = await cli(['daemon', 'status']);
    assert.is(status.code, 0, status.stderr);
    const shown = /^index {8}\S+, (\d+) changes waiting$/m.exec(status.stdout);
    assert.ok(shown && Number(shown[1]) >= WRITTEN, status.stdout);
    assert.match(status.stdout, new RegExp(`^waiting {6}${shown![1]} changes since \\d\\d:\\d\\d:\\d\\d, [^(]+ ago \\(\\d+ attempts?, retried until written\\): disk full: no space left on ${stateDir} \\(state folder\\)$`, 'm'));

    const index = await cli(['index']);
    assert.is(index.code, 1, `${index.stdout}${index.stderr}`);
    const errors = index.stderr.split('\n').filter((l) => l.startsWith('evidex:'));
    assert.equal(errors, [`evidex: no_space: no space left on ${stateDir} (state folder)`]);
    assert.equal(await markedPaths(run, root), [], 'nothing of the outage is in the index yet');
    assert.is((await run('find_symbol', { name: 'before_7' })).total, 1, 'the index answers as before');

    const t0 = performance.now();
    disk.release();
    await waitFor('every change of the outage in the index', async () => (await markedPaths(run, root)).length === WRITTEN, 120_000, 50);
    const ms = performance.now() - t0;
    assert.equal(await markedPaths(run, root), written());
    const after = await client.request(Methods.indexStatus);
    assert.is(after.daemon.waiting, undefined, 'nothing waits any more');
    assert.is(after.index.files, 20 + WRITTEN);
    for (const p of written()) {
      const r = await run('read_evidence', { path: p, start_line: 1 });
      assertEvidenceChecks(root, r.evidence);
    }
    // A line of its own: lmdb printed its unterminated "Write error: …" to this process's stderr in the first test.
    console.log(`\n    200 changes kept through a full disk; all in the index ${(ms / 1000).toFixed(2)} s after space returned (${after.daemon.pendingUpdates} pending)`);
  } finally {
    await ready.close();
    const stopped = await cli(['daemon', 'stop']);
    assert.is(stopped.code, 0, stopped.stderr);
  }
  // Every record of the log starts a line of its own, whatever lmdb wrote before it.
  const log = readFileSync(files(stateDir).log, 'utf8');
  const glued = log.split('\n').filter((l) => /.\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /.test(l));
  assert.equal(glued, [], 'no record glued onto other text');
  // The disk was full to statfs too: every commit was refused before LMDB wrote a page (store/commit-room.ts).
  assert.not.match(log, /Write error:/, 'lmdb met no full disk of its own');
  assert.match(log, /^\S+ watcher: the kept changes landed \(\d+ failed attempt\(s\) since /m);
});

test('`evidex index` through a daemon, cut short by a full disk after it marked the index building: once space returns the index is ready again, with no user action', async () => {
  const { disk, root, env, stateDir, cli } = daemonRepoOnSmallDisk(32 << 20);
  assert.is((await cli(['daemon', 'start'])).code, 0);
  const ready = readyClient(root, env);
  try {
    const { client, run } = await ready.open();
    // A daemon that has run a while has free pages inside its index: files written and removed leave them.
    // They hold the refresh's first, small commit (`building`) on a full disk, not the outage's files.
    mkdirSync(join(root, 'churn'));
    for (let i = 0; i < 20; i++) writeFileSync(join(root, 'churn', `c${i}.py`), `CHURN_${i} = 1\n`.repeat(200));
    await waitFor('the churn indexed', async () => (await run('search_code', { query: 'CHURN_', limit: 1 })).total === 20 * 200, 30_000, 50);
    spawnSync('rm', ['-rf', join(root, 'churn')]);
    await waitFor('the churn removed', async () => (await run('search_code', { query: 'CHURN_', limit: 1 })).total === 0, 30_000, 50);
    // And a commit after that one: only then are the pages the removal freed known to be reusable (commit-room.ts).
    writeFileSync(join(root, 'after_churn.py'), 'AFTER_CHURN = 1\n');
    await waitFor('a change after the churn indexed', async () => (await run('search_code', { query: 'AFTER_CHURN = 1', limit: 1 })).total > 0, 30_000, 50);

    disk.fill();
    const lines = (i: number) => Array.from({ length: 300 }, (_, j) => `${MARK}${i}_${j} = ${j}`).join('\n') + '\n';
    written().forEach((p, i) => writeFileSync(join(root, p), lines(i)));
    await waitFor('changes waiting for room', async () => (await client.request(Methods.indexStatus)).daemon.waiting, 60_000, 50);
    const index = await cli(['index']);
    assert.is(index.code, 1, `${index.stdout}${index.stderr}`);
    assert.match(index.stderr, /^evidex: no_space: /m);
    assert.is((await client.request(Methods.indexStatus)).index.state, 'building', 'the refresh marked the index building before the disk refused its files');

    disk.release();
    const settled = await waitFor('every kept change and re-walk landed', async () => {
      const s = await client.request(Methods.indexStatus);
      return !s.daemon.waiting && !s.daemon.catchingUp && s.daemon.pendingUpdates === 0 ? s : null;
    }, 120_000, 50);
    assert.is(settled.index.state, 'ready', 'the index is not left marked building once everything landed');
    assert.is((await run('search_code', { query: `${MARK}199_299 `, limit: 1 })).total, 1);
    const status = await cli(['daemon', 'status']);
    assert.match(status.stdout, /^index {8}ready$/m);
  } finally {
    await ready.close();
    assert.is((await cli(['daemon', 'stop'])).code, 0);
  }
  const log = readFileSync(files(stateDir).log, 'utf8').split('\n');
  const at = log.findIndex((l) => l.includes('Write error:'));
  assert.is(at, -1, `lmdb met no full disk of its own; the log there:\n${log.slice(Math.max(0, at - 8), at + 3).join('\n')}`);
});

test('`evidex index` on a full disk, no daemon: exit 1, one line with its code, nothing left behind; it builds once space returns', async () => {
  const { disk, root, stateDir, cli } = daemonRepoOnSmallDisk(16 << 20);
  assert.is((await cli(['index'])).code, 0);
  writeDuringOutage(root);
  disk.fill();
  const full = await cli(['index']);
  assert.is(full.code, 1, `${full.stdout}${full.stderr}`);
  assert.equal(full.stderr.split('\n').filter((l) => l.startsWith('evidex:')), [`evidex: no_space: no space left on ${stateDir} (state folder)`]);
  assert.is(full.stdout, '');
  assert.not.ok(existsSync(files(stateDir).lock), 'no lock left behind');
  disk.release();
  const again = await cli(['index', '--json']);
  assert.is(again.code, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).files, 20 + WRITTEN);
});

test('a daemon started on a disk with no room for its catch-up serves the index it has, says why, and indexes every change once space returns', async () => {
  const { disk, root, env, stateDir, cli } = daemonRepoOnSmallDisk(16 << 20);
  assert.is((await cli(['index'])).code, 0);
  // Written while no daemon ran: only the start-up catch-up can find them.
  writeDuringOutage(root);
  // Room for what a start writes (lock, token, daemon.json, log lines), not for 200 files' index.
  disk.fill(ROOM_FOR_A_START);
  const started = await cli(['daemon', 'start']);
  assert.is(started.code, 0, `${started.stdout}${started.stderr}`);
  let c: Client | undefined;
  try {
    c = await connect(root, { env });
    const client = c;
    const run = async (name: string, args: unknown) => client.request(Methods.toolsCall, { name, arguments: args });
    let last: unknown;
    const held = await waitFor('the catch-up held for want of room', async () => {
      const s = await client.request(Methods.indexStatus);
      last = s.daemon;
      return s.daemon.startup === 'failed' && s.daemon.waiting ? s : null;
    }, 60_000, 50).catch((e: Error) => { throw new Error(`${e.message}; last status: ${JSON.stringify(last)}`); });
    assert.is(held.daemon.startupError, `no space left on ${stateDir} (state folder)`);
    assert.match(held.daemon.waiting!.reason, DISK_FULL);
    // The catch-up commits in batches: those that found room landed, the rest wait.
    const meanwhile = await markedPaths(run, root);
    assert.ok(meanwhile.length < WRITTEN && meanwhile.every((p) => written().includes(p)), `not every change is in yet: ${meanwhile.length} of ${WRITTEN}`);
    const before = await run('find_symbol', { name: 'before_7' });
    assert.is(before.total, 1, 'the index built before answers meanwhile');
    assertEvidenceChecks(root, before.evidence);

    disk.release();
    await waitFor('every change made before the start in the index', async () => (await markedPaths(run, root)).length === WRITTEN, 120_000, 50);
    assert.equal(await markedPaths(run, root), written());
    const after = await client.request(Methods.indexStatus);
    assert.is(after.daemon.startup, 'done');
    assert.is(after.daemon.waiting, undefined, 'nothing waits any more');
    assert.is(after.index.files, 20 + WRITTEN);
    const r = await run('find_symbol', { name: `${MARK}${WRITTEN - 1}` });
    assert.is(r.total, 1);
    assertEvidenceChecks(root, r.evidence);
  } finally {
    await c?.close();
    const stopped = await cli(['daemon', 'stop']);
    assert.is(stopped.code, 0, stopped.stderr);
  }
  const log = readFileSync(files(stateDir).log, 'utf8');
  assert.match(log, /index build failed: no space left on .+ \(state folder\); the watcher's catch-up retries it until it lands/);
  assert.not.match(log, /Write error:/, 'lmdb met no full disk of its own');
});

test('no room at all for a daemon to start: the command fails with no_space and one line, not daemon_unavailable; it starts once space returns', async () => {
  const { disk, root, stateDir, cli } = daemonRepoOnSmallDisk(16 << 20);
  assert.is((await cli(['index'])).code, 0);
  disk.fill();
  try {
    for (const args of [['daemon', 'start'], ['symbol', 'before_7']]) {
      const r = await cli(args);
      assert.is(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter((l) => l.length > 0), [`evidex: no_space: no space left on ${stateDir} (state folder)`], args.join(' '));
      assert.is(r.stdout, '');
    }
    assert.not.ok(existsSync(files(stateDir).daemonJson), 'no daemon.json left behind');
    disk.release();
    await answersOnceSpaceReturned(cli);
  } finally {
    await stopped(cli);
  }
});

// A first start on a full disk once left an empty state folder holding an empty daemon.log; with 16 KB
// left, LMDB's first writes killed the daemon (SIGSEGV) and the command said only "exited at start
// (status 128): no output". Now: the one no_space line, and nothing left on the disk (client/failed-start.ts).
test('a first start on a full disk: one no_space line, nothing left on the disk; it starts once space returns', async () => {
  const { disk, stateDir, cli } = daemonRepoOnSmallDisk(2 << 20);
  try {
    for (const leave of [0, 16 << 10]) {
      disk.fill(leave);
      const r = await cli(['symbol', 'before_7']);
      assert.is(r.code, 1, `${leave}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter((l) => l.length > 0), [`evidex: no_space: no space left on ${stateDir} (state folder)`], `${leave} bytes left`);
      assert.equal(readdirSync(disk.dir), ['filler'], `${leave} bytes left: nothing but the filler on the disk`);
      disk.release();
    }
    await answersOnceSpaceReturned(cli);
  } finally {
    await stopped(cli);
  }
});

/** With room again, `evidex symbol` starts a daemon (building its index) and answers. */
async function answersOnceSpaceReturned(cli: (args: string[]) => Promise<Run>): Promise<void> {
  const r = await cli(['symbol', 'before_7']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^m7\.py:1-2: function before_7 /m);
}

async function stopped(cli: (args: string[]) => Promise<Run>): Promise<void> {
  const r = await cli(['daemon', 'stop']);
  assert.is(r.code, 0, r.stderr);
}

uvu('a path the system refuses is held alone: later saves land at once, and it is retried until it lands (here: once its folder is gone)', async () => {
  const root = repo();
  const { handle, watcher, clock, log, run } = await watched(root, tempDir('state'));
  const deep = 'd'.repeat(250);
  try {
    // 18 folders of 250-byte names, made by relative steps: the deepest paths are past PATH_MAX (4,096 bytes).
    const made = spawnSync('bash', ['-c', `for i in $(seq 18); do mkdir ${deep} && cd ${deep} || exit 1; done; echo 'DEEP_MARK = 1' > deep.py`], { cwd: root });
    assert.is(made.status, 0, String(made.stderr));
    writeFileSync(join(root, 'later.py'), `${MARK}later = 1\n`);
    await waitFor('a save beside the chain', async () => (await markedPaths(run, root)).includes('later.py'), 60_000, 20);
    // Saves after the failure land too, with no retry due (the clock has not moved).
    writeFileSync(join(root, 'later2.py'), `${MARK}later2 = 1\n`);
    await waitFor('a later save', async () => (await markedPaths(run, root)).includes('later2.py'), 60_000, 20);
    const held = watcher.heldChanges;
    // Where the walk leaves such a chain out with its reason (no write fails), nothing is held; else only the chain is, with the system's reason.
    if (held) {
      assert.match(held.reason, /^ENAMETOOLONG: /);
      assert.ok(held.reason.length <= 301, `the reason is one line of reasonable length (${held.reason.length} characters)`);
      assert.ok(log.some((l) => /^watcher: \d+ change\(s\) could not be written; kept, and retried until they land/.test(l)), log.join('\n'));
    }
    // GNU rm walks by descriptors, so it removes a chain no path can name.
    assert.is(spawnSync('rm', ['-rf', deep], { cwd: root }).status, 0);
    clock.advance(RETRY_DELAYS_MS.reduce((a, b) => a + b));
    await waitFor('nothing held once the chain is gone', () => watcher.heldChanges === null && watcher.queued === 0, 60_000, 20);
    await watcher.idle();
    assert.equal(await markedPaths(run, root), ['later.py', 'later2.py']);
    assert.is((await run('search_code', { query: 'DEEP_MARK', case_sensitive: true })).total, 0);
    if (held) assert.ok(log.some((l) => /^watcher: the kept changes landed/.test(l)), log.join('\n'));
  } finally {
    await watcher.close();
    await handle.close();
  }
});

uvu.run();
