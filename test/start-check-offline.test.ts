// The first answer after a restart, from a real daemon on real files: a file
// edited while no daemon ran is found by the start-up check, and the answer
// that waited for the check holds the edit. The check is what makes that
// answer whole: on an unchanged tree its cost is the walk, and a few changed
// files are parsed on the daemon's thread (a parse worker's start alone was
// longer than the call's wait, START_CHECK_WAIT_MS). Whether the first call
// comes within that wait is the machine's speed, so the test holds the first
// answer to honesty (with the edit, or marked as the check's) and reads the
// check's own finding from the daemon's log; the figures are in
// docs/performance.md.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { START_CHECK } from '../daemon/updates.js';
import { files, stateDirFor } from '../local/state.js';
import { evidex } from './helpers/cli.js';
import { daemonEnv, fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

const EDITED = 'src/mobileai_rag/config.py';
const NAME = 'edited_while_no_daemon_ran';

test('daemon stop, an offline edit, a command: the start-up check finds the edited file and the answer holds the edit', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  const home = tempDir('home');
  // `evidex symbol --json` prints the whole answer, catching_up included (`evidex call` prints evidence and total alone).
  const call = (name: string) => evidex(['symbol', name, '--json'], { cwd: root, home });
  try {
    const built = await evidex(['index'], { cwd: root, home });
    assert.is(built.code, 0, built.stderr);
    // A daemon that ran and stopped: the index it leaves is complete.
    const first = await call('load_settings');
    assert.is(first.code, 0, first.stderr);
    assert.is((await evidex(['daemon', 'stop'], { cwd: root, home })).code, 0);
    const logFile = files(stateDirFor(root, daemonEnv(home))).log;
    const before = readFileSync(logFile, 'utf8').length; // what the daemon that stopped logged

    appendFileSync(join(root, EDITED), `\n\ndef ${NAME}():\n    return 7\n`);
    const lines = readFileSync(join(root, EDITED), 'utf8').split('\n');
    const at = lines.indexOf(`def ${NAME}():`) + 1;
    const r = await call(NAME);
    assert.is(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { evidence: Array<{ path: string; start_line: number; end_line: number; snippet: string }>; total: number; catching_up?: { rewalk?: string } };
    if (answer.catching_up) assert.is(answer.catching_up.rewalk, START_CHECK, 'an answer without the edit says it came during the check');
    else {
      assert.is(answer.total, 1, r.stdout);
      const [e] = answer.evidence;
      assert.equal({ path: e!.path, start_line: e!.start_line }, { path: EDITED, start_line: at });
      assert.is(e!.snippet, lines.slice(e!.start_line - 1, e!.end_line).join('\n'), 'the snippet is the file\'s lines');
    }

    // The check's own line, the first the restarted daemon logged, found the one edited file.
    const check = await waitFor('the check\'s line in the daemon log', () => readFileSync(logFile, 'utf8').slice(before).split('\n').find((l) => l.includes('index ready:')), 60_000);
    assert.match(check, /index ready: \d+ files \(1 parsed, \d+ unchanged, 0 removed\) in [\d.]+ s \(turn \d+ ms, rules \d+ ms, walk \d+ ms, compare \d+ ms, parse \d+ ms, write \d+ ms\)$/);
    const again = JSON.parse((await call(NAME)).stdout) as typeof answer;
    assert.is(again.total, 1);
    assert.is(again.catching_up, undefined, 'once the check is over, nothing is marked');
  } finally {
    await evidex(['daemon', 'stop'], { cwd: root, home });
  }
});

test.run();
