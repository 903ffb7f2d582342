// The CLI's small words, through real `evidex` processes on a git copy of the
// fixture: options before the command, a reader that closes stderr too, an
// empty question, a number out of range, a page past the end, a query the
// shell split, and `daemon status` with no daemon.
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('words-home');
const elsewhere = tempDir('words-elsewhere');
const repo = fixtureCopy({ git: true });
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

function evidex(args: string[], cwd = repo): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('daemon status with no daemon says so in one line and exits 3', () => {
  const r = evidex(['daemon', 'status']);
  assert.equal(r, { code: 3, stdout: `no evidex daemon running for ${realpathSync(repo)}\n`, stderr: '' });
});

test('options before the command are taken as after it; options with no command are said to be such', () => {
  evidex(['daemon', 'start']);
  const before = evidex(['--repo', repo, 'search', 'COLLECTION_NAME', '--limit', '3'], elsewhere);
  const after = evidex(['search', 'COLLECTION_NAME', '--repo', repo, '--limit', '3'], elsewhere);
  assert.is(before.code, 0, before.stderr);
  assert.equal(before, after);
  assert.match(before.stdout, /^\S+:\d+: .*COLLECTION_NAME/m);
  const none = evidex(['--limit', '3']);
  assert.equal({ code: none.code, stderr: none.stderr }, { code: 2, stderr: 'evidex: no command given ("--limit" is an option): evidex COMMAND [ARGS] [OPTIONS]; run `evidex --help` for the commands\n' });
});

test('a reader that closes stdout, or stdout and stderr, early: quiet, exit 0', () => {
  for (const redirect of ['', '2>&1']) {
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" search e --limit 200 ${redirect} | head -1; exit \${PIPESTATUS[0]}`], { cwd: repo, encoding: 'utf8', env });
    assert.is(r.status, 0, `${redirect}: ${r.stderr}`);
    assert.is(r.stdout.split('\n').length, 2, r.stdout);
    if (redirect) assert.is(r.stderr, '');
  }
});

test('an empty question or case file is a usage error (exit 2), as an empty query is', () => {
  for (const args of [['ask', ''], ['ask', '  '], ['eval', '']]) {
    const r = evidex(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^evidex: an empty argument; usage: evidex (ask|eval) /);
  }
  assert.is(evidex(['search', '']).code, 2);
  // An empty model name is the same slip: refused, not taken as "the default".
  for (const args of [['ask', 'q', '--model', ''], ['chat', '--model', ' '], ['eval', 'cases.jsonl', '--model=']]) {
    const r = evidex(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^evidex: --model is empty; name a model, or leave --model out for the default \(EVIDEX_MODEL, else qwen3:8b\)\n$/);
  }
});

test("an empty query, name or module is the same usage error, not the tool schema's words", () => {
  for (const [cmd, what] of [['search', 'QUERY'], ['symbol', 'NAME'], ['importers', 'MODULE']]) {
    const r = evidex([cmd, '']);
    assert.equal(r, { code: 2, stdout: '', stderr: `evidex: an empty argument; usage: evidex ${cmd} ${what}\n` }, cmd);
  }
});

test('line 0 is said to be no line: lines are numbered from 1', () => {
  for (const target of ['src/rag_common.py:0', 'src/rag_common.py:0-3']) {
    const r = evidex(['read', target]);
    assert.equal(r, { code: 2, stdout: '', stderr: `evidex: line 0 in "${target}": lines are numbered from 1 (PATH:1 is the first line)\n` }, target);
  }
});

test('a range that ends before it starts says which range reads those lines', () => {
  const r = evidex(['read', 'src/rag_common.py:5-2']);
  assert.equal(r, { code: 2, stdout: '', stderr: 'evidex: lines 5-2 in "src/rag_common.py:5-2" end before they start: PATH:2-5 reads them\n' });
});

test('the root typed where a file goes is refused as the root folder; diff of the root is the whole repository', () => {
  const root = realpathSync(repo);
  for (const [args, cwd] of [[['read', '.'], repo], [['importers', '.'], repo], [['read', root, '--repo', repo], elsewhere], [['importers', '..'], join(repo, 'src')]] as Array<[string[], string]>) {
    const r = evidex(args, cwd);
    assert.equal(r, { code: 2, stdout: '', stderr: `evidex: not_indexed: ${JSON.stringify(args[1])} is the repository's root folder (${root}), not a file\n` }, args.join(' '));
  }
  const whole = evidex(['diff']), dot = evidex(['diff', '.']);
  assert.is(dot.code, 0, dot.stderr);
  assert.equal(dot, whole);
});

test('a command that takes no arguments refuses one instead of ignoring it', () => {
  const index = evidex(['index', elsewhere]);
  assert.equal({ code: index.code, stdout: index.stdout }, { code: 2, stdout: '' });
  assert.match(index.stderr, `evidex: takes no arguments (a repository elsewhere is --repo ${elsewhere}); usage: evidex index [--repo DIR]`);
  assert.equal(evidex(['tools', 'x']), { code: 2, stdout: '', stderr: 'evidex: takes no arguments; usage: evidex tools [--json]\n' });
  // A question given to chat is what ask takes: said before any daemon or model is reached.
  const chat = evidex(['chat', 'where is main?']);
  assert.equal({ code: chat.code, stdout: chat.stdout }, { code: 2, stdout: '' });
  assert.match(chat.stderr, 'evidex: takes no arguments (to ask one question from the command line: evidex ask "QUESTION"); usage: evidex chat');
});

test('index --unresolved on a repository with no TS/JS statement resolving nowhere says so in words', () => {
  const r = evidex(['index', '--unresolved']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /\n0 of 0 shown · index generation \d+\nno TypeScript or JavaScript import statement resolves nowhere \(--unresolved lists those only\)\n$/);
});

test('a mistyped option gets the nearest option of its command', () => {
  const cases: Array<[string[], string]> = [
    [['importers', 'x', '--via-reexport'], 'unknown option --via-reexport; did you mean --via-reexports?'],
    [['search', 'x', '--limt', '3'], 'unknown option --limt; did you mean --limit?'],
    [['symbol', 'x', '--knd', 'class'], 'unknown option --knd; did you mean --kind?'],
    [['tools', '--nothing-like-it'], 'unknown option --nothing-like-it'],
    // Near no option of a command that takes an argument: perhaps the argument, which goes after `--`.
    [['search', '--rebuild'], 'unknown option --rebuild; an argument that starts with "-" goes after --: evidex search -- --rebuild'],
    [['ask', '-v'], 'unknown option -v; an argument that starts with "-" goes after --: evidex ask -- -v'],
    [['search', '--no deps'], 'unknown option --no deps; an argument that starts with "-" goes after --: evidex search -- \'--no deps\''],
  ];
  for (const [args, said] of cases) {
    const r = evidex(args);
    assert.equal(r, { code: 2, stdout: '', stderr: `evidex: ${said}\n` }, args.join(' '));
  }
  // An option written after `--` is one more argument: said, not read as a second query word.
  assert.equal(evidex(['search', '--', '--rebuild', '--limit', '1']), {
    code: 2, stdout: '', stderr: 'evidex: expected one argument (got 3: what follows -- is read as arguments, options too; put --limit before --); usage: evidex search QUERY\n',
  });
  // `--` alone (quoted or not, the shell passes the same) ends the options: said, with how to give "--" itself, which finds it.
  assert.equal(evidex(['search', '--']), {
    code: 2, stdout: '', stderr: 'evidex: expected one argument (got none: -- ends the options; to give "--" itself, write -- --); usage: evidex search QUERY\n',
  });
  assert.match(evidex(['search', '--', '--']).stdout, /^\S+:\d+: .*--/);
  // The command it gives searches for the text.
  const given = evidex(['search', '--', '--rebuild']);
  assert.is(given.code, 0, given.stderr);
  assert.match(given.stdout, /^docs\/README\.md:6: - `python src\/build_index\.py --rebuild`\nsrc\/build_index\.py:21: /);
});

test('a definition left out by --kind or --path-prefix is said why in words', () => {
  const byKind = evidex(['symbol', 'COLLECTION_NAME', '--kind', 'function']);
  assert.is(byKind.code, 0, byKind.stderr);
  assert.match(byKind.stderr, /\ndid you mean: COLLECTION_NAME \(a variable, not a function, src\/rag_common\.py:12\)/);
  const byPrefix = evidex(['symbol', 'COLLECTION_NAME', '--path-prefix', 'tests']);
  assert.match(byPrefix.stderr, /\ndid you mean: COLLECTION_NAME \(outside --path-prefix, src\/rag_common\.py:12\)/);
  assert.not.match(byKind.stderr + byPrefix.stderr, /filtered_out/);
  // --json keeps the tool's own record.
  assert.is(JSON.parse(evidex(['symbol', 'COLLECTION_NAME', '--kind', 'function', '--json']).stdout).suggestions[0].why, 'filtered_out');
});

test('a current folder deleted under the command is said to be gone, in one line', () => {
  const gone = join(tempDir('words-gone'), 'gone');
  mkdirSync(gone);
  // A shell whose folder a checkout removed: the child starts there, then the folder goes.
  const r = spawnSync('/bin/sh', ['-c', `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${BIN}" search x`], { encoding: 'utf8', timeout: 60_000, env });
  assert.equal({ code: r.status, stdout: r.stdout, stderr: r.stderr }, {
    code: 1, stdout: '', stderr: 'evidex: the current folder no longer exists (deleted or moved, as a git checkout can do): cd to a folder that exists and run the command again\n',
  });
});

test('a number out of range says the range', () => {
  for (const [args, said] of [
    [['search', 'x', '--limit', '-1'], '--limit takes a whole number from 1 to 200, got "-1"'],
    [['search', 'x', '--limit', '201'], '--limit takes a whole number from 1 to 200, got "201"'],
    [['symbol', 'x', '--offset', '100001'], '--offset takes a whole number from 0 to 100,000, got "100001"'],
    [['read', 'src/rag_common.py', '--context', '51'], '--context takes a whole number from 0 to 50, got "51"'],
    [['search', 'x', '--limit', 'ten'], '--limit takes a whole number from 1 to 200, got "ten"'],
  ] as const) {
    const r = evidex([...args]);
    assert.equal({ code: r.code, stderr: r.stderr }, { code: 2, stderr: `evidex: ${said}\n` }, args.join(' '));
  }
  // The ends of the range are taken.
  assert.is(evidex(['search', 'x', '--limit', '200', '--offset', '0']).code, 0);
});

test('a page past the end says so; a query the shell split is told to be quoted', () => {
  const all = JSON.parse(evidex(['search', 'COLLECTION_NAME', '--json']).stdout).total as number;
  const past = evidex(['search', 'COLLECTION_NAME', '--offset', String(all + 30)]);
  assert.is(past.code, 0, past.stderr);
  assert.match(past.stderr, new RegExp(`^0 of ${all} shown \\(the offset is past the last of them: --offset takes 0 to ${all - 1} here\\) · index generation \\d+\\n`));
  const split = evidex(['search', 'def', 'main']);
  assert.equal({ code: split.code, stderr: split.stderr }, { code: 2, stderr: 'evidex: expected one argument (got 2: quote text with spaces, as in "def main"); usage: evidex search QUERY\n' });
});

test('stop the daemon', () => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
