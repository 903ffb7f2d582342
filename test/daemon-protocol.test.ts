// The daemon's wire: authentication during the upgrade, every JSON-RPC refusal
// answered precisely on a connection that keeps serving, tools/list and
// tools/call, and 16 concurrent clients getting the same answers as one.
// A real daemon process, real ws clients, the fixture repository on disk.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { connect, type Client } from '../client/connection.js';
import { RpcError } from '../protocol/jsonrpc.js';
import { olderDaemon } from '../client/commands/tool-command.js';
import { Methods, warmupSettled } from '../protocol/messages.js';
import { minus } from '../daemon/latency.js';
import { WARMUP_BUDGET_MS, WARMUP_ROUNDS } from '../daemon/warmup.js';
import { toolDescriptors } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import {
  DAEMON_MAIN, daemonEnv, fixtureCopy, rawExchange, startDaemon, stopDaemon, tryConnect, waitFor, type TestDaemon,
} from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { mulberry32 } from './helpers/random.js';

let d: TestDaemon;
let root: string;
const ALLOWED_ORIGIN = 'http://allowed.example';

test.before(async () => {
  root = realpathSync(fixtureCopy({ git: true }));
  d = await startDaemon(root, { args: ['--allow-origin', ALLOWED_ORIGIN] });
});
test.after(async () => {
  if (d) {
    const r = await stopDaemon(d);
    assert.is(r.code, 0, `daemon exit code after SIGTERM\n${d.log()}`);
  }
  cleanupTemp();
});

const auth = () => ({ Authorization: `Bearer ${d.info.token}` });

async function openRaw(): Promise<WebSocket> {
  const r = await tryConnect(d.info.url, auth());
  if (!('ws' in r)) throw new Error(`connection refused: ${r.status}`);
  return r.ws;
}

async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return e;
    throw e;
  }
  throw new Error('expected an RpcError, got a result');
}

/** The call that must keep working after every refusal. */
async function assertServes(ws: WebSocket, id: number): Promise<void> {
  const r = await rawExchange(ws, JSON.stringify({
    jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'COLLECTION_NAME' } },
  }));
  assert.is(r.id, id);
  assert.ok(r.result, `expected a result, got ${JSON.stringify(r)}`);
  assert.ok(r.result.total >= 1);
  assertEvidenceChecks(root, r.result.evidence);
  assert.ok(r.result.evidence.some((e: { path: string; start_line: number }) => e.path === 'src/rag_common.py' && e.start_line === 12));
}

test('state folder, daemon.json and token are owner-only; daemon.json describes this daemon', () => {
  assert.is(statSync(d.stateDir).mode & 0o777, 0o700);
  assert.is(statSync(`${d.stateDir}/daemon.json`).mode & 0o777, 0o600);
  assert.is(statSync(`${d.stateDir}/token`).mode & 0o777, 0o600);
  assert.is(d.info.pid, d.proc.pid);
  assert.is(d.info.root, root);
  assert.is(d.info.url, `ws://127.0.0.1:${d.info.port}/`);
  assert.match(d.info.token, /^[0-9a-f]{64}$/);
});

test('the upgrade is refused without the token, with a wrong one, from a foreign Origin, on another path', async () => {
  const url = d.info.url;
  assert.equal(await tryConnect(url, {}), { status: 401 }, 'no Authorization header');
  const wrong = d.info.token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
  assert.equal(await tryConnect(url, { Authorization: `Bearer ${wrong}` }), { status: 401 }, 'wrong token, same length');
  assert.equal(await tryConnect(url, { Authorization: `Bearer ${d.info.token}x` }), { status: 401 }, 'token with a suffix');
  assert.equal(await tryConnect(url, { Authorization: `Basic ${d.info.token}` }), { status: 401 }, 'not a Bearer token');
  assert.equal(await tryConnect(url, { ...auth(), Origin: 'http://evil.example' }), { status: 403 }, 'foreign Origin, right token');
  assert.equal(await tryConnect(url, { Origin: 'http://evil.example' }), { status: 403 }, 'foreign Origin, no token');
  assert.equal(await tryConnect(url.replace(/\/$/, '/other'), auth()), { status: 404 }, 'another path');
  const allowed = await tryConnect(url, { ...auth(), Origin: ALLOWED_ORIGIN });
  assert.ok('ws' in allowed, 'a configured origin is allowed');
  if ('ws' in allowed) { await assertServes(allowed.ws, 1); allowed.ws.close(); }
});

test('bad JSON, batches, invalid requests, unknown methods and bad params get precise errors; the connection keeps serving', async () => {
  const ws = await openRaw();
  let r = await rawExchange(ws, '{"jsonrpc": "2.0", "id": 1, "method": ');
  assert.is(r.error.code, -32700); assert.is(r.id, null); assert.match(r.error.message, /^parse error/);
  r = await rawExchange(ws, '[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]');
  assert.is(r.error.code, -32600); assert.match(r.error.message, /batch requests are not supported/);
  r = await rawExchange(ws, '{"jsonrpc":"2.0","id":3}');
  assert.is(r.error.code, -32600); assert.is(r.id, 3);
  r = await rawExchange(ws, '{"id":4,"method":"tools/list"}');
  assert.is(r.error.code, -32600); assert.match(r.error.message, /jsonrpc/);
  r = await rawExchange(ws, '"just a string"');
  assert.is(r.error.code, -32600);
  r = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/delete' }));
  assert.equal(r, { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'method not found: tools/delete' } });
  r = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: {} }));
  assert.is(r.error.code, -32602); assert.is(r.error.data.code, 'invalid_arguments'); assert.match(r.error.message, /name/);
  r = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x' }, extra: 1 } }));
  assert.is(r.error.code, -32602); assert.match(r.error.message, /extra/);
  // A client asks with a param this daemon does not know, and falls back (olderDaemon): the refusal is read as such.
  assert.ok(olderDaemon(new RpcError(r.error.code, r.error.message, r.error.data), 'extra'), r.error.message);
  r = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'index/status', params: { verbose: true } }));
  assert.is(r.error.code, -32602);
  r = await rawExchange(ws, Buffer.from('{"jsonrpc":"2.0","id":9,"method":"tools/list"}'), true);
  assert.is(r.error.code, -32600); assert.match(r.error.message, /binary/);
  await assertServes(ws, 10);
  ws.close();
});

test('tool refusals are JSON-RPC errors -32001 whose data.code says why', async () => {
  const ws = await openRaw();
  const call = async (id: number, name: unknown, args: unknown) =>
    rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
  const cases: [unknown, unknown, string, RegExp][] = [
    ['rm_rf', {}, 'unknown_tool', /unknown tool "rm_rf"/],
    ['Search_Code', { query: 'x' }, 'unknown_tool', /unknown tool/],
    ['search_code', { query: 'x', limit: '5' }, 'invalid_arguments', /limit/],
    ['search_code', { query: 'x', regex: true }, 'invalid_arguments', /regex/],
    ['search_code', {}, 'invalid_arguments', /query/],
    ['read_evidence', { path: '../etc/passwd', start_line: 1 }, 'path_denied', /./],
    ['read_evidence', { path: '/etc/passwd', start_line: 1 }, 'path_denied', /./],
    ['read_evidence', { path: '.env', start_line: 1 }, 'secret_denied', /./],
    ['read_evidence', { path: 'debug.log', start_line: 1 }, 'not_indexed', /./],
    ['read_git_diff', { base: '--output=/tmp/x' }, 'bad_ref', /./],
  ];
  let id = 100;
  for (const [name, args, code, msg] of cases) {
    const r = await call(++id, name, args);
    assert.is(r.id, id);
    assert.ok(r.error, `${String(name)} ${JSON.stringify(args)} should be refused, got ${JSON.stringify(r)}`);
    assert.is(r.error.code, -32001, `${String(name)} ${JSON.stringify(args)}`);
    assert.is(r.error.data.code, code, `${String(name)} ${JSON.stringify(args)}: ${r.error.message}`);
    assert.is(r.error.data.message, r.error.message);
    assert.match(r.error.message, msg);
    assert.not.match(r.error.message, /\n/);
  }
  await assertServes(ws, 999);
  ws.close();
});

test('an oversized message gets an error and the connection stays; past the hard cap only that socket closes', async () => {
  const ws = await openRaw();
  const big = JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x'.repeat(1_500_000) } } });
  const r = await rawExchange(ws, big);
  assert.is(r.id, 42);
  assert.is(r.error.code, -32003);
  assert.is(r.error.data.limit, 1 << 20);
  assert.is(r.error.data.size, Buffer.byteLength(big));
  await assertServes(ws, 43);

  const other = await openRaw();
  const huge = await openRaw();
  const closed = new Promise<number>((res) => huge.once('close', (code) => res(code)));
  huge.send('x'.repeat(17 << 20));
  assert.is(await closed, 1009, 'ws closes a frame over maxPayload with 1009 (message too big)');
  await assertServes(other, 44);
  await assertServes(ws, 45);
  other.close(); ws.close();
});

test('tools/list is the allowlist with the schemas that validate', async () => {
  const c = await connect(root, { env: d.env });
  try {
    const r = await c.request(Methods.toolsList);
    assert.equal(r.tools, JSON.parse(JSON.stringify(toolDescriptors())));
    assert.equal(r.tools.map((t) => t.name), ['search_code', 'find_symbol', 'read_evidence', 'find_importers', 'read_git_diff']);
  } finally { await c.close(); }
});

test('tools/call answers {evidence, total, generation}; index/status reports the index and the daemon', async () => {
  const c = await connect(root, { env: d.env });
  try {
    const r = await c.request(Methods.toolsCall, { name: 'find_importers', arguments: { module_name: 'rag_common' } });
    assert.equal(Object.keys(r).sort(), ['evidence', 'generation', 'total']);
    assertEvidenceChecks(root, r.evidence);
    assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line}`),
      ['src/build_index.py:4', 'src/chat_reranker.py:6', 'src/chat_reranker_guarded.py:6', 'src/rag_chat.py:10']);
    assert.is(r.total, 4);
    const s = await c.request(Methods.indexStatus);
    assert.is(s.index.generation, r.generation);
    assert.is(s.index.state, 'ready');
    assert.ok(s.index.files > 5);
    assert.is(s.daemon.pid, d.info.pid);
    assert.is(s.daemon.url, d.info.url);
    assert.is(s.daemon.root, root);
    assert.is(s.daemon.startup, 'done');
    assert.ok(['watching', 'starting'].includes(s.daemon.watcher), s.daemon.watcher);
    assert.ok(s.daemon.clients >= 1);
  } finally { await c.close(); }
});

test('index/status counts every client request in its method or tool histogram; names a client made up share one', async () => {
  const c = await connect(root, { env: d.env });
  try {
    const before = (await c.request(Methods.indexStatus)).daemon.latency;
    for (const name of ['Chunk', 'score', 'nothing_has_this_name', 'VectorStore', 'main']) await c.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name } });
    const refusal = (method: string, params: unknown) => c.requestRaw(method, params).then(() => 'answered', (e: RpcError) => e.code);
    assert.is(await refusal('tools/call', { name: 'find_symbol', arguments: { name: 5 } }), -32001);
    assert.is(await refusal('tools/call', { name: 'rm_rf', arguments: {} }), -32001);
    assert.is(await refusal('tools/call', { name: 'write_file_1' }), -32001);
    assert.is(await refusal('nope/one', {}), -32601);
    assert.is(await refusal('nope/two', {}), -32601);
    const after = (await c.request(Methods.indexStatus)).daemon.latency;
    const between = (k: string) => minus(after[k], before[k]);
    const sym = between('tools/call find_symbol');
    assert.equal([sym.calls, sym.errors], [6, 1]);
    assert.ok(sym.p50Ms !== null && sym.p50Ms > 0 && sym.maxMs! >= sym.p99Ms!, JSON.stringify(sym));
    const unknownTool = between('tools/call (unknown tool)');
    assert.equal([unknownTool.calls, unknownTool.errors], [2, 2]);
    const unknownMethod = between('(unknown method)');
    assert.equal([unknownMethod.calls, unknownMethod.errors], [2, 2]);
    // The first index/status was answered before the second one read the histograms.
    assert.is(between('index/status').calls, 1);
    assert.ok(!Object.keys(after).some((k) => /rm_rf|write_file|nope/.test(k)), Object.keys(after).join(', '));
  } finally { await c.close(); }
});

test('after start the daemon warms its request path with calls over its own index, none of them failing', async () => {
  const c = await connect(root, { env: d.env });
  try {
    const w = await waitFor('the warm-up to settle', async () => {
      const st = await c.request(Methods.indexStatus);
      return warmupSettled(st.daemon.warmup) ? st.daemon.warmup : null;
    }, 60_000);
    // 'failed' would mean a call failed otherwise than a client's could (a bug). 'budget' means the
    // daemon's busy time reached the budget first, which a loaded machine may do: then fewer calls ran.
    assert.ok(w.state === 'done' && (w.outcome === 'done' || (w.outcome === 'budget' && w.busyMs >= WARMUP_BUDGET_MS)), JSON.stringify(w));
    if (w.state !== 'done') return;
    // Rounds of find_symbol + find_importers, a search and a read every tenth: the fixture has names of each kind.
    const all = 2 * WARMUP_ROUNDS + 2 * (WARMUP_ROUNDS / 10);
    if (w.outcome === 'done') assert.is(w.calls, all);
    else assert.ok(w.calls > 0 && w.calls < all, JSON.stringify(w));
    assert.ok(w.refused <= WARMUP_ROUNDS / 10, `${w.refused} refused: only reads of an empty file may be`);
    assert.match(d.log(), `request path warmed up: ${w.calls} calls (${w.refused} refused)`);
    // What it warmed answers as before.
    const r = await c.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: 'chunk_text' } });
    assertEvidenceChecks(root, r.evidence);
    assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line}`), ['src/rag_common.py:32']);
  } finally { await c.close(); }
});

test('--warmup off (or EVIDEX_WARMUP=off) leaves the warm-up out from the start; a bad value is a one-line refusal', async () => {
  const other = realpathSync(fixtureCopy());
  const off = await startDaemon(other, { env: { EVIDEX_WARMUP: 'off' } });
  try {
    const c = await connect(other, { env: off.env });
    try {
      assert.equal((await c.request(Methods.indexStatus)).daemon.warmup, { state: 'off' });
      await waitFor('start-up to finish', async () => {
        const s = await c.request(Methods.indexStatus);
        return s.daemon.startup === 'done' && s.index.warm;
      }, 60_000);
      assert.equal((await c.request(Methods.indexStatus)).daemon.warmup, { state: 'off' });
    } finally { await c.close(); }
  } finally { await stopDaemon(off); }
  const bad: Array<[string[], NodeJS.ProcessEnv, string]> = [
    [['--warmup', 'maybe'], {}, 'evidex daemon: --warmup: expected on or off, got "maybe"\n'],
    [[], { EVIDEX_WARMUP: '0' }, 'evidex daemon: EVIDEX_WARMUP: expected on or off, got "0"\n'],
  ];
  for (const [args, env, message] of bad) {
    const r = spawnSync(process.execPath, [DAEMON_MAIN, '--repo', other, ...args], { env: daemonEnv(tempDir('home'), env), encoding: 'utf8' });
    assert.equal({ status: r.status, stderr: r.stderr }, { status: 2, stderr: message });
  }
});

test('ask without a reachable Ollama ends with a model_error naming the cause, and the daemon keeps serving', async () => {
  const c = await connect(root, { env: d.env });
  const events: { type?: string; requestId?: unknown }[] = [];
  c.onNotification((method, params) => { if (method === 'ask/event') events.push(params as { type?: string }); });
  try {
    const r = await c.request(Methods.ask, { question: 'where is COLLECTION_NAME defined?', model: 'qwen3:8b' });
    assert.is(r.stopped, 'model_error');
    assert.is(r.error?.code, 'ollama_unreachable');
    assert.match(r.error?.message ?? '', /127\.0\.0\.1:9/);
    assert.ok(events.some((e) => e.type === 'stopped'), 'progress arrived as ask/event notifications');
    assert.ok(events.every((e) => e.requestId !== undefined), 'each event names its request');
    const e = await rpcError(c.request(Methods.ask, { question: '' }));
    assert.is(e.code, -32602);
    const ok = await c.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'TOP_K' } });
    assert.ok(ok.total > 0);
  } finally { await c.close(); }
});

test('index/refresh re-walks, with progress notifications to the asking client only', async () => {
  const a = await connect(root, { env: d.env });
  const b = await connect(root, { env: d.env });
  const seenA: { requestId?: unknown; progress?: { phase: string } }[] = [];
  const seenB: unknown[] = [];
  a.onNotification((m, p) => { if (m === 'index/progress') seenA.push(p as never); });
  b.onNotification((m, p) => seenB.push([m, p]));
  try {
    const r = await a.request(Methods.indexRefresh);
    const s = await a.request(Methods.indexStatus);
    assert.is(r.files, s.index.files);
    assert.is(r.parsed, 0, 'nothing changed: nothing re-parsed');
    assert.is(r.generation, s.index.generation);
    assert.ok(seenA.length >= 1, 'progress arrived');
    assert.ok(seenA.every((p) => p.requestId !== undefined && typeof p.progress?.phase === 'string'));
    assert.equal(seenB, [], 'the other client saw nothing');
  } finally { await a.close(); await b.close(); }
});

// ---- many clients ------------------------------------------------------------

const MIXED: [string, unknown][] = [
  ['search_code', { query: 'COLLECTION_NAME' }],
  ['search_code', { query: 'import', limit: 200 }],
  ['search_code', { query: 'Chunk', case_sensitive: true, path_prefix: 'src/' }],
  ['search_code', { query: 'e', limit: 50 }],
  ['search_code', { query: 'no-such-text-anywhere-42' }],
  ['find_symbol', { name: 'Chunk' }],
  ['find_symbol', { name: 'Chunk.Meta', kind: 'class' }],
  ['find_symbol', { name: 'TOP_K' }],
  ['read_evidence', { path: 'src/rag_common.py', start_line: 12, end_line: 20, context: 3 }],
  ['read_evidence', { path: 'src/rag_chat.py', start_line: 1, end_line: 30 }],
  ['find_importers', { module_name: 'rag_common' }],
  ['find_importers', { module_name: 'src/mobileai_rag/config.py' }],
  ['read_git_diff', {}],
  ['read_evidence', { path: '../outside', start_line: 1 }],
  ['search_code', { query: 'x', limit: 0 }],
  ['nope', {}],
];

async function answer(c: Client, name: string, args: unknown): Promise<unknown> {
  try {
    const r = await c.request(Methods.toolsCall, { name, arguments: args });
    assertEvidenceChecks(root, r.evidence);
    return { result: r };
  } catch (e) {
    if (e instanceof RpcError) return { error: { code: e.code, data: e.data } };
    throw e;
  }
}

test('16 clients × 48 mixed calls at once all get the single-client answers', async () => {
  const solo = await connect(root, { env: d.env });
  const expected: unknown[] = [];
  try {
    for (const [name, args] of MIXED) expected.push(await answer(solo, name, args));
  } finally { await solo.close(); }
  assert.ok(expected.filter((e) => (e as { error?: unknown }).error).length >= 3, 'the mix includes refusals');

  const clients = await Promise.all(Array.from({ length: 16 }, () => connect(root, { env: d.env })));
  const t0 = performance.now();
  let calls = 0;
  try {
    await Promise.all(clients.map(async (c, ci) => {
      const next = mulberry32(ci + 1);
      const batch = Array.from({ length: 48 }, () => Math.floor(next() * MIXED.length));
      // All of one client's calls in flight together, interleaved with everyone else's.
      const got = await Promise.all(batch.map((i) => answer(c, MIXED[i][0], MIXED[i][1])));
      got.forEach((g, k) => assert.equal(g, expected[batch[k]], `client ${ci} call ${k}: ${MIXED[batch[k]][0]}`));
      calls += batch.length;
    }));
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  const ms = performance.now() - t0;
  console.log(`  16 clients: ${calls} calls answered correctly in ${ms.toFixed(0)} ms (${(calls / (ms / 1000)).toFixed(0)} calls/s)`);
});

test('a client that stops reading is cut off; the others keep being served', async () => {
  const slow = await openRaw();
  const closed = new Promise<void>((r) => slow.once('close', () => r()));
  // Stop reading at the TCP level: the daemon's answers pile up in its send buffer.
  (slow as unknown as { _socket: { pause(): void } })._socket.pause();
  const req = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'e', limit: 200 } } });
  for (let i = 0; i < 3000 && slow.readyState === WebSocket.OPEN; i++) slow.send(req);
  const watcher = await connect(root, { env: d.env });
  try {
    await waitFor('the slow client to be dropped', async () => {
      const s = await watcher.request(Methods.indexStatus);
      return s.daemon.clients === 1;
    }, 20_000, 100);
    const ok = await watcher.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'COLLECTION_NAME' } });
    assert.ok(ok.total >= 1);
  } finally { await watcher.close(); }
  (slow as unknown as { _socket: { resume(): void } })._socket.resume();
  slow.terminate();
  await closed;
});

test.run();
