// Every command evidex prints works as typed where it was printed
// (docs/cli.md, Paths): real evidex processes and daemons on two real git
// repositories; each command printed is then run as printed, by a shell
// (`sh -c`) in the same folder, and what it prints is checked against the
// files. Run from another repository or from outside the root, a printed
// command carries `--repo`; an argument a shell would split or read is quoted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandLine } from '../client/command-line.js';
import { path, shellWord } from '../local/human.js';
import { PROJECT_ROOT, cleanupTemp, git, tempDir, write } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('printed-home');
const env = { ...process.env, EVIDEX_HOME: home, EVIDEX_NODE_WARNING: '0', OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '' };

function commit(root: string): void {
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'init']);
}

const numbered = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => `${tag}_${i + 1} = ${i + 1}`).join('\n') + '\n';

// A JavaScript package whose files import its root (`require('..')`), and a Python tree with awkward names, side by side in one folder.
const top = tempDir('printed-top');
const js = join(top, 'pkga');
const py = join(top, 'pyrepo');
mkdirSync(js);
mkdirSync(py);
write(js, {
  'package.json': '{"name": "pkga"}\n',
  'index.js': 'module.exports = { a: 1 };\n',
  'test/one.test.js': "const a = require('..');\n",
  'test/two.test.js': "const a = require('../index.js');\n",
  'lib/x.js': "const a = require('../index');\n",
});
commit(js);
const SPACED = 'my dir/long file.py';
const QUOTED = "it's.py";
const ESCAPED = 'e\x1bvil.py';
write(py, { [SPACED]: numbered('SPACED', 450), [QUOTED]: numbered('QUOTE', 420), [ESCAPED]: numbered('ESC', 410), 'short.py': numbered('S', 5) });
commit(py);

// A repository whose own path holds a blank and a quote, with a file named so too: a note names both in the commands it prints.
const odd = join(top, "it's a repo");
mkdirSync(join(odd, 'src', 'my dir'), { recursive: true });
write(odd, {
  "src/my dir/it's base.ts": 'export const base = 1;\n',
  "src/my dir/it's.css": 'body { margin: 0; }\n',
  'src/app.ts': 'import { base } from "./my dir/it\'s base";\nexport const res = { send: (x: number) => x };\nres.send = function send(body: number) { return body; };\n',
});
commit(odd);

function evidex(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `printed` (an `evidex …` line as shown) run by a shell in `cwd`, `evidex` being this build. */
function typed(printed: string, cwd: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', `evidex() { ${shellWord(process.execPath)} ${shellWord(BIN)} "$@"; }; ${printed}`], { cwd, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The command in backquotes after "read on with" (a read's hint). */
const readOn = (stderr: string): string => {
  const m = /read on with `(evidex [^`]+)`/.exec(stderr);
  assert.ok(m, stderr);
  return m![1];
};

/** Lines `from`-`to` of a numbered file as `read` prints them under the name `shown`. */
const expected = (shown: string, tag: string, from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `${shown}:${from + i}: ${tag}_${from + i} = ${from + i}`).join('\n') + '\n';

test('a note run with --repo naming another repository carries --repo, and works as typed there', () => {
  const r = evidex(['importers', 'pkga', '--repo', js], py);
  assert.is(r.code, 0, r.stderr);
  const m = /: (evidex importers index\.js --repo \S+)$/m.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.is(m![1], `evidex importers index.js --repo ${js}`);
  const again = typed(m![1], py);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, /^3 of 3 shown/m);
  assert.match(again.stdout, /^test\/one\.test\.js:1: const a = require\('\.\.'\);$/m);
});

test('a read-on hint quotes a path with blanks and carries --repo; run as printed it reads on', () => {
  const r = evidex(['read', SPACED, '--repo', py], js);
  assert.is(r.code, 0, r.stderr);
  const hint = readOn(r.stderr);
  assert.is(hint, `evidex read 'my dir/long file.py:401-800' --repo ${py}`);
  const again = typed(hint, js);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, expected(SPACED, 'SPACED', 401, 450));
});

test('from the folder above the root, the hint names the root and the path from here', () => {
  const r = evidex(['read', `pyrepo/${SPACED}`, '--repo', 'pyrepo'], top);
  assert.is(r.code, 0, r.stderr);
  const hint = readOn(r.stderr);
  assert.is(hint, "evidex read 'pyrepo/my dir/long file.py:401-800' --repo pyrepo");
  const again = typed(hint, top);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, expected(`pyrepo/${SPACED}`, 'SPACED', 401, 450));
});

test('a quote in a path is written \'"\'"\' inside single quotes (a backslash would be shown escaped); inside the root no --repo', () => {
  const r = evidex(['read', QUOTED], py);
  const hint = readOn(r.stderr);
  assert.is(hint, `evidex read 'it'"'"'s.py:401-800'`);
  const again = typed(hint, py);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, expected(QUOTED, 'QUOTE', 401, 420));
});

test('a control character is quoted first, then shown escaped: the line carries none, and typed it reads the file', () => {
  const r = evidex(['read', ESCAPED], py);
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(/[\x00-\x08\x0b-\x1f\x7f]/.test(r.stderr), JSON.stringify(r.stderr));
  const hint = readOn(r.stderr);
  assert.is(hint, "evidex read 'e\\x1bvil.py:401-800'");
  const again = typed(hint, py);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout.split('\n').length - 1, 10);
  assert.match(again.stdout, /:410: ESC_410 = 410\n$/);
  // The one function, alone: quoting before the screen's escaping.
  assert.is(path(commandLine(undefined, ['read', 'a\tb.py'])).plain, "evidex read 'a\\x09b.py'");
  assert.is(commandLine({ here: null, below: null, root: { path: '/r oot' } }, ['search', '--', '--x']), "evidex search --repo '/r oot' -- --x");
});

test('importers .. in a subfolder is refused with the root\'s index file, and that command works as typed', () => {
  const cwd = join(js, 'test');
  const r = evidex(['importers', '..'], cwd);
  assert.is(r.code, 2, r.stderr);
  const m = /"\.\." is the repository's root folder \(.*\), not a file; an import of the folder reaches its index file: (evidex importers \.\.\/index\.js)$/m.exec(r.stderr);
  assert.ok(m, r.stderr);
  const again = typed(m![1], cwd);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /^one\.test\.js:1: const a = require\('\.\.'\);$/m);
  assert.match(again.stdout, /^two\.test\.js:1: /m);
});

test('read: a line past the end in the command\'s words; a range cut at the end says so', () => {
  const past = evidex(['read', 'short.py:99'], py);
  assert.is(past.code, 2);
  assert.is(past.stderr, 'evidex: out_of_range: line 99 is past the end of short.py (5 lines)\n');
  const cut = evidex(['read', 'short.py:3-10'], py);
  assert.is(cut.code, 0, cut.stderr);
  assert.is(cut.stdout, expected('short.py', 'S', 3, 5));
  assert.match(cut.stderr, /^note: short\.py ends at line 5: lines 6-10 asked for are past its end$/m);
  const inside = evidex(['read', 'short.py:2-4'], py);
  assert.not.match(inside.stderr, /past its end/);
});

test('daemon with a mistyped action gets a did you mean, which works as typed', () => {
  const r = evidex(['daemon', 'stats'], py);
  assert.is(r.code, 2);
  const m = /did you mean `(evidex daemon status)`\?/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const again = typed(m![1], py);
  assert.ok(again.code === 0 || again.code === 3, again.stderr);
  assert.match(again.stdout, new RegExp(py.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // Run with --repo from outside the root: the command offered carries it, and works as typed there.
  const outside = evidex(['daemon', 'stats', '--repo', 'pyrepo'], top);
  assert.is(outside.code, 2);
  const o = /did you mean `(evidex daemon status --repo pyrepo)`\?/.exec(outside.stderr);
  assert.ok(o, outside.stderr);
  const there = typed(o![1], top);
  assert.ok(there.code === 0 || there.code === 3, there.stderr);
  assert.match(there.stdout, new RegExp(py.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
});

/** The command a note names after `: ` and before `tail`. */
const noted = (stderr: string, tail: string): string => {
  const m = new RegExp(`^note: .*: (evidex .*)${tail}$`, 'm').exec(stderr);
  assert.ok(m, stderr);
  return m![1];
};

test('a note\'s command from outside the root names the file from here and the repository, both quoted; typed there it finds the importer', () => {
  const r = evidex(['importers', "it's base", '--repo', "it's a repo"], top);
  assert.is(r.code, 0, r.stderr);
  const command = noted(r.stderr, '');
  assert.is(command, `evidex importers 'it'"'"'s a repo/src/my dir/it'"'"'s base.ts' --repo 'it'"'"'s a repo'`);
  const again = typed(command, top);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, `it's a repo/src/app.ts:1: import { base } from "./my dir/it's base";\n`);
});

test('a note\'s calls of the whole repository, from a subfolder: the path from there, --all; each typed there answers', () => {
  const src = join(odd, 'src');
  const file = evidex(['importers', "it's base"], src);
  assert.is(file.code, 0, file.stderr);
  const importers = noted(file.stderr, '');
  assert.is(importers, `evidex importers 'my dir/it'"'"'s base.ts' --all`);
  assert.is(typed(importers, src).stdout, `app.ts:1: import { base } from "./my dir/it's base";\n`);
  const assigned = evidex(['symbol', 'res.send'], src);
  assert.is(assigned.code, 0, assigned.stderr);
  const search = noted(assigned.stderr, ' lists such lines');
  assert.is(search, "evidex search 'res.send =' --all");
  assert.is(typed(search, src).stdout, 'app.ts:3: res.send = function send(body: number) { return body; };\n');
  // The same answer as data: the call each note names, where it writes it.
  const json = JSON.parse(evidex(['symbol', 'res.send', '--json'], src).stdout) as { notes: string[]; note_calls: Array<{ note: number; at: number; length: number }> };
  const [c] = json.note_calls;
  assert.is(json.notes[c.note].slice(c.at, c.at + c.length), 'search_code "res.send ="');
});

test('a refusal\'s call, made a command here: quoted, --all from a subfolder; typed there it finds the file', () => {
  const src = join(odd, 'src');
  const r = evidex(['importers', "my dir/it's.css"], src);
  assert.is(r.code, 2, r.stderr);
  const m = /search for its name: (evidex .*)$/m.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.is(m![1], `evidex search 'it'"'"'s.css' --all`);
  const again = typed(m![1], src);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, "my dir/it's.css:1: [path match]\n");
});

test('a mistyped command run with --repo from outside the root: the command offered carries --repo, quoted; typed with its query it searches there', () => {
  const r = evidex(['serch', 'base', '--repo', "it's a repo"], top);
  assert.is(r.code, 2);
  const m = /did you mean `(evidex search[^`]*)`\?/.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.is(m![1], `evidex search --repo 'it'"'"'s a repo'`);
  const again = typed(`${m![1]} 'export const base'`, top);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, "it's a repo/src/my dir/it's base.ts:1: export const base = 1;\n");
  // Run inside the root it names: nothing to add; a help topic is no command run on a repository.
  assert.match(evidex(['serch', 'x', '--repo', '.'], odd).stderr, /did you mean `evidex search`\?/);
  assert.match(evidex(['help', 'serch', '--repo', "it's a repo"], top).stderr, /did you mean `evidex help search`\?/);
});

test.after(() => {
  evidex(['daemon', 'stop', '--all'], top);
  cleanupTemp();
});
test.run();
