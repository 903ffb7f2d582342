// The checkable-evidence property (docs/tools.md, Evidence), asserted over every answer a
// test sees: open `path`, take lines start..end, compare with the snippet.
// Deliberately re-implements line splitting from the words of docs/tools.md instead of
// importing indexer/text.ts, so a bug there cannot hide itself here.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as assert from 'uvu/assert';

interface EvidenceLike {
  path: string; start_line: number; end_line: number; kind: string; name: string; snippet: string; truncated?: boolean;
  excerpt?: { column: number; text: string };
  next_start_line?: number;
}

const KINDS = new Set(['path_match', 'content_match', 'class', 'function', 'method', 'variable', 'interface', 'type', 'enum', 'namespace', 'import', 'source', 'diff']);

function documentedLines(bytes: Buffer): string[] {
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  const parts = text.split('\n');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Asserts the six required fields and, except for `diff`, that the snippet is
 * exactly the file's lines; an excerpt (a search hit past a cut snippet) is
 * exactly its line's text from its column on, and only where the snippet was cut.
 */
export function assertEvidenceChecks(root: string, items: readonly EvidenceLike[]): void {
  for (const e of items) {
    const where = `${e.path}:${e.start_line}-${e.end_line} (${e.kind})`;
    assert.type(e.path, 'string', where);
    assert.ok(!isAbsolute(e.path) && !e.path.split('/').some((s) => s === '..' || s === '.' || s === ''), `path not a clean relative POSIX path: ${where}`);
    assert.ok(Number.isInteger(e.start_line) && e.start_line >= 1, `start_line: ${where}`);
    assert.ok(Number.isInteger(e.end_line) && e.end_line >= e.start_line, `end_line: ${where}`);
    assert.ok(KINDS.has(e.kind), `kind: ${where}`);
    assert.type(e.name, 'string', where);
    assert.type(e.snippet, 'string', where);
    if (e.kind === 'diff') continue;
    const lines = documentedLines(readFileSync(join(root, e.path)));
    assert.ok(e.end_line <= lines.length, `end_line past end of file: ${where}`);
    const expected = lines.slice(e.start_line - 1, e.end_line).join('\n');
    if (e.truncated) {
      assert.ok(e.snippet.length <= 4000 && expected.length > 4000, `truncated flag without need: ${where}`);
      assert.ok(expected.startsWith(e.snippet), `truncated snippet is not a prefix of the lines: ${where}`);
    } else {
      assert.is(e.snippet, expected, `snippet differs from the file's lines: ${where}`);
    }
    if (e.excerpt !== undefined) {
      assert.ok(e.truncated && e.start_line === e.end_line, `excerpt on an item that is not one cut line: ${where}`);
      const line = lines[e.start_line - 1];
      assert.ok(Number.isInteger(e.excerpt.column) && e.excerpt.column >= 1, `excerpt column: ${where}`);
      assert.is(line.slice(e.excerpt.column - 1, e.excerpt.column - 1 + e.excerpt.text.length), e.excerpt.text, `excerpt differs from its line: ${where}`);
    }
    if (e.next_start_line !== undefined) {
      // Where to read on: every line before it is whole in the snippet, and the snippet ends within it (or just before it).
      const n = e.next_start_line;
      assert.ok(e.truncated && Number.isInteger(n) && n > e.start_line && n <= e.end_line, `next_start_line ${n} on ${where}`);
      const before = lines.slice(e.start_line - 1, n - 1).join('\n');
      assert.ok(e.snippet.startsWith(before) && e.snippet.length <= before.length + 1 + lines[n - 1].length, `next_start_line ${n} skips or repeats lines: ${where}`);
    }
  }
}
