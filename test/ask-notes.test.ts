// An answer's notes reach the model (docs/ask.md): the fake model asks
// find_symbol for a name the fixture's package only re-exports, and its next
// request holds the note, inside the data envelope, with the call it names as
// a tool call; the model makes that call and gets the definition. Notes take
// room like the rest: in a small room they give way, the envelope stays
// within it.
import * as assert from 'uvu/assert';
import { evidenceEnvelope } from '../daemon/ask/prompt.js';
import { call } from './fake-ollama/server.js';
import { apiSuite, askFake, tempStateDir } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { view } from './helpers/model-servers.js';

const test = apiSuite('ollama');
const NAME = 'mobileai_rag.retrieval.VectorStore';

test('a note and its call go to the model as data; the model makes the call and gets the definition', async ({ ix, f }) => {
  const direct = await ix.handle.runTool('find_symbol', { name: NAME });
  assert.is(direct.total, 0);
  assert.is(direct.notes?.length, 1);
  const calls = direct.note_calls ?? [];
  assert.equal(calls.map((c) => [c.name, c.arguments]), [['find_symbol', { name: 'mobileai_rag.retrieval.store.VectorStore' }]]);
  f.script(
    { chunks: [{ tool_calls: [call('find_symbol', { name: NAME })] }] },
    { chunks: [{ tool_calls: [call('find_symbol', { name: 'mobileai_rag.retrieval.store.VectorStore' })] }] },
    { chunks: [{ content: 'VectorStore is defined at src/mobileai_rag/retrieval/store.py:9.' }] },
  );
  const { result } = await askFake(f, 'Where is VectorStore defined?', { runTool: ix.runTool, stateDir: tempStateDir() });
  assert.is(result.stopped, 'answered');
  const first = JSON.parse(view(f.chats[1]).at(-1)!.content);
  // Inside the envelope the model is told is data, as the index gave it.
  assert.equal(first.untrusted_data.notes, direct.notes);
  assert.match(first.untrusted_data.notes[0], /re-exported by src\/mobileai_rag\/retrieval\/__init__\.py:2 \(`from \.store import VectorStore`\)/);
  assert.equal(first.untrusted_data.note_calls, [{ note: 0, name: 'find_symbol', arguments: { name: 'mobileai_rag.retrieval.store.VectorStore' } }]);
  assert.match(first.untrusted_data.hint, /note_calls are the calls they name/);
  const second = JSON.parse(view(f.chats[2]).at(-1)!.content).untrusted_data;
  assert.equal(second.evidence.map((e: { path: string; start_line: number }) => `${e.path}:${e.start_line}`), ['src/mobileai_rag/retrieval/store.py:9']);
  assertEvidenceChecks(ix.root, result.evidence);
  assert.equal(result.citations.map((c) => [c.cite, c.backed]), [['src/mobileai_rag/retrieval/store.py:9', true]]);
});

test('notes count in the room: left out when they do not fit, and the envelope stays within it', async ({ ix }) => {
  const r = await ix.handle.runTool('find_symbol', { name: NAME });
  const cost = (t: string): number => Math.ceil(t.length / 4);
  const wide = evidenceEnvelope('find_symbol', { name: NAME }, r.evidence, r.total, r.generation, 2000, cost, r);
  assert.equal(JSON.parse(wide.content).untrusted_data.notes, r.notes);
  assert.ok(cost(wide.content) <= 2000);
  // Notes have at most half the room: at just under twice theirs they give way, and the rest of the envelope fits.
  const room = 2 * cost(JSON.stringify({ notes: r.notes, note_calls: r.note_calls!.map((c) => ({ note: c.note, name: c.name, arguments: c.arguments })) })) - 1;
  const narrow = evidenceEnvelope('find_symbol', { name: NAME }, r.evidence, r.total, r.generation, room, cost, r);
  assert.is(JSON.parse(narrow.content).untrusted_data.notes, undefined);
  assert.ok(cost(narrow.content) <= room, `${cost(narrow.content)} tokens in a room of ${room}`);
});

test.run();
