// `evidex chat` in a real pseudo-terminal (tmux) against a real daemon and
// each fake model server (Ollama's, an OpenAI-compatible one): a follow-up sees the earlier question, answer and evidence;
// Ctrl-C cancels the answer being written and the session goes on; /evidence,
// /model, clear and /quit; the audit names the client `chat`.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ModelApi } from '../protocol/messages.js';
import { call } from './fake-ollama/server.js';
import { auditLines, startAskDaemon, terminalEnv, type AskDaemon } from './helpers/ask-daemon.js';
import type { TestDaemon } from './helpers/daemon.js';
import { TmuxSession } from './helpers/terminal.js';
import { lacks, testUnless } from './helpers/skip.js';
import { APIS, view, type FakeServer } from './helpers/model-servers.js';

function scenarios(test: Test, api: ModelApi): void {
  const tmux = new TmuxSession(`evidex-chat-${api}-${process.pid}`);
  let s: AskDaemon;
  let f: FakeServer;
  let d: TestDaemon;
  let root: string;

  test.before(async () => {
    s = await startAskDaemon({
      api,
      models: [
        { name: 'qwen3:8b', capabilities: ['completion', 'tools'] },
        { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' },
      ],
      git: true,
      env: (fake) => ({ OLLAMA_HOST: fake.url }),
    });
    ({ fake: f, daemon: d, root } = s);
  });
  test.after(async () => {
    tmux.kill();
    await s.stop();
  });

  const keys = (...k: string[]): void => tmux.keys(...k);
  const until = (what: string, re: RegExp | string): Promise<string> => tmux.until(what, re, { scrollback: 200 });

  testUnless(lacks.tmux(), test)(`${api}: a conversation: follow-ups share evidence, Ctrl-C cancels an answer not the session, /evidence, /model, /quit`, async () => {
    tmux.start(['chat', '--repo', root], terminalEnv(s, { NO_COLOR: '1' }));
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
    const follow = view(f.chats.at(-1)!);
    assert.ok(follow.some((m) => m.role === 'user' && m.content === 'who imports rag_common?'));
    assert.ok(follow.some((m) => m.role === 'assistant' && m.content === 'It is imported at src/build_index.py:4.'));
    assert.ok(follow.some((m) => m.role === 'user' && m.content.startsWith('Evidence gathered for the earlier questions')));
    await until('the follow-up check', /That line is[\s\S]*citations: 1 of 1 backed/);

    // Ctrl-C while the model is writing: that answer is cancelled, the chat goes on.
    f.script({ chunks: [{ content: 'Let me think about' }], hang: true });
    keys('a slow one', 'Enter');
    await until('the slow answer to start', 'Let me think about');
    keys('C-c');
    await f.waitForAbort(5000);
    await until('the cancel', /cancel/);
    // A model that is not there: said at the next question, in chat's words (/model, not --model).
    keys('/model nosuch:1b', 'Enter');
    await until('the unchecked switch', 'model: nosuch:1b (checked when the next question is asked)');
    keys('anyone?', 'Enter');
    const missing = await until('the missing model', /nosuch:1b.*(not installed|not served)[^\n]*\n?[^\n]*\/model/);
    assert.not.match(missing, '--model');
    f.script({ chunks: [{ content: 'Still here.' }] });
    keys('/model llama3.1:8b', 'Enter');
    await until('the model switch', 'model: llama3.1:8b');
    keys('are you there?', 'Enter');
    await until('the answer after the cancel', 'Still here.');
    assert.is(f.chats.at(-1)!.body.model, 'llama3.1:8b');

    keys('/evidence', 'Enter');
    await until('the evidence list', 'src/build_index.py:4  import  rag_common');

    // `clear` is the chat's own command, as in a shell: no model call; the next question starts a new conversation.
    const chatsBefore = f.chats.length;
    keys('clear', 'Enter');
    await until('the clear', 'conversation cleared');
    assert.is(f.chats.length, chatsBefore, 'clear is not sent to the model');
    keys('/evidence', 'Enter');
    await until('nothing gathered', 'no evidence gathered yet');
    f.script({ chunks: [{ content: 'A fresh start.' }] });
    keys('hello again', 'Enter');
    await until('the answer after clear', 'A fresh start.');
    const fresh = view(f.chats.at(-1)!);
    assert.not.ok(fresh.some((m) => m.role === 'user' && m.content === 'who imports rag_common?'), 'the old questions are not carried');
    assert.ok(fresh.some((m) => m.role === 'user' && m.content === 'hello again'));
    keys('/quit', 'Enter');
    const end = await until('the exit', '[exit 0]');
    assert.not.match(end, /Error|internal/);
    const audit = auditLines(d);
    assert.equal(audit.map((a) => [a.client, a.question, a.tool]), [['chat', 'who imports rag_common?', 'find_importers']]);
  });
}

for (const api of APIS) {
  const t = suite(api);
  scenarios(t, api);
  t.run();
}
