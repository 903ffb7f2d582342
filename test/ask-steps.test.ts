// The ask loop's steps through its model interface: the real loop, a real
// index of the fixture and the real audit log, with the model a second
// implementation of ChatModel that replays scripted replies in-process
// (helpers/scripted-model.ts). What the loop must do with any API is asserted
// here — what a turn is asked with, call ids answered in order, arguments a
// model sent as text, a `length` stop, the server's prompt count, model
// failures and aborts in the loop's terms. (That the loop imports no API's
// code is checked with the other import rules, in test/layers.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAMES } from '../indexer/query/schemas.js';
import { runAsk } from '../daemon/ask/loop.js';
import { ParamsSchemas } from '../daemon/methods.js';
import { ModelError, type ChatModel } from '../daemon/ask/model.js';
import { SYSTEM_PROMPT } from '../daemon/ask/prompt.js';
import type { AskEvent, AskResult } from '../protocol/ask-events.js';
import { openFixtureIndex, tempStateDir, type FixtureIndex } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { SCRIPTED_DESCRIPTION, ScriptedModel, type ScriptedTurn } from './helpers/scripted-model.js';

let ix: FixtureIndex;
test.before(async () => { ix = await openFixtureIndex(); });
test.after(async () => { await ix.close(); });

interface Asked { result: AskResult; events: AskEvent[]; model: ScriptedModel; stateDir: string }

async function ask(question: string, model: ScriptedModel, opts: {
  signal?: AbortSignal; onEvent?: (e: AskEvent) => void; timeoutMs?: number; describe?: boolean;
} = {}): Promise<Asked> {
  const events: AskEvent[] = [];
  const stateDir = tempStateDir();
  const result = await runAsk({ question, ...(opts.describe ? { describe_model: true } : {}) }, {
    clientId: 'steps', runTool: ix.runTool, stateDir,
    notify: (e) => { events.push(e); opts.onEvent?.(e); },
    signal: opts.signal ?? new AbortController().signal,
    config: { host: 'http://127.0.0.1:9', model: 'scripted', maxSteps: 8, timeoutMs: opts.timeoutMs ?? 20_000 },
    openModel: (): ChatModel => model,
  });
  return { result, events, model, stateDir };
}

const scripted = (...turns: ScriptedTurn[]): ScriptedModel => new ScriptedModel(turns, { contextLength: 32768 });

test('a turn is asked with the fitted window, the reply reserve, the allowlist and the question; call ids are answered in order', async () => {
  const m = scripted(
    { toolCalls: [
      { id: 'call_1', name: 'find_importers', arguments: { module_name: 'rag_common' } },
      // Arguments an OpenAI-style API sent as JSON text that does not parse stay text, and are refused.
      { id: 'call_2', name: 'search_code', arguments: '{"query": "TOP_K"' },
    ] },
    { content: ['Imported at src/build_index.py:4.'] },
  );
  const { result, events, stateDir } = await ask('who imports rag_common?', m, { describe: true });
  assert.is(result.stopped, 'answered', result.message);
  assert.is(result.answer, 'Imported at src/build_index.py:4.');
  assert.equal(result.citations.map((c) => [c.cite, c.backed]), [['src/build_index.py:4', true]]);
  assert.is(m.requests.length, 2);

  // The window: the model's 32768 capped by the default 8192; a fifth of it kept for the reply.
  const [first, second] = m.requests;
  assert.equal([first.numCtx, first.replyReserve, second.numCtx], [8192, 1638, 8192]);
  assert.is(result.numCtx, 8192);
  assert.equal(events.find((e) => e.type === 'model'), { type: 'model', numCtx: 8192, contextLength: 32768 });
  assert.equal(first.tools.map((t) => t.function.name), [...TOOL_NAMES]);
  assert.equal(first.messages, [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: 'who imports rag_common?' }]);

  // The second turn carries the reply as the model's history (ids kept) and one answer per call, in order, each with its call's id.
  const [, , history, answer1, answer2] = second.messages;
  assert.equal(history, { role: 'assistant', content: '', toolCalls: [
    { id: 'call_1', name: 'find_importers', arguments: { module_name: 'rag_common' } },
    { id: 'call_2', name: 'search_code', arguments: '{"query": "TOP_K"' },
  ] });
  assert.equal([answer1.role, answer2.role], ['tool', 'tool']);
  assert.equal([(answer1 as any).callId, (answer1 as any).toolName, (answer2 as any).callId, (answer2 as any).toolName],
    ['call_1', 'find_importers', 'call_2', 'search_code']);
  const env = JSON.parse(answer1.content).untrusted_data;
  assert.is(env.tool, 'find_importers');
  assertEvidenceChecks(ix.root, env.evidence);
  assert.match(answer2.content, /^refused \(invalid_arguments\): search_code: /);
  assert.not.ok(answer2.content.includes('\n'));
  assert.equal(result.attempts.map((a) => [a.tool, a.decision, a.code ?? null]), [['find_importers', 'allowed', null], ['search_code', 'refused', 'invalid_arguments']]);
  const audit = readFileSync(join(stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.equal(audit.map((a) => [a.client, a.model, a.tool, a.decision, a.arguments]), [
    ['steps', 'scripted', 'find_importers', 'allowed', { module_name: 'rag_common' }],
    ['steps', 'scripted', 'search_code', 'refused', '{"query": "TOP_K"'],
  ]);
  assertEvidenceChecks(ix.root, result.evidence);
  // Asked for, the model's description is the result's; and nothing the loop handed the model outlives the question.
  assert.equal(result.ollama, SCRIPTED_DESCRIPTION);
  assert.ok(m.signals.length === 4 && m.signals.every((s) => s.aborted), `${m.signals.length} signals`);
});

test('a reply stopped by "length" is an incomplete answer; the server\'s prompt count is logged and a full window is a cut', async () => {
  const m = new ScriptedModel([{ content: ['It is set at src/rag_common.py:12 and'], doneReason: 'length', promptTokens: 4096 }]);
  const { result, events } = await ask('where is COLLECTION_NAME set?', m);
  assert.is(result.stopped, 'incomplete');
  assert.is(result.answer, 'It is set at src/rag_common.py:12 and');
  assert.match(result.message!, 'the answer above is incomplete');
  assert.equal(result.citations.map((c) => [c.cite, c.backed]), [['src/rag_common.py:12', false]]);
  assert.is(result.turns.length, 1);
  const [turn] = result.turns;
  assert.equal([turn.step, turn.promptEvalCount, turn.doneReason], [1, 4096, 'length']);
  assert.ok(turn.estimate > 0 && turn.estimate <= 4096 - 819, String(turn.estimate));
  assert.is(result.contextCuts, 1);
  assert.equal(events.find((e) => e.type === 'context_cut'), { type: 'context_cut', step: 1, promptEvalCount: 4096, numCtx: 4096 });
  assert.equal(events.at(-1), { type: 'stopped', why: 'incomplete', message: result.message });
});

test('thinking sent as such and <think> text cut across pieces both stream as thinking and stay out of the answer', async () => {
  const m = scripted({ thinking: ['plan: answer directly. '], content: ['<thi', 'nk>hidden</th', 'ink>The answer', ' is 42.'] });
  const { result, events } = await ask('q', m);
  assert.is(result.stopped, 'answered');
  assert.is(result.answer, 'The answer is 42.');
  assert.equal(events.filter((e) => e.type === 'thinking' || e.type === 'content').map((e: any) => [e.type, e.text]), [
    ['thinking', 'plan: answer directly. '], ['thinking', 'hidden'], ['content', 'The answer'], ['content', ' is 42.'],
  ]);
});

test('a model that cannot be used ends the question as model_error in its own words; a bug thrown by a model is not taken for one', async () => {
  const refused = new ScriptedModel([], new ModelError('model_no_tools', 'model "scripted" cannot call tools; choose another'));
  const a = await ask('q', refused);
  assert.is(a.result.stopped, 'model_error');
  assert.equal(a.result.error, { code: 'model_no_tools', message: 'model "scripted" cannot call tools; choose another' });
  assert.is(a.result.message, a.result.error!.message);
  assert.is(refused.requests.length, 0);
  assert.is(a.result.numCtx, undefined);
  assert.equal(a.events.map((e) => e.type), ['started', 'stopped']);

  const cut = scripted({ content: ['Let me'], fail: new ModelError('ollama_stream_cut', 'the reply ended before it was complete') });
  const b = await ask('q', cut);
  assert.equal([b.result.stopped, b.result.error?.code, b.result.steps], ['model_error', 'ollama_stream_cut', 1]);

  const bug = new TypeError('a bug in a model implementation');
  const buggy = scripted({ fail: bug });
  let thrown: unknown;
  try { await ask('q', buggy); } catch (e) { thrown = e; }
  assert.is(thrown, bug, 'the bug itself goes on up');
  assert.ok(buggy.signals.every((s) => s.aborted), 'the question was still closed');
});

test('the client\'s cancel and the wall clock reach a model still writing through the signal its turn was given', async () => {
  const ac = new AbortController();
  const writing = scripted({ content: ['Let me look'], hang: true });
  const a = await ask('q', writing, { signal: ac.signal, onEvent: (e) => { if (e.type === 'content') ac.abort(); } });
  assert.equal([a.result.stopped, a.result.message], ['cancelled', 'cancelled by the client']);
  assert.ok(writing.requests[0].signal.aborted);
  assert.equal(a.events.at(-1), { type: 'stopped', why: 'cancelled', message: 'cancelled by the client' });

  const slow = scripted({ content: ['Still thinking'], hang: true });
  const b = await ask('q', slow, { timeoutMs: 50 });
  assert.equal([b.result.stopped, b.result.message], ['time_limit', 'stopped at the wall-clock limit of 0.05 s (EVIDEX_ASK_TIMEOUT_S)']);
  assert.ok(slow.requests[0].signal.aborted);
});

test('the loop takes the params as methods.ts validated them: a question or model of blanks is refused there, once', () => {
  const refusal = (params: unknown): string | null => {
    const r = ParamsSchemas.ask.safeParse(params);
    return r.success ? null : `${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`;
  };
  assert.is(refusal({ question: ' \n\t ' }), 'question: must not be blank');
  assert.is(refusal({ question: 'q', model: '  ' }), 'model: must not be blank');
  assert.match(refusal({ question: '' }) ?? '', /^question: /);
  assert.is(refusal({ question: ' where is Chunk? ', model: ' qwen3:8b ' }), null);
});

test.run();
