// The ask loop against a wire-faithful fake Ollama: what is sent (tools,
// messages), Ollama's failure modes each with its own message, and streaming
// assembly. (The request really being aborted on cancel and at the wall
// clock is in ask-cancel, on both APIs.) These scenarios never reach the
// index, so runTool is a tripwire.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { Ollama } from 'ollama';
import { TOOLS, TOOL_NAMES } from '../indexer/query/schemas.js';
import { askSettingsFromEnv, normalizeOllamaHost, resolveAskConfig } from '../daemon/ask/config.js';
import { replyReserve } from '../daemon/ask/budget.js';
import { SYSTEM_PROMPT } from '../daemon/ask/prompt.js';
import { FakeOllama, call } from './fake-ollama/server.js';
import { askFake, mustNotRun, tempStateDir } from './fake-ollama/harness.js';

const MODELS = [
  { name: 'gemma2:latest', capabilities: ['completion'], family: 'gemma2' },
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
  { name: 'mistral:7b', capabilities: ['completion'] },
  { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' },
];

async function fake(): Promise<FakeOllama> { return new FakeOllama(MODELS.map((m) => ({ ...m }))).start(); }

test('the request carries exactly the five tools, schemas derived from zod, system + user messages', async () => {
  const f = await fake();
  try {
    f.script({ chunks: [{ content: 'No tool needed: ' }, { content: 'RAG means retrieval-augmented generation.' }] });
    const { result, events } = await askFake(f, 'What does RAG stand for?', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered');
    assert.is(result.answer, 'No tool needed: RAG means retrieval-augmented generation.');
    assert.is(result.steps, 1);
    // Transcript: show (model check) then exactly one chat.
    assert.equal(f.requests.map((r) => r.path), ['/api/show', '/api/chat']);
    assert.equal(f.requests[0].body, { model: 'qwen3:8b' });
    const body = f.chats[0].body;
    assert.is(body.model, 'qwen3:8b');
    assert.is(body.stream, true);
    assert.equal(body.messages, [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'What does RAG stand for?' },
    ]);
    assert.equal(body.tools.map((t: any) => t.function.name).sort(), [...TOOL_NAMES].sort());
    assert.is(body.tools.length, 5);
    for (const t of body.tools) {
      assert.is(t.type, 'function');
      // The zod schema as the model is meant to see it: the validation-only keywords (string lengths, the
      // closed-object flag, zod's ±2^53 integer bounds) left out, and the paging arguments described once in the system prompt.
      const { $schema: _s, ...full } = z.toJSONSchema((TOOLS as any)[t.function.name].schema, { io: 'input' }) as any;
      assert.is(full.additionalProperties, false, `${t.function.name} must reject unknown fields (the daemon validates with it)`);
      const expected = structuredClone(full);
      delete expected.additionalProperties;
      for (const [name, prop] of Object.entries<any>(expected.properties)) {
        delete prop.minLength; delete prop.maxLength;
        if (prop.maximum === Number.MAX_SAFE_INTEGER) delete prop.maximum;
        if (prop.minimum === Number.MIN_SAFE_INTEGER) delete prop.minimum;
        if (['limit', 'offset', 'path_prefix'].includes(name)) delete prop.description;
      }
      assert.equal(t.function.parameters, expected, t.function.name);
      if ('offset' in full.properties) assert.match(SYSTEM_PROMPT, /limit \(1-200, default 20\) items from offset/);
      assert.is(t.function.description, (TOOLS as any)[t.function.name].description);
    }
    assert.equal(body.tools.find((t: any) => t.function.name === 'search_code').function.parameters.required, ['query']);
    // Events: started, step 1, the two content deltas as they came, stopped.
    assert.equal(events.filter((e) => e.type === 'content').map((e: any) => e.text),
      ['No tool needed: ', 'RAG means retrieval-augmented generation.']);
    assert.equal(events.map((e) => e.type), ['started', 'model', 'step', 'content', 'content', 'citations', 'stopped']);
    assert.is(body.options.num_ctx, 4096); // the model's context_length (fake: 4096) under the 8192 cap
    assert.is(body.options.num_predict, replyReserve(4096)); // the reply capped at the room the prompt left for it
  } finally { await f.stop(); }
});

test('model without the tools capability: error names the installed models that have it; no chat sent', async () => {
  const f = await fake();
  try {
    const { result } = await askFake(f, 'anything', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'gemma2' });
    assert.is(result.stopped, 'model_error');
    assert.is(result.error?.code, 'model_no_tools');
    const msg = result.error!.message;
    assert.match(msg, 'model "gemma2"');
    assert.match(msg, 'qwen3:8b');
    assert.match(msg, 'llama3.1:8b');
    assert.not.match(msg, 'mistral');
    assert.not.ok(msg.includes('\n'));
    assert.is(f.chats.length, 0);
    // show gemma2, then tags, then show for each installed model
    assert.equal(f.requests.map((r) => `${r.path} ${r.body?.model ?? ''}`.trim()), [
      '/api/show gemma2', '/api/tags', '/api/show gemma2:latest', '/api/show qwen3:8b', '/api/show mistral:7b', '/api/show llama3.1:8b',
    ]);
  } finally { await f.stop(); }
});

test('model not installed (404): says so and suggests ollama pull', async () => {
  const f = await fake();
  try {
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'nope:1b' });
    assert.is(result.error?.code, 'model_not_found');
    assert.match(result.error!.message, '`ollama pull nope:1b`');
    assert.match(result.error!.message, "model 'nope:1b' not found"); // Ollama's own words kept
    assert.match(result.error!.message, 'qwen3:8b');
    assert.is(f.chats.length, 0);
  } finally { await f.stop(); }
});

test('chat answered 400 "does not support tools" → model_no_tools; other HTTP errors → ollama_http_error', async () => {
  const f = await fake();
  try {
    f.script({ status: 400, error: 'registry.ollama.ai/library/qwen3:8b does not support tools' });
    const a = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(a.result.error?.code, 'model_no_tools');
    assert.match(a.result.error!.message, 'does not support tools');
    f.script({ status: 500, error: 'llama runner process has terminated: exit status 2' });
    const b = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(b.result.error?.code, 'ollama_http_error');
    assert.match(b.result.error!.message, 'HTTP 500: llama runner process has terminated');
  } finally { await f.stop(); }
});

test('a model that is missing only at chat time (404 from /api/chat)', async () => {
  const f = await fake();
  try {
    f.script({ status: 404, error: 'model "qwen3:8b" not found, try pulling it first' });
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.error?.code, 'model_not_found');
    assert.match(result.error!.message, 'try pulling it first');
  } finally { await f.stop(); }
});

test('connection refused: names the host and how to start Ollama', async () => {
  const f = await fake();
  const url = f.url;
  await f.stop(); // the port is now closed
  const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
  assert.is(result.stopped, 'model_error');
  assert.is(result.error?.code, 'ollama_unreachable');
  assert.match(result.error!.message, url);
  assert.match(result.error!.message, 'connection refused');
  assert.match(result.error!.message, 'ollama serve');
});

test('an {"error"} line mid-stream is its own error; a stream cut before done is another', async () => {
  const f = await fake();
  try {
    f.script({ chunks: [{ content: 'Let me ' }], errorLine: 'an error was encountered while running the model: CUDA error: out of memory' });
    const a = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(a.result.error?.code, 'ollama_stream_error');
    assert.match(a.result.error!.message, 'in the middle of its reply: an error was encountered while running the model: CUDA error');
    assert.equal(a.events.filter((e) => e.type === 'content').map((e: any) => e.text), ['Let me ']);
    f.script({ chunks: [{ content: 'partial' }], endEarly: true });
    const b = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(b.result.error?.code, 'ollama_stream_cut');
  } finally { await f.stop(); }
});

test('refusals before running: unknown tool, extra field, "5" for a number; reasons reach the model as tool messages', async () => {
  const f = await fake();
  try {
    f.script(
      { chunks: [{ tool_calls: [call('run_shell', { cmd: 'rm -rf /' })] }] },
      { chunks: [{ content: 'I cannot run commands.' }] },
    );
    const a = await askFake(f, 'run rm -rf /', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(a.result.stopped, 'answered');
    assert.is(f.chats.length, 2);
    const msgs = f.chats[1].body.messages;
    assert.equal(msgs[2], { role: 'assistant', content: '', tool_calls: [call('run_shell', { cmd: 'rm -rf /' })] });
    assert.is(msgs[3].role, 'tool');
    assert.is(msgs[3].tool_name, 'run_shell');
    assert.match(msgs[3].content, /^refused \(unknown_tool\): unknown tool "run_shell"; the allowed tools are search_code, find_symbol/);
    assert.not.ok(msgs[3].content.includes('\n'));
    assert.equal(a.result.attempts.map((x) => [x.tool, x.decision, x.code]), [['run_shell', 'refused', 'unknown_tool']]);
    const ev = a.events.find((e) => e.type === 'tool_call') as any;
    assert.equal([ev.name, ev.decision, ev.code], ['run_shell', 'refused', 'unknown_tool']);
  } finally { await f.stop(); }
});

test('non-streaming chat and /api/tags speak the same protocol (the real client parses them)', async () => {
  const f = await fake();
  try {
    f.script({ chunks: [{ thinking: 'hm' }, { content: 'a' }, { content: 'b', tool_calls: [call('find_symbol', { name: 'Chunk' })] }] });
    const o = new Ollama({ host: f.url });
    const r = await o.chat({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'x' }], stream: false });
    assert.is(r.done, true);
    assert.is(r.done_reason, 'stop');
    assert.is(r.message.content, 'ab');
    assert.is(r.message.thinking, 'hm');
    assert.equal(r.message.tool_calls, [call('find_symbol', { name: 'Chunk' })]);
    const tags = await o.list();
    assert.equal(tags.models.map((m) => m.name), ['gemma2:latest', 'qwen3:8b', 'mistral:7b', 'llama3.1:8b']);
    const show = await o.show({ model: 'llama3.1:8b' });
    assert.equal(show.capabilities, ['completion', 'tools']);
  } finally { await f.stop(); }
});

test('OLLAMA_HOST forms normalise; config from env, override and request', () => {
  assert.is(normalizeOllamaHost(undefined), 'http://127.0.0.1:11434');
  assert.is(normalizeOllamaHost(''), 'http://127.0.0.1:11434');
  assert.is(normalizeOllamaHost('0.0.0.0:11434'), 'http://127.0.0.1:11434');
  assert.is(normalizeOllamaHost('0.0.0.0'), 'http://127.0.0.1:11434');
  assert.is(normalizeOllamaHost('localhost'), 'http://localhost:11434');
  assert.is(normalizeOllamaHost(':9999'), 'http://127.0.0.1:9999');
  assert.is(normalizeOllamaHost('http://127.0.0.1:11434/'), 'http://127.0.0.1:11434');
  assert.is(normalizeOllamaHost('https://ollama.internal'), 'https://ollama.internal:443');
  assert.is(normalizeOllamaHost('[::]:11434'), 'http://[::1]:11434');
  assert.throws(() => normalizeOllamaHost('ftp://x'), /only http/);
  const env = { OLLAMA_HOST: '0.0.0.0:1234', EVIDEX_MODEL: 'llama3.1:8b', EVIDEX_ASK_MAX_STEPS: '3', EVIDEX_ASK_TIMEOUT_S: '7' };
  const c = resolveAskConfig({}, {}, env);
  assert.equal([c.host, c.model, c.maxSteps, c.timeoutMs, c.think], ['http://127.0.0.1:1234', 'llama3.1:8b', 3, 7000, undefined]);
  assert.is(resolveAskConfig({}, { model: 'qwen3:14b' }, env).model, 'qwen3:14b');
  assert.is(resolveAskConfig({ maxSteps: 5 }, {}, env).maxSteps, 5);
  assert.is(resolveAskConfig({}, {}, {}).model, 'qwen3:8b');
  assert.throws(() => resolveAskConfig({}, {}, { EVIDEX_ASK_MAX_STEPS: 'many' }), /EVIDEX_ASK_MAX_STEPS/);
  // The request's settings win over the daemon's env and the override, and a bad daemon value
  // is never parsed when the request brings its own.
  const bad = { OLLAMA_HOST: 'ftp://nope', EVIDEX_ASK_MAX_STEPS: 'many', EVIDEX_ASK_TIMEOUT_S: '-1', EVIDEX_THINK: 'maybe' };
  const r = resolveAskConfig({ maxSteps: 5 }, { ollama_host: ':4321', max_steps: 2, timeout_s: 0.5, think: false }, bad);
  assert.equal([r.host, r.maxSteps, r.timeoutMs, r.think], ['http://127.0.0.1:4321', 2, 500, false]);
  assert.throws(() => resolveAskConfig({}, {}, bad), /OLLAMA_HOST "ftp:\/\/nope": only http/);
  assert.throws(() => resolveAskConfig({}, { ollama_host: 'http://[::1' }, {}), (e: Error & { code?: string }) =>
    e.code === 'invalid_arguments' && /^OLLAMA_HOST sent with the request "http:\/\/\[::1" is not a host/.test(e.message));
  assert.throws(() => resolveAskConfig({}, { max_steps: 0 }, {}), /max_steps=0 must be a whole number from 1 to 50/);
  assert.throws(() => resolveAskConfig({}, { max_steps: 2.5 }, {}), /max_steps=2.5/);
  assert.throws(() => resolveAskConfig({}, { timeout_s: 99999 }, {}), /timeout_s=99999/);
});

test('the client reads only what is set in its environment', () => {
  assert.equal(askSettingsFromEnv({}), {});
  assert.equal(askSettingsFromEnv({ OLLAMA_HOST: ' ', EVIDEX_MODEL: '', EVIDEX_THINK: '' }), {});
  assert.equal(
    askSettingsFromEnv({ OLLAMA_HOST: 'gpu-box:11434', EVIDEX_MODEL: ' llama3.1:8b ', EVIDEX_ASK_MAX_STEPS: '4', EVIDEX_ASK_TIMEOUT_S: '2.5', EVIDEX_THINK: 'off', HOME: '/x' }),
    { ollama_host: 'gpu-box:11434', model: 'llama3.1:8b', max_steps: 4, timeout_s: 2.5, think: false });
  assert.equal(askSettingsFromEnv({ EVIDEX_THINK: 'TRUE' }), { think: true });
  assert.throws(() => askSettingsFromEnv({ EVIDEX_ASK_MAX_STEPS: '500' }), /^Error: EVIDEX_ASK_MAX_STEPS=500 must be a whole number from 1 to 50$|EVIDEX_ASK_MAX_STEPS=500 must be a whole number from 1 to 50/);
  assert.throws(() => askSettingsFromEnv({ EVIDEX_ASK_TIMEOUT_S: 'soon' }), /EVIDEX_ASK_TIMEOUT_S="soon" is not a number/);
  assert.throws(() => askSettingsFromEnv({ EVIDEX_THINK: 'maybe' }), /EVIDEX_THINK="maybe"/);
});

test.run();
