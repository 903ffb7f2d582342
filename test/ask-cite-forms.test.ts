// Answers that name code: every form real models write a reference to a file
// in, checked by the real loop against what the model was shown, in two
// flask-like trees — one where the named file exists (and was read), one
// where it does not exist at all (issue 26's `src/rag_common.py at line 12`);
// an answer that names code and cites nothing after tools ran ("cites no
// evidence", exit 5); a path with a control character matched and shown
// escaped; and what a person reads after the answer: the first cited line
// beside each citation, a long evidence list counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runAsk } from '../daemon/ask/loop.js';
import type { ChatModel } from '../daemon/ask/model.js';
import { citesNoEvidence, parseCitations } from '../daemon/ask/citations.js';
import type { IndexHandle } from '../indexer/api.js';
import { openIndex } from '../indexer/index.js';
import { Screen } from '../local/human.js';
import type { AskResult } from '../protocol/ask-events.js';
import { exitCodeFor, renderSummary } from '../client/ask.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';
import { ScriptedModel, type ScriptedTurn } from './helpers/scripted-model.js';

const tmp = tempDir('cite-forms');
const FLASK = {
  'src/flask/__init__.py': 'from .app import Flask\n',
  'src/flask/app.py': 'class Flask:\n    def route(self, rule):\n        return rule\n',
  'README.md': '# flask-like\n',
};
const RAG = ['"""Shared settings."""', 'import os', '', '', 'def env(name):', '    return os.environ.get(name)', '', '', '# The collection every script reads.',
  '# Set once here.', '', 'COLLECTION_NAME = "mobileai_docs"', 'TOP_K = 5', 'MODEL = env("MODEL")', ''].join('\n');
const WEIRD = 'src/we\x1bird.py';
const withFile = join(tmp, 'with-file');
const withoutFile = join(tmp, 'without-file');
write(withFile, { ...FLASK, 'src/rag_common.py': RAG, [WEIRD]: 'ODD = 1\n' });
write(withoutFile, FLASK);

const handles = new Map<string, IndexHandle>();
async function handleFor(root: string): Promise<IndexHandle> {
  let h = handles.get(root);
  if (!h) { h = await openIndex(root, { stateDir: join(tmp, `state-${handles.size}`) }); await h.refresh(); handles.set(root, h); }
  return h;
}

async function ask(root: string, ...turns: ScriptedTurn[]): Promise<AskResult> {
  const h = await handleFor(root);
  const result = await runAsk({ question: 'where is COLLECTION_NAME defined?' }, {
    clientId: 'cite-forms', runTool: async (name, args) => h.runTool(name, args), stateDir: tempDir('cite-forms-ask'),
    notify: () => {}, signal: new AbortController().signal,
    config: { host: 'http://127.0.0.1:9', model: 'scripted', maxSteps: 8, timeoutMs: 20_000 },
    openModel: (): ChatModel => new ScriptedModel(turns, { contextLength: 32768 }),
  });
  assertEvidenceChecks(root, result.evidence);
  return result;
}

const READ_RAG: ScriptedTurn = { toolCalls: [{ name: 'read_evidence', arguments: { path: 'src/rag_common.py', start_line: 10, end_line: 14 } }] };
/** Issue 26's session: a refused call, then a find_symbol that finds nothing. */
const MISS: ScriptedTurn[] = [
  { toolCalls: [{ name: 'search_code', arguments: { query: 5 } }] },
  { toolCalls: [{ name: 'find_symbol', arguments: { name: 'COLLECTION_NAME' } }] },
];

/** Each form real models write, citing line 12 (and 12-13 for ranges) of src/rag_common.py. */
const FORMS: Array<[string, string]> = [
  ['COLLECTION_NAME is defined at src/rag_common.py:12.', 'src/rag_common.py:12'],
  ['It is set in `src/rag_common.py:12-13`.', 'src/rag_common.py:12-13'],
  ['COLLECTION_NAME is defined in src/rag_common.py at line 12.', 'src/rag_common.py at line 12'],
  ['See src/rag_common.py (line 12).', 'src/rag_common.py (line 12)'],
  ['See src/rag_common.py, lines 12–13, for both settings.', 'src/rag_common.py, lines 12–13'],
  ['Lines 12–13 of src/rag_common.py set it.', 'Lines 12–13 of src/rag_common.py'],
  ['It is on line 12 in `src/rag_common.py`.', 'line 12 in src/rag_common.py'],
  ['The setting lives in `src/rag_common.py`.', 'src/rag_common.py'],
  ['The setting lives in src/rag_common.py.', 'src/rag_common.py'],
];

test('every form, in a tree where the file exists and was read: backed, exit 0; a line that was not shown: not backed, exit 4', async () => {
  for (const [answer, cite] of FORMS) {
    const r = await ask(withFile, READ_RAG, { content: [answer] });
    assert.is(r.stopped, 'answered', r.message);
    assert.equal(r.citations.map((c) => [c.cite, c.path, c.backed]), [[cite, 'src/rag_common.py', true]], answer);
    assert.is(exitCodeFor(r), 0, answer);
  }
  const past = await ask(withFile, READ_RAG, { content: ['Also at src/rag_common.py at line 40 and lines 2-3 of src/rag_common.py.'] });
  assert.equal(past.citations.map((c) => [c.start_line, c.backed]), [[40, false], [2, false]]);
  assert.is(exitCodeFor(past), 4);
});

test('every form, in a tree where the file does not exist (after a refused call and an empty find_symbol): not backed, exit 4', async () => {
  for (const [answer, cite] of FORMS) {
    const r = await ask(withoutFile, ...MISS, { content: [answer] });
    assert.is(r.stopped, 'answered', r.message);
    assert.equal(r.evidence, []);
    assert.equal(r.citations.map((c) => [c.cite, c.backed]), [[cite, false]], answer);
    assert.is(r.uncited, undefined);
    assert.is(exitCodeFor(r), 4, answer);
  }
});

test('an answer that names code and cites nothing while tools ran: "cites no evidence", exit 5; saying nothing was found, or no tools, is not', async () => {
  const uncited = await ask(withoutFile, ...MISS, { content: ['`COLLECTION_NAME` is set to "mobileai_docs" in the rag_common module.'] });
  assert.equal([uncited.citations, uncited.uncited, exitCodeFor(uncited)], [[], true, 5]);
  const honest = await ask(withoutFile, ...MISS, { content: ['I could not find COLLECTION_NAME anywhere in this repository.'] });
  assert.equal([honest.uncited, exitCodeFor(honest)], [undefined, 0]);
  const chat = await ask(withoutFile, { content: ['Hello! Ask me about `Flask.route`.'] });
  assert.equal([chat.uncited, exitCodeFor(chat)], [undefined, 0]);
  // The rule itself, on prose without tools run and with them.
  assert.is(citesNoEvidence('The Flask class defines route().', [], true), true);
  assert.is(citesNoEvidence('The app has a class that defines routes.', [], true), false);
  assert.is(citesNoEvidence('Flask.route is defined here.', [], false), false);
  assert.is(citesNoEvidence('No definitions named COLLECTION_NAME were found.', [], true), false);
});

test('look-alikes are no paths: URLs, versions, addresses, e.g., Node.js, a dotted name "at line N"', () => {
  const text = 'See https://github.com/pallets/flask/blob/main/src/flask/app.py#L12, v1.2:3, 127.0.0.1:8080, e.g. and/or Node.js; '
    + 'Scaffold.route at line 335 and flask.app (line 9).';
  assert.equal(parseCitations(text), []);
});

test('a path with a control character is matched (as an evidence path and by its shape), backed, and shown escaped', async () => {
  const r = await ask(withFile, { toolCalls: [{ name: 'read_evidence', arguments: { path: WEIRD, start_line: 1 } }] },
    { content: [`ODD is set at ${WEIRD}:1, as ${WEIRD} shows.`] });
  assert.equal(r.citations.map((c) => [c.path, c.start_line, c.backed]), [[WEIRD, 1, true]]);
  assert.equal(parseCitations(`in ${WEIRD} at line 1`).map((c) => c.path), [WEIRD]);
  const shown = summaryOf(r);
  assert.ok(shown.includes('✔ src/we\\x1bird.py:1  ODD = 1'), shown);
  assert.not.ok(shown.includes('\x1b'), 'no raw ESC reaches the screen');
});

/** What `evidex ask` writes after the answer, as a pipe receives it. */
function summaryOf(r: AskResult, opts: Parameters<typeof renderSummary>[2] = {}): string {
  let out = '';
  const sink = new Writable({ write(chunk, _enc, done) { out += String(chunk); done(); } });
  renderSummary(r, new Screen(sink, { colour: false }), opts);
  return out;
}

test('after the answer: each citation with the first line it cites, a ✘ saying why, and a long evidence list counted (all of it with --evidence)', async () => {
  const many: ScriptedTurn = { toolCalls: [{ name: 'search_code', arguments: { query: 'e', limit: 30 } }] };
  const r = await ask(withFile, READ_RAG, many, { content: ['COLLECTION_NAME is set at src/rag_common.py:12 (not src/rag_common.py:40), see README.md.'] });
  assert.ok(r.evidence.length > 6, `${r.evidence.length} items`);
  const shown = summaryOf(r, { listHint: '`evidex ask --evidence` lists them' });
  const lines = shown.trim().split('\n');
  assert.ok(lines.includes('  ✔ src/rag_common.py:12  COLLECTION_NAME = "mobileai_docs"'), shown);
  assert.ok(lines.includes('  ✘ src/rag_common.py:40  (not in the evidence gathered for this question)'), shown);
  assert.ok(lines.some((l) => /^ {2}✔ README\.md {2}\(named without a line\)$/.test(l)), shown);
  assert.ok(lines.includes(`evidence: ${r.evidence.length} items (\`evidex ask --evidence\` lists them)`), shown);
  assert.ok(lines.length <= 10, `${lines.length} lines after the answer`);
  const all = summaryOf(r, { all: true });
  assert.ok(all.includes(`evidence (${r.evidence.length}):`), all);
  assert.is(all.trim().split('\n').filter((l) => /^ {2}\S+:\d+(-\d+)? {2}/.test(l) && !/[✔✘]/.test(l)).length, r.evidence.length);
});

test.after(async () => { for (const h of handles.values()) await h.close(); cleanupTemp(); });
test.run();
