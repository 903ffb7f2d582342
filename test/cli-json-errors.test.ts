// Errors of a command given --json, through real `evidex` processes on a git
// copy of the fixture: one JSON object on stdout, `{"error": {"code",
// "message"}}`, nothing on stderr, and the exit status the same command has
// without --json, whose one stderr line says the same code and message
// (docs/cli.md, Errors). Without --json nothing changes.
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { keptLogPath } from '../client/failed-start.js';
import { stateDirFor } from '../local/state.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('json-errors-home');
const repo = fixtureCopy({ git: true });
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

interface Run { code: number | null; stdout: string; stderr: string }

function evidex(args: string[], extra: NodeJS.ProcessEnv = {}, cwd = repo): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...env, ...extra } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `args` run without and with --json: the same exit status (`exit`), the plain
 * form one stderr line (`evidex: CODE: MESSAGE`, or `evidex: MESSAGE` for a
 * usage error) and nothing on stdout, the JSON form one object on stdout and
 * nothing on stderr, with that code and message. Returns the error object.
 */
function sameErrorBothWays(args: string[], exit: number, extra: NodeJS.ProcessEnv = {}): { code: string; message: string } {
  const plain = evidex(args, extra);
  const json = evidex([...args, '--json'], extra);
  const what = args.join(' ');
  assert.is(plain.code, exit, `${what}: ${plain.stdout}${plain.stderr}`);
  assert.is(json.code, exit, `${what} --json: ${json.stdout}${json.stderr}`);
  assert.is(plain.stdout, '', what);
  assert.is(json.stderr, '', `${what} --json`);
  assert.ok(json.stdout.endsWith('\n') && !json.stdout.slice(0, -1).includes('\n'), `one line: ${json.stdout}`);
  const body = JSON.parse(json.stdout) as { error: { code: string; message: string } };
  assert.equal(Object.keys(body), ['error']);
  assert.equal(Object.keys(body.error), ['code', 'message']);
  const { code, message } = body.error;
  assert.ok([`evidex: ${code}: ${message}\n`, `evidex: ${message}\n`].includes(plain.stderr), `${what}: ${plain.stderr} vs ${json.stdout}`);
  return body.error;
}

// Started first, so no command's stderr holds its `started evidex daemon` line.
test.before(() => {
  assert.is(evidex(['daemon', 'start']).code, 0);
});

test('bad arguments: a usage error is {"error": ...} on stdout with --json, exit 2', () => {
  assert.equal(sameErrorBothWays(['search', 'x', '--limit', '0'], 2), { code: 'invalid_arguments', message: '--limit takes a whole number from 1 to 200, got "0"' });
  assert.is(sameErrorBothWays(['search', 'x', '--bogus'], 2).code, 'invalid_arguments');
  assert.match(sameErrorBothWays(['serch', 'x'], 2).message, /^unknown command "serch"; did you mean `evidex search`\?/);
  assert.match(sameErrorBothWays(['symbol', 'a', 'b'], 2).message, /^expected one argument/);
  assert.match(sameErrorBothWays(['daemon', 'bogus'], 2).message, /^unknown daemon action "bogus"/);
  assert.match(sameErrorBothWays(['tools', 'extra'], 2).message, /^takes no arguments/);
  assert.match(sameErrorBothWays(['index', '--reason', 'all'], 2).message, /^--reason goes with --unresolved/);
  assert.match(sameErrorBothWays(['ask', ''], 2).message, /^an empty argument/);
  assert.match(sameErrorBothWays(['read', 'x.py:1', '--repo', join(repo, 'nope')], 2).message, /^no such folder: /);
  // Given twice, or with a value: --json was asked for, and is what is wrong.
  const twice = evidex(['search', 'x', '--json', '--json']);
  assert.equal({ code: twice.code, stdout: JSON.parse(twice.stdout), stderr: twice.stderr }, { code: 2, stdout: { error: { code: 'invalid_arguments', message: '--json given more than once' } }, stderr: '' });
  const alone = evidex(['--json']);
  assert.equal({ code: alone.code, error: JSON.parse(alone.stdout).error.code, stderr: alone.stderr }, { code: 2, error: 'invalid_arguments', stderr: '' });
});

test('refusals of the tools and of the client: the code and message of the plain line, exit 2', () => {
  assert.is(sameErrorBothWays(['read', '/etc/passwd:1'], 2).code, 'path_denied');
  assert.is(sameErrorBothWays(['read', 'src/nope.py:1'], 2).code, 'not_indexed');
  assert.is(sameErrorBothWays(['read', '.env:1'], 2).code, 'secret_denied');
  assert.is(sameErrorBothWays(['read', 'src/rag_common.py:9999'], 2).code, 'out_of_range');
  assert.is(sameErrorBothWays(['importers', 'src/nope/x.py'], 2).code, 'not_indexed');
  assert.is(sameErrorBothWays(['diff', '--base', 'no-such-ref'], 2).code, 'bad_ref');
  assert.is(sameErrorBothWays(['symbol', 'Chunk', '--path-prefix', '../..'], 2).code, 'path_denied');
});

test('a daemon that cannot start: exit 1, or 2 for a bad setting, the same both ways', async () => {
  const own = { EVIDEX_HOME: tempDir('json-errors-start') };
  assert.match(sameErrorBothWays(['search', 'x'], 2, { ...own, EVIDEX_WARMUP: 'bogus' }).message, /^EVIDEX_WARMUP: expected on or off/);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = String((taken.address() as AddressInfo).port);
    for (const args of [['search', 'x'], ['daemon', 'start']]) {
      const e = sameErrorBothWays(args, 1, { ...own, EVIDEX_PORT: port });
      assert.is(e.code, 'daemon_unavailable', args.join(' '));
      assert.match(e.message, /exited at start \(status 1\): evidex daemon: listen EADDRINUSE/);
    }
  } finally {
    taken.close();
    rmSync(keptLogPath(stateDirFor(realpathSync(repo), own)), { force: true });
  }
});

test('eval and ask with --json: their errors in the same shape (eval\'s bad case file exit 2, ask\'s refused setting exit 1)', () => {
  const missing = evidex(['eval', join(repo, 'no-cases.jsonl'), '--json']);
  assert.is(missing.code, 2, missing.stderr);
  const e = JSON.parse(missing.stdout).error;
  assert.equal(Object.keys(e), ['code', 'message']);
  assert.is(e.code, 'invalid_arguments');
  const bad = join(repo, 'bad-cases.jsonl');
  writeFileSync(bad, 'not json\n');
  const plain = evidex(['eval', bad]);
  const json = evidex(['eval', bad, '--json']);
  assert.is(plain.code, 2);
  assert.is(json.code, 2);
  assert.is(plain.stderr, `evidex eval: ${JSON.parse(json.stdout).error.message}\n`);
  // ask's own error line (exit 1, its own status), with the daemon's code.
  const ask = evidex(['ask', 'where?', '--json'], { OLLAMA_HOST: 'ftp://ollama.example' });
  assert.is(ask.code, 1, ask.stderr);
  assert.equal(JSON.parse(ask.stdout.trim().split('\n').at(-1)!), { error: { code: 'invalid_arguments', message: 'OLLAMA_HOST sent with the request "ftp://ollama.example": only http:// and https:// are supported' } });
});

test('without --json, or with --json as an argument after --, or for a command that has no --json: plain, as before', () => {
  const after = evidex(['read', '--', '--json']);
  assert.is(after.code, 2);
  assert.is(after.stdout, '');
  assert.match(after.stderr, /^evidex: not_indexed: /);
  const chat = evidex(['chat', '--json']);
  assert.equal(chat, { code: 2, stdout: '', stderr: 'evidex: unknown option --json\n' });
  // `call` keeps its JSON errors, with or without --json (which it does not take: said so, as JSON).
  const call = evidex(['call', 'read_evidence', '{"path": ".env", "start_line": 1}']);
  assert.equal({ code: call.code, error: JSON.parse(call.stdout).error.code, stderr: call.stderr }, { code: 2, error: 'secret_denied', stderr: '' });
});

test.after(() => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});
test.run();
