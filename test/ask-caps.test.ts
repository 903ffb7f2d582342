// The two bounds on one model turn (issue 30, point 6), through the real
// `ollama` client and the fake Ollama, with tool calls answered by a real
// index: a reply asking for 300 calls runs at most the cap (default 8), and
// every one of the 300 has an audit line saying what happened to it; the
// model is told once, in words it can act on; the client's progress shows it;
// the cap comes from EVIDEX_ASK_CALLS_PER_TURN of the asking client. And a
// reply that streams without end (text, thinking, or call arguments) is
// stopped at its size cap: the request is ended, the question is incomplete,
// and nothing past the cap is kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import { runAskCommand } from '../client/ask.js';
import { ReplyAssembly, sizeUpTo } from '../daemon/ask/assembly.js';
import { DEFAULT_CALLS_PER_TURN, DEFAULT_MAX_REPLY_CHARS, resolveAskConfig } from '../daemon/ask/config.js';
import type { ToolResult } from '../indexer/api.js';
import { FakeOllama, call, type ChatTurn, type FakeChunk } from './fake-ollama/server.js';
import { askFake, openFixtureIndex, tempStateDir, type FixtureIndex } from './fake-ollama/harness.js';
import { captureStream, fixtureCopy, startDaemon, stopDaemon, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp } from './helpers/fs.js';

let ix: FixtureIndex;
let f: FakeOllama;
let ran = 0;
/** The index's runTool, counting the calls that reach it. */
const runTool = (name: unknown, args: unknown): Promise<ToolResult> => { ran++; return ix.runTool(name, args); };

test.before(async () => { ix = await openFixtureIndex(); });
test.after(async () => { await ix.close(); cleanupTemp(); });
// A window of 8192 (EVIDEX_NUM_CTX's default): the results of 8 calls fit it with room for the reply.
test.before.each(async () => { f = await new FakeOllama([{ name: 'qwen3:8b', capabilities: ['completion', 'tools'], contextLength: 8192 }]).start(); ran = 0; });
test.after.each(async () => { await f.stop(); });

function auditLines(stateDir: string): Array<Record<string, any>> {
  return readFileSync(join(stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

/** 300 distinct, valid calls in one reply. */
const CALLS = Array.from({ length: 300 }, (_, i) => call('search_code', { query: `def ${String.fromCharCode(97 + (i % 26))}`, offset: i, limit: 1 }));

test('a reply with 300 calls runs the default cap of 8; 300 audit lines; the model is told once and answers', async () => {
  const stateDir = tempStateDir();
  f.script(
    { chunks: [{ tool_calls: CALLS }] },
    { chunks: [{ content: 'Done: src/build_index.py:1' }] },
  );
  const { result, events } = await askFake(f, 'find every def', { runTool, stateDir });
  assert.is(DEFAULT_CALLS_PER_TURN, 8);
  assert.is(ran, 8, 'the index ran the first 8 calls only');
  const audit = auditLines(stateDir);
  assert.is(audit.length, 300);
  assert.equal(audit.slice(0, 8).map((a) => a.decision), Array(8).fill('allowed'));
  assert.equal(audit.slice(0, 8).map((a) => a.arguments.offset), [0, 1, 2, 3, 4, 5, 6, 7]);
  for (const [i, a] of audit.slice(8).entries()) {
    assert.equal([a.decision, a.code, a.tool, a.arguments.offset, a.step], ['not_run', 'calls_per_turn', 'search_code', i + 8, 1]);
    assert.is(a.reason, 'not run: the reply asked for 300 tool calls, over the cap of 8 per model turn');
  }
  assert.equal(result.attempts.map((a) => a.decision), [...Array(8).fill('allowed'), ...Array(292).fill('not_run')]);
  assert.equal(events.filter((e) => e.type === 'calls_not_run'), [{ type: 'calls_not_run', step: 1, asked: 300, cap: 8 }]);
  assert.is(events.filter((e) => e.type === 'tool_call').length, 8, 'a progress event per call that ran, one for the rest');
  // The next turn: the model's history holds the 8 calls that ran, their 8 answers, then one note.
  const second = f.chats[1].body.messages as Array<{ role: string; content: string; tool_calls?: unknown[] }>;
  const at = second.findIndex((m) => m.role === 'assistant');
  assert.is(second[at].tool_calls!.length, 8);
  assert.equal(second.slice(at + 1, at + 9).map((m) => m.role), Array(8).fill('tool'));
  assert.equal(second.slice(at + 9).map((m) => m.role), ['user']);
  assert.is(second[at + 9].content, 'Your last reply asked for 300 tool calls; at most 8 run per turn, so only the first 8 ran (their results are above) '
    + 'and the other 292 were not run. Call again only for what you still need, at most 8 at a time, or answer from the results you have.');
  assert.is(result.stopped, 'answered');
});

test('the calls not run are not "already answered": asked again next turn, they run', async () => {
  const stateDir = tempStateDir();
  f.script(
    { chunks: [{ tool_calls: CALLS.slice(0, 10) }] },
    { chunks: [{ tool_calls: CALLS.slice(8, 10) }] },
    { chunks: [{ content: 'Done.' }] },
  );
  const { result } = await askFake(f, 'q', { runTool, stateDir, config: { callsPerTurn: 8 } });
  assert.is(ran, 10, JSON.stringify(result).slice(0, 2000));
  assert.equal(result.attempts.map((a) => a.decision), [...Array(8).fill('allowed'), 'not_run', 'not_run', 'allowed', 'allowed']);
  assert.is(result.stopped, 'answered');
});

test('two refusals in a row within the cap still stop the question; each call past the cap still has its line', async () => {
  const stateDir = tempStateDir();
  f.script({ chunks: [{ tool_calls: [call('rm', {}), call('rm', { x: 1 }), ...CALLS.slice(0, 5)] }] });
  const { result } = await askFake(f, 'q', { runTool, stateDir, config: { callsPerTurn: 3 } });
  assert.is(result.stopped, 'refused_twice');
  assert.is(ran, 0);
  assert.equal(auditLines(stateDir).map((a) => a.decision), ['refused', 'refused', 'not_run', 'not_run', 'not_run', 'not_run']);
});

test('the cap is a setting: the asking client\'s EVIDEX_ASK_CALLS_PER_TURN reaches a real daemon; progress shows the calls not run; a bad value is one line', async () => {
  const root = fixtureCopy();
  const d: TestDaemon = await startDaemon(root, { env: { OLLAMA_HOST: f.url, EVIDEX_ASK_CALLS_PER_TURN: '20' } });
  const client: Client = await connect(root, { env: d.env, clientName: 'cli' });
  try {
    f.script({ chunks: [{ tool_calls: CALLS.slice(0, 7) }] }, { chunks: [{ content: 'Done.' }] });
    const cap = captureStream();
    const err = captureStream();
    const code = await runAskCommand(client, 'q', { json: false, out: cap.out, err: err.out, env: { OLLAMA_HOST: f.url, EVIDEX_ASK_CALLS_PER_TURN: '3', NO_COLOR: '1' } });
    assert.is(code, 0, err.text());
    assert.match(err.text(), 'step 1: the model asked for 7 tool calls; the first 3 ran, the other 4 were not run (at most 3 per turn, EVIDEX_ASK_CALLS_PER_TURN)\n');
    assert.is(err.text().split('\n').filter((l) => l.startsWith('→ search_code')).length, 3);
    const audit = auditLines(d.stateDir);
    assert.equal(audit.map((a) => a.decision), ['allowed', 'allowed', 'allowed', 'not_run', 'not_run', 'not_run', 'not_run']);
    assert.is(audit[0].client, 'cli');
    // Without the client's setting, the daemon's own environment (20 here) is the fallback.
    f.script({ chunks: [{ tool_calls: CALLS.slice(0, 7) }] }, { chunks: [{ content: 'Done.' }] });
    const json = captureStream();
    assert.is(await runAskCommand(client, 'q', { json: true, out: json.out, env: { OLLAMA_HOST: f.url } }), 0);
    assert.not.match(json.text(), 'calls_not_run');
    const bad = captureStream();
    assert.is(await runAskCommand(client, 'q', { json: false, out: bad.out, err: bad.out, env: { OLLAMA_HOST: f.url, EVIDEX_ASK_CALLS_PER_TURN: '0' } }), 1);
    assert.is(bad.text(), 'evidex ask: EVIDEX_ASK_CALLS_PER_TURN=0 must be a whole number from 1 to 50\n');
  } finally {
    await client.close();
    await stopDaemon(d);
  }
  assert.throws(() => resolveAskConfig({}, { calls_per_turn: 51 }), /calls_per_turn=51 must be a whole number from 1 to 50/);
  assert.is(resolveAskConfig({}, {}, { EVIDEX_ASK_CALLS_PER_TURN: '5' }).callsPerTurn, 5);
});

/** Runs one question whose first reply is `turn`, with the size cap `maxReplyChars`. */
async function capped(turn: ChatTurn, maxReplyChars: number) {
  const stateDir = tempStateDir();
  f.script(turn);
  const run = await askFake(f, 'q', { runTool, stateDir, config: { maxReplyChars } });
  return { ...run, stateDir };
}

test('a reply that streams text without end stops at the size cap: the request is ended, the question is incomplete, nothing past the cap kept', async () => {
  const endless: { chunk: FakeChunk; sent?: number } = { chunk: { content: 'la '.repeat(1000) } };
  const { result, events } = await capped({ chunks: [{ content: 'Start. ' }], endless }, DEFAULT_MAX_REPLY_CHARS);
  assert.is(result.stopped, 'incomplete');
  assert.is(result.answer.length, DEFAULT_MAX_REPLY_CHARS, 'the answer is the reply up to the cap, no more');
  assert.ok(result.answer.startsWith('Start. la la'));
  assert.match(result.message!, `the model's reply reached the size cap of 1,048,576 characters (its text, thinking and call arguments together) and was stopped there: the answer above is incomplete`);
  await f.waitForAbort(10_000);
  assert.ok(f.chats[0].aborted, 'the stream was ended, not read on');
  // What the fake got written before it saw the end: the cap's worth of chunks and what the socket buffers, not more.
  assert.ok(endless.sent! < DEFAULT_MAX_REPLY_CHARS / 3000 + 2000, `chunks sent: ${endless.sent}`);
  const streamed = events.filter((e) => e.type === 'content').reduce((n, e) => n + (e as { text: string }).text.length, 0);
  assert.is(streamed, DEFAULT_MAX_REPLY_CHARS, 'the client was sent the same cap\'s worth');
  assert.is(f.chats.length, 1, 'no further turn');
});

test('thinking and call arguments count toward the cap too; calls of a capped reply are not run', async () => {
  const thinking = await capped({ chunks: [{ content: 'Answer begins' }], endless: { chunk: { thinking: 'hmm '.repeat(500) } } }, 50_000);
  assert.is(thinking.result.stopped, 'incomplete');
  assert.is(thinking.result.answer, 'Answer begins');
  const big = Array.from({ length: 40 }, (_, i) => call('search_code', { query: `q${i}`, note: 'x'.repeat(2000) }));
  const calls = await capped({ chunks: [{ tool_calls: big }] }, 50_000);
  assert.is(calls.result.stopped, 'incomplete');
  assert.match(calls.result.message!, /and was stopped there; the 2\d tool calls it held were not run/);
  assert.is(ran, 0);
  assert.equal(calls.result.attempts, []);
});

test('a line from Ollama that never ends is not read on past its bound: the question ends with one line, not out of memory', async () => {
  const { result } = await capped({ chunks: [{ content: 'x' }], unendedLineBytes: 12 << 20 }, DEFAULT_MAX_REPLY_CHARS);
  assert.is(result.stopped, 'model_error');
  assert.is(result.error?.code, 'ollama_bad_reply');
  assert.is(result.error?.message, 'Ollama sent a line of more than 8,388,608 bytes; its reply was not read on');
  await f.waitForAbort(10_000);
});

test('the assembly: the cap is exact, and sizing arguments nested 100,000 deep neither recurses nor walks them all', () => {
  const seen: string[] = [];
  const a = new ReplyAssembly((_k, t) => seen.push(t), 10);
  a.content('12345');
  a.thinking('678');
  assert.not.ok(a.full);
  a.content('9abc');
  assert.ok(a.full);
  a.content('more');
  a.toolCalls([{ name: 'search_code', arguments: {} }]);
  const r = a.end('stop', undefined);
  assert.equal([r.content, r.thinking, r.toolCalls, r.overCap], ['123459a', '678', [], 10]);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.ok(sizeUpTo(deep, 1000) > 1000);
  assert.is(sizeUpTo({ query: 'abc', limit: 5 }, 1000), 2 + 7 + 5 + 7 + 3);
});

test.run();
