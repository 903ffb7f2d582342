// Citation parsing and checking: which `path:line` forms count, and when a
// citation is backed by the evidence gathered for the question.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkCitations, parseCitations } from '../daemon/ask/citations.js';
import type { Evidence } from '../indexer/evidence.js';

const ev = (path: string, start_line: number, end_line: number): Evidence =>
  ({ path, start_line, end_line, kind: 'source', name: path, snippet: '' });

test('forms that are citations, and look-alikes that are not', () => {
  const text = [
    'See src/a.py:12, `src/a.py:3-5`, src/a.py:L7-L9, ./src/b.py:2 and setup.py:1 and docs/x.md:4–6.',
    'Not: 127.0.0.1:8080, 12:30, http://localhost:11434, v1.2:3, a path without a line src/c.py.',
    'Again src/a.py:12 (duplicate) and src/a.py:9-7 (reversed).',
  ].join('\n');
  assert.equal(parseCitations(text).map((c) => `${c.path}:${c.start_line}-${c.end_line}`), [
    'src/a.py:12-12', 'src/a.py:3-5', 'src/a.py:7-9', 'src/b.py:2-2', 'setup.py:1-1', 'docs/x.md:4-6', 'src/a.py:7-9',
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

test.run();
