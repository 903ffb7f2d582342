// `evidex ask` as a person meets it: the real CLI in a real pseudo-terminal
// (tmux, 160×50) against a real daemon and the fake Ollama. After the command
// ends, the visible screen must hold the streamed answer (it used to be erased
// by the spinner); `> file` must hold only the answer; NO_COLOR must hold.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, type FakeOllama } from './fake-ollama/server.js';
import { startAskDaemon, terminalEnv, type AskDaemon } from './helpers/ask-daemon.js';
import type { TestDaemon } from './helpers/daemon.js';
import { tempDir } from './helpers/fs.js';
import { BIN, TmuxSession } from './helpers/terminal.js';
import { lacks, testUnless } from './helpers/skip.js';

/** The tests that read a real terminal; without tmux they are skipped. */
const tmuxTest = testUnless(lacks.tmux());
const tmux = new TmuxSession(`evidex-ask-${process.pid}`);
let s: AskDaemon;
let f: FakeOllama;
let d: TestDaemon;
let root: string;

test.before(async () => {
  s = await startAskDaemon({ git: true, env: (fake) => ({ OLLAMA_HOST: fake.url }) });
  ({ fake: f, daemon: d, root } = s);
});
test.after(async () => {
  tmux.kill();
  await s.stop();
});

/** Runs `evidex ASK_ARGS` in a fresh tmux window and returns the visible screen once it has exited. */
async function onScreen(args: string[], env: Record<string, string> = {}, escapes = false): Promise<string> {
  tmux.start(args, terminalEnv(s, env));
  return tmux.until('the command to end', /\[exit \d+\]/, { escapes, timeoutMs: 30_000 });
}

const ANSWER = ['Four files import rag_common: src/build_index.py:4, src/chat_reranker.py:6,', ' src/chat_reranker_guarded.py:6 and src/rag_chat.py:10.'];
const script = () => f.script(
  { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
  // Streamed slowly, so the spinner runs while the answer arrives.
  { chunks: ANSWER.map((content) => ({ content })), delayMs: 300 },
);

tmuxTest('on a terminal the streamed answer stays on the visible screen after the command ends', async () => {
  script();
  const screen = await onScreen(['ask', 'who imports rag_common?', '--model', 'qwen3:8b', '--repo', root]);
  assert.match(screen, ANSWER.join(''), screen);
  assert.match(screen, '→ find_importers {"module_name":"rag_common"}  ✔ allowed');
  assert.match(screen, 'citations: 4 of 4 backed by the evidence');
  assert.match(screen, '[exit 0]');
  assert.not.match(screen, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/); // no spinner left behind
});

tmuxTest('a tool call written as text is not shown as if it were the answer; an answer that starts like JSON still is', async () => {
  f.script(
    { chunks: [{ content: '{"name": "find_importers", ' }, { content: '"arguments": {"module_name": "rag_common"}}' }] },
    { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
    { chunks: [{ content: '[1] src/build_index.py:4' }, { content: ' imports it.' }] },
  );
  const screen = await onScreen(['ask', 'who imports rag_common?', '--repo', root]);
  assert.not.match(screen, '"name": "find_importers"', screen);
  assert.match(screen, '✘ refused (call_as_text): call tools through tool_calls');
  assert.match(screen, '\n[1] src/build_index.py:4 imports it.\n');
  assert.match(screen, '[exit 0]');
});

tmuxTest('NO_COLOR: no colour escapes on the terminal; without it, the marks are coloured', async () => {
  script();
  const plain = await onScreen(['ask', 'who imports rag_common?', '--repo', root], { NO_COLOR: '1' }, true);
  assert.not.match(plain, /\x1b\[3[0-9]m/, plain);
  assert.match(plain, ANSWER.join(''));
  script();
  const coloured = await onScreen(['ask', 'who imports rag_common?', '--repo', root], {}, true);
  assert.match(coloured, /\x1b\[32m✔/);
});

test('`evidex ask … > file`: the file holds only the answer; progress and the citation check go to stderr', async () => {
  script();
  const file = join(tempDir('out'), 'answer.txt');
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [BIN, 'ask', 'who imports rag_common?', '--repo', root], {
    env: { ...d.env, OLLAMA_HOST: f.url }, stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let err = '';
  child.stderr!.on('data', (b: Buffer) => { err += b.toString(); });
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.is(code, 0, err);
  assert.is(readFileSync(file, 'utf8'), `${ANSWER.join('')}\n`);
  assert.match(err, 'citations: 4 of 4 backed');
  assert.not.match(err, /\x1b\[/); // stderr is a pipe: no spinner, no colour
});

test.run();
