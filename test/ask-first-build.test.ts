// `evidex ask` and `evidex chat` on a repository with no index: the
// question's first tool call waits for the daemon's first build, and stderr
// shows that build's progress as the tool commands show it (the progress line
// of `evidex index`), not the model as thinking: on a terminal in the
// spinner's place, erased once the build is over, then the steps as usual; in
// a pipe a plain line now and then; stdout holds the answer alone. The real
// CLI, a daemon it starts, the fake Ollama server, and a copy of the standard
// library (some two thousand files: the build lasts seconds); the tests wait
// on what the screen and the streams show, not on a clock.
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, FakeOllama } from './fake-ollama/server.js';
import { evidex } from './helpers/cli.js';
import { stdlibCopy } from './helpers/corpus.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { serverEnv } from './helpers/model-servers.js';
import { lacks, testUnless } from './helpers/skip.js';
import { BIN, TmuxSession } from './helpers/terminal.js';

const tmuxTest = testUnless(lacks.tmux(), test);
const tmux = new TmuxSession(`evidex-ask-first-build-${process.pid}`);
const fake = new FakeOllama();

test.before(async () => { await fake.start(); });
test.after(async () => {
  tmux.kill();
  await fake.stop();
  cleanupTemp();
});

const BAR = /\[[# ]{30}\] (walk|parse|write|done) \d+(\/\d+)? files/;
const PLAIN = /^(walk|parse|write|done) \d+(\/\d+)? files( · \d+ left out)?$/m;
const ANSWER = 'HTTPConnection is a class of the http.client module.';

/** The model's two replies: a call that waits on the build, then the answer. */
function script(): void {
  fake.script(
    { chunks: [{ tool_calls: [call('find_symbol', { name: 'HTTPConnection', kind: 'class' })] }] },
    { chunks: [{ content: ANSWER }] },
  );
}

/** A fresh repository and state folder: the first command starts the daemon, which builds. */
function fresh(): { root: string; home: string } {
  return { root: stdlibCopy('ask-first-build'), home: tempDir('ask-first-build-home') };
}

tmuxTest('ask on a terminal: the build\'s progress line while the call waits, erased, then the steps and the answer', async () => {
  const { root, home } = fresh();
  script();
  tmux.start(['ask', 'where is HTTPConnection defined?', '--model', 'qwen3:8b', '--repo', root], { EVIDEX_HOME: home, TERM: 'xterm-256color', EVIDEX_IDLE_TIMEOUT: '', ...serverEnv(fake) });
  await tmux.until('the build\'s progress on screen', BAR, { timeoutMs: 60_000 });
  const end = await tmux.until('the command ended', /\[exit \d+\]/, { timeoutMs: 120_000 });
  assert.not.match(end, BAR, 'the progress line is erased');
  assert.match(end, 'asking qwen3:8b at ');
  assert.match(end, '→ find_symbol {"name":"HTTPConnection","kind":"class"}  ✔ allowed');
  assert.match(end, ANSWER);
  await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
});

test('ask in a pipe: plain progress lines on stderr, no escapes, stdout the answer alone', async () => {
  const { root, home } = fresh();
  script();
  try {
    const r = await evidex(['ask', 'where is HTTPConnection defined?', '--model', 'qwen3:8b', '--repo', root], { cwd: root, home, env: serverEnv(fake) });
    assert.match(r.stderr, PLAIN);
    assert.not.match(r.stderr, /\r|\x1b/);
    assert.is(r.stdout, `${ANSWER}\n`);
    // The progress comes before the call's line, which is printed once the call is answered.
    assert.ok(r.stderr.search(PLAIN) < r.stderr.indexOf('→ find_symbol'), r.stderr);
  } finally {
    await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
  }
});

test('chat in a pipe: the same progress lines for a question that waits on the build', async () => {
  const { root, home } = fresh();
  script();
  const child = spawn(process.execPath, [BIN, 'chat', '--model', 'qwen3:8b', '--repo', root], {
    cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, EVIDEX_HOME: home, EVIDEX_IDLE_TIMEOUT: '', ...serverEnv(fake) },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
  try {
    child.stdin.end('where is HTTPConnection defined?\n');
    assert.is(await new Promise((r) => child.once('close', r)), 0, err);
    assert.match(err, PLAIN);
    assert.ok(err.search(PLAIN) < err.indexOf('→ find_symbol'), err);
    assert.match(out, ANSWER);
  } finally {
    await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
  }
});

test.run();
