// The context budget (docs/ask.md) against both fake model servers, asserting
// what the fake RECEIVED: the window on every request (Ollama's num_ctx; an
// OpenAI-compatible server's own, fixed at load, with max_tokens from the
// reply reserve), every prompt within the window the server reports (by the
// fake's own tokenizer, not evidex's estimate), the question in every request
// — with a tool that returns 200 long lines — and the user told when the
// server's count (prompt_eval_count, usage.prompt_tokens) shows it cut the
// prompt.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResult } from '../indexer/api.js';
import { openIndex } from '../indexer/index.js';
import { replyReserve } from '../daemon/ask/budget.js';
import { runAsk, type Conversation } from '../daemon/ask/loop.js';
import type { AskEvent } from '../protocol/ask-events.js';
import type { ModelApi } from '../protocol/messages.js';
import { call, type RecordedRequest } from './fake-ollama/server.js';
import { askFake, tempStateDir } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { APIS, fakeServer, serverConfig, view, type FakeServer } from './helpers/model-servers.js';

const base = mkdtempSync(join(tmpdir(), 'evidex-budget-'));
const root = join(base, 'repo');

// The repository every scenario asks about, built once for both APIs' suites (closed after the last).
mkdirSync(join(root, 'src'), { recursive: true });
// 200 long lines, every one a match for NEEDLE.
writeFileSync(join(root, 'src', 'long.py'), Array.from({ length: 200 }, (_, i) =>
  `NEEDLE_${String(i + 1).padStart(3, '0')} = "${'lorem ipsum dolor sit amet '.repeat(5)}"  # line ${i + 1}`).join('\n') + '\n');
writeFileSync(join(root, 'src', 'small.py'), 'def one():\n    return 1\n');
const handle = await openIndex(root, { stateDir: join(base, 'state') });
await handle.refresh();
const runTool = async (name: unknown, args: unknown): Promise<ToolResult> => handle.runTool(name, args);
const close = (): Promise<void> => handle.close();

/** The window a request was fitted to, as its wire shows it: Ollama's num_ctx asked for (and num_predict, the reply reserve), or the reply reserve an OpenAI-style server was asked to leave. */
function assertWindow(api: ModelApi, c: RecordedRequest, numCtx: number, what: string): void {
  if (api === 'ollama') {
    assert.is(c.body.options?.num_ctx, numCtx, `${what}: num_ctx`);
    assert.is(c.body.options?.num_predict, replyReserve(numCtx), `${what}: num_predict`);
  } else assert.is(c.body.max_tokens, replyReserve(numCtx), `${what}: max_tokens`);
}

function assertWithinWindow(api: ModelApi, chats: RecordedRequest[], question: string, numCtx: number): void {
  assert.ok(chats.length > 0);
  for (const [i, c] of chats.entries()) {
    assertWindow(api, c, numCtx, `request ${i + 1}`);
    assert.ok(c.promptTokens! <= numCtx, `request ${i + 1}: ${c.promptTokens} tokens for a ${numCtx} window`);
    assert.not.ok(c.truncated, `request ${i + 1} was truncated`);
    assert.ok(view(c).some((m) => m.role === 'user' && m.content === question), `request ${i + 1} lost the question`);
    assert.is(view(c)[0].role, 'system');
  }
}

function scenarios(test: Test, api: ModelApi): void {
  let f: FakeServer;
  test.before.each(async () => { f = await fakeServer(api).start(); });
  test.after.each(async () => { await f.stop(); });

  test('num_ctx is the model\'s context length capped by EVIDEX_NUM_CTX (default 8192), on every request', async () => {
    const cases: Array<[number | null, number | undefined, number]> = [[4096, undefined, 4096], [32768, undefined, 8192], [32768, 16384, 16384], [null, undefined, 8192], [131072, 6000, 6000]];
    for (const [ctxLen, cap, want] of cases) {
      f.models[0].contextLength = ctxLen;
      f.script({ chunks: [{ tool_calls: [call('find_symbol', { name: 'one' })] }] }, { chunks: [{ content: 'src/small.py:1-2' }] });
      const before = f.chats.length;
      const { result, events } = await askFake(f, 'where is one?', { runTool, stateDir: tempStateDir(), ...(cap ? { config: { numCtxCap: cap } } : {}) });
      assert.is(result.stopped, 'answered', result.message);
      for (const c of f.chats.slice(before)) assertWindow(api, c, want, `context_length ${ctxLen}, cap ${cap}`);
      assert.is(f.chats.length - before, 2);
      assert.is(result.numCtx, want);
      assert.equal(events.find((e) => e.type === 'model'), { type: 'model', numCtx: want, ...(ctxLen ? { contextLength: ctxLen } : {}) });
    }
  });

  test('a 4096 window and tools that return 200 long lines: every prompt fits, the question is in every request', async () => {
    const q = 'What are all the NEEDLE constants in src/long.py and their values?';
    f.script(
      { chunks: [{ tool_calls: [call('search_code', { query: 'NEEDLE', limit: 200 })] }] },
      { chunks: [{ tool_calls: [call('read_evidence', { path: 'src/long.py', start_line: 1, end_line: 200 })] }] },
      { chunks: [{ tool_calls: [call('search_code', { query: 'lorem', limit: 200 }), call('find_symbol', { name: 'NEEDLE_150' })] }] },
      { chunks: [{ tool_calls: [call('read_evidence', { path: 'src/long.py', start_line: 120, end_line: 200 })] }] },
      { chunks: [{ content: 'NEEDLE_001 is at src/long.py:1 and NEEDLE_150 at src/long.py:150.' }] },
    );
    const { result, events } = await askFake(f, q, { runTool, stateDir: tempStateDir() });
    assert.is(result.stopped, 'answered', result.message);
    assert.is(f.chats.length, 5);
    assertWithinWindow(api, f.chats, q, 4096);
    // The first result was sized, not dropped: some items with their text, the rest counted, with a way to get them.
    const first = JSON.parse(view(f.chats[1]).at(-1)!.content).untrusted_data;
    assert.is(first.total, 200);
    assert.ok(first.returned >= 1 && first.returned < 200, String(first.returned));
    assert.is(first.omitted, 200 - first.returned);
    assert.match(first.hint, /more match\(es\) not shown to fit the context window/);
    // read_evidence of 200 lines: the first lines that fit, and where to read on.
    const read = JSON.parse(view(f.chats[2]).at(-1)!.content).untrusted_data;
    assert.is(read.evidence.length, 1);
    assert.is(read.evidence[0].full_end_line, 200);
    // The tool's own cut (200 long lines are over 4,000 characters) said to read on further down; the window cut shows less, so only its hint counts.
    assert.is(read.evidence[0].next_start_line, undefined);
    assert.match(read.hint, `read_evidence start_line=${read.evidence[0].end_line + 1}`);
    // Room ran out: older results were reduced to their path:line lists, and the user was told.
    const later = view(f.chats[4]).filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content).untrusted_data);
    assert.ok(later.some((d: any) => d.summarised === true && Array.isArray(d.refs) && d.refs.some((r: string) => r.startsWith('src/long.py:1'))), JSON.stringify(later).slice(0, 500));
    assert.ok(events.some((e) => e.type === 'summarised'));
    const shown = events.filter((e): e is Extract<AskEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    assert.ok(shown[0].shown < shown[0].items);
    // What was shown is what backs citations, and it is checkable against the file.
    assertEvidenceChecks(root, result.evidence);
    assert.is(result.citations.find((c) => c.start_line === 1)?.backed, true);
    assert.is(result.contextCuts, 0);
    // evidex's estimate was never below what the fake counted.
    for (const t of result.turns) assert.ok(t.promptEvalCount! <= 4096);
  });

  test('the server cutting the prompt anyway (a denser tokenizer than estimated) is reported, and the estimate is corrected', async () => {
    // An OpenAI-compatible server that cuts rather than refuses: LM Studio (llama-server and vLLM answer 400, see ask-openai).
    if (api === 'openai') { await f.stop(); f = await fakeServer(api, { quirk: 'lmstudio' }).start(); }
    f.tokenScale = 2.2; // the model's tokenizer counts 2.2× the fake's default: evidex's first estimate is too low
    const q = 'where is one?';
    f.script(
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'one' })] }] },
      { chunks: [{ content: 'src/small.py:1-2' }] },
    );
    const { result, events } = await askFake(f, q, { runTool, stateDir: tempStateDir() });
    const cut = events.find((e) => e.type === 'context_cut');
    assert.ok(f.chats[0].truncated, 'the fake cut the first prompt');
    assert.equal(cut, { type: 'context_cut', step: 1, promptEvalCount: f.chats[0].keptTokens, numCtx: 4096 });
    assert.ok(result.contextCuts >= 1);
    // Corrected: nothing later is sent over the window (the question, system prompt and tools no longer fit: a clear stop).
    for (const c of f.chats.slice(1)) assert.not.ok(c.truncated);
    if (result.stopped === 'context_full') assert.match(result.message!, /window/);
  });

  test('a conversation carries earlier questions, answers and evidence into the next question, within the window', async () => {
    const conversation: Conversation = { turns: [] };
    const ask = (question: string) => runAsk({ question }, {
      clientId: 'chat', runTool, notify: () => {}, signal: new AbortController().signal, stateDir: tempStateDir(),
      config: { ...serverConfig(f), model: 'qwen3:8b', timeoutMs: 20_000 }, conversation,
    });
    f.script({ chunks: [{ tool_calls: [call('find_symbol', { name: 'one' })] }] }, { chunks: [{ content: 'one is at src/small.py:1-2.' }] });
    const a = await ask('where is one?');
    assert.is(a.stopped, 'answered');
    f.script({ chunks: [{ content: 'It returns 1 (src/small.py:2).' }] });
    const b = await ask('what does it return?');
    assert.is(b.stopped, 'answered');
    const msgs = view(f.chats.at(-1)!);
    assert.equal(msgs.slice(1, 3).map((m) => [m.role, m.content]), [['user', 'where is one?'], ['assistant', 'one is at src/small.py:1-2.']]);
    assert.match(msgs.at(-2)!.content, 'Evidence gathered for the earlier questions');
    assert.match(msgs.at(-2)!.content, 'def one():');
    assert.equal([msgs.at(-1)!.role, msgs.at(-1)!.content], ['user', 'what does it return?']);
    // The follow-up's citation is backed by the evidence carried over.
    assert.equal(b.citations.map((c) => [c.cite, c.backed]), [['src/small.py:2', true]]);
    assert.is(conversation.turns.length, 2);
    assertWithinWindow(api, f.chats.slice(-1), 'what does it return?', 4096);
  });
}

for (const api of APIS) {
  const test = suite(api);
  scenarios(test, api);
  if (api === APIS.at(-1)) test.after(async () => { await close(); rmSync(base, { recursive: true, force: true }); });
  test.run();
}
