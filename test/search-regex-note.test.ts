// A search that finds nothing for a query written as a regular expression
// (`use[A-Z]\w+\(`) says, in a note, that search is literal text and which
// parts were looked for as written, with the case rule and a literal part to
// search instead; through real `evidex` processes on a git copy of
// fixtures/ts-monorepo. The note is the tool's (a model reads it in `notes`),
// in the command line's words in the text form. A query that finds something,
// or holds no such syntax, gets no note.
import { spawnSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('regex-note-home');
const repo = join(tempDir('regex-note'), 'ts-monorepo');
cpSync(join(PROJECT_ROOT, 'fixtures', 'ts-monorepo'), repo, { recursive: true });
// A file that holds regular-expression syntax literally: searching for it finds it, and no note is due.
writeFileSync(join(repo, 'libs/digits.ts'), 'export const digits = /^\\d+$/;\n');
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

function evidex(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^started evidex daemon .*\n/, '') };
}

test('a regex-looking query that finds nothing: a note says search is literal, what was looked for as written, the case rule, and a literal part', () => {
  const r = evidex(['search', 'use[A-Z]\\w+\\(']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^0 of 0 shown · index generation \d+\n/);
  assert.ok(r.stderr.endsWith('\nnote: evidex search matches literal text, not regular expressions: [A-Z] \\w \\( were looked for as written, ignoring case; '
    + 'search a literal part of it, such as "use"\n'), r.stderr);
  // The literal part it offers does find something.
  assert.ok((JSON.parse(evidex(['search', 'use', '--json']).stdout) as { total: number }).total > 0);
  const cs = evidex(['search', 'Button.*Props', '--case-sensitive']);
  assert.match(cs.stderr, '\nnote: evidex search matches literal text, not regular expressions: .* was looked for as written, case as given; search a literal part of it, such as "Button"\n');
});

test('--json carries it in notes, in the tool\'s words', () => {
  const j = JSON.parse(evidex(['search', '[^"]+\\.tsx', '--json']).stdout) as { total: number; notes: string[] };
  assert.is(j.total, 0);
  assert.equal(j.notes, ['search_code matches literal text, not regular expressions: [^"] \\. were looked for as written, ignoring case; search a literal part of it, such as "tsx"']);
});

test('no note when the query finds something (the syntax was meant literally), or holds no regular-expression syntax', () => {
  const found = JSON.parse(evidex(['search', '\\d+', '--json']).stdout) as { total: number; notes?: string[] };
  assert.is(found.total, 1);
  assert.is(found.notes, undefined);
  const plain = evidex(['search', 'no such text anywhere (really)']);
  assert.match(plain.stderr, /^0 of 0 shown · index generation \d+\n$/);
});

test('stop the daemon', () => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
