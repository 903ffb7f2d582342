// What real local models do wrong (docs/ask.md), each against a fake model
// server — Ollama's and an OpenAI-compatible one, every scenario on both —
// with the real ask loop and a real index, asserting what the fake received
// (the refusal texts, the request counts) and that none is taken as an answer.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeFor } from '../client/ask.js';
import { ThinkFilter, textToolCall } from '../daemon/ask/reply.js';
import type { ModelApi } from '../protocol/messages.js';
import { FakeOllama, call } from './fake-ollama/server.js';
import { apiSuite, askFake, mustNotRun, tempStateDir, type ApiSuite } from './fake-ollama/harness.js';
import { APIS, view, type SeenMessage } from './helpers/model-servers.js';

/**
 * The answer a call written as text gets: a `tool` message naming the tool on
 * Ollama's wire; on the OpenAI wire, where a tool message must answer a call
 * id and a call written as text has none, the next user message, naming it.
 */
function textCallRefusal(api: ModelApi, msgs: SeenMessage[]): { tool: string; content: string } {
  const m = msgs.at(-1)!;
  if (api === 'ollama') { assert.is(m.role, 'tool'); return { tool: m.toolName!, content: m.content }; }
  assert.is(m.role, 'user');
  const at = m.content.indexOf(': ');
  return { tool: m.content.slice(0, at), content: m.content.slice(at + 2) };
}

function scenarios(test: Test<ApiSuite>, api: ModelApi): void {
  test('a tool call written as text in content is refused ("call tools through tool_calls"), never the answer', async ({ ix, f }) => {
    const stateDir = tempStateDir();
    f.script(
      // qwen2.5-coder's habit: the call as JSON in a code fence.
      { chunks: [{ content: '```json\n{"name": "find_importers", "arguments": {"module_name": "rag_common"}}\n```' }] },
      { chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] },
      { chunks: [{ content: 'src/build_index.py:4 imports it.' }] },
    );
    const { result } = await askFake(f, 'who imports rag_common?', { runTool: ix.runTool, stateDir });
    assert.is(result.stopped, 'answered');
    assert.is(result.answer, 'src/build_index.py:4 imports it.');
    assert.is(f.chats.length, 3);
    const refusal = textCallRefusal(api, view(f.chats[1]));
    assert.equal([refusal.tool, refusal.content], ['find_importers', 'refused (call_as_text): call tools through tool_calls, not as text in your reply; nothing was run']);
    assert.equal(result.attempts.map((a) => [a.tool, a.decision, a.code ?? null]), [['find_importers', 'refused', 'call_as_text'], ['find_importers', 'allowed', null]]);
    const audit = readFileSync(join(stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(audit.map((a) => [a.decision, a.code ?? null]), [['refused', 'call_as_text'], ['allowed', null]]);

    // Twice in a row (here in <tool_call> tags): the two-strike stop, exit 3.
    f.script(
      { chunks: [{ content: '<tool_call>\n{"name": "search_code", "arguments": {"query": "x"}}\n</tool_call>' }] },
      { chunks: [{ content: '{"name": "search_code", "parameters": {"query": "x"}}' }] },
    );
    const before = f.chats.length;
    const two = await askFake(f, 'find x', { runTool: mustNotRun, stateDir });
    assert.is(two.result.stopped, 'refused_twice');
    assert.is(two.result.answer, '');
    assert.is(f.chats.length - before, 2);
    assert.is(exitCodeFor(two.result), 3);
  });

  test('an empty reply gets one retry with a nudge, then a stop (exit 3); a retry that answers is an answer', async ({ f }) => {
    f.script({ chunks: [{ content: '' }] }, { chunks: [{ content: '   ' }] });
    const { result, events } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.stopped, 'empty_reply');
    assert.is(f.chats.length, 2);
    assert.equal(view(f.chats[1]).at(-1), { role: 'user', content: 'Your last reply was empty. Call a tool through tool_calls, or answer the question.' });
    assert.equal(events.filter((e) => e.type === 'empty_reply').map((e: any) => e.retrying), [true, false]);
    assert.is(exitCodeFor(result), 3);
    f.script({ chunks: [] }, { chunks: [{ content: 'RAG is retrieval-augmented generation.' }] });
    const again = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(again.result.stopped, 'answered');
    assert.is(exitCodeFor(again.result), 0);
  });

  test('a reply cut at the output limit (done_reason / finish_reason "length"): the answer is marked incomplete, not taken whole', async ({ f }) => {
    f.script({ chunks: [{ content: 'The importers are src/build_index.py:4 and' }], doneReason: 'length' });
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.stopped, 'incomplete');
    assert.is(result.answer, 'The importers are src/build_index.py:4 and');
    assert.match(result.message!, 'done_reason "length"');
    assert.is(exitCodeFor(result), 3);
  });

  test('the same call with the same arguments is refused "already answered above" and counts toward the two-strike stop', async ({ ix, f }) => {
    let runs = 0;
    const counting = async (n: unknown, a: unknown) => { runs++; return ix.runTool(n, a); };
    f.script(
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'Chunk', kind: 'class' })] }] },
      { chunks: [{ tool_calls: [call('find_symbol', { kind: 'class', name: 'Chunk' })] }] }, // same call, keys in another order
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'Chunk', kind: 'class' })] }] },
    );
    const { result } = await askFake(f, 'where is Chunk?', { runTool: counting, stateDir: tempStateDir() });
    assert.is(runs, 1);
    assert.is(result.stopped, 'refused_twice');
    assert.is(f.chats.length, 3); // no fourth turn, not the step cap
    const last = view(f.chats[2]).at(-1)!;
    assert.equal([last.role, last.toolName], ['tool', 'find_symbol']);
    assert.match(last.content, /^refused \(duplicate_call\): already answered above/);
    assert.equal(result.attempts.map((a) => a.code ?? a.decision), ['allowed', 'duplicate_call', 'duplicate_call']);
  });

  test('<think>…</think> inside content stays out of the answer and its citations, even cut across chunks', async ({ f }) => {
    f.script({ chunks: [
      { content: '<thi' }, { content: 'nk>Maybe src/nowhere.py:3 has it' }, { content: '…</th' }, { content: 'ink>COLLECTION_NAME is set at ' },
      { content: 'src/rag_common.py:12.' },
    ] });
    const { result, events } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered');
    assert.is(result.answer, 'COLLECTION_NAME is set at src/rag_common.py:12.');
    assert.equal(result.citations.map((c) => c.path), ['src/rag_common.py']);
    assert.is(events.filter((e) => e.type === 'content').map((e: any) => e.text).join(''), result.answer);
    assert.is(events.filter((e) => e.type === 'thinking').map((e: any) => e.text).join(''), 'Maybe src/nowhere.py:3 has it…');
  });

}

for (const api of APIS) {
  const test = apiSuite(api);
  scenarios(test, api);
  test.run();
}

const only = suite('parsing and Ollama\'s error bodies');
only('reply helpers: think filter, text calls and prose that only mentions a tool', () => {
  const t = new ThinkFilter();
  assert.equal([t.push('a<think>b'), t.push('</think'), t.push('>c<'), t.end()], [
    { content: 'a', thinking: 'b' }, { content: '', thinking: '' }, { content: 'c', thinking: '' }, { content: '<', thinking: '' },
  ]);
  assert.equal(textToolCall('{"name":"read_evidence","arguments":{"path":"a.py","start_line":1}}'), { name: 'read_evidence', arguments: { path: 'a.py', start_line: 1 } });
  assert.equal(textToolCall('[{"type":"function","function":{"name":"find_symbol","arguments":{"name":"x"}}}]'), { name: 'find_symbol', arguments: { name: 'x' } });
  assert.is(textToolCall('I would call find_symbol with {"name": "x"} but it is defined at a.py:3.'), null);
  assert.is(textToolCall('{"answer": 42}'), null);
  // LM Studio hands back a call it could not parse between its own markers.
  assert.equal(textToolCall('[TOOL_REQUEST]\n{"name": "find_symbol", "arguments": {"name": "x"}}\n[END_TOOL_REQUEST]'), { name: 'find_symbol', arguments: { name: 'x' } });
});

only('an HTTP error body from Ollama is quoted as one short line at most', async () => {
  const f = await new FakeOllama().start();
  try {
  f.script({ status: 500, error: `internal failure ${'x'.repeat(5000)}\nsecond line` });
  const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
  assert.is(result.error?.code, 'ollama_http_error');
  assert.ok(result.error!.message.length < 320, String(result.error!.message.length));
  assert.not.match(result.error!.message, '\n');
  // A 404 that is not "model not found" is not reported as a missing model.
  f.script({ status: 404, error: '404 page not found' });
  const nf = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir() });
  assert.is(nf.result.error?.code, 'ollama_http_error');
  assert.match(nf.result.error!.message, 'is OLLAMA_HOST the address of an Ollama server');
  } finally { await f.stop(); }
});

only.run();
