// Daemons that tidy up after themselves (docs/architecture.md; docs/cli.md), through the real
// `evidex` CLI and real detached daemons, each test under its own EVIDEX_HOME:
// the idle timeout of auto-started daemons (a few seconds here), the one line
// an auto-start says, daemon list / stop --all / prune, and the refusal to
// index an unnamed home folder or huge non-git tree.
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, openSocket } from '../client/connection.js';
import { shellWord } from '../local/human.js';
import { countFilesUpTo, MAX_UNNAMED_FILES } from '../client/index-guard.js';
import { COMPILE_CACHE, STATE_MARKERS } from '../local/home.js';
import { isPidAlive } from '../local/processes.js';
import { files, folderBytes, readDaemonInfo, stateDirFor, type DaemonInfo } from '../local/state.js';
import { formatDuration, parseDuration } from '../protocol/daemon-settings.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { evidex } from './helpers/cli.js';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { Methods } from '../protocol/messages.js';

test.after(() => cleanupTemp());
// Each test's wall time is part of the record (these start and wait out real daemons).
let started = 0;
test.before.each(() => { started = Date.now(); });
test.after.each((ctx) => { console.log(`${(ctx as { __test__?: string }).__test__}: ${Date.now() - started} ms`); });

const envOf = (home: string): NodeJS.ProcessEnv => ({ ...process.env, EVIDEX_HOME: home });
const infoOf = (root: string, home: string): Promise<DaemonInfo | null> => readDaemonInfo(stateDirFor(root, envOf(home)));

/** Stops whatever the test left running under `home` (through the CLI under test) and checks nothing is left. */
async function stopAll(home: string): Promise<void> {
  const r = await evidex(['daemon', 'stop', '--all', '--json'], { cwd: PROJECT_ROOT, home });
  assert.is(r.code, 0, r.stderr);
  for (const s of JSON.parse(r.stdout).stopped as Array<{ pid: number }>) assert.not.ok(isPidAlive(s.pid));
}

function repo(): string {
  return realpathSync(fixtureCopy({ git: true }));
}

test('durations: 90s, 30m, 3h, 1h30m, 0 (never); anything else is a one-line error', () => {
  assert.is(parseDuration('90s', 'X'), 90_000);
  assert.is(parseDuration('30m', 'X'), 1_800_000);
  assert.is(parseDuration('3h', 'X'), 10_800_000);
  assert.is(parseDuration('1h30m', 'X'), 5_400_000);
  assert.is(parseDuration('2d', 'X'), 172_800_000);
  assert.is(parseDuration('0', 'X'), 0);
  for (const bad of ['', '90', '5x', '-1s', '1.5h', 'h', '0s', '3 h', '30d']) {
    assert.throws(() => parseDuration(bad, 'EVIDEX_IDLE_TIMEOUT'), (e: Error) => e.message.startsWith('EVIDEX_IDLE_TIMEOUT: ') && !e.message.includes('\n'), bad);
  }
  assert.is(formatDuration(10_800_000), '3h');
  assert.is(formatDuration(90_000), '1m30s');
});

test('the first auto-start says one line on stderr; later commands reuse the daemon without a word', async () => {
  const root = repo();
  const home = tempDir('lc-home');
  try {
    // From a subfolder: the root is the git top-level, as the line says.
    const first = await evidex(['call', 'search_code', '{"query": "COLLECTION_NAME", "limit": 3}'], { cwd: join(root, 'src'), home });
    assert.is(first.code, 0, first.stderr);
    const info = await infoOf(root, home);
    assert.ok(info, 'daemon.json written');
    // The daemon's one line, then the index generation that answered (`call` says it on stderr, as a footer).
    const [started, answered, ...rest] = first.stderr.split('\n');
    assert.equal([started, ...rest], [`started evidex daemon for ${root} (pid ${info!.pid})`, '']);
    assert.match(answered, /^index generation \d+$/);
    assert.ok(isPidAlive(info!.pid));
    const body = JSON.parse(first.stdout); // stdout is the answer alone
    assert.is(body.evidence.length, 3);
    assertEvidenceChecks(root, body.evidence);

    const second = await evidex(['search', 'COLLECTION_NAME'], { cwd: root, home });
    assert.is(second.code, 0, second.stderr);
    assert.not.match(second.stderr, /started evidex daemon/);
    assert.is((await infoOf(root, home))!.pid, info!.pid, 'the same daemon answered');
  } finally {
    await stopAll(home);
  }
});

test('an auto-started daemon exits after EVIDEX_IDLE_TIMEOUT with no client and logs why; a client holds it, daemon list does not', async () => {
  const root = repo();
  const home = tempDir('lc-home');
  const env = { EVIDEX_IDLE_TIMEOUT: '2s' };
  try {
    const r = await evidex(['search', 'def'], { cwd: root, home, env });
    assert.is(r.code, 0, r.stderr);
    const info = (await infoOf(root, home))!;
    // A connected client holds the daemon past its timeout.
    const c = await connect(root, { env: envOf(home) });
    await new Promise((res) => setTimeout(res, 4000));
    assert.ok(isPidAlive(info.pid), 'alive while a client is connected');
    const result = await c.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: 'VectorStore' } });
    assertEvidenceChecks(root, result.evidence);
    await c.close();
    const left = Date.now();
    // Looking at it must not keep it alive: an observer connection (what daemon list and status open)
    // stays open throughout, and the CLI looks every half second besides.
    const observer = await openSocket(info, 5000, { observer: true });
    const observerClosed = new Promise((res) => observer.once('close', res));
    let lists = 0;
    while (isPidAlive(info.pid)) {
      assert.ok(Date.now() - left < 20_000, 'the idle daemon exits within 20 s of its last client leaving');
      const l = await evidex(['daemon', lists % 2 ? 'status' : 'list'], { cwd: root, home });
      assert.ok(l.code === 0 || l.code === 3, l.stderr);
      lists++;
      await new Promise((res) => setTimeout(res, 500));
    }
    const gone = Date.now() - left;
    assert.ok(gone >= 1900, `exited ${gone} ms after the last client left: not before its 2 s`);
    // At least one CLI look began while it idled (how many fit in 2 s depends on the machine's speed);
    // the observer connection, open the whole time, is what shows looking does not hold it.
    assert.ok(lists >= 1, `looked at it ${lists} times while it idled`);
    await observerClosed; // the daemon closed it on the way out
    const log = readFileSync(files(stateDirFor(root, envOf(home))).log, 'utf8');
    assert.match(log, /idle timeout 2s: exits after that long with no client/);
    assert.match(log, /shutting down: idle: no client for 2s \(idle timeout 2s, EVIDEX_IDLE_TIMEOUT\)/);
    assert.match(log, /stopped\n$/);
    assert.not.ok(existsSync(files(stateDirFor(root, envOf(home))).daemonJson), 'daemon.json removed on the idle exit');
    // The next command starts a fresh one, and says so again.
    const again = await evidex(['search', 'def'], { cwd: root, home });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, /^started evidex daemon for .* \(pid \d+\)$/m);
  } finally {
    await stopAll(home);
  }
});

test('`daemon start` ignores EVIDEX_IDLE_TIMEOUT and EVIDEX_IDLE_TIMEOUT=0 never exits; a 3s auto-start beside them does', async () => {
  const [manual, never, short] = [repo(), repo(), repo()];
  const home = tempDir('lc-home');
  try {
    const m = await evidex(['daemon', 'start', '--repo', manual], { cwd: manual, home, env: { EVIDEX_IDLE_TIMEOUT: '1s' } });
    assert.is(m.code, 0, m.stderr);
    const n = await evidex(['search', 'def'], { cwd: never, home, env: { EVIDEX_IDLE_TIMEOUT: '0' } });
    assert.is(n.code, 0, n.stderr);
    const s = await evidex(['search', 'def'], { cwd: short, home, env: { EVIDEX_IDLE_TIMEOUT: '3s' } });
    assert.is(s.code, 0, s.stderr);
    const pids = await Promise.all([manual, never, short].map(async (r) => (await infoOf(r, home))!.pid));
    const list = JSON.parse((await evidex(['daemon', 'list', '--json'], { cwd: manual, home })).stdout) as { daemons: Array<{ root: string; idleTimeoutSeconds: number }> };
    assert.equal(Object.fromEntries(list.daemons.map((d) => [d.root, d.idleTimeoutSeconds])), { [manual]: 0, [never]: 0, [short]: 3 });
    // By the time the 3s one has gone, the others have been without a client for longer than 1s and 3s.
    await waitFor('the 3s daemon to exit', () => !isPidAlive(pids[2]), 20_000, 100);
    await new Promise((res) => setTimeout(res, 1000));
    assert.ok(isPidAlive(pids[0]), 'the daemon started by hand stays');
    assert.ok(isPidAlive(pids[1]), 'EVIDEX_IDLE_TIMEOUT=0 stays');
  } finally {
    await stopAll(home);
  }
});

test('a bad EVIDEX_IDLE_TIMEOUT is a one-line error (exit 2) and starts nothing', async () => {
  const root = repo();
  const home = join(tempDir('lc-home'), 'evidex');
  for (const bad of ['5x', '90', '1.5h', '-3h']) {
    const r = await evidex(['search', 'def'], { cwd: root, home, env: { EVIDEX_IDLE_TIMEOUT: bad } });
    assert.is(r.code, 2, `${bad}: ${r.stderr}`);
    assert.is(r.stderr, `evidex: EVIDEX_IDLE_TIMEOUT: expected a duration such as 90s, 30m or 3h (0 = never), got ${JSON.stringify(bad)}\n`);
    assert.is(r.stdout, '');
  }
  assert.not.ok(existsSync(home), 'no state folder was made');
});

test('daemon list: root, pid, port, uptime, memory, files (--json and text); a killed daemon shows as stale and is cleaned', async () => {
  const [a, b] = [repo(), repo()];
  const home = tempDir('lc-home');
  try {
    assert.is((await evidex(['search', 'def'], { cwd: a, home })).code, 0);
    assert.is((await evidex(['daemon', 'start'], { cwd: b, home })).code, 0);
    // `daemon start` returns once the daemon listens; a search waits for its first build, so both list their files.
    assert.is((await evidex(['search', 'def'], { cwd: b, home })).code, 0);
    const [ia, ib] = [(await infoOf(a, home))!, (await infoOf(b, home))!];
    const r = await evidex(['daemon', 'list', '--json'], { cwd: PROJECT_ROOT, home });
    assert.is(r.code, 0, r.stderr);
    const l = JSON.parse(r.stdout) as { home: string; daemons: Array<Record<string, any>> };
    assert.is(l.home, home);
    assert.is(l.daemons.length, 2);
    for (const [root, info, idle] of [[a, ia, 10_800], [b, ib, 0]] as const) {
      const d = l.daemons.find((x) => x.root === root)!;
      assert.ok(d, `${root} listed`);
      const st = JSON.parse((await evidex(['daemon', 'status', '--json'], { cwd: root, home })).stdout);
      assert.equal([d.state, d.pid, d.port, d.url, d.files, d.idleTimeoutSeconds], ['running', info.pid, info.port, info.url, st.files, idle]);
      assert.ok(st.files >= 14, `files ${st.files}`);
      assert.ok(d.uptimeSeconds >= 0 && d.uptimeSeconds < 120, `uptime ${d.uptimeSeconds}`);
      const vmRss = Number(/^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${info.pid}/status`, 'utf8'))![1]) * 1024;
      assert.ok(d.rssBytes > 20 << 20 && Math.abs(d.rssBytes - vmRss) < vmRss / 2, `rss ${d.rssBytes} vs VmRSS ${vmRss}`);
      assert.not.ok('token' in d, 'the token is never listed');
    }
    const text = await evidex(['daemon', 'list'], { cwd: PROJECT_ROOT, home });
    const rows = text.stdout.trimEnd().split('\n');
    assert.match(rows[0], /^ROOT\s+PID\s+PORT\s+UPTIME\s+MEMORY\s+FILES\s+EXITS$/);
    for (const [root, info, exits] of [[a, ia, 'idle 3h'], [b, ib, 'until stopped']] as const) {
      const row = rows.find((x) => x.startsWith(`${root} `));
      assert.ok(row, text.stdout);
      assert.match(row!, new RegExp(`^\\S+\\s+${info.pid}\\s+${info.port}\\s+\\d+s\\s+\\d+ MB\\s+\\d+\\s+${exits}$`));
    }

    process.kill(ia.pid, 'SIGKILL');
    await waitFor('the killed daemon gone', () => !isPidAlive(ia.pid));
    const after = await evidex(['daemon', 'list'], { cwd: PROJECT_ROOT, home });
    assert.ok(after.stdout.includes(`stale: ${a} (pid ${ia.pid} is not running; its daemon.json was removed)`), after.stdout);
    assert.not.ok(existsSync(files(stateDirFor(a, envOf(home))).daemonJson));
    const once = JSON.parse((await evidex(['daemon', 'list', '--json'], { cwd: PROJECT_ROOT, home })).stdout) as { daemons: Array<{ root: string }> };
    assert.equal(once.daemons.map((d) => d.root), [b], 'cleaned: listed once');
  } finally {
    await stopAll(home);
  }
});

test('daemon stop --all stops every daemon, one whose root was deleted too; --all takes no --repo', async () => {
  const [a, b] = [repo(), repo()];
  const home = tempDir('lc-home');
  assert.is((await evidex(['search', 'def'], { cwd: a, home })).code, 0);
  assert.is((await evidex(['daemon', 'start', '--repo', b], { cwd: a, home })).code, 0);
  const pids = [(await infoOf(a, home))!.pid, (await infoOf(b, home))!.pid];
  const stateB = stateDirFor(b, envOf(home));
  rmSync(b, { recursive: true, force: true });

  const refused = await evidex(['daemon', 'stop', '--all', '--repo', a], { cwd: a, home });
  assert.is(refused.code, 2);
  assert.is(refused.stderr, 'evidex: daemon stop --all covers every repository; it takes no --repo\n');
  assert.ok(pids.every(isPidAlive), 'a refused command stops nothing');

  const r = await evidex(['daemon', 'stop', '--all'], { cwd: a, home });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.stdout.trimEnd().split('\n').sort(), [
    `stopped the evidex daemon for ${a} (pid ${pids[0]})`, `stopped the evidex daemon for ${b} (pid ${pids[1]})`,
  ].sort());
  assert.not.ok(pids.some(isPidAlive));
  assert.not.ok(existsSync(files(stateB).daemonJson));
  const none = await evidex(['daemon', 'list'], { cwd: a, home });
  assert.is(none.stdout, `no evidex daemons running (state: ${home})\n`);
  assert.is((await evidex(['daemon', 'stop', '--all'], { cwd: a, home })).stdout, `no evidex daemons running (state: ${home})\n`);
});

test('daemon prune removes the state of roots that are gone, says how much it freed, and never touches a running daemon or a foreign folder', async () => {
  const [gone, kept, running] = [repo(), repo(), repo()];
  const home = tempDir('lc-home');
  const env = envOf(home);
  try {
    for (const r of [gone, kept]) assert.is((await evidex(['index', '--repo', r], { cwd: r, home })).code, 0);
    assert.is((await evidex(['daemon', 'start', '--repo', running], { cwd: running, home })).code, 0);
    const runningPid = (await infoOf(running, home))!.pid;
    const [sGone, sKept, sRunning] = [gone, kept, running].map((r) => stateDirFor(r, env));
    const foreign = join(home, 'notes');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'keep.txt'), 'not evidex state\n');
    const goneBytes = folderBytes(sGone);
    rmSync(gone, { recursive: true, force: true });
    rmSync(running, { recursive: true, force: true });

    const r = await evidex(['daemon', 'prune'], { cwd: kept, home });
    assert.is(r.code, 0, r.stderr);
    const mb = (b: number) => `${(b / 1048576).toFixed(b < 10 * 1048576 ? 1 : 0)} MB`;
    assert.equal(r.stdout.trimEnd().split('\n'), [
      `removed ${sGone} (${gone} no longer exists, ${mb(goneBytes)})`,
      `left ${sRunning}: ${running} no longer exists, but its daemon (pid ${runningPid}) still runs; stop it with \`evidex daemon stop --repo ${running}\``,
      `freed ${mb(goneBytes)} in 1 folder; kept 1 of existing roots`,
    ]);
    assert.ok(goneBytes > 10_000, `the removed index had ${goneBytes} bytes`);
    assert.not.ok(existsSync(sGone));
    assert.ok(existsSync(join(sKept, 'index')), 'an existing root keeps its state');
    assert.ok(existsSync(files(sRunning).daemonJson) && isPidAlive(runningPid), 'the running daemon and its folder untouched');
    const status = JSON.parse((await evidex(['daemon', 'list', '--json'], { cwd: kept, home })).stdout);
    assert.is(status.daemons[0].state, 'running', 'and it still answers');
    assert.is(readFileSync(join(foreign, 'keep.txt'), 'utf8'), 'not evidex state\n');

    await stopAll(home);
    const runningBytes = folderBytes(sRunning);
    const again = JSON.parse((await evidex(['daemon', 'prune', '--json'], { cwd: kept, home })).stdout);
    assert.equal(again.removed.map((x: { stateDir: string; root: string }) => [x.stateDir, x.root]), [[sRunning, running]]);
    // What it measured includes the lock prune itself took (`PID START\n`) before removing the folder.
    const lockBytes = again.removed[0].bytes - runningBytes;
    assert.ok(lockBytes > 3 && lockBytes < 64, `${again.removed[0].bytes} bytes measured, ${runningBytes} before the lock`);
    assert.is(again.bytes, again.removed[0].bytes);
    // The CLI's compile cache (Node 22+, client/code-cache.ts) is no root's state: prune leaves it.
    assert.equal(readdirSync(home).filter((n) => n !== COMPILE_CACHE && !STATE_MARKERS.includes(n)).sort(), [sKept.slice(home.length + 1), 'notes'].sort());
    const nothing = await evidex(['daemon', 'prune'], { cwd: kept, home });
    assert.is(nothing.stdout, `nothing to prune in ${home} (1 state folder of existing roots)\n`);
  } finally {
    await stopAll(home);
  }
});

test('the home folder is not indexed unless --repo names it; a repository inside it is', async () => {
  // A home folder whose path a shell would split and read: the command offered quotes it.
  const fakeHome = join(realpathSync(tempDir('lc-userhome')), "it's my home");
  mkdirSync(fakeHome);
  writeFileSync(join(fakeHome, 'notes.txt'), 'hello from home\n');
  const proj = join(fakeHome, 'proj');
  mkdirSync(proj);
  writeFileSync(join(proj, 'a.py'), 'HOME_MARKER = 1\n');
  // Outside the home folder under test: a state folder inside an indexed root would be watched too.
  const home = join(tempDir('lc-state'), 'evidex');
  const env = { HOME: fakeHome };
  try {
    for (const args of [['search', 'hello'], ['index'], ['daemon', 'start'], ['call', 'search_code', '{"query": "hello"}']]) {
      const r = await evidex(args, { cwd: fakeHome, home, env });
      assert.is(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      const again = `evidex ${args.map(shellWord).join(' ')} --repo ${shellWord(fakeHome)}`;
      const msg = `not indexing ${fakeHome} unasked: it is your home folder; name it with --repo to index it anyway (\`${again}\`), or run evidex inside a repository`;
      if (args[0] === 'call') assert.equal(JSON.parse(r.stdout), { error: { code: 'invalid_arguments', message: msg } });
      else assert.is(r.stderr, `evidex: ${msg}\n`);
    }
    assert.not.ok(existsSync(home), 'nothing started, nothing written');
    // A git work tree inside the home folder is a repository like any other.
    git(proj, ['init', '-q']);
    const inRepo = await evidex(['search', 'HOME_MARKER'], { cwd: proj, home, env });
    assert.is(inRepo.code, 0, inRepo.stderr);
    assert.match(inRepo.stdout, /^a\.py:1: HOME_MARKER = 1$/m);
    // Named, it goes ahead; with its daemon running, the unnamed form is served too.
    const named = await evidex(['search', 'hello', '--repo', fakeHome], { cwd: fakeHome, home, env });
    assert.is(named.code, 0, named.stderr);
    assert.match(named.stdout, /^notes\.txt:1: hello from home$/m);
    const unnamed = await evidex(['search', 'hello'], { cwd: fakeHome, home, env });
    assert.is(unnamed.code, 0, unnamed.stderr);
  } finally {
    await stopAll(home);
  }
});

test('counting stops just past the limit and does not follow symlinks', async () => {
  const d = tempDir('lc-count');
  mkdirSync(join(d, 'a', 'b'), { recursive: true });
  for (const p of ['1', 'a/2', 'a/3', 'a/b/4', 'a/b/5']) writeFileSync(join(d, p), '');
  symlinkSync(join(d, 'a'), join(d, 'loop')); // a link counts as one entry, its target is not walked again
  assert.is(await countFilesUpTo(d, 100), 6);
  assert.is(await countFilesUpTo(d, 6), 6);
  assert.is(await countFilesUpTo(d, 5), 6);
  assert.is(await countFilesUpTo(d, 2), 3);
});

test(`outside git, a folder of more than ${MAX_UNNAMED_FILES} files is not indexed unless --repo names it`, async () => {
  const big = realpathSync(tempDir('lc-big'));
  // MAX_UNNAMED_FILES + 1 empty files in folders of 1,000 (the one test that needs the real limit; ~3 s idle, ~20 s loaded).
  const t0 = Date.now();
  for (let i = 0; i * 1000 <= MAX_UNNAMED_FILES; i++) {
    const sub = join(big, `d${i}`);
    mkdirSync(sub);
    for (let j = 0; j < 1000 && i * 1000 + j <= MAX_UNNAMED_FILES; j++) closeSync(openSync(join(sub, `f${j}`), 'w'));
  }
  const made = Date.now() - t0;
  const home = join(tempDir('lc-home'), 'evidex');
  const t1 = Date.now();
  const r = await evidex(['search', 'x'], { cwd: big, home });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stderr, `evidex: not indexing ${big} unasked: it is not a git work tree and holds more than 100,000 files; name it with --repo to index it anyway (\`evidex search x --repo ${big}\`), or run evidex inside a repository\n`);
  assert.not.ok(existsSync(home), 'nothing started, nothing written');
  console.log(`${MAX_UNNAMED_FILES + 1} files: made in ${made} ms; refused in ${Date.now() - t1} ms (loaded machine)`);
});

test.run();
