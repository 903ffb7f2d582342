// A daemon whose root was deleted can be looked at and stopped alone, by the
// path it served: `daemon status --repo X` and `daemon stop --repo X` find it
// through the state folder keyed by that path (not "no such folder"), and
// `daemon prune` names that command, not `stop --all`, which would stop every
// other repository's daemon too. Run as a user runs them: real `evidex`
// processes, a path with a space, relative to where the command stands.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { evidex } from './helpers/cli.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

test('daemon status/stop --repo X after rm -rf X reach its daemon; prune names `daemon stop --repo X`; other daemons run on', async () => {
  const home = tempDir('home');
  const work = realpathSync(tempDir('work'));
  const gone = join(work, 'my repo');
  mkdirSync(gone);
  cpSync(FIXTURE, gone, { recursive: true });
  const other = realpathSync(fixtureCopy());
  const cli = (args: string[]) => evidex(args, { cwd: work, home });
  try {
    for (const repo of ['my repo', other]) {
      const started = await cli(['daemon', 'start', '--repo', repo]);
      assert.is(started.code, 0, started.stderr);
    }
    rmSync(gone, { recursive: true, force: true });
    // The daemon notices (its root is watched): list shows it, as before.
    await waitFor('root gone in the list', async () => /root gone/.test((await cli(['daemon', 'list'])).stdout), 20_000, 100);

    const status = await cli(['daemon', 'status', '--repo', 'my repo']);
    assert.is(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^root {9}${gone} — GONE: `, 'm'));

    const prune = await cli(['daemon', 'prune']);
    assert.is(prune.code, 0, prune.stderr);
    const hint = /still runs; stop it with `(evidex daemon stop --repo '[^']+')`$/m.exec(prune.stdout);
    assert.ok(hint, prune.stdout);
    assert.is(hint![1], `evidex daemon stop --repo '${gone}'`);
    assert.not.match(prune.stdout, /stop --all/);

    // The hint as typed, from where prune was run.
    const stop = await cli(['daemon', 'stop', '--repo', gone]);
    assert.is(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`^stopped the evidex daemon for ${gone} \\(pid \\d+\\)$`, 'm'));
    const after = await cli(['daemon', 'status', '--repo', 'my repo']);
    assert.is(after.code, 3, 'none runs for it now');
    assert.match(after.stdout, /^no evidex daemon running for /m);
    const otherStatus = await cli(['daemon', 'status', '--repo', other]);
    assert.is(otherStatus.code, 0, 'the other repository\'s daemon runs on');

    // A path that never was a root is still a missing folder.
    const never = await cli(['daemon', 'stop', '--repo', 'never-was']);
    assert.is(never.code, 2, 'a usage error');
    assert.match(never.stderr, /^evidex: no such folder: /m);
  } finally {
    await cli(['daemon', 'stop', '--all']);
  }
});

test.run();
