// What the CLI says when it refuses a path, through real `evidex` processes
// on a git copy of the fixture: the real reason (outside the repository, a
// folder, a name typed as evidex shows it), the path as it was typed, exit 2,
// and a diff of a path that is not there said to be so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMPILE_CACHE, STATE_MARKERS } from '../local/home.js';
import { fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('refusals-home');
const repo = fixtureCopy({ git: false });
// A file whose name holds ESC: evidex shows it as \x1b[31mred.py, and that form typed back names it.
const RED = '\x1b[31mred.py';
writeFileSync(join(repo, 'src', RED), 'RED = 1\n');
// A stylesheet a bundler imports: real, but no import Python or the TypeScript compiler resolves.
mkdirSync(join(repo, 'src', 'styles'));
writeFileSync(join(repo, 'src', 'styles', 'global.css'), 'body { margin: 0; }\n');
writeFileSync(join(repo, 'src', 'app.tsx'), "import './styles/global.css';\nexport const App = () => null;\n");
// A file whose name starts with "-": printed ./-dash.py, so it is not taken for an option when typed back.
writeFileSync(join(repo, 'src', '-dash.py'), 'DASHED_NAME = 1\n');
// 450 lines: more than one read shows (400).
writeFileSync(join(repo, 'src', 'lines.py'), Array.from({ length: 450 }, (_, i) => `L${i + 1} = ${i + 1}`).join('\n') + '\n');
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
const root = realpathSync(repo);
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

function evidex(args: string[], cwd = 'src'): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: join(repo, cwd), encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('a path outside the repository is refused as outside it, named as typed, whatever the command', () => {
  for (const [args, typed] of [
    [['read', '/etc/passwd:1'], '/etc/passwd'], [['diff', '/etc'], '/etc'], [['importers', '/etc/passwd'], '/etc/passwd'],
    [['read', '../../outside.py:1'], '../../outside.py'], [['search', 'x', '--path-prefix', '/tmp'], '/tmp'],
  ] as const) {
    const r = evidex([...args]);
    assert.equal({ code: r.code, stdout: r.stdout }, { code: 2, stdout: '' }, args.join(' '));
    assert.is(r.stderr, `evidex: path_denied: path ${JSON.stringify(typed)} refused: it is outside the repository (${root}); evidex reads only the repository's files\n`, args.join(' '));
  }
  // One that names a path of the repository read from its root (as `--path-prefix /` is the whole repository) says how to type that path from here.
  for (const [args, typed, rootPath, fromHere] of [
    [['search', 'x', '--path-prefix', '/src/mobileai_rag'], '/src/mobileai_rag', 'src/mobileai_rag', 'mobileai_rag'],
    [['read', '/docs/README.md:1'], '/docs/README.md', 'docs/README.md', '../docs/README.md'],
  ] as const) {
    const r = evidex([...args]);
    assert.equal({ code: r.code, stdout: r.stdout }, { code: 2, stdout: '' }, args.join(' '));
    assert.is(r.stderr, `evidex: path_denied: path ${JSON.stringify(typed)} refused: it is outside the repository (${root}); evidex reads only the repository's files; paths are taken from the current folder: for the repository's ${rootPath}, type ${fromHere}\n`, args.join(' '));
    const typedAgain = args[0] === 'read' ? ['read', `${fromHere}:1`] : ['search', 'x', '--path-prefix', fromHere];
    assert.is(evidex(typedAgain).code, 0, typedAgain.join(' '));
  }
  // An absolute path inside the repository is taken, as before.
  const inside = evidex(['read', `${join(root, 'src', 'rag_common.py')}:12`]);
  assert.is(inside.code, 0, inside.stderr);
  assert.match(inside.stdout, /^rag_common\.py:12: COLLECTION_NAME/);
});

test('a name typed back as evidex printed it names the file; one that names nothing is refused for the backslash, in those words', () => {
  const found = evidex(['search', 'RED = 1']);
  assert.match(found.stdout, /^\\x1b\[31mred\.py:1: RED = 1$/m);
  const r = evidex(['read', '\\x1b[31mred.py:1']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, '\\x1b[31mred.py:1: RED = 1\n');
  // At the root, where "\\" read as "/" would make the path absolute.
  const none = evidex(['read', '\\x1b[31mnone.py:1'], '.');
  assert.is(none.code, 2);
  assert.is(none.stderr, 'evidex: path_denied: path "\\\\x1b[31mnone.py" refused: read with "\\" as "/" (as Windows reads it) it is "/x1b[31mnone.py", which is absolute\n');
  assert.not.match(none.stderr, /encoded form|give a path relative/);
});

test('a folder is said to be a folder', () => {
  const r = evidex(['read', 'mobileai_rag']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'evidex: not_indexed: "mobileai_rag" is a folder, not a file; evidex search, evidex symbol and evidex importers look inside it with --path-prefix "mobileai_rag/"\n');
  // The command it gives works as typed.
  assert.match(evidex(['symbol', 'rerank', '--path-prefix', 'mobileai_rag/']).stdout, /\nmobileai_rag\/retrieval\/scoring\.py:26-31: function rerank /);
  const call = evidex(['call', 'read_evidence', '{"path": "src", "start_line": 1}']);
  assert.match(JSON.parse(call.stdout).error.message, /^"src" is a folder, not a file/);
});

test('diff of a path that is not there says so; of one with no change, only the count', () => {
  const r = evidex(['diff', 'nosuch.ts']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /^0 of 0 shown · index generation \d+\nnosuch\.ts: no such file or folder in the working tree, and no change to one\n$/);
  const clean = evidex(['diff', 'rag_common.py']);
  assert.match(clean.stderr, /^0 of 0 shown · index generation \d+\n$/);
});

test('importers of a stylesheet says what find_importers answers for and how to find its imports, which works', () => {
  const r = evidex(['importers', 'styles/global.css']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'evidex: not_indexed: "styles/global.css" is not a Python, TypeScript, JavaScript or JSON file: evidex importers answers only for those, '
    + 'as Python and the TypeScript compiler resolve imports; to find where it is imported (a bundler\'s import of a stylesheet, say), search for its name: evidex search global.css --all\n');
  // Typed in src/ as printed (the whole repository's search: --all), it finds the import.
  const search = evidex(['search', 'global.css', '--all']);
  assert.match(search.stdout, /^app\.tsx:1: import '\.\/styles\/global\.css';$/m);
});

test('a query over 200 characters is refused in words, with its length, by the command and by evidex call alike (the schema\'s message)', () => {
  const q = 'x'.repeat(201);
  const r = evidex(['search', q]);
  assert.equal(r, { code: 2, stdout: '', stderr: 'evidex: invalid_arguments: evidex search: query: 201 characters, over the 200 a query may hold: search a shorter, distinctive part of it\n' });
  const call = evidex(['call', 'search_code', JSON.stringify({ query: q })]);
  assert.is(call.code, 2);
  assert.equal(JSON.parse(call.stdout), { error: { code: 'invalid_arguments', message: 'search_code: query: 201 characters, over the 200 a query may hold: search a shorter, distinctive part of it' } });
  // 200 is still a query.
  assert.is(evidex(['search', 'x'.repeat(200)]).code, 0);
});

test('a path starting with "-" is printed ./-dash.py, which works as typed', () => {
  const r = evidex(['search', 'DASHED_NAME']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, './-dash.py:1: DASHED_NAME = 1\n');
  const again = evidex(['read', './-dash.py:1']);
  assert.is(again.stdout, './-dash.py:1: DASHED_NAME = 1\n', again.stderr);
  assert.is(evidex(['search', 'DASHED_NAME'], '.').stdout, 'src/-dash.py:1: DASHED_NAME = 1\n');
});

test('read PATH:START- reads to the end of the file; PATH:-END from line 1', () => {
  const want = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `lines.py:${from + i}: L${from + i} = ${from + i}\n`).join('');
  const tail = evidex(['read', 'lines.py:440-']);
  assert.equal({ code: tail.code, stdout: tail.stdout }, { code: 0, stdout: want(440, 450) }, tail.stderr);
  const open = evidex(['read', 'lines.py:5-']);
  assert.is(open.stdout, want(5, 404));
  assert.match(open.stderr, /read on with `evidex read lines\.py:405-804`/);
  assert.is(evidex(['read', 'lines.py:-3']).stdout, want(1, 3));
});

test('diff outside any git work tree is refused before a daemon is started or anything indexed', () => {
  const lonely = tempDir('no-git');
  writeFileSync(join(lonely, 'a.py'), 'A = 1\n');
  const own = { ...env, EVIDEX_HOME: tempDir('no-git-home'), GIT_CEILING_DIRECTORIES: dirname(lonely) };
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: lonely, encoding: 'utf8', timeout: 60_000, env: own });
  try {
    for (const json of [false, true]) {
      const r = run(json ? ['diff', '--json'] : ['diff']);
      const message = `${lonely} is not inside a git work tree: evidex diff shows git's uncommitted changes`;
      if (json) assert.equal([r.status, JSON.parse(r.stdout), r.stderr], [2, { error: { code: 'not_a_git_repo', message } }, '']);
      else assert.equal([r.status, r.stdout, r.stderr], [2, '', `evidex: not_a_git_repo: ${message}\n`]);
    }
    // The home's markers and the CLI's own compile cache (Node 22+) may be there; no state folder of a root.
    assert.equal(readdirSync(own.EVIDEX_HOME).filter((n) => n !== COMPILE_CACHE && !STATE_MARKERS.includes(n)), [], 'no daemon state: nothing started, nothing indexed');
  } finally {
    run(['daemon', 'stop']);
  }
});

test('stop the daemon', () => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
