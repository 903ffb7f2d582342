// A first start that fails takes back what it made (client/failed-start.ts).
// On a real full disk (a small tmpfs holding EVIDEX_HOME) a first `evidex
// symbol` once failed with no_space and left an empty state folder holding an
// empty daemon.log; with a few KB left, LMDB's first writes crashed the
// daemon (SIGSEGV) and the command said only "exited at start (status 128):
// no output". Now both are the one no_space line and nothing is left on the
// disk; once space returns the same command starts a daemon and answers. A
// start that fails for another reason keeps its log, moved to the temp folder
// and named in the error line.
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test as uvu } from 'uvu';
import { keptLogPath } from '../client/failed-start.js';
import { stateDirFor } from '../local/state.js';
import { evidex } from './helpers/cli.js';
import { daemonEnv } from './helpers/daemon.js';
import { mountReason, SmallDisk } from './helpers/full-disk.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';

const disks: SmallDisk[] = [];
uvu.after(() => {
  for (const d of disks.splice(0)) d.unmount();
  cleanupTemp();
});

/** A git work tree of 20 small Python files. */
function repo(): string {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(root);
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `m${i}.py`), `def before_${i}():\n    return ${i}\n`);
  git(root, ['init', '-q']);
  return root;
}

testUnless(mountReason())('a first start on a full disk: one no_space line, nothing left on the disk; it starts once space returns', async () => {
  const disk = SmallDisk.mount(2 << 20);
  disks.push(disk);
  const root = repo();
  const home = join(disk.dir, 'home');
  const stateDir = stateDirFor(root, daemonEnv(home));
  const cli = (args: string[]) => evidex(args, { cwd: root, home });
  try {
    // No room at all; then 16 KB, where LMDB's first writes crashed the daemon.
    for (const leave of [0, 16 << 10]) {
      disk.fill(leave);
      const r = await cli(['symbol', 'before_7']);
      assert.is(r.code, 1, `${leave}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter((l) => l.length > 0), [`evidex: no_space: no space left on ${stateDir} (state folder)`], `${leave} bytes left`);
      assert.equal(readdirSync(disk.dir), ['filler'], `${leave} bytes left: nothing but the filler on the disk`);
      disk.release();
    }
    const r = await cli(['symbol', 'before_7']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^m7\.py:1-2: function before_7 /m);
  } finally {
    const stopped = await cli(['daemon', 'stop']);
    assert.is(stopped.code, 0, stopped.stderr);
  }
});

uvu('a first start that fails for another reason: one line with its log\'s last line, the log kept in the temp folder, no state folder', async () => {
  const busy: Server = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const port = (busy.address() as { port: number }).port;
  const root = repo();
  const home = join(tempDir('home'), 'evidex');
  const stateDir = stateDirFor(root, daemonEnv(home));
  try {
    const r = await evidex(['symbol', 'before_7'], { cwd: root, home, env: { EVIDEX_PORT: String(port) } });
    assert.is(r.code, 1, r.stdout + r.stderr);
    const kept = keptLogPath(stateDir);
    assert.equal(r.stderr.split('\n').filter((l) => l.length > 0), [
      `evidex: the evidex daemon for ${root} exited at start (status 1): evidex daemon: listen EADDRINUSE: address already in use 127.0.0.1:${port}; log: ${kept}`,
    ]);
    assert.match(readFileSync(kept, 'utf8'), /server error: listen EADDRINUSE/);
    assert.not.ok(existsSync(home), 'EVIDEX_HOME, made by this start, is gone with the state folder');
  } finally {
    busy.close();
    rmSync(keptLogPath(stateDir), { force: true });
  }
});

uvu.run();
