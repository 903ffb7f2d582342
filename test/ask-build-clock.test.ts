// A question's wall-clock limit counts the question's own time, not the
// index's first build: a call that waits for the build does so with the
// clock stopped (Question.unclocked), so the first question on a large tree
// is not stopped at the limit before the model has seen one answer. A cancel
// still ends the wait at once. The real loop over the fixture's real index,
// with the model scripted in-process (helpers/scripted-model.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAsk } from '../daemon/ask/loop.js';
import type { ChatModel } from '../daemon/ask/model.js';
import type { AskEvent, AskResult } from '../protocol/ask-events.js';
import { openFixtureIndex, tempStateDir, type FixtureIndex } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { ScriptedModel } from './helpers/scripted-model.js';

let ix: FixtureIndex;
test.before(async () => { ix = await openFixtureIndex(); });
test.after(async () => { await ix.close(); });

const LIMIT_MS = 2000;

function ask(firstBuild: () => Promise<unknown> | null, signal: AbortSignal, onEvent: (e: AskEvent) => void): Promise<AskResult> {
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'c1', name: 'find_importers', arguments: { module_name: 'rag_common' } }] },
    { content: ['Imported at src/build_index.py:4.'] },
  ], { contextLength: 8192 });
  return runAsk({ question: 'who imports rag_common?' }, {
    clientId: 'build-clock', runTool: ix.runTool, firstBuild, stateDir: tempStateDir(), notify: onEvent, signal,
    config: { host: 'http://127.0.0.1:9', model: 'scripted', maxSteps: 4, timeoutMs: LIMIT_MS },
    openModel: (): ChatModel => model,
  });
}

test('a call that waits for the first build past the whole limit is answered: the wait is off the clock', async () => {
  let release!: () => void;
  const build = new Promise<void>((r) => { release = r; });
  let waiting = false;
  const asked = ask(() => build, new AbortController().signal, (e) => {
    // The build ends only once the limit has passed while the call waited for it.
    if (e.type === 'tool_running' && !waiting) { waiting = true; setTimeout(release, LIMIT_MS + 500); }
  });
  const result = await asked;
  assert.ok(waiting, 'the call waited for the build');
  assert.is(result.stopped, 'answered', result.message);
  assert.equal(result.citations.map((c) => [c.cite, c.backed]), [['src/build_index.py:4', true]]);
  assertEvidenceChecks(ix.root, result.evidence);
});

test('a cancel while a call waits for the first build ends the question at once, as cancelled', async () => {
  const never = new Promise<void>(() => {});
  const ac = new AbortController();
  const result = await ask(() => never, ac.signal, (e) => { if (e.type === 'tool_running') ac.abort(); });
  assert.equal([result.stopped, result.message], ['cancelled', 'cancelled by the client']);
});

test('no build running: the call is answered at once, the clock as it was', async () => {
  const result = await ask(() => null, new AbortController().signal, () => {});
  assert.is(result.stopped, 'answered', result.message);
});

test.run();
