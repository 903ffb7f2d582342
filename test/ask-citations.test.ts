// Citation parsing and checking: which `path:line` forms count, and when a
// citation is backed by the evidence gathered for the question.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCitations, parseCitations, seenSpan } from '../daemon/ask/citations.js';
import { runAsk } from '../daemon/ask/loop.js';
import { capSnippet, type Evidence } from '../indexer/evidence.js';
import { openIndex } from '../indexer/index.js';
import { FakeOllama, call } from './fake-ollama/server.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { tempDir } from './helpers/fs.js';

const ev = (path: string, start_line: number, end_line: number): Evidence =>
  ({ path, start_line, end_line, kind: 'source', name: path, snippet: '' });

test('forms that are citations, and look-alikes that are not', () => {
  const text = [
    'See src/a.py:12, `src/a.py:3-5`, src/a.py:L7-L9, ./src/b.py:2 and setup.py:1 and docs/x.md:4–6.',
    // A path without a line (src/c.py) is a reference too, since the answer names the file (checked: backed when shown).
    'Not: 127.0.0.1:8080, 12:30, http://localhost:11434, v1.2:3, e.g. and/or; a path without a line src/c.py.',
    'Again src/a.py:12 (duplicate) and src/a.py:9-7 (reversed).',
  ].join('\n');
  assert.equal(parseCitations(text).map((c) => (c.start_line === undefined ? c.path : `${c.path}:${c.start_line}-${c.end_line}`)), [
    'src/a.py:12-12', 'src/a.py:3-5', 'src/a.py:7-9', 'src/b.py:2-2', 'setup.py:1-1', 'docs/x.md:4-6', 'src/c.py', 'src/a.py:7-9',
  ].filter((v, i, a) => a.indexOf(v) === i));
});

test('backed only when every cited line lies in evidence for that path', () => {
  const evidence = [ev('src/a.py', 10, 20), ev('src/a.py', 21, 25), ev('src/b.py', 1, 1), ev('src/c.py', 40, 50)];
  const got = checkCitations(
    'src/a.py:10 src/a.py:15-25 src/a.py:20-26 src/b.py:1 src/b.py:2 src/c.py:39-41 src/d.py:1 a.py:10', evidence);
  assert.equal(got.map((c) => [c.cite, c.backed]), [
    ['src/a.py:10', true],
    ['src/a.py:15-25', true],   // spans two adjacent items
    ['src/a.py:20-26', false],  // line 26 was never shown
    ['src/b.py:1', true],
    ['src/b.py:2', false],
    ['src/c.py:39-41', false],
    ['src/d.py:1', false],
    ['a.py:10', false],         // a different path, even if a suffix matches
  ]);
  assert.equal(checkCitations('no citations here', evidence), []);
});

/** A truncated item as the index builds it: lines start..end of `lines`, snippet cut at 4,000 chars. */
function bigItem(path: string, lines: string[], start: number, end: number, kind: Evidence['kind'] = 'function'): Evidence {
  const { snippet, truncated } = capSnippet(lines.slice(start - 1, end).join('\n'));
  return { path, start_line: start, end_line: end, kind, name: 'big', snippet, ...(truncated ? { truncated } : {}) };
}

test('a truncated item backs only the lines its snippet holds (the cut line counts; nothing after it)', () => {
  // 451 lines of 30 chars ("    v_NNN = NNN  # ..." padded) + "\n": the 4,000-char prefix holds 129 whole lines and part of line 130.
  const lines = Array.from({ length: 451 }, (_, i) => `    v_${String(i + 1).padStart(3, '0')} = ${i + 1}`.padEnd(30, '.'));
  const item = bigItem('pkg/big.py', lines, 1, 451);
  assert.is(item.truncated, true);
  const newlines = item.snippet.split('\n').length - 1;
  assert.is(newlines, 129);
  assert.equal(seenSpan(item), [1, 130]);
  const got = checkCitations('pkg/big.py:1-3 pkg/big.py:130 pkg/big.py:131 pkg/big.py:400 pkg/big.py:1-451', [item]);
  assert.equal(got.map((c) => [c.cite, c.backed]), [
    ['pkg/big.py:1-3', true], ['pkg/big.py:130', true], ['pkg/big.py:131', false], ['pkg/big.py:400', false], ['pkg/big.py:1-451', false],
  ]);
  // The same span not truncated is seen whole; a later item can show the rest.
  assert.equal(seenSpan({ ...item, truncated: undefined, snippet: lines.join('\n') } as Evidence), [1, 451]);
  const rest = bigItem('pkg/big.py', lines, 131, 451);
  assert.is(checkCitations('pkg/big.py:129-140', [item, rest])[0].backed, true);
  // A prefix cut right after a "\n" shows nothing of the next line.
  assert.equal(seenSpan({ ...item, snippet: 'a\nb\n' }), [1, 2]);
  assert.equal(seenSpan({ ...item, start_line: 40, snippet: 'a' }), [40, 40]);
});

test('a truncated diff hunk backs only the new-file lines in its prefix', () => {
  const hunk = ['@@ -10,3 +10,400 @@ def f():', ' ctx', '-old', '+new 1', '+new 2', '', '+new'].join('\n');
  const item: Evidence = { path: 'a.py', start_line: 10, end_line: 409, kind: 'diff', name: 'a.py', snippet: hunk, truncated: true };
  // " ctx", "+new 1", "+new 2", "" (blank context), "+new" (cut): five new-file lines 10..14; "-old" is not one.
  assert.equal(seenSpan(item), [10, 14]);
  assert.equal(checkCitations('a.py:10-14 a.py:15', [item]).map((c) => c.backed), [true, false]);
});

// End to end: a real index over a file with a 451-line function, the real loop, the fake Ollama.
test('through the loop: citations are checked against what the model was shown, not the items\' spans', async () => {
  const base = tempDir('cite');
  const root = join(base, 'repo');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  const body = Array.from({ length: 450 }, (_, i) => `    v_${String(i + 1).padStart(3, '0')} = ${i + 1}  # padding padding padding`);
  writeFileSync(join(root, 'pkg', 'big.py'), ['def big():', ...body, ''].join('\n'));
  writeFileSync(join(root, 'pkg', 'small.py'), ['def one():', '    return 1', '', 'def two():', '    return 2', ''].join('\n'));
  const handle = await openIndex(root, { stateDir: join(base, 'state') });
  const f = await new FakeOllama().start();
  try {
    await handle.refresh();
    const runTool = async (name: unknown, args: unknown) => handle.runTool(name, args);
    const direct = await runTool('find_symbol', { name: 'big' });
    assert.is(direct.evidence.length, 1);
    const item = direct.evidence[0];
    assertEvidenceChecks(root, direct.evidence);
    assert.equal([item.start_line, item.end_line, item.truncated], [1, 451, true]);
    // A 4096-token window (the fake's default context length) cannot hold the whole 4,000-character
    // item beside the tool list: the envelope sends its first lines that fit, as an item of its own.
    f.script(
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'big' }), call('search_code', { query: 'return', path_prefix: 'pkg/small' })] }] },
      { chunks: [{ content: 'ANSWER' }] },
    );
    const first = await runAsk({ question: 'what does big do?' }, {
      clientId: 't', runTool, notify: () => {}, signal: new AbortController().signal, stateDir: join(base, 'ask'),
      config: { host: f.url, model: 'qwen3:8b', timeoutMs: 20_000 },
    });
    assert.is(first.stopped, 'answered', first.message);
    const msgs = f.chats[1].body.messages;
    const bigSent = JSON.parse(msgs.at(-2).content).untrusted_data;
    const smallSent = JSON.parse(msgs.at(-1).content).untrusted_data;
    const cut = bigSent.evidence[0];
    assert.equal([cut.start_line, cut.full_end_line], [1, 451]);
    assert.ok(cut.end_line > 3 && cut.end_line < 451, String(cut.end_line));
    assert.is(cut.truncated, undefined);
    assert.match(bigSent.hint, `read_evidence start_line=${cut.end_line + 1}`);
    assertEvidenceChecks(root, first.evidence);
    assert.equal(first.evidence[0], cut);
    // Citations: backed exactly when the line was sent with its text.
    f.script(
      { chunks: [{ tool_calls: [call('find_symbol', { name: 'big' }), call('search_code', { query: 'return', path_prefix: 'pkg/small' })] }] },
      { chunks: [{ content: `big at pkg/big.py:1-3, pkg/big.py:${cut.end_line}, pkg/big.py:${cut.end_line + 1}, pkg/big.py:451; small at pkg/small.py:2 and pkg/small.py:5.` }] },
    );
    const result = await runAsk({ question: 'what does big do?' }, {
      clientId: 't', runTool, notify: () => {}, signal: new AbortController().signal, stateDir: join(base, 'ask'),
      config: { host: f.url, model: 'qwen3:8b', timeoutMs: 20_000 },
    });
    const smallLines = new Set(smallSent.evidence.map((e: Evidence) => e.start_line));
    assert.equal(result.citations.map((c) => [c.cite, c.backed]), [
      ['pkg/big.py:1-3', true],
      [`pkg/big.py:${cut.end_line}`, true],
      [`pkg/big.py:${cut.end_line + 1}`, false],  // inside the item's span, never sent
      ['pkg/big.py:451', false],
      ['pkg/small.py:2', smallLines.has(2)],
      ['pkg/small.py:5', smallLines.has(5)],
    ]);
  } finally {
    await f.stop();
    await handle.close();
    rmSync(base, { recursive: true, force: true });
  }
});

test.run();
