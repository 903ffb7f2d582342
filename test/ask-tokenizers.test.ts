// The context budget against real tokenizers: the fake OpenAI-compatible
// server counts every prompt as a server running qwen3, llama3.1 or gemma3
// would (the family's chat template, helpers/chat-templates.ts, encoded by
// its real tokenizer, helpers/tokenizers.ts), and reports that count in
// usage.prompt_tokens, so the loop's fitting is exercised against real
// counts. It plays vLLM, the strictest of the servers: a prompt that leaves
// less than max_tokens of the window is refused with HTTP 400.
//
// On code nobody here wrote (a copy of python3's own email, json, logging and
// http packages), a model that asks for 200 search results twice — far more
// than any of these windows holds — must get, for each family and a window of
// 4096 and 8192: every prompt within the window with the reply's reserve
// free, the question in every prompt, and tool results filling at least 70%
// of the room the prompt had left for them.
//
// It also prints the table of docs/ask.md: evidex's estimate before any count
// against the real count, piece by piece.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ContextBudget, replyReserve } from '../daemon/ask/budget.js';
import { wireMessage } from '../daemon/ask/openai/model.js';
import { evidenceEnvelope, modelTools, SYSTEM_PROMPT } from '../daemon/ask/prompt.js';
import type { ChatMessage } from '../daemon/ask/model.js';
import { openIndex } from '../indexer/index.js';
import { call } from './fake-ollama/server.js';
import { askFake, tempStateDir } from './fake-ollama/harness.js';
import { FakeOpenAI } from './fake-openai/server.js';
import { FAMILIES, renderPrompt, type Family, type WireMessage } from './helpers/chat-templates.js';
import { stdlibRoot } from './helpers/corpus.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { tempDir } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';
import { countText, promptCounter, tokenizerOf } from './helpers/tokenizers.js';

const WINDOWS = [4096, 8192] as const;
const PACKAGES = ['email', 'json', 'logging', 'http'];
const QUESTION = 'Where does this code return early and where does it raise errors?';
/** The share of the room left that tool results must fill. */
const MIN_FILL = 0.7;

const test = suite('real tokenizers');
const register = testUnless(lacks.python3(), test);

let base = '';
let root = '';
let handle: Awaited<ReturnType<typeof openIndex>> | undefined;

test.before(async () => {
  if (lacks.python3()) return;
  base = tempDir('tokenizers');
  root = join(base, 'repo');
  mkdirSync(root, { recursive: true });
  for (const p of PACKAGES) cpSync(join(stdlibRoot(), p), join(root, p), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  handle = await openIndex(root, { stateDir: join(base, 'state') });
  await handle.refresh();
});

test.after(async () => {
  await handle?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

const runTool = async (name: unknown, args: unknown) => handle!.runTool(name, args);

/** The request's prompt counted again with every tool result emptied: what the prompt costs without its evidence. */
function withoutEvidence(messages: WireMessage[]): WireMessage[] {
  return messages.map((m) => (m.role === 'tool' ? { ...m, content: '' } : m));
}

for (const family of FAMILIES) {
  for (const window of WINDOWS) {
    register(`${family}, a ${window}-token window, 200 search results twice: every prompt fits, the question is in each, results fill ≥70% of the room`, async () => {
      const count = await promptCounter(family);
      const f = await new FakeOpenAI({ quirk: 'vllm', counter: count, models: [{ name: 'm', capabilities: ['completion', 'tools'], contextLength: window }] }).start();
      try {
        f.script(
          { chunks: [{ tool_calls: [call('search_code', { query: 'return', limit: 200 })] }] },
          { chunks: [{ tool_calls: [call('search_code', { query: 'raise', limit: 200 })] }] },
          { chunks: [{ content: 'Both are everywhere; see the results above.' }] },
        );
        const { result } = await askFake(f, QUESTION, { runTool, stateDir: tempStateDir(), model: 'm', config: { timeoutMs: 300_000 } });
        assert.is(result.stopped, 'answered', result.message);
        assert.is(result.numCtx, window);
        assert.is(f.chats.length, 3);
        const limit = window - replyReserve(window);
        const fills: string[] = [];
        for (const [i, c] of f.chats.entries()) {
          const msgs = c.body.messages as WireMessage[];
          assert.is(c.body.max_tokens, replyReserve(window));
          assert.ok(c.promptTokens! <= limit, `${family} ${window}, request ${i + 1}: ${c.promptTokens} tokens, more than ${limit} (the window less the reply's reserve)`);
          assert.ok(msgs.some((m) => m.role === 'user' && m.content === QUESTION), `request ${i + 1} lost the question`);
          assert.is(msgs[0].role, 'system');
          if (!msgs.some((m) => m.role === 'tool')) continue;
          const bare = count(withoutEvidence(msgs), c.body.tools);
          const evidence = c.promptTokens! - bare;
          const fill = evidence / (limit - bare);
          fills.push(`${Math.round(fill * 100)}%`);
          assert.ok(fill >= MIN_FILL, `${family} ${window}, request ${i + 1}: tool results ${evidence} tokens of the ${limit - bare} left (${Math.round(fill * 100)}%)`);
        }
        // Every result was sized, not dropped: items shown, the rest counted with a way to reach them.
        const firstResult = JSON.parse((f.chats[1].body.messages as WireMessage[]).at(-1)!.content!).untrusted_data;
        assert.ok(firstResult.returned > 0 && firstResult.returned < firstResult.total, JSON.stringify(firstResult).slice(0, 300));
        assert.match(firstResult.hint, /not shown to fit the context window/);
        assertEvidenceChecks(root, result.evidence);
        // Fitted to the server's counts, down as well as up: the last prompt's estimate is never below its real count, and at most
        // the margins above it (the first, before any count, was up to 1.5 times it).
        const last = result.turns.at(-1)!;
        assert.ok(last.estimate >= last.promptEvalCount! && last.estimate <= 1.15 * last.promptEvalCount!, `${family} ${window}: last estimate ${last.estimate}, counted ${last.promptEvalCount}`);
        const turns = result.turns.map((t) => `${t.estimate}/${t.promptEvalCount}`).join(', ');
        console.log(`  ${family} ${window}: estimate/real per turn ${turns}; results filled ${fills.join(', ')} of the room left`);
      } finally {
        await f.stop();
      }
    });
  }
}

register('the table of docs/ask.md: the estimate before any count against the real count, per family', async () => {
  const tools = modelTools();
  const b = new ContextBudget(8192, tools);
  const r = await handle!.runTool('search_code', { query: 'def __init__', limit: 20 });
  assert.ok(r.evidence.length > 0);
  const env = evidenceEnvelope('search_code', { query: 'def __init__' }, r.evidence, r.total, r.generation, 1e9, (t) => b.text(t)).content;
  const messages: ChatMessage[] = [
    { role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: QUESTION },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search_code', arguments: { query: 'def __init__' } }] },
    { role: 'tool', content: env, toolName: 'search_code', callId: 'call_1' },
  ];
  const wire = messages.map(wireMessage) as WireMessage[];
  const estimate = {
    system: b.prompt(messages.slice(0, 1)) - b.prompt([]), tools: b.prompt([]), envelope: b.text(env), whole: b.prompt(messages),
  };
  const real: Record<Family, typeof estimate> = {} as Record<Family, typeof estimate>;
  for (const family of FAMILIES) {
    const t = await tokenizerOf(family);
    const opening = wire.slice(0, 2);
    real[family] = {
      system: countText(t, SYSTEM_PROMPT),
      tools: countText(t, renderPrompt(family, opening, tools)) - countText(t, renderPrompt(family, opening, undefined)),
      envelope: countText(t, env),
      whole: countText(t, renderPrompt(family, wire, tools)),
    };
    // The estimate before any count errs high on the whole prompt for every family: the first prompt never overflows.
    assert.ok(estimate.whole >= real[family].whole, `${family}: whole prompt estimated ${estimate.whole}, counted ${real[family].whole}`);
  }
  const rows: Array<[string, keyof typeof estimate]> = [
    ['system prompt', 'system'], ['the five tool schemas, as the template renders them', 'tools'],
    [`search_code "def __init__" envelope (${r.evidence.length} results)`, 'envelope'], ['a whole prompt (system, question, call, that envelope)', 'whole'],
  ];
  console.log(`  | piece | evidex estimate | ${FAMILIES.join(' | ')} |\n  |---|---|${FAMILIES.map(() => '---').join('|')}|`);
  for (const [name, k] of rows) console.log(`  | ${name} | ${estimate[k]} | ${FAMILIES.map((fam) => real[fam][k]).join(' | ')} |`);
});

test.run();
