// The asking client's settings win over the daemon's: a real daemon process
// started with OLLAMA_HOST at a closed port (what an auto-started daemon gets
// from a shell without the right value), asked by clients whose environments
// point at the fake Ollama. Settings travel as explicit `ask` params, strictly
// validated, per request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import { runAskCommand } from '../client/ask.js';
import { runEvalCommand } from '../client/eval.js';
import { call, type FakeOllama } from './fake-ollama/server.js';
import { FakeOpenAI } from './fake-openai/server.js';
import { askThrough, jsonLines, startAskDaemon, type AskDaemon } from './helpers/ask-daemon.js';
import { type TestDaemon, captureStream as capture } from './helpers/daemon.js';
import { tempDir } from './helpers/fs.js';
import { assertEvidenceChecks } from './helpers/evidence.js';

let s: AskDaemon;
let f: FakeOllama;
let d: TestDaemon;
let root: string;
let client: Client;
let CLOSED: string; // a loopback port nothing listens on

/**
 * A loopback port that refuses connections, and keeps refusing while other
 * test files run beside this one: below the kernel's ephemeral range, where a
 * server asking for port 0 never lands (a port handed out and closed again
 * could be handed to another file's daemon meanwhile). fetch refuses the low
 * "bad ports" such as 9 before connecting, so those will not do.
 */
async function closedPort(): Promise<number> {
  let low = 32768;
  try { low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low; } catch { /* not Linux: the usual range */ }
  const refuses = (port: number) => new Promise<boolean>((resolve) => {
    const sock = tcpConnect(port, '127.0.0.1');
    sock.once('connect', () => { sock.destroy(); resolve(false); });
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
  for (let port = low - 2000; port < low; port += 97) if (await refuses(port)) return port;
  throw new Error(`no closed loopback port found below ${low}`);
}

test.before(async () => {
  CLOSED = `http://127.0.0.1:${await closedPort()}`;
  s = await startAskDaemon({
    models: [
      { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
      { name: 'llama3.1:8b', capabilities: ['completion', 'tools'] },
    ],
    // The daemon's own settings are all wrong or different from what the clients ask for.
    env: () => ({ OLLAMA_HOST: CLOSED, EVIDEX_MODEL: 'qwen3:8b', EVIDEX_ASK_MAX_STEPS: '8', EVIDEX_ASK_TIMEOUT_S: '60' }),
  });
  ({ daemon: d, root } = s);
  f = s.fake as FakeOllama;
  client = await connect(root, { env: d.env });
});
test.after(async () => { await client.close(); await s.stop(); });

async function ask(env: NodeJS.ProcessEnv, question = 'q', model?: string): Promise<{ code: number; lines: any[] }> {
  const { code, out } = await askThrough(client, question, { json: true, env, model });
  return { code, lines: jsonLines(out) };
}

test('without client settings the daemon falls back to its own OLLAMA_HOST (closed port here)', async () => {
  const before = f.requests.length;
  const { code, lines } = await ask({});
  assert.is(code, 1);
  const { result } = lines.at(-1);
  assert.is(result.stopped, 'model_error');
  assert.is(result.error.code, 'ollama_unreachable');
  assert.match(result.error.message, `cannot reach Ollama at ${CLOSED} (connection refused)`);
  assert.is(f.requests.length, before); // the fake was never reached
});

test('the client OLLAMA_HOST (no scheme) and EVIDEX_MODEL reach the fake; the answer is checked against real evidence', async () => {
  f.script(
    { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
    { chunks: [{ content: 'Imported at src/build_index.py:4.' }] },
  );
  const before = f.chats.length;
  const { code, lines } = await ask({ OLLAMA_HOST: f.url.replace('http://', ''), EVIDEX_MODEL: 'llama3.1:8b' });
  const { result } = lines.at(-1);
  assert.is(code, 0, JSON.stringify(result));
  const started = lines[0].event;
  assert.equal([started.type, started.host, started.model, started.maxSteps, started.timeoutMs], ['started', f.url, 'llama3.1:8b', 8, 60_000]);
  assert.is(result.stopped, 'answered');
  assert.equal(result.citations.map((c: any) => [c.cite, c.backed]), [['src/build_index.py:4', true]]);
  assertEvidenceChecks(root, result.evidence);
  assert.equal(f.chats.slice(before).map((c) => c.body.model), ['llama3.1:8b', 'llama3.1:8b']);
  assert.is('think' in f.chats.at(-1)!.body, false); // EVIDEX_THINK unset anywhere: left to the model

  // --model wins over the client's EVIDEX_MODEL.
  f.script({ chunks: [{ content: 'hi' }] });
  const again = await ask({ OLLAMA_HOST: f.url, EVIDEX_MODEL: 'llama3.1:8b' }, 'say hi', 'qwen3:8b');
  assert.is(again.code, 0);
  assert.is(again.lines[0].event.model, 'qwen3:8b');
  assert.is(f.chats.at(-1)!.body.model, 'qwen3:8b');
});

test('the client\'s EVIDEX_API and EVIDEX_API_BASE reach an OpenAI-compatible server the daemon\'s own environment knows nothing of; EVIDEX_THINK goes as the template\'s enable_thinking', async () => {
  const o = await new FakeOpenAI().start();
  try {
    o.script(
      { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
      { chunks: [{ content: 'Imported at src/build_index.py:4.' }] },
    );
    const { code, lines } = await ask({ EVIDEX_API: 'openai', EVIDEX_API_BASE: o.url, EVIDEX_THINK: 'off' });
    const { result } = lines.at(-1);
    assert.is(code, 0, JSON.stringify(result));
    assert.equal([lines[0].event.host, lines[0].event.api], [o.url, 'openai']);
    assert.equal(result.citations.map((c: any) => [c.cite, c.backed]), [['src/build_index.py:4', true]]);
    assertEvidenceChecks(root, result.evidence);
    assert.equal(o.chats.map((c) => c.body.chat_template_kwargs), [{ enable_thinking: false }, { enable_thinking: false }]);
    // The same client without its settings: the daemon's own (a closed Ollama port).
    assert.is((await ask({})).lines.at(-1).result.error.code, 'ollama_unreachable');
  } finally { await o.stop(); }
});

test('EVIDEX_ASK_MAX_STEPS and EVIDEX_THINK from the client env are honoured', async () => {
  // A model that would call tools forever: with the client's cap of 2, exactly two turns run.
  let turns = 0;
  f.fallback = () => { turns++; return { chunks: [{ tool_calls: [call('find_symbol', { name: 'Chunk' })] }] }; };
  try {
    const before = f.chats.length;
    const { code, lines } = await ask({ OLLAMA_HOST: f.url, EVIDEX_ASK_MAX_STEPS: '2', EVIDEX_THINK: '0' });
    const { result } = lines.at(-1);
    assert.is(code, 3);
    assert.is(result.stopped, 'step_cap');
    assert.is(result.steps, 2);
    assert.is(turns, 2);
    assert.is(lines[0].event.maxSteps, 2);
    assert.equal(f.chats.slice(before).map((c) => c.body.think), [false, false]);
    assertEvidenceChecks(root, result.evidence);
  } finally { f.fallback = undefined; }
});

test('EVIDEX_ASK_TIMEOUT_S from the client env bounds the question', async () => {
  f.script({ chunks: [{ content: 'Let me think' }], hang: true });
  const t0 = Date.now();
  const { code, lines } = await ask({ OLLAMA_HOST: f.url, EVIDEX_ASK_TIMEOUT_S: '0.6' });
  const ms = Date.now() - t0;
  const { result } = lines.at(-1);
  assert.is(code, 3);
  assert.is(result.stopped, 'time_limit');
  assert.match(result.message, 'wall-clock limit of 0.6 s');
  assert.ok(ms < 5000, `took ${ms} ms`); // not the daemon's 60 s
  await f.waitForAbort(5000);
});

test('a bad host fails that request only, with one line; the next request works', async () => {
  const before = f.requests.length;
  const bad = await ask({ OLLAMA_HOST: 'ftp://ollama.example' });
  assert.is(bad.code, 1);
  assert.equal(bad.lines, [{ error: { code: 'invalid_arguments', message: 'OLLAMA_HOST sent with the request "ftp://ollama.example": only http:// and https:// are supported' } }]);
  const worse = await ask({ OLLAMA_HOST: 'http://[::1' });
  assert.is(worse.code, 1);
  assert.match(worse.lines[0].error.message, /^OLLAMA_HOST sent with the request "http:\/\/\[::1" is not a host, host:port or URL$/);
  assert.is(f.requests.length, before);

  f.script({ chunks: [{ content: 'fine' }] });
  const good = await ask({ OLLAMA_HOST: f.url });
  assert.is(good.code, 0);
  assert.is(good.lines.at(-1).result.answer, 'fine');
});

test('a bad value in the client env is named and nothing is sent', async () => {
  const before = f.requests.length;
  const cap = capture();
  const code = await runAskCommand(client, 'q', { json: false, out: cap.out, err: cap.out, env: { OLLAMA_HOST: f.url, EVIDEX_ASK_MAX_STEPS: '0' } });
  assert.is(code, 1);
  assert.is(cap.text(), 'evidex ask: EVIDEX_ASK_MAX_STEPS=0 must be a whole number from 1 to 50\n');
  assert.is(f.requests.length, before);
});

test('the ask params schema is strict: wrong types, out-of-range values and unknown fields are refused', async () => {
  const refusal = async (params: unknown): Promise<any> => {
    try { await client.requestRaw('ask', params); } catch (e) { return e; }
    throw new Error(`accepted: ${JSON.stringify(params)}`);
  };
  const cases: Array<[unknown, RegExp]> = [
    [{ question: 'q', max_steps: '2' }, /^ask: max_steps\b/],
    [{ question: 'q', max_steps: 0 }, /^ask: max_steps\b/],
    [{ question: 'q', max_steps: 51 }, /^ask: max_steps\b/],
    [{ question: 'q', max_steps: 1.5 }, /^ask: max_steps\b/],
    [{ question: 'q', timeout_s: 0 }, /^ask: timeout_s\b/],
    [{ question: 'q', timeout_s: 3601 }, /^ask: timeout_s\b/],
    [{ question: 'q', think: 'yes' }, /^ask: think\b/],
    [{ question: 'q', ollama_host: '' }, /^ask: ollama_host\b/],
    [{ question: 'q', ollama_host: 11434 }, /^ask: ollama_host\b/],
    [{ question: 'q', host: f.url }, /^ask: unknown key "host"/],
  ];
  for (const [params, want] of cases) {
    const e = await refusal(params);
    assert.is(e.data?.code, 'invalid_arguments', JSON.stringify(params));
    assert.match(e.data.message, want, `${JSON.stringify(params)} → ${e.data.message}`);
    assert.not.match(e.data.message, '\n');
  }
  // The host is checked by the loop: JSON-RPC ask error, code invalid_arguments, one line.
  const e = await refusal({ question: 'q', ollama_host: 'gopher://x' });
  assert.is(e.data?.code, 'invalid_arguments');
  assert.is(e.data.message, 'OLLAMA_HOST sent with the request "gopher://x": only http:// and https:// are supported');
});

test('evidex eval takes the same path: the client env reaches the daemon for every case', async () => {
  const file = join(tempDir('eval'), 'cases.jsonl');
  writeFileSync(file, [
    JSON.stringify({ id: 'imp', kind: 'tool', question: 'who imports rag_common', expect: { tool: 'find_importers', args: { module_name: 'rag_common' } } }),
    JSON.stringify({ id: 'hi', kind: 'none', question: 'say hi' }),
  ].join('\n') + '\n');
  f.script(
    { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] }, { chunks: [{ content: 'src/build_index.py:4' }] },
    { chunks: [{ content: 'hi' }] },
  );
  const before = f.chats.length;
  const cap = capture();
  const code = await runEvalCommand(client, file, { json: false, out: cap.out, env: { OLLAMA_HOST: f.url, EVIDEX_MODEL: 'llama3.1:8b' } });
  assert.is(code, 0, cap.text());
  assert.match(cap.text(), '2 passed, 0 failed (2 cases)');
  assert.equal(f.chats.slice(before).map((c) => c.body.model), ['llama3.1:8b', 'llama3.1:8b', 'llama3.1:8b']);

  // Without the client's host the same file fails at the daemon's closed port, and eval stops early.
  const cap2 = capture();
  const code2 = await runEvalCommand(client, file, { json: false, out: cap2.out, env: {} });
  assert.is(code2, 1);
  assert.match(cap2.text(), `eval stopped: cannot reach Ollama at ${CLOSED}`);
  // A bad setting is a bad input: exit 2 before any case runs.
  const cap3 = capture();
  assert.is(await runEvalCommand(client, file, { json: false, out: cap3.out, env: { EVIDEX_THINK: 'perhaps' } }), 2);
  assert.match(cap3.text(), /^evidex eval: EVIDEX_THINK="perhaps"/);
});

test.run();
