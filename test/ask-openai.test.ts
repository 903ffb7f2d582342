// The ask loop against a wire-faithful fake OpenAI-compatible server through
// the real `openai` package: what is sent (the probe, the tools, max_tokens,
// usage asked for, no window asked for), each server's window endpoint, each
// server's known quirk said in one line the user can act on, the key sent to
// the configured server alone, and the failures each with its own message.
// (The scenarios both APIs share run on both in the other ask suites.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { TOOL_NAMES } from '../indexer/query/schemas.js';
import { normalizeApiBase, normalizeOllamaHost, resolveAskConfig } from '../daemon/ask/config.js';
import { replyReserve } from '../daemon/ask/budget.js';
import { readableErrorBody } from '../daemon/ask/openai/client.js';
import { PROBE_PROMPT } from '../daemon/ask/openai/probe.js';
import { SYSTEM_PROMPT } from '../daemon/ask/prompt.js';
import { apiFromEnv, apiNotice, askSettingsFromEnv } from '../protocol/ask-settings.js';
import { call } from './fake-ollama/server.js';
import { FakeOpenAI, FAKE_BUILD } from './fake-openai/server.js';
import type { Quirk } from './fake-openai/quirks.js';
import { askFake, mustNotRun, openFixtureIndex, tempStateDir, type FixtureIndex } from './fake-ollama/harness.js';
import { view } from './helpers/model-servers.js';

const MODELS = [
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
  { name: 'gemma3:4b', capabilities: ['completion'], family: 'gemma3' },
];

let ix: FixtureIndex;
test.before(async () => { ix = await openFixtureIndex(); });
test.after(async () => { await ix.close(); });

async function fake(quirk: Quirk = 'llama-server', contextLength?: number | null): Promise<FakeOpenAI> {
  return new FakeOpenAI({ quirk, models: MODELS.map((m) => ({ ...m, ...(contextLength !== undefined ? { contextLength } : {}) })) }).start();
}

test('the request: models listed, the window read, one probe, then a streamed turn with the tools, max_tokens from the reserve and usage asked for', async () => {
  const f = await fake('llama-server', 6144);
  try {
    f.script({ chunks: [{ content: 'RAG is retrieval-augmented generation.' }] });
    const { result, events } = await askFake(f, 'What does RAG stand for?', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered', result.message);
    assert.is(result.api, 'openai');
    assert.equal(f.requests.map((r) => `${r.method} ${r.path}`), ['GET /v1/models', 'GET /props', 'POST /v1/chat/completions', 'POST /v1/chat/completions']);
    const [probe] = f.probes;
    assert.equal(probe.body.messages, [{ role: 'user', content: PROBE_PROMPT }]);
    assert.is(probe.body.stream, false);
    const body = f.chats[0].body;
    assert.is(body.model, 'qwen3:8b');
    assert.is(body.stream, true);
    assert.equal(body.stream_options, { include_usage: true });
    assert.is(body.max_tokens, replyReserve(6144), 'the reply reserve caps the reply');
    assert.not.ok('options' in body || 'num_ctx' in body, 'no window is asked for: the server fixed it at load');
    assert.equal(body.messages, [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: 'What does RAG stand for?' }]);
    assert.equal(body.tools.map((t: any) => t.function.name), [...TOOL_NAMES]);
    assert.ok(body.tools.every((t: any) => t.type === 'function' && t.function.parameters.type === 'object'));
    assert.is(result.numCtx, 6144);
    assert.equal(events.find((e) => e.type === 'model'), { type: 'model', numCtx: 6144, contextLength: 6144 });
    assert.equal((events[0] as any).api, 'openai');
    // usage.prompt_tokens from the last chunk is the server's count of the prompt.
    assert.is(result.turns[0].promptEvalCount, f.chats[0].keptTokens);
  } finally { await f.stop(); }
});

test('each server\'s window: llama-server /props, LM Studio /api/v0/models, vLLM max_model_len; a server that reports none gets EVIDEX_NUM_CTX', async () => {
  const cases: Array<[Quirk, string[]]> = [
    ['llama-server', ['GET /v1/models', 'GET /props']],
    ['lmstudio', ['GET /v1/models', 'GET /props', 'GET /api/v0/models']],
    ['vllm', ['GET /v1/models']],
  ];
  for (const [quirk, looks] of cases) {
    const f = await fake(quirk, 5000);
    try {
      f.script({ chunks: [{ content: 'ok' }] });
      const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { numCtxCap: 16384 } });
      assert.is(result.stopped, 'answered', `${quirk}: ${result.message}`);
      assert.is(result.numCtx, 5000, quirk);
      assert.equal(f.requests.filter((r) => r.method === 'GET').map((r) => `${r.method} ${r.path}`), looks, quirk);
    } finally { await f.stop(); }
  }
  const g = await fake('generic');
  try {
    g.script({ chunks: [{ content: 'ok' }] });
    const { result } = await askFake(g, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { numCtxCap: 3000 } });
    assert.is(result.numCtx, 3000);
  } finally { await g.stop(); }
});

test('llama-server without --jinja, newer (HTTP 500) and older (tools dropped, HTTP 200): one line that says --jinja; no turn sent', async () => {
  for (const quirk of ['llama-server-nojinja', 'llama-server-nojinja-old'] as const) {
    const f = await fake(quirk);
    try {
      const { result } = await askFake(f, 'who imports rag_common?', { runTool: mustNotRun, stateDir: tempStateDir() });
      assert.is(result.stopped, 'model_error', quirk);
      assert.is(result.error?.code, 'model_no_tools', quirk);
      assert.match(result.error!.message, `llama-server at ${f.url}`);
      assert.match(result.error!.message, 'start llama-server with --jinja');
      assert.not.match(result.error!.message, '\n');
      assert.is(f.chats.length, 0, `${quirk}: the question was never sent`);
      assert.is(f.probes.length, 1);
    } finally { await f.stop(); }
  }
});

test('vLLM without --enable-auto-tool-choice: its 400 becomes the flags to start it with', async () => {
  const f = await fake('vllm-noauto');
  try {
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.error?.code, 'model_no_tools');
    assert.match(result.error!.message, `vLLM at ${f.url} refused the tools (HTTP 400: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set)`);
    assert.match(result.error!.message, 'start vLLM with --enable-auto-tool-choice --tool-call-parser PARSER');
    assert.is(f.chats.length, 0);
  } finally { await f.stop(); }
});

test('LM Studio returning a malformed call as plain content: refused "call tools through tool_calls", never the answer', async () => {
  const f = await fake('lmstudio');
  try {
    f.script(
      { chunks: [{ content: '[TOOL_REQUEST]\n{"name": "find_importers", "arguments": {"module_name": "rag_common"}' }, { content: '\n[END_TOOL_REQUEST]' }] },
      { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
      { chunks: [{ content: 'src/build_index.py:4 imports it.' }] },
    );
    const { result } = await askFake(f, 'who imports rag_common?', { runTool: ix.runTool, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered', result.message);
    assert.is(result.answer, 'src/build_index.py:4 imports it.');
    // The call is malformed (its JSON never closes): it is still a call, logged as "(unparsed)" with its text.
    assert.equal(result.attempts.map((a) => [a.tool, a.decision, a.code ?? null]), [['(unparsed)', 'refused', 'call_as_text'], ['find_importers', 'allowed', null]]);
    assert.match(String(result.attempts[0].arguments), '{"name": "find_importers"');
    // A call written as text has no id to answer: its refusal is the next user message, naming the tool.
    const refusal = view(f.chats[1]).at(-1)!;
    assert.equal([refusal.role, refusal.content], ['user', '(unparsed): refused (call_as_text): call tools through tool_calls, not as text in your reply; nothing was run']);
    assert.equal(result.citations.map((c) => c.backed), [true]);
  } finally { await f.stop(); }
});

test('arguments that are not valid JSON: refused as such, with where the parse failed, so the model can fix its call', async () => {
  const f = await fake();
  try {
    f.script(
      { chunks: [{ tool_calls: [call('search_code', '{"query": "COLLECTION_NAME", "limit": 3' as any)] }] },
      { chunks: [{ tool_calls: [call('search_code', '{"query": "COLLECTION_NAME", "limit": 3}' as any)] }] },
      { chunks: [{ content: 'src/rag_common.py:12 sets it.' }] },
    );
    const { result } = await askFake(f, 'where is COLLECTION_NAME?', { runTool: ix.runTool, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered', result.message);
    assert.equal(result.attempts.map((a) => [a.tool, a.decision, a.code ?? null]), [['search_code', 'refused', 'invalid_arguments'], ['search_code', 'allowed', null]]);
    const reason = result.attempts[0].reason!;
    assert.match(reason, /arguments are not valid JSON \(.*position \d+.*\)/);
    assert.not.match(reason, 'expected object, received string');
    const told = view(f.chats[1]).at(-1)!;
    assert.equal([told.role, told.content], ['tool', reason]);
  } finally { await f.stop(); }
});

test('the probe is cached per server and model once it worked; a failed probe is not (a server restarted with --jinja is asked again)', async () => {
  const f = await fake();
  try {
    f.script({ chunks: [{ content: 'one' }] }, { chunks: [{ content: 'two' }] });
    await askFake(f, 'q1', { runTool: mustNotRun, stateDir: tempStateDir() });
    await askFake(f, 'q2', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(f.probes.length, 1, 'one probe for two questions');
    assert.is(f.chats.length, 2);
    // Another model on the same server is probed on its own: here it answers in text (no tools), which stops its question.
    const other = await askFake(f, 'q3', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'gemma3:4b' });
    assert.is(other.result.error?.code, 'model_no_tools');
    assert.match(other.result.error!.message, 'ignored the tools: asked to call one, the model answered in text (I cannot call functions here.)');
    await askFake(f, 'q4', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'gemma3:4b' });
    assert.is(f.probes.length, 3, 'the failed probe was asked again');
    // A probe cut at its max_tokens, or answered with a call written as text, does not stop the question.
    f.probeTurn = { chunks: [{ content: 'Let me think' }], doneReason: 'length' };
    f.script({ chunks: [{ content: 'fine' }] });
    assert.is((await askFake(f, 'q5', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'qwen3:8b', config: { host: f.url.replace('127.0.0.1', 'localhost') } })).result.stopped, 'answered');
  } finally { await f.stop(); }
});

test('a model the server does not serve: model_not_found naming what it serves; nothing else asked', async () => {
  const f = await fake();
  try {
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), model: 'llama3.1:8b' });
    assert.is(result.error?.code, 'model_not_found');
    assert.is(result.error!.message, `model "llama3.1:8b" is not served by the OpenAI-compatible server at ${f.url}; it serves: qwen3:8b, gemma3:4b; choose one with --model or EVIDEX_MODEL`);
    assert.equal(f.requests.map((r) => r.path), ['/v1/models']);
  } finally { await f.stop(); }
});

test('nothing listening: api_unreachable naming the base and how to start a server; a base without /v1 on LM Studio is named as such', async () => {
  const f = await fake('lmstudio');
  const base = f.url;
  const root = base.replace(/\/v1$/, '');
  try {
    // LM Studio answers a path it does not know with HTTP 200 and an error object.
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { api: 'openai', host: `${root}/api` } });
    assert.is(result.error?.code, 'api_http_error');
    assert.match(result.error!.message, `${root}/api/models answered {"error":"Unexpected endpoint or method. (GET /api/models)"}, not a list of models; is EVIDEX_API_BASE`);
  } finally { await f.stop(); }
  const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
  assert.is(result.error?.code, 'api_unreachable');
  assert.match(result.error!.message, `cannot reach the OpenAI-compatible server at ${base} (connection refused)`);
  assert.match(result.error!.message, 'EVIDEX_API_BASE');
});

test('failures mid-reply: an error event, a stream that ends without a finish_reason, an HTTP error quoted as one short line', async () => {
  const f = await fake();
  try {
    f.script({ chunks: [{ content: 'Let me ' }], errorLine: 'CUDA error: out of memory' });
    const a = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(a.result.error?.code, 'api_stream_error');
    assert.match(a.result.error!.message, 'reported an error in the middle of its reply: CUDA error: out of memory');
    assert.equal(a.events.filter((e) => e.type === 'content').map((e: any) => e.text), ['Let me ']);
    f.script({ chunks: [{ content: 'partial' }], endEarly: true });
    const b = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(b.result.error?.code, 'api_stream_cut');
    f.script({ status: 503, error: `Loading model ${'x'.repeat(5000)}\nsecond line` });
    const c = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(c.result.error?.code, 'api_http_error');
    assert.match(c.result.error!.message, `llama-server at ${f.url} answered HTTP 503: Loading model xxx`);
    assert.ok(c.result.error!.message.length < 320, String(c.result.error!.message.length));
    assert.not.match(c.result.error!.message, '\n');
  } finally { await f.stop(); }
});

test('a prompt over the server\'s fixed window: llama-server and vLLM refuse it, with the window named as fixed at load', async () => {
  for (const quirk of ['llama-server', 'vllm'] as const) {
    const f = await fake(quirk, 3000);
    try {
      // The loop fits its prompt to 3000 tokens; a server that counts far more (a denser tokenizer) refuses it.
      f.tokenScale = 6;
      const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
      assert.is(result.stopped, 'model_error', quirk);
      assert.is(result.error?.code, 'api_http_error', quirk);
      assert.match(result.error!.message, 'longer than its context window', quirk);
      assert.match(result.error!.message, 'the window is fixed when the model is loaded', quirk);
    } finally { await f.stop(); }
  }
});

test('tool results far denser than estimated: the server refuses the prompt with its count, the budget is fitted to it, the results shrink and the turn is asked again', async () => {
  for (const quirk of ['llama-server', 'vllm'] as const) {
    // A tokenizer that counts tool results at 1.2 characters a token (evidex's first estimate assumes 2.8 bytes), the rest at 4.
    const counter = (msgs: any[], tools: any[] | undefined): number => Math.ceil(JSON.stringify(tools ?? []).length / 4)
      + msgs.reduce((n, m) => n + 4 + Math.ceil(String(m?.content ?? '').length / (m?.role === 'tool' ? 1.2 : 4)), 0);
    const f = await new FakeOpenAI({ quirk, counter, models: [{ ...MODELS[0], contextLength: 4096 }] }).start();
    try {
      f.script({ chunks: [{ tool_calls: [call('search_code', { query: 'def', limit: 200 })] }] }, { chunks: [{ content: 'Found them.' }] });
      const { result, events } = await askFake(f, 'where are the functions?', { runTool: ix.runTool, stateDir: tempStateDir() });
      assert.is(result.stopped, 'answered', `${quirk}: ${result.message ?? result.error?.message}`);
      // Turn 1, turn 2 refused over the window, turn 2 again: the refused prompt's count is in the turn log.
      assert.is(f.chats.length, 3, quirk);
      assert.ok(f.chats[1].promptTokens! + (quirk === 'vllm' ? replyReserve(4096) : 0) > 4096, `${quirk}: the second prompt was over the window`);
      assert.equal(result.turns.map((t) => [t.step, t.doneReason]), [[1, 'tool_calls'], [2, 'over_window'], [2, 'stop']], quirk);
      assert.is(result.turns[1].promptEvalCount, f.chats[1].promptTokens);
      // Asked again within the window, the question kept, the result shrunk to what it held (path:line), and the user told.
      assert.ok(f.chats[2].promptTokens! <= 4096 - replyReserve(4096), `${quirk}: ${f.chats[2].promptTokens}`);
      assert.ok(view(f.chats[2]).some((m) => m.role === 'user' && m.content === 'where are the functions?'));
      assert.ok(JSON.parse(view(f.chats[2]).at(-1)!.content).untrusted_data.summarised, quirk);
      assert.ok(events.some((e) => e.type === 'summarised' && e.step === 2), quirk);
    } finally { await f.stop(); }
  }
});

test('the key goes to the configured server alone, and nothing of the daemon\'s OPENAI_* environment reaches any server', async () => {
  const f = await fake();
  const other = await fake();
  const saved = { ...process.env };
  try {
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-daemon-openai', OPENAI_ORG_ID: 'org-x', OPENAI_CUSTOM_HEADERS: 'X-Leak: yes', OPENAI_BASE_URL: 'http://192.0.2.1/v1' });
    // The daemon's own base and key (its environment), asked without a base: the key is sent there.
    const env = { EVIDEX_API: 'openai', EVIDEX_API_BASE: f.url, EVIDEX_API_KEY: 'sk-local-1' };
    f.script({ chunks: [{ content: 'ok' }] });
    const own = resolveAskConfig({}, {}, env);
    assert.equal([own.api, own.host, own.apiKey], ['openai', f.url, 'sk-local-1']);
    const a = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: own });
    assert.is(a.result.stopped, 'answered', a.result.message);
    for (const r of f.requests) {
      assert.is(r.headers.authorization, 'Bearer sk-local-1', r.path);
      assert.not.ok('x-leak' in r.headers || 'openai-organization' in r.headers, JSON.stringify(r.headers));
    }
    // A request that names another (loopback) base does not get the daemon's key.
    const req = resolveAskConfig({}, { api: 'openai', api_base: other.url }, env);
    assert.equal([req.host, req.apiKey], [other.url, undefined]);
    other.script({ chunks: [{ content: 'ok' }] });
    await askFake(other, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: req });
    assert.ok(other.requests.length > 0 && other.requests.every((r) => r.headers.authorization === undefined), JSON.stringify(other.requests.map((r) => r.headers)));
    // The request's own key goes with its base.
    assert.equal(resolveAskConfig({}, { api: 'openai', api_base: other.url, api_key: 'sk-client' }, env).apiKey, 'sk-client');
    // Never in what the user sees: a server quoting it back has it replaced.
    f.script({ status: 500, error: 'bad key sk-local-1 given' });
    const b = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: own });
    assert.match(b.result.error!.message, 'bad key *** given');
    assert.not.match(JSON.stringify(b), 'sk-local-1');
  } finally {
    process.env = saved;
    await f.stop();
    await other.stop();
  }
});

test('the fake speaks the protocol the real client reads: whole replies with calls and usage, streams with interleaved pieces, models', async () => {
  const f = await fake('vllm', 9000);
  try {
    const o = new OpenAI({ baseURL: f.url, apiKey: 'x', maxRetries: 0 });
    f.script({ chunks: [{ thinking: 'hm' }, { content: 'a' }, { content: 'b', tool_calls: [call('find_symbol', { name: 'Chunk' })] }] });
    const r = await o.chat.completions.create({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'x' }] });
    assert.is(r.choices[0].finish_reason, 'tool_calls');
    assert.is(r.choices[0].message.content, 'ab');
    assert.equal(r.choices[0].message.tool_calls!.map((c) => (c as any).function), [{ name: 'find_symbol', arguments: '{"name":"Chunk"}' }]);
    assert.ok(r.usage!.prompt_tokens > 0);
    f.script({ chunks: [{ tool_calls: [call('search_code', { query: 'COLLECTION_NAME', limit: 5 }), call('find_importers', { module_name: 'rag_common' })] }] });
    const s = await o.chat.completions.create({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } });
    const pieces: any[] = [];
    let usage: unknown;
    let finish: unknown;
    for await (const chunk of s) {
      for (const c of chunk.choices) { pieces.push(...(c.delta.tool_calls ?? [])); if (c.finish_reason) finish = c.finish_reason; }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.is(finish, 'tool_calls');
    assert.ok(usage);
    const indexes = pieces.map((p) => p.index);
    assert.ok(indexes.indexOf(1) < indexes.lastIndexOf(0), `the calls' pieces interleave: ${indexes.join(',')}`);
    const joined = [0, 1].map((i) => pieces.filter((p) => p.index === i).map((p) => p.function?.arguments ?? '').join(''));
    assert.equal(joined.map((j) => JSON.parse(j)), [{ query: 'COLLECTION_NAME', limit: 5 }, { module_name: 'rag_common' }]);
    assert.ok(pieces.filter((p) => p.index === 0).length > 3, 'arguments arrive in fragments');
    const models = await o.models.list();
    assert.equal(models.data.map((m: any) => [m.id, m.max_model_len]), [['qwen3:8b', 9000], ['gemma3:4b', 9000]]);
  } finally { await f.stop(); }
});

test('settings: EVIDEX_API, EVIDEX_API_BASE, an OLLAMA_HOST ending in /v1 taken as the OpenAI base (said once), the base forms, the host rule', () => {
  assert.equal(askSettingsFromEnv({ EVIDEX_API: 'OpenAI', EVIDEX_API_BASE: ':1234/v1', EVIDEX_API_KEY: 'k' }), { api: 'openai', api_base: ':1234/v1', api_key: 'k' });
  assert.equal(askSettingsFromEnv({ EVIDEX_API_BASE: 'http://127.0.0.1:8000/v1' }), { api: 'openai', api_base: 'http://127.0.0.1:8000/v1' });
  assert.equal(askSettingsFromEnv({ OLLAMA_HOST: 'http://127.0.0.1:8080/v1' }), { api: 'openai', api_base: 'http://127.0.0.1:8080/v1' });
  assert.match(apiNotice({ OLLAMA_HOST: 'http://127.0.0.1:8080/v1' })!, 'OLLAMA_HOST=http://127.0.0.1:8080/v1 ends in /v1, the OpenAI-compatible path: asking it as an OpenAI-compatible server');
  assert.is(apiNotice({ OLLAMA_HOST: 'http://127.0.0.1:8080/v1', EVIDEX_API: 'openai' }), null);
  assert.is(apiNotice({ OLLAMA_HOST: 'http://127.0.0.1:11434' }), null);
  // Named Ollama's explicitly, a /v1 host stays Ollama's and is refused with the value to use.
  assert.equal(askSettingsFromEnv({ OLLAMA_HOST: 'http://127.0.0.1:8080/v1', EVIDEX_API: 'ollama' }), { ollama_host: 'http://127.0.0.1:8080/v1', api: 'ollama' });
  assert.throws(() => normalizeOllamaHost('http://127.0.0.1:8080/v1'), /ends in \/v1, the OpenAI-compatible path; evidex uses Ollama's own API at the server's root: set OLLAMA_HOST=http:\/\/127\.0\.0\.1:8080 \(or EVIDEX_API=openai/);
  assert.throws(() => askSettingsFromEnv({ EVIDEX_API: 'anthropic' }), /EVIDEX_API="anthropic" must be ollama or openai/);
  assert.equal(apiFromEnv({}), {});
  assert.is(normalizeApiBase(undefined), 'http://127.0.0.1:8080/v1');
  assert.is(normalizeApiBase(':1234'), 'http://127.0.0.1:1234/v1');
  assert.is(normalizeApiBase('localhost:8000/v1/'), 'http://localhost:8000/v1');
  assert.is(normalizeApiBase('0.0.0.0'), 'http://127.0.0.1:8080/v1');
  assert.is(normalizeApiBase('https://gpu.internal/openai/v1'), 'https://gpu.internal:443/openai/v1');
  assert.throws(() => normalizeApiBase('ftp://x'), /EVIDEX_API_BASE "ftp:\/\/x": only http/);
  // The daemon is no proxy: a base sent with the request is used on loopback or when it is the daemon's own.
  const env = { EVIDEX_API: 'openai', EVIDEX_API_BASE: 'http://gpu.internal:8000/v1', EVIDEX_API_KEY: 'k' };
  assert.throws(() => resolveAskConfig({}, { api_base: 'http://192.0.2.7:8000/v1' }, env), (e: Error & { code?: string }) => e.code === 'invalid_arguments'
    && e.message === 'EVIDEX_API_BASE sent with the request (http://192.0.2.7:8000/v1) is refused: the daemon reaches an OpenAI-compatible server only on loopback or at its own EVIDEX_API_BASE (http://gpu.internal:8000/v1); to use another host, restart the daemon with that EVIDEX_API_BASE (evidex daemon stop, then run the command again)');
  assert.equal(resolveAskConfig({}, { api_base: 'gpu.internal:8000' }, env).apiKey, 'k', 'the daemon\'s own base, however written, gets its key');
  // A request that names a server asks that server's API, whatever the daemon's default.
  assert.is(resolveAskConfig({}, { ollama_host: ':11434' }, env).api, 'ollama');
  assert.is(resolveAskConfig({}, {}, { OLLAMA_HOST: 'http://127.0.0.1:8080/v1' }).host, 'http://127.0.0.1:8080/v1');
  assert.is(resolveAskConfig({}, {}, {}).api, 'ollama');
  // Error bodies the package could not read become ones it can.
  assert.is(readableErrorBody('{"object":"error","message":"bad","code":400}'), '{"error":{"object":"error","message":"bad","code":400}}');
  assert.is(readableErrorBody('{"error":"Model not loaded"}'), '{"error":{"message":"Model not loaded"}}');
  assert.is(readableErrorBody('<html>oops</html>'), '<html>oops</html>');
});

test.run();
