// `evidex chat` in a real pseudo-terminal (tmux) against a real daemon and the
// fake Ollama: a follow-up sees the earlier question, answer and evidence;
// Ctrl-C cancels the answer being written and the session goes on; /evidence,
// /model and /quit; the audit names the client `chat`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeOllama, call } from './fake-ollama/server.js';
import { fixtureCopy, startDaemon, stopDaemon, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp } from './helpers/fs.js';
import { hasTmux, TmuxSession } from './helpers/terminal.js';

const tmux = new TmuxSession(`evidex-chat-${process.pid}`);
let f: FakeOllama;
let d: TestDaemon;
let root: string;

test.before(async () => {
  f = await new FakeOllama([
    { name: 'qwen3:8b', capabilities: ['completion', 'tools'] },
    { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' },
  ]).start();
  root = fixtureCopy({ git: true });
  d = await startDaemon(root, { env: { OLLAMA_HOST: f.url } });
});
test.after(async () => {
  tmux.kill();
  await stopDaemon(d); await f.stop(); cleanupTemp();
});

const screen = (): string => tmux.screen({ scrollback: 200 });
const keys = (...k: string[]): void => tmux.keys(...k);
const until = (what: string, re: RegExp | string, ms = 20_000): Promise<string> =>
  waitFor(what, () => { const s = screen(); return (typeof re === 'string' ? s.includes(re) : re.test(s)) ? s : null; }, ms, 100);

test('a conversation: follow-ups share evidence, Ctrl-C cancels an answer not the session, /evidence, /model, /quit', async () => {
  if (!hasTmux) { console.log('tmux not installed: skipped'); return; }
  tmux.start(['chat', '--repo', root], { EVIDEX_HOME: d.home, OLLAMA_HOST: f.url, TERM: 'xterm-256color', NO_COLOR: '1' });
  await until('the prompt', 'evidex>');

  f.script(
    { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
    { chunks: [{ content: 'It is imported at src/build_index.py:4.' }] },
  );
  keys('who imports rag_common?', 'Enter');
  await until('the first answer', 'citations: 1 of 1 backed');

  // A follow-up answered from the carried evidence alone: no tool call, and its citation is backed.
  f.script({ chunks: [{ content: 'That line is src/build_index.py:4 again.' }] });
  keys('and which line was that?', 'Enter');
  await until('the follow-up', 'That line is src/build_index.py:4 again.');
  const follow = f.chats.at(-1)!.body.messages;
  assert.ok(follow.some((m: any) => m.role === 'user' && m.content === 'who imports rag_common?'));
  assert.ok(follow.some((m: any) => m.role === 'assistant' && m.content === 'It is imported at src/build_index.py:4.'));
  assert.ok(follow.some((m: any) => m.role === 'user' && m.content.startsWith('Evidence gathered for the earlier questions')));
  await until('the follow-up check', /That line is[\s\S]*citations: 1 of 1 backed/);

  // Ctrl-C while the model is writing: that answer is cancelled, the chat goes on.
  f.script({ chunks: [{ content: 'Let me think about' }], hang: true });
  keys('a slow one', 'Enter');
  await until('the slow answer to start', 'Let me think about');
  keys('C-c');
  await f.waitForAbort(5000);
  await until('the cancel', /cancel/);
  f.script({ chunks: [{ content: 'Still here.' }] });
  keys('/model llama3.1:8b', 'Enter');
  await until('the model switch', 'model: llama3.1:8b');
  keys('are you there?', 'Enter');
  await until('the answer after the cancel', 'Still here.');
  assert.is(f.chats.at(-1)!.body.model, 'llama3.1:8b');

  keys('/evidence', 'Enter');
  await until('the evidence list', 'src/build_index.py:4  import  rag_common');
  keys('/quit', 'Enter');
  const end = await until('the exit', '[exit 0]');
  assert.not.match(end, /Error|internal/);
  const audit = readFileSync(join(d.stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.equal(audit.map((a) => [a.client, a.question, a.tool]), [['chat', 'who imports rag_common?', 'find_importers']]);
});

test.run();
