// How the paths an answer writes are taken to repository paths, end to end
// through the loop over the fixture's real index (a fake Ollama plays the
// model): a Markdown link is one citation (its target), a file name that is
// no file of the repository but ends one evidence path is that path, an
// absolute path under the root is the repository path, and an unbacked
// citation carries why: lines not shown, a file never shown, no such file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeOllama, call } from './fake-ollama/server.js';
import { askFake, openFixtureIndex, type FixtureIndex } from './fake-ollama/harness.js';
import { FIXTURE } from './helpers/fs.js';
import { citationLines } from '../client/citations-view.js';
import { indexedVia } from '../daemon/ask/citations.js';

let ix: FixtureIndex;
test.before(async () => { ix = await openFixtureIndex(); });
test.after(async () => { await ix.close(); });

async function answerAfterRead(answer: string) {
  const f = await new FakeOllama([{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }]).start();
  try {
    f.script(
      { chunks: [{ tool_calls: [call('read_evidence', { path: 'src/rag_common.py', start_line: 10, end_line: 14 })] }] },
      { chunks: [{ content: answer }] },
    );
    return (await askFake(f, 'where is COLLECTION_NAME set?', { runTool: ix.runTool, stateDir: ix.stateDir, root: FIXTURE, indexed: indexedVia(ix.runTool) })).result;
  } finally { await f.stop(); }
}

const brief = (cs: Array<{ cite: string; path: string; start_line?: number; backed: boolean; reason?: string }>) =>
  cs.map((c) => [c.cite, c.path, c.start_line, c.backed, c.reason]);

test('a Markdown link is one citation (its target), not a spurious ✘ for its text', async () => {
  const r = await answerAfterRead('`COLLECTION_NAME` is set in [rag_common.py](src/rag_common.py#L12).');
  assert.equal(brief(r.citations), [['src/rag_common.py#L12', 'src/rag_common.py', 12, true, undefined]]);
  const r2 = await answerAfterRead('`COLLECTION_NAME` is set in [src/rag_common.py:12](https://example.com/x).');
  assert.equal(brief(r2.citations), [['src/rag_common.py:12', 'src/rag_common.py', 12, true, undefined]]);
});

test('a file name that ends one evidence path (and is no file at the root) is that path', async () => {
  const r = await answerAfterRead('`COLLECTION_NAME` is set at rag_common.py:12.');
  assert.equal(brief(r.citations), [['rag_common.py:12', 'src/rag_common.py', 12, true, undefined]]);
  assert.not.ok(r.uncited);
});

test('an absolute path under the root cites the repository path', async () => {
  const r = await answerAfterRead(`\`COLLECTION_NAME\` is set at ${FIXTURE}/src/rag_common.py:12.`);
  assert.equal(brief(r.citations).map((c) => c.slice(1)), [['src/rag_common.py', 12, true, undefined]]);
  assert.not.ok(r.uncited);
});

test('each unbacked citation says why: lines not shown, a file never shown, no such file', async () => {
  const r = await answerAfterRead('See src/rag_common.py:40, tests/test_common.py:1, src/nope.py:3, /etc/hosts.py:1 and scoring_x.py:2.');
  assert.equal(brief(r.citations), [
    ['src/rag_common.py:40', 'src/rag_common.py', 40, false, 'lines_not_shown'],
    ['tests/test_common.py:1', 'tests/test_common.py', 1, false, 'file_not_shown'],
    ['src/nope.py:3', 'src/nope.py', 3, false, 'no_such_file'],
    ['/etc/hosts.py:1', '/etc/hosts.py', 1, false, 'no_such_file'],
    ['scoring_x.py:2', 'scoring_x.py', 2, false, 'no_such_file'],
  ]);
  const shown = citationLines(r).map(String).join('\n');
  assert.match(shown, '✘ src/nope.py:3  (no such file in the repository');
  assert.match(shown, '✘ /etc/hosts.py:1  (a path outside the repository)');
  assert.match(shown, '✘ scoring_x.py:2  (no such file in the repository');
  assert.match(shown, 'name the path from the repository');
  assert.match(shown, '✘ tests/test_common.py:1  (not in the evidence gathered for this question)');
});

test.run();
