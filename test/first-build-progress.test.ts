// The first command on a repository that has no index waits for the daemon's
// first build. On a terminal it shows how far the build has come (the
// progress line of `evidex index`: phase, files done of total) on stderr,
// and erases it before the answer; in a pipe it shows nothing but the
// answer and the footer, as before. The tree is a copy of this machine's
// Python standard library (some two thousand files, helpers/corpus.ts), so
// the build lasts seconds; the test waits on what the screen shows, not on a clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stdlibCopy } from './helpers/corpus.js';
import { evidex } from './helpers/cli.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';
import { TmuxSession } from './helpers/terminal.js';

const tmuxTest = testUnless(lacks.tmux(), test);
const tmux = new TmuxSession(`evidex-first-build-${process.pid}`);
test.after(() => { tmux.kill(); cleanupTemp(); });

const PROGRESS = /\[[# ]{30}\] (walk|parse|write|done) \d+(\/\d+)? files/;

tmuxTest('on a terminal: the first build\'s progress while the command waits, erased before the answer', async () => {
  const root = stdlibCopy();
  const home = tempDir('home');
  tmux.start(['symbol', 'HTTPConnection', '--kind', 'class', '--repo', root], { EVIDEX_HOME: home, TERM: 'xterm-256color', EVIDEX_IDLE_TIMEOUT: '' });
  const during = await tmux.until('the build\'s progress on screen', PROGRESS, { timeoutMs: 60_000 });
  assert.match(during, /^started evidex daemon for .+ \(pid \d+\)$/m);
  const end = await tmux.until('the command ended', /\[exit \d+\]/, { timeoutMs: 120_000 });
  assert.match(end, /\[exit 0\]/);
  assert.match(end, /^http\/client\.py:\d+-\d+: class HTTPConnection {2}class HTTPConnection:$/m);
  assert.match(end, /^1 of 1 shown · index generation \d+$/m);
  assert.not.match(end, PROGRESS, 'the progress line is erased');
  const stop = await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
  assert.is(stop.code, 0, stop.stderr);
});

test('in a pipe: no progress, only the answer and the footer', async () => {
  const root = stdlibCopy();
  const home = tempDir('home');
  const r = await evidex(['symbol', 'HTTPConnection', '--kind', 'class', '--repo', root], { cwd: root, home });
  try {
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^http\/client\.py:\d+-\d+: class HTTPConnection {2}class HTTPConnection:\n$/);
    assert.not.match(r.stderr, PROGRESS);
    assert.not.match(r.stderr, /\r|\x1b/);
    assert.equal(r.stderr.trimEnd().split('\n').map((l) => l.replace(/\d+/g, 'N')), ['started evidex daemon for ' + root.replace(/\d+/g, 'N') + ' (pid N)', 'N of N shown · index generation N']);
  } finally {
    await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
  }
});

test.run();
