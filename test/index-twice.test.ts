// Two `evidex index` at once with no daemon: the second finds the root's lock
// held by a process that is no daemon (no daemon.json names it). It says so
// once, with the holder's pid, waits for the lock, then refreshes in its own
// process (finding the first build's work unchanged) and reports, exit 0 —
// never "no evidex daemon … start one".
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realpathSync } from 'node:fs';
import { acquireLock, ensureStateDir, stateDirFor } from '../local/state.js';
import { BIN, type Run } from './helpers/cli.js';
import { daemonEnv, fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** `evidex index` in `root`, with `onStderr` told of every chunk of its stderr as it comes. */
function index(root: string, home: string, onStderr: (text: string) => void = () => undefined): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, 'index'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EVIDEX_HOME: home } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); onStderr(stderr); });
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a second `evidex index` waits for the build holding the lock, names its pid, then reports', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  const home = tempDir('home');
  const stateDir = stateDirFor(root, daemonEnv(home));
  await ensureStateDir(stateDir);
  // This process holds the lock as an in-process `evidex index` does while it builds.
  const lock = await acquireLock(stateDir, root);
  let released = false;
  let sawWait!: () => void;
  const waiting = new Promise<void>((r) => { sawWait = r; });
  const run = index(root, home, (text) => { if (/waiting for it to finish/.test(text)) sawWait(); });
  await waiting;
  assert.is(released, false);
  released = true;
  await lock.release();
  const r = await run;
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`^evidex: another process \\(pid ${process.pid}\\) is building this index; waiting for it to finish$`, 'm'));
  assert.is(r.stderr.split('\n').filter((l) => l.includes('waiting for it')).length, 1, 'said once');
  assert.match(r.stdout, /^indexed .+ \(in-process\)$/m);
  assert.not.match(r.stderr, /no evidex daemon/);
});

test('two `evidex index` started together both report and exit 0, in three fresh homes', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  for (let i = 0; i < 3; i++) {
    const home = tempDir('home');
    const [a, b] = await Promise.all([index(root, home), index(root, home)]);
    for (const r of [a, b]) {
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /^indexed .+ \(in-process\)$/m);
      assert.match(r.stdout, /^ {2}files {3}\d+ /m);
    }
  }
});

test.run();
