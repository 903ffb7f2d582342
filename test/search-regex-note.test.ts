// A search that finds nothing for a query written as a regular expression
// (`use[A-Z]\w+\(`) says, in a note, that search is literal text and which
// parts were looked for as written, with the case rule and a literal part to
// search instead; through real `evidex` processes on a git copy of
// fixtures/mobileai-local-rag. The note is the tool's (a model reads it in `notes`),
// in the command line's words in the text form. A query that finds something,
// or holds no such syntax, gets no note.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evidex as run } from './helpers/cli.js';
import { fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

const repo = fixtureCopy({ git: true });
const home = tempDir('regex-note-home');
// A file that holds regular-expression syntax literally: searching for it finds it, and no note is due.
writeFileSync(join(repo, 'src', 'digits.py'), 'DIGITS = r"^\\d+$"\n');

async function evidex(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await run(args, { cwd: repo, home, env: { NO_COLOR: '1' } });
  return { ...r, stderr: r.stderr.replace(/^started evidex daemon .*\n/, '') };
}

test('a regex-looking query that finds nothing: a note says search is literal, what was looked for as written, the case rule, and a literal part', async () => {
  const r = await evidex(['search', 'use[A-Z]\\w+\\(']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^0 of 0 shown · index generation \d+\n/);
  assert.ok(r.stderr.endsWith('\nnote: evidex search matches literal text, not regular expressions: [A-Z] \\w \\( were looked for as written, ignoring case; '
    + 'search a literal part of it, such as "use"\n'), r.stderr);
  // The literal part it offers does find something.
  assert.ok((JSON.parse((await evidex(['search', 'use', '--json'])).stdout) as { total: number }).total > 0);
  // Alternation in a group, as a new user typed it on hono (`export (class|function) Hono`).
  const alt = await evidex(['search', 'export (class|function) NoSuchName']);
  assert.ok(alt.stderr.endsWith('\nnote: evidex search matches literal text, not regular expressions: (class|function) was looked for as written, ignoring case; '
    + 'search a literal part of it, such as "NoSuchName"\n'), alt.stderr);
  const cs = await evidex(['search', 'COLLECTION.*NAME', '--case-sensitive']);
  assert.match(cs.stderr, '\nnote: evidex search matches literal text, not regular expressions: .* was looked for as written, case as given; search a literal part of it, such as "COLLECTION"\n');
});

test('--json carries it in notes, in the tool\'s words', async () => {
  const j = JSON.parse((await evidex(['search', '[^"]+\\.tsx', '--json'])).stdout) as { total: number; notes: string[] };
  assert.is(j.total, 0);
  assert.equal(j.notes, ['search_code matches literal text, not regular expressions: [^"] \\. were looked for as written, ignoring case; search a literal part of it, such as "tsx"']);
});

test('no note when the query finds something (the syntax was meant literally), or holds no regular-expression syntax', async () => {
  const found = JSON.parse((await evidex(['search', '\\d+', '--json'])).stdout) as { total: number; notes?: string[] };
  assert.is(found.total, 1);
  assert.is(found.notes, undefined);
  for (const q of ['no such text anywhere (really)', 'if (nothing || here)']) {
    const plain = await evidex(['search', q]);
    assert.match(plain.stderr, /^0 of 0 shown · index generation \d+\n$/, q);
  }
});

test('a query holding a line break finds nothing, and a note says why, offering its longest line', async () => {
  const r = await evidex(['search', 'def main():\n    return 1']);
  assert.is(r.code, 0, r.stderr);
  assert.ok(r.stderr.endsWith('\nnote: evidex search matches within one line, and the query holds a line break; search one line of it, such as "def main():"\n'), r.stderr);
  const j = JSON.parse((await evidex(['search', 'a\r\nbc', '--json'])).stdout) as { total: number; notes: string[] };
  assert.equal(j.notes, ['search_code matches within one line, and the query holds a line break; search one line of it, such as "bc"']);
});

test('stop the daemon', async () => {
  await evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
