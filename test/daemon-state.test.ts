// Lifecycle and the state folder: one daemon per root, stale daemon.json and
// lock files from dead processes, clean shutdown by daemon/shutdown and SIGTERM,
// auto-start from the client, and the messages a user sees when no daemon runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import {
  ConnectionError, connect, daemonStart, daemonStatus, daemonStop,
} from '../client/connection.js';
import { formatStatus } from '../client/daemon-report.js';
import { resolveRepoRoot } from '../local/root.js';
import { isPidAlive, processStartTime } from '../local/processes.js';
import {
  acquireLock, DaemonRunningError, ensureStateDir, files, readDaemonInfo, stateDirFor,
  writeDaemonInfo,
} from '../local/state.js';
import { createToken } from '../daemon/token.js';
import { tokensEqual } from '../local/bearer.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import {
  DAEMON_MAIN, daemonEnv, fixtureCopy, startDaemon, stopDaemon, waitFor,
} from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';
import { Methods, warmupSettled } from '../protocol/messages.js';

test.after(() => cleanupTemp());

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(r.stdout);
  assert.ok(!isPidAlive(pid));
  return pid;
}

test('a second daemon for the same root refuses to start (exit 3) and names the running one', async () => {
  const root = realpathSync(fixtureCopy());
  const d = await startDaemon(root);
  try {
    const r = spawnSync(process.execPath, [DAEMON_MAIN, '--repo', root], { env: d.env, encoding: 'utf8', timeout: 20_000 });
    assert.is(r.status, 3, r.stderr);
    assert.is(r.stderr.trim(), `evidex daemon: a daemon for ${root} is already running (pid ${d.info.pid})`);
    assert.is((await readDaemonInfo(d.stateDir))?.pid, d.info.pid, 'the loser did not touch daemon.json');
  } finally {
    assert.is((await stopDaemon(d)).code, 0);
  }
  assert.not.ok(existsSync(files(d.stateDir).daemonJson), 'daemon.json removed on clean exit');
  assert.not.ok(existsSync(files(d.stateDir).lock), 'lock removed on clean exit');
  assert.not.ok(existsSync(files(d.stateDir).token), 'token removed on clean exit');
});

test('after kill -9: the stale daemon.json and lock are detected, the client says so, a new daemon takes over', async () => {
  const root = realpathSync(fixtureCopy());
  const d = await startDaemon(root);
  d.proc.kill('SIGKILL');
  await d.exited;
  assert.ok(existsSync(files(d.stateDir).daemonJson), 'kill -9 leaves daemon.json behind');
  assert.ok(existsSync(files(d.stateDir).lock), 'and the lock');
  const st = await daemonStatus(root, { env: d.env });
  assert.is(st.running, false);
  assert.not.ok(existsSync(files(d.stateDir).daemonJson), 'status cleared the stale daemon.json');
  try {
    await connect(root, { env: d.env });
    assert.unreachable('connect without autoStart must fail when no daemon runs');
  } catch (e) {
    assert.instance(e, ConnectionError);
    assert.is((e as Error).message, `no evidex daemon for ${root}; start one with \`evidex daemon start --repo ${root}\``);
  }
  const d2 = await startDaemon(root, { home: d.home });
  try {
    assert.is.not(d2.info.pid, d.info.pid);
    assert.is.not(d2.info.token, d.info.token, 'a fresh token per start');
    assert.is(readFileSync(files(d2.stateDir).lock, 'utf8').split(' ')[0], String(d2.info.pid));
  } finally {
    assert.is((await stopDaemon(d2)).code, 0);
  }
});

test('a lock and daemon.json naming a dead pid are taken over; a garbled daemon.json counts as none', async () => {
  const root = realpathSync(fixtureCopy());
  const home = tempDir('home');
  const env = daemonEnv(home);
  const stateDir = stateDirFor(root, env);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const dead = deadPid();
  writeFileSync(files(stateDir).lock, `${dead}\n`);
  writeFileSync(files(stateDir).daemonJson, JSON.stringify({ pid: dead, port: 1, url: 'ws://127.0.0.1:1/', token: 'x', root }));
  assert.is((await daemonStatus(root, { env })).running, false);
  writeFileSync(files(stateDir).daemonJson, '{"pid": 12, "po');
  assert.is((await daemonStatus(root, { env })).running, false);
  const d = await startDaemon(root, { home });
  try {
    const st = await daemonStatus(root, { env });
    assert.ok(st.running);
    if (st.running) {
      assert.is(st.pid, d.info.pid);
      assert.is(st.root, root);
      assert.ok(st.files > 0 || st.state !== 'ready');
      assert.match(formatStatus(st).plain, /^running {6}yes \(pid \d+/);
      // Where the search text is: one line, the same words in index/status and daemon status (a small tree: in the heap).
      const textMap = st.status.index.textMap ?? '';
      assert.match(textMap, /^none( yet)?: (the search text (\([0-9.]+ MiB\) is below the 64\.0 MiB threshold|is still being indexed or loaded))$/);
      assert.ok(formatStatus(st).plain.includes(`\ntext map     ${textMap}\n`), formatStatus(st).plain);
    }
  } finally {
    await stopDaemon(d);
  }
});

test('acquireLock: O_EXCL with our pid and start time; a live holder is refused, a reused pid is not', async () => {
  const stateDir = tempDir('lock');
  const lock = await acquireLock(stateDir, '/r');
  assert.is(readFileSync(files(stateDir).lock, 'utf8').trim(), `${process.pid} ${processStartTime(process.pid)}`);
  assert.is(statSync(files(stateDir).lock).mode & 0o777, 0o600);
  await lock.release();
  assert.not.ok(existsSync(files(stateDir).lock));
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
  try {
    await waitFor('holder start time', () => processStartTime(holder.pid!));
    for (const content of [`${holder.pid} ${processStartTime(holder.pid!)}\n`, `${holder.pid}\n`]) {
      writeFileSync(files(stateDir).lock, content);
      try {
        await acquireLock(stateDir, '/r');
        assert.unreachable(`a live holder keeps the lock (${content.trim()})`);
      } catch (e) {
        assert.instance(e, DaemonRunningError);
        assert.is((e as DaemonRunningError).pid, holder.pid);
      }
    }
    // The same pid with another start time is a reused pid: the lock is stale and taken over.
    writeFileSync(files(stateDir).lock, `${holder.pid} 1\n`);
    const taken = await acquireLock(stateDir, '/r');
    assert.is(readFileSync(files(stateDir).lock, 'utf8').split(' ')[0], String(process.pid));
    await taken.release();
  } finally { holder.kill('SIGKILL'); }
});

test('daemon status of a daemon that goes away while asked says it is not running, not an internal error', async () => {
  // Seen under load: `daemon status` connected just as an idle daemon began its exit, the daemon closed the
  // new connection (1001, as Daemon.accept does while stopping) and the CLI said internal_error, exit 1.
  const root = tempDir('going');
  const env = daemonEnv(tempDir('going-home'));
  const stateDir = stateDirFor(root, env);
  await ensureStateDir(stateDir);
  const lock = await acquireLock(stateDir, root); // this process stands in for the daemon: it holds the lock
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  try {
    await once(wss, 'listening');
    wss.on('connection', (ws) => ws.once('message', () => ws.close(1001, 'daemon shutting down')));
    const { port } = wss.address() as AddressInfo;
    await writeDaemonInfo(stateDir, { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: await createToken(stateDir), root });
    const r = await daemonStatus(root, { env });
    if (r.running) assert.unreachable('a daemon that closed the connection is reported running'); // else `evidex daemon status` exits 3
    else assert.match(r.message, /^the daemon for .* \(pid \d+\) went away while asked: connection closed \(1001 daemon shutting down\)$/);
  } finally {
    for (const c of wss.clients) c.terminate();
    await new Promise((res) => wss.close(res));
    await lock.release();
  }
});

test('tokensEqual compares exactly', () => {
  assert.ok(tokensEqual('abc', 'abc'));
  assert.not.ok(tokensEqual('abd', 'abc'));
  assert.not.ok(tokensEqual('abc', 'abcd'));
  assert.not.ok(tokensEqual('', 'abc'));
});

test('connect({autoStart}) starts a detached daemon that logs to daemon.log; daemon stop shuts it down', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  const env = daemonEnv(tempDir('home'));
  // Two clients racing to auto-start: one daemon wins the lock, both end up connected to it.
  const [a, b] = await Promise.all([connect(root, { autoStart: true, env }), connect(root, { autoStart: true, env })]);
  try {
    assert.is(a.info.pid, b.info.pid);
    const r = await a.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'COLLECTION_NAME' } });
    assertEvidenceChecks(root, r.evidence);
    assert.ok(r.total >= 1);
    const log = readFileSync(files(a.stateDir).log, 'utf8');
    assert.match(log, /listening on ws:\/\/127\.0\.0\.1:\d+\//);
    assert.is(statSync(files(a.stateDir).daemonJson).mode & 0o777, 0o600);
    // glibc's mmap threshold is fixed for the daemon (connection.ts, DAEMON_MALLOC_ENV).
    if (process.platform === 'linux') assert.ok(environOf(a.info.pid).includes('MALLOC_MMAP_THRESHOLD_=131072'));
  } finally {
    await a.close(); await b.close();
  }
  const again = await daemonStart(root, { env });
  assert.is(again.started, false, 'daemon start with one running reuses it');
  const stop = await daemonStop(root, { env });
  assert.ok(stop.stopped);
  assert.is(stop.how, 'shutdown');
  assert.not.ok(isPidAlive(stop.pid!));
  assert.not.ok(existsSync(files(stateDirFor(root, env)).daemonJson));
  assert.equal(await daemonStop(root, { env }), { stopped: false, message: `no evidex daemon running for ${root}` });
  // A threshold the caller's environment sets is kept.
  const own = { ...env, MALLOC_MMAP_THRESHOLD_: '65536' };
  const st = await daemonStart(root, { env: own });
  assert.ok(st.started);
  if (process.platform === 'linux') {
    const environ = environOf((await readDaemonInfo(stateDirFor(root, own)))!.pid);
    assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=65536') && !environ.includes('MALLOC_MMAP_THRESHOLD_=131072'));
  }
  assert.is((await daemonStop(root, { env })).how, 'shutdown');
});

/** A process's environment, one `NAME=value` a line. */
function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}

test('daemon/shutdown answers, then the process exits 0 and removes daemon.json', async () => {
  const root = realpathSync(fixtureCopy());
  const d = await startDaemon(root);
  const c = await connect(root, { env: d.env });
  const r = await c.request(Methods.daemonShutdown);
  assert.equal(r, { stopping: true, pid: d.info.pid });
  const reason = await c.closed;
  assert.match(reason, /1001 daemon shutting down/);
  assert.equal(await d.exited, { code: 0, signal: null });
  assert.not.ok(existsSync(files(d.stateDir).daemonJson));
});

/** CPU seconds a live process has used (utime + stime from /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

testUnless(lacks.proc())('a daemon whose stdout reader is gone neither spins nor ignores SIGTERM', async () => {
  const root = realpathSync(fixtureCopy());
  const d = await startDaemon(root);
  // Settled first (first build and warm-up done), so what is measured below is the idle daemon.
  const c = await connect(root, { env: d.env });
  await waitFor('a settled daemon', async () => {
    const st = await c.request(Methods.indexStatus);
    return st.daemon.startup === 'done' && warmupSettled(st.daemon.warmup) && st.daemon.pendingUpdates === 0;
  }, 30_000, 100);
  await c.close();
  // The reader of the daemon's log goes away, as when `evidex daemon run | head` ends or its parent dies.
  d.proc.stdout!.destroy();
  d.proc.stderr!.destroy();
  // Each connection writes log lines; the first write after the close meets EPIPE.
  for (let i = 0; i < 3; i++) await (await connect(root, { env: d.env })).close();
  const before = cpuSeconds(d.info.pid);
  await new Promise((r) => setTimeout(r, 2000));
  const used = cpuSeconds(d.info.pid) - before;
  console.log(`    CPU over 2 s after its stdout closed: ${used.toFixed(2)} s`);
  assert.ok(used < 0.5, `the daemon spins: ${used} s of CPU in 2 s`);
  d.proc.kill('SIGTERM');
  const exit = await Promise.race([d.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
  assert.equal(exit, { code: 0, signal: null });
});

test('resolveRepoRoot: --repo names the root itself; the default is the git top-level of the folder, else the folder', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  assert.is(await resolveRepoRoot(join(root, 'src', 'mobileai_rag')), join(root, 'src', 'mobileai_rag'));
  assert.is(await resolveRepoRoot(undefined, join(root, 'src')), root);
  const plain = realpathSync(tempDir('plain'));
  mkdirSync(join(plain, 'sub'));
  assert.is(await resolveRepoRoot(undefined, join(plain, 'sub')), join(plain, 'sub'));
  const missing = await resolveRepoRoot(join(plain, 'missing')).then(() => null, (e: unknown) => e);
  assert.instance(missing, Error);
  assert.match((missing as Error).message, /^no such folder: /);
});

test('the daemon refuses bad arguments with a one-line usage error (exit 2)', async () => {
  const r = spawnSync(process.execPath, [DAEMON_MAIN, '--port', 'eighty'], { encoding: 'utf8', env: daemonEnv(tempDir('home')) });
  assert.is(r.status, 2);
  assert.is(r.stderr.trim(), 'evidex daemon: --port: expected a port number 0-65535, got "eighty"');
  await waitFor('nothing', () => true);
});

test.run();
