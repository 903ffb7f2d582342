// A dead daemon is dead (issue 31 point 5), through the real CLI and real
// detached daemons: a daemon killed under a parent that never reaps stays a
// zombie that kill(pid, 0) still finds, and one killed a moment ago is still
// being torn down when the next command looks; neither may lock its root out.
// The parent that never reaps is test/helpers/subreaper.py
// (PR_SET_CHILD_SUBREAPER), as a container whose PID 1 is no init.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { isPidAlive } from '../local/processes.js';
import { readDaemonInfo, stateDirFor, type DaemonInfo } from '../local/state.js';
import { BIN, evidex } from './helpers/cli.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

const SUBREAPER = join(PROJECT_ROOT, 'test', 'helpers', 'subreaper.py');

/** Fields 3 (state) and 4 (parent pid) of /proc/PID/stat, or null once the pid is gone. */
function procStat(pid: number): { state: string; ppid: number } | null {
  try {
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { state: rest[0], ppid: Number(rest[1]) };
  } catch { return null; }
}

const infoOf = (root: string, home: string): Promise<DaemonInfo | null> => readDaemonInfo(stateDirFor(root, { EVIDEX_HOME: home }));

/** A search through the CLI whose answer is checked against the files. */
async function searchAnswers(root: string, home: string): Promise<{ ms: number; stderr: string }> {
  const t0 = performance.now();
  const r = await evidex(['call', 'search_code', '{"query": "COLLECTION_NAME", "limit": 5}'], { cwd: root, home });
  const ms = performance.now() - t0;
  assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
  const body = JSON.parse(r.stdout) as { evidence: never[]; total: number };
  assert.ok(body.total >= 1);
  assertEvidenceChecks(root, body.evidence);
  // After the daemon's line, if any, the generation that answered (as the other commands' footers say it).
  assert.match(r.stderr, /(^|\n)index generation \d+\n$/);
  return { ms, stderr: r.stderr.replace(/index generation \d+\n$/, '') };
}

test('a killed daemon nobody reaps (a zombie) is dead: the next command replaces it at once, and status and stop see the new one', async () => {
  if (!existsSync('/proc/self/stat')) { console.log('no /proc: skipped'); return; }
  const root = realpathSync(fixtureCopy({ git: true }));
  const home = tempDir('home');
  const env = { ...process.env, EVIDEX_HOME: home, EVIDEX_IDLE_TIMEOUT: '', EVIDEX_PORT: '', OLLAMA_HOST: 'http://127.0.0.1:9' };
  // The CLI auto-starts the daemon detached and exits: the daemon's parent is then the subreaper.
  const reaper = spawn('python3', [SUBREAPER, process.execPath, BIN, 'search', 'COLLECTION_NAME', '--repo', root], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let said = '';
  reaper.stdout.on('data', (b: Buffer) => { said += b.toString(); });
  try {
    await waitFor('the first command through the subreaper', () => said.includes('exit '), 60_000);
    assert.is(said.trim(), 'exit 0');
    const first = (await infoOf(root, home))!;
    assert.is(procStat(first.pid)?.ppid, reaper.pid, 'the daemon is the subreaper\'s child');
    process.kill(first.pid, 'SIGKILL');
    await waitFor('a zombie', () => procStat(first.pid)?.state === 'Z');
    assert.not.throws(() => process.kill(first.pid, 0), 'kill(pid, 0) still finds a zombie (what liveness used to rest on)');
    assert.not.ok(isPidAlive(first.pid), 'a zombie is not alive');

    const { ms, stderr } = await searchAnswers(root, home);
    const second = (await infoOf(root, home))!;
    assert.is.not(second.pid, first.pid);
    assert.is(stderr, `started evidex daemon for ${root} (pid ${second.pid})\n`);
    assert.is(procStat(first.pid)?.state, 'Z', 'the zombie is still there: nothing waited for it');
    console.log(`  zombie ${first.pid} unreaped; the next command started pid ${second.pid} and answered in ${ms.toFixed(0)} ms`);

    const status = await evidex(['daemon', 'status', '--json'], { cwd: root, home });
    assert.is(status.code, 0, status.stderr);
    assert.is(JSON.parse(status.stdout).pid, second.pid);
    const stop = await evidex(['daemon', 'stop', '--json'], { cwd: root, home });
    assert.is(JSON.parse(stop.stdout).how, 'shutdown', stop.stdout);
    assert.not.ok(isPidAlive(second.pid));
    const none = await evidex(['daemon', 'status'], { cwd: root, home });
    assert.is(none.code, 3, 'nothing runs now: the zombie does not count');
  } finally {
    reaper.stdin.end();
    await evidex(['daemon', 'stop', '--all'], { cwd: root, home });
  }
});

test('a command run the moment after kill -9 answers (five kills in a row): it never fails while the old process is torn down', async () => {
  if (!existsSync('/proc/self/stat')) { console.log('no /proc: skipped'); return; }
  const root = realpathSync(fixtureCopy({ git: true }));
  const home = tempDir('home');
  try {
    await searchAnswers(root, home);
    const times: string[] = [];
    for (let i = 0; i < 5; i++) {
      const before = (await infoOf(root, home))!;
      process.kill(before.pid, 'SIGKILL');
      const { ms, stderr } = await searchAnswers(root, home);
      const after = (await infoOf(root, home))!;
      assert.is.not(after.pid, before.pid);
      assert.is(stderr, `started evidex daemon for ${root} (pid ${after.pid})\n`);
      times.push(`${ms.toFixed(0)} ms`);
    }
    console.log(`  a search right after each of 5 kill -9s answered in ${times.join(', ')} (a new daemon each time)`);
  } finally {
    await evidex(['daemon', 'stop', '--all'], { cwd: root, home });
  }
});

test.run();
