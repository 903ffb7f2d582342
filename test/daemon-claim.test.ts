// One daemon per root, always findable (issue 31 point 3; daemon/state-claim.ts,
// client/daemon-commands.ts): a daemon whose state folder, lock or daemon.json
// is taken from under it steps aside at once, so the next command starts the
// one daemon for the root; and `daemon list` / `stop --all` find a daemon no
// daemon.json names, in the process table, without touching the daemons of
// another EVIDEX_HOME. Real daemons, real processes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { daemonEntry } from '../client/connection.js';
import { daemonProcesses, isPidAlive, processStartTime } from '../local/processes.js';
import { files, readDaemonInfo, stateDirFor } from '../local/state.js';
import { evidex } from './helpers/cli.js';
import { fixtureCopy, startDaemon, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** The daemons of this installation running with their state under `home`, by root. */
function daemonsUnder(home: string): Array<{ pid: number; root: string | null }> {
  return daemonProcesses(daemonEntry()).filter((p) => p.env.EVIDEX_HOME === home).map(({ pid, root }) => ({ pid, root }));
}

/** Waits for a test daemon to exit on its own; its exit status and what it logged. */
async function exitsOnItsOwn(d: TestDaemon): Promise<{ code: number | null; log: string }> {
  const r = await Promise.race([d.exited, new Promise<null>((res) => setTimeout(() => res(null), 20_000))]);
  if (r === null) { d.proc.kill('SIGKILL'); assert.unreachable(`the daemon did not exit: ${d.log()}`); }
  return { code: r!.code, log: d.log() };
}

test('the state folder deleted under a running daemon: it exits at once, and the next command starts the one daemon for the root', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  const d = await startDaemon(root);
  rmSync(d.stateDir, { recursive: true, force: true });
  const { code, log } = await exitsOnItsOwn(d);
  assert.is(code, 0);
  // rm -rf empties the folder before it removes it: whichever of its names goes first is noticed first.
  assert.match(log, new RegExp(`shutting down: its (state folder ${d.stateDir} was deleted or replaced|lock \\S+ was removed|\\S+daemon\\.json was removed); stepping aside`));
  assert.match(log, /stopped\n$/);
  const r = await evidex(['search', 'COLLECTION_NAME'], { cwd: root, home: d.home });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^src\/rag_common\.py:12: COLLECTION_NAME = "mobileai_docs"$/m);
  const info = (await readDaemonInfo(d.stateDir))!;
  assert.equal(daemonsUnder(d.home), [{ pid: info.pid, root }], 'one daemon for the root');
  await evidex(['daemon', 'stop', '--all'], { cwd: root, home: d.home });
});

test('its daemon.json or lock removed, or the lock rewritten for another process: the daemon steps aside, and a new one can start', async () => {
  const root = realpathSync(fixtureCopy());
  const other = process.pid; // a live process that is not the daemon
  const cases: Array<[string, (d: TestDaemon) => void, RegExp]> = [
    ['daemon.json removed', (d) => rmSync(files(d.stateDir).daemonJson), /its \S+daemon\.json was removed/],
    ['lock removed', (d) => rmSync(files(d.stateDir).lock), /its lock \S+ was removed/],
    ['lock rewritten', (d) => writeFileSync(files(d.stateDir).lock, `${other} ${processStartTime(other)}\n`), /its lock \S+ no longer names it/],
  ];
  const home = tempDir('home');
  for (const [what, act, said] of cases) {
    const d = await startDaemon(root, { home });
    act(d);
    const { code, log } = await exitsOnItsOwn(d);
    assert.is(code, 0, what);
    assert.match(log, said, what);
    if (what === 'lock rewritten') {
      assert.is(realpathSync(files(d.stateDir).lock), files(d.stateDir).lock);
      assert.ok(existsSync(files(d.stateDir).lock), 'another\'s lock is left alone');
      rmSync(files(d.stateDir).lock);
    }
  }
  const d = await startDaemon(root, { home });
  assert.ok(isPidAlive(d.info.pid));
  d.proc.kill('SIGTERM');
  assert.is((await d.exited).code, 0);
});

test('daemon list and stop --all find a daemon that no daemon.json names (the process table), and leave another EVIDEX_HOME\'s daemons alone', async () => {
  const [a, b] = [realpathSync(fixtureCopy()), realpathSync(fixtureCopy())];
  const [home, otherHome] = [tempDir('home'), tempDir('home')];
  try {
    assert.is((await evidex(['search', 'def'], { cwd: a, home })).code, 0);
    assert.is((await evidex(['search', 'def'], { cwd: b, home: otherHome })).code, 0);
    const stateA = stateDirFor(a, { EVIDEX_HOME: home });
    const pa = (await readDaemonInfo(stateA))!.pid;
    const pb = (await readDaemonInfo(stateDirFor(b, { EVIDEX_HOME: otherHome })))!.pid;
    // Stopped, it cannot notice its folder go; removed, no daemon.json names it.
    process.kill(pa, 'SIGSTOP');
    rmSync(stateA, { recursive: true, force: true });
    const json = await evidex(['daemon', 'list', '--json'], { cwd: a, home });
    assert.is(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { daemons: Array<Record<string, unknown>> };
    assert.equal(listed.daemons.map((x) => [x.state, x.pid, x.root, x.port]), [['unlisted', pa, a, null]]);
    const text = await evidex(['daemon', 'list'], { cwd: a, home });
    assert.match(text.stdout, new RegExp(`^${a}\\s+${pa}\\s+-\\s+-\\s+\\d+ MB\\s+no daemon\\.json\\s+-$`, 'm'));
    assert.match(text.stdout, new RegExp(`^unlisted: ${a} \\(pid ${pa}\\) runs with no daemon\\.json naming it; \`evidex daemon stop --all\` stops it$`, 'm'));
    const stop = await evidex(['daemon', 'stop', '--all'], { cwd: a, home });
    assert.is(stop.code, 0, stop.stderr);
    assert.match(stop.stdout.trimEnd(), new RegExp(`^(stopped|killed) the evidex daemon for ${a} \\(pid ${pa}, SIG(TERM|KILL); found in the process table, no daemon\\.json named it\\)$`));
    await waitFor('the unlisted daemon gone', () => !isPidAlive(pa));
    assert.ok(isPidAlive(pb), 'the daemon of another EVIDEX_HOME runs on');
    assert.is((await evidex(['daemon', 'list'], { cwd: a, home })).stdout, `no evidex daemons running (state: ${home})\n`);
  } finally {
    await evidex(['daemon', 'stop', '--all'], { cwd: a, home: otherHome });
    await evidex(['daemon', 'stop', '--all'], { cwd: a, home });
  }
});

test.run();
