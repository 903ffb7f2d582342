// The CLI's small words, through real `evidex` processes on a git copy of the
// fixture: options before the command, a reader that closes stderr too, an
// empty question, a number out of range, a page past the end, a query the
// shell split, and `daemon status` with no daemon.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
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
  const none = evidex(['--json']);
  assert.equal({ code: none.code, stderr: none.stderr }, { code: 2, stderr: 'evidex: no command given ("--json" is an option): evidex COMMAND [ARGS] [OPTIONS]; run `evidex --help` for the commands\n' });
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
