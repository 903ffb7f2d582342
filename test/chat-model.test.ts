// chat's `/model` names the model the next question will use, through a real
// daemon process started with its own EVIDEX_MODEL (what an auto-started
// daemon keeps from the shell that started it) and the fake Ollama: the
// daemon's model when the chat chose none (ask/model), the chat's own when
// it did; the question after it goes to that model.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { connect, type Client } from '../client/connection.js';
import { runChatCommand } from '../client/chat.js';
import { RpcCode, RpcError } from '../protocol/jsonrpc.js';
import { Methods } from '../protocol/messages.js';
import type { FakeOllama } from './fake-ollama/server.js';
import { startAskDaemon, type AskDaemon } from './helpers/ask-daemon.js';
import { captureStream } from './helpers/daemon.js';

let s: AskDaemon;
let client: Client;

test.before(async () => {
  s = await startAskDaemon({
    models: [{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }, { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' }],
    // Not the built-in default, so a line naming qwen3:8b could not pass.
    env: (fake) => ({ OLLAMA_HOST: fake.url, EVIDEX_MODEL: 'llama3.1:8b' }),
  });
  client = await connect(s.root, { env: s.daemon.env });
});
test.after(async () => { await client.close(); await s.stop(); });

/** A chat over `client` fed `lines` (not a terminal), with the asking client's environment `env`: its stderr (the prompts included). */
async function chat(lines: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const input = new PassThrough();
  const err = captureStream();
  input.end(lines.map((l) => `${l}\n`).join(''));
  assert.is(await runChatCommand(client, { out: captureStream().out, err: err.out, input, env: { NO_COLOR: '1', ...env } }), 0);
  // The prompt is drawn only while input is open: a pipe that ended before the answers leaves it out (Node 24+ throws on it).
  return err.text().replaceAll('evidex> ', '');
}

test('/model with no model chosen names the daemon\'s (its EVIDEX_MODEL), and the next question goes to it', async () => {
  const f = s.fake as FakeOllama;
  f.script({ chunks: [{ content: 'No code was needed for this.' }] });
  const said = await chat(['/model', 'hello?', '/quit'], {});
  assert.match(said, '\nmodel: llama3.1:8b (the daemon\'s default)\n');
  assert.not.match(said, 'EVIDEX_MODEL');
  assert.is(f.chats.at(-1)!.body.model, 'llama3.1:8b');
});

test('/model names the chat\'s own choice: the client\'s EVIDEX_MODEL, then /model M', async () => {
  const said = await chat(['/model', '/model qwen3:8b', '/model', '/quit'], { EVIDEX_MODEL: 'llama3.1:8b' });
  assert.match(said, '\nmodel: llama3.1:8b\nmodel: qwen3:8b (checked when the next question is asked)\nmodel: qwen3:8b\n');
});

test('ask/model is strict as ask is: a question or an unknown field is refused; a bad setting is the ask\'s own one line', async () => {
  assert.equal(await client.request(Methods.askModel, {}), { model: 'llama3.1:8b' });
  assert.equal(await client.request(Methods.askModel, { model: 'qwen3:8b' }), { model: 'qwen3:8b' });
  for (const params of [{ question: 'x' }, { modle: 'x' }]) {
    const e = await client.request(Methods.askModel, params as never).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RpcError && e.code === RpcCode.INVALID_PARAMS, JSON.stringify(params));
  }
  const bad = await client.request(Methods.askModel, { ollama_host: 'ftp://x' }).then(() => null, (x: unknown) => x);
  assert.ok(bad instanceof RpcError && /ollama_host|OLLAMA_HOST/.test(bad.message), String(bad));
});

test.run();
