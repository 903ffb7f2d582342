// The ask loop end to end, on both APIs: the real `ollama` client → fake
// Ollama, and the real `openai` client → a fake OpenAI-compatible server, over
// loopback, with tool calls answered by a real index of the fixture repo.
// Every scenario asserts the transcript the fake server received (read in
// evidex's own shape through `view`, whichever wire carried it).
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_NOTE } from '../daemon/ask/prompt.js';
import type { ModelApi } from '../protocol/messages.js';
import { call } from './fake-ollama/server.js';
import { apiSuite, askFake, tempStateDir, type ApiSuite } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { APIS, view } from './helpers/model-servers.js';

function auditLines(stateDir: string): any[] {
  return readFileSync(join(stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

function scenarios(test: Test<ApiSuite>, api: ModelApi): void {
  test('happy path: parallel calls split across stream lines, data envelope, answer with checked citations, audit', async ({ ix, f }) => {
    const stateDir = tempStateDir();
    f.models[0].contextLength = 8192; // room for both answers whole (the 4096 case is in ask-budget)
    f.script(
      { splitLines: true, chunks: [
        { thinking: 'Who imports rag_common? ' },
        { thinking: 'And where is the collection named?' },
        { tool_calls: [call('find_importers', { module_name: 'rag_common' })] },
        { tool_calls: [call('search_code', { query: 'COLLECTION_NAME =', limit: 5 })] },
      ] },
      { chunks: [
        { content: 'rag_common is imported by src/build_index.py:4, ' },
        { content: 'src/chat_reranker.py:6 and src/rag_chat.py:10-11; the collection is set at `src/rag_common.py:12`. ' },
        { content: 'It is also used at src/rag_common.py:40 and src/nowhere.py:3.' },
      ] },
    );
    const { result, events } = await askFake(f, 'Which files import rag_common?', { runTool: ix.runTool, stateDir, clientId: 'cli-7' });
    assert.is(result.stopped, 'answered');
    assert.is(result.steps, 2);
    assert.is(f.chats.length, 2);

    // The second request carries the assembled assistant turn and one tool message per call, in order.
    const msgs = view(f.chats[1]);
    assert.is(msgs.length, 5);
    assert.equal(msgs[2], {
      // The reasoning is shown to the user but not sent back: it would only take room in the window.
      role: 'assistant', content: '',
      toolCalls: [{ name: 'find_importers', arguments: { module_name: 'rag_common' } }, { name: 'search_code', arguments: { query: 'COLLECTION_NAME =', limit: 5 } }],
    });
    assert.equal([msgs[3].role, msgs[3].toolName, msgs[4].role, msgs[4].toolName], ['tool', 'find_importers', 'tool', 'search_code']);
    const env1 = JSON.parse(msgs[3].content);
    const env2 = JSON.parse(msgs[4].content);
    assert.equal(Object.keys(env1), ['untrusted_data', 'note']);
    assert.is(env1.note, DATA_NOTE);
    // The envelope holds exactly what the index answers for that call.
    const direct1 = await ix.handle.runTool('find_importers', { module_name: 'rag_common' });
    const direct2 = await ix.handle.runTool('search_code', { query: 'COLLECTION_NAME =', limit: 5 });
    assert.equal(env1.untrusted_data.evidence, direct1.evidence);
    assert.is(env1.untrusted_data.total, direct1.total);
    assert.equal(env2.untrusted_data.evidence, direct2.evidence);
    assertEvidenceChecks(ix.root, env1.untrusted_data.evidence);
    assertEvidenceChecks(ix.root, env2.untrusted_data.evidence);
    // The fixture's four importers (fixtures/README.md), dynamic import excluded.
    assert.equal(env1.untrusted_data.evidence.map((e: any) => `${e.path}:${e.start_line}`),
      ['src/build_index.py:4', 'src/chat_reranker.py:6', 'src/chat_reranker_guarded.py:6', 'src/rag_chat.py:10']);
    assert.ok(env2.untrusted_data.evidence.some((e: any) => e.path === 'src/rag_common.py' && e.start_line === 12));

    // Evidence in the result: everything shown, checkable against the files.
    assertEvidenceChecks(ix.root, result.evidence);
    assert.is(result.evidence.length, direct1.evidence.length + direct2.evidence.length);
    assert.equal(result.citations.map((c) => [c.cite, c.backed]), [
      ['src/build_index.py:4', true],
      ['src/chat_reranker.py:6', true],
      ['src/rag_chat.py:10-11', true],
      ['src/rag_common.py:12', true],
      ['src/rag_common.py:40', false],
      ['src/nowhere.py:3', false],
    ]);
    assert.equal(result.attempts.map((a) => [a.step, a.tool, a.decision, a.items]),
      [[1, 'find_importers', 'allowed', 4], [1, 'search_code', 'allowed', direct2.evidence.length]]);

    // Progress events, in the order things happened.
    assert.equal(events.map((e) => e.type), [
      'started', 'model', 'step', 'thinking', 'thinking', 'tool_running', 'tool_call', 'tool_result', 'tool_running', 'tool_call', 'tool_result',
      'step', 'content', 'content', 'content', 'citations', 'stopped',
    ]);

    // One audit line per call.
    const audit = auditLines(stateDir);
    assert.is(audit.length, 2);
    assert.equal(audit.map((a) => [a.client, a.question, a.tool, a.decision, a.items, a.total]), [
      ['cli-7', 'Which files import rag_common?', 'find_importers', 'allowed', 4, direct1.total],
      ['cli-7', 'Which files import rag_common?', 'search_code', 'allowed', direct2.evidence.length, direct2.total],
    ]);
    assert.equal(audit.map((a) => a.question_id), [result.questionId, result.questionId]);
    assert.equal(audit[1].arguments, { query: 'COLLECTION_NAME =', limit: 5 });
    assert.ok(!Number.isNaN(Date.parse(audit[0].time)) && typeof audit[0].duration_ms === 'number');
  });

  test('extra field and "5" for a number are refused with the schema reason; nothing is repaired', async ({ ix, f }) => {
    const stateDir = tempStateDir();
    f.script(
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'Chunk', regex: true })] }] },
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'Chunk' })] }] },
      { chunks: [{ tool_calls: [call('search_code', { query: 'TOP_K', limit: '5' })] }] },
      { chunks: [{ content: 'Chunk is a class.' }] },
    );
    const { result } = await askFake(f, 'Where is Chunk defined?', { runTool: ix.runTool, stateDir });
    assert.is(result.stopped, 'answered');
    assert.is(f.chats.length, 4);
    const t1 = view(f.chats[1]).at(-1)!;
    assert.equal([t1.role, t1.toolName], ['tool', 'find_symbol']);
    assert.match(t1.content, /^refused \(invalid_arguments\): find_symbol: .*regex/);
    const t3 = view(f.chats[3]).at(-1)!;
    assert.equal([t3.role, t3.toolName], ['tool', 'search_code']);
    assert.match(t3.content, /^refused \(invalid_arguments\): search_code: limit must be a number, got string/);
    // What the model sent is what was logged: the string "5" stayed a string.
    assert.equal(result.attempts.map((a) => [a.tool, a.decision, a.code ?? null]), [
      ['find_symbol', 'refused', 'invalid_arguments'], ['find_symbol', 'allowed', null], ['search_code', 'refused', 'invalid_arguments'],
    ]);
    assert.equal(result.attempts[2].arguments, { query: 'TOP_K', limit: '5' });
    assert.equal(auditLines(stateDir).map((a) => a.decision), ['refused', 'allowed', 'refused']);
    assertEvidenceChecks(ix.root, result.evidence);
    assert.ok(result.evidence.some((e) => e.kind === 'class' && e.name.endsWith('Chunk')));
  });

  test('path escape and secret are refused with path_denied / secret_denied; a valid call in between resets the count', async ({ ix, f }) => {
    f.script(
      { chunks: [{ tool_calls: [call('read_evidence', { path: '../etc/passwd', start_line: 1 })] }] },
      { chunks: [{ tool_calls: [call('read_evidence', { path: 'src/rag_common.py', start_line: 12 })] }] },
      { chunks: [{ tool_calls: [call('read_evidence', { path: '.env', start_line: 1 })] }] },
      { chunks: [{ content: 'See src/rag_common.py:12.' }] },
    );
    const { result } = await askFake(f, 'Show me /etc/passwd and the .env', { runTool: ix.runTool, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered');
    assert.is(f.chats.length, 4);
    assert.match(view(f.chats[1]).at(-1)!.content, /^refused \(path_denied\): /);
    assert.match(view(f.chats[3]).at(-1)!.content, /^refused \(secret_denied\): /);
    assert.equal(result.attempts.map((a) => a.code ?? a.decision), ['path_denied', 'allowed', 'secret_denied']);
    assert.equal(result.citations.map((c) => c.backed), [true]);
    // No file content from outside the root or from the secret reached the model.
    const everything = JSON.stringify(f.requests.map((r) => r.body));
    assert.not.ok(everything.includes('root:x:0:0'));
    assert.not.ok(everything.includes(readFileSync(join(ix.root, '.env'), 'utf8').split('\n')[0]));
  });

  test('two refusals in a row stop the loop: no third model turn, attempts handed back', async ({ ix, f }) => {
    const stateDir = tempStateDir();
    f.script(
      { chunks: [{ tool_calls: [call('delete_file', { path: 'src/rag_common.py' })] }] },
      { chunks: [{ tool_calls: [call('search_code', { query: 'x', regex: '.*' })] }] },
      { chunks: [{ content: 'never requested' }] },
    );
    const { result, events } = await askFake(f, 'Delete src/rag_common.py', { runTool: ix.runTool, stateDir });
    assert.is(result.stopped, 'refused_twice');
    assert.is(f.chats.length, 2, 'no third chat request');
    assert.is(f.turns.length, 1, 'the third scripted turn was never consumed');
    assert.is(result.answer, '');
    assert.match(result.message!, 'two refused tool calls in a row');
    assert.equal(result.attempts.map((a) => [a.tool, a.code]), [['delete_file', 'unknown_tool'], ['search_code', 'invalid_arguments']]);
    assert.equal(events.at(-1), { type: 'stopped', why: 'refused_twice', message: result.message });
    assert.is(auditLines(stateDir).length, 2);
  });

  test('two refused calls in one reply stop before a third parallel call runs', async ({ ix, f }) => {
    const stateDir = tempStateDir();
    f.script({ chunks: [{ tool_calls: [
      call('write_file', { path: 'a', text: 'b' }),
      call('find_importers', { module: 'rag_common' }),
      call('find_importers', { module_name: 'rag_common' }),
    ] }] });
    const { result } = await askFake(f, 'q', { runTool: ix.runTool, stateDir });
    assert.is(result.stopped, 'refused_twice');
    assert.is(f.chats.length, 1);
    assert.is(result.attempts.length, 2);
    assert.is(result.evidence.length, 0);
  });

  test('endless tool calls hit the step cap: exactly maxSteps model turns', async ({ ix, f }) => {
    f.fallback = (_body, n) => ({ chunks: [{ tool_calls: [call('search_code', { query: `def ${'abcdefgh'[n % 8]}`, limit: 1 })] }] });
    const { result } = await askFake(f, 'loop forever', { runTool: ix.runTool, stateDir: tempStateDir(), config: { maxSteps: 3 } });
    assert.is(result.stopped, 'step_cap');
    assert.is(f.chats.length, 3);
    assert.is(result.steps, 3);
    assert.is(result.attempts.length, 3);
    assert.ok(result.attempts.every((a) => a.decision === 'allowed'));
    assert.match(result.message!, 'stopped after 3 model turns');
    // Each turn saw the growing conversation: turn n carries 2 + 2(n-1) messages.
    assert.equal(f.chats.map((c) => c.body.messages.length), [2, 4, 6]);
  });

  test('a tool result over the budget is cut in the envelope; only what was shown backs citations', async ({ ix, f }) => {
    f.script(
      { chunks: [{ tool_calls: [call('search_code', { query: 'import', limit: 200 })] }] },
      { chunks: [{ content: 'done' }] },
    );
    const { result } = await askFake(f, 'q', { runTool: ix.runTool, stateDir: tempStateDir() });
    const env = JSON.parse(view(f.chats[1]).at(-1)!.content).untrusted_data;
    assert.ok(env.omitted > 0, JSON.stringify(env).slice(0, 3000));
    assert.is(env.returned + env.omitted, env.total);
    assert.is(env.total, result.attempts[0].total);
    assert.ok(f.chats.every((c) => c.promptTokens! <= c.numCtx! && !c.truncated), 'every prompt within the window');
    assert.is(result.evidence.length, env.returned);
    assertEvidenceChecks(ix.root, result.evidence);
  });
}

for (const api of APIS) {
  const test = apiSuite(api);
  scenarios(test, api);
  test.run();
}
