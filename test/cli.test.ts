// The CLI as a user runs it: real `evidex` processes against a copy of the
// fixture (a real git repo), each with its own EVIDEX_HOME. Checks the documented
// output shapes (docs/cli.md) and exit codes, the friendly commands' `path:line: text`
// output, --help everywhere, and the README's main-job command.
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { appendFileSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandHome } from '../local/root.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, FIXTURE, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('cli-home');
const repo = fixtureCopy({ git: true });

function evidex(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? repo, encoding: 'utf8', timeout: 60_000,
    env: { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', ...opts.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('evidex index (no daemon) builds in-process and prints the summary', () => {
  const r = evidex(['index', '--repo', repo, '--json']);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.is(s.via, 'in-process');
  // Seconds as the text form prints them, to the hundredth, and a number still.
  assert.is(typeof s.seconds, 'number');
  assert.is(s.seconds, Number(s.seconds.toFixed(2)), JSON.stringify(s.seconds));
  // 11 .py files + docs/README.md, config/settings.toml, notes/design.txt, .gitignore, fixtures' own README? (not copied: outside)
  assert.ok(s.files >= 14 && s.symbols > 50 && s.imports > 30 && s.lines > 200, JSON.stringify(s));
  const again = JSON.parse(evidex(['index', '--repo', repo, '--json']).stdout);
  assert.is(again.parsed, 0, 'an unchanged tree re-parses nothing');
  assert.is(again.unchanged, s.files);
});

test('--repo ~/DIR is DIR in the home folder, for every command (a host passes args without a shell); ~user is refused in one line', () => {
  // HOME is the repository's parent here, so "~/NAME" is the repository.
  const env = { HOME: dirname(repo) };
  const status = evidex(['daemon', 'status', '--json', '--repo', `~/${basename(repo)}`], { cwd: tempDir('cli-tilde-cwd'), env });
  assert.is(JSON.parse(status.stdout).root, realpathSync(repo), status.stderr);
  for (const [args, prefix] of [[['search', 'x'], 'evidex'], [['mcp'], 'evidex mcp'], [['index'], 'evidex'], [['daemon', 'status'], 'evidex']] as const) {
    const missing = evidex([...args, '--repo', '~/no-such-repo'], { env });
    assert.equal([missing.code, missing.stderr], [2, `${prefix}: no such folder: ${join(dirname(repo), 'no-such-repo')}\n`], args.join(' '));
    const other = evidex([...args, '--repo=~bob/src'], { env });
    assert.equal([other.code, other.stderr], [2, `${prefix}: --repo "~bob/src": ~user is not expanded here (no shell ran); give an absolute path\n`], args.join(' '));
  }
  assert.is(expandHome('~', '--repo', '/h'), '/h');
  assert.is(expandHome('~/', '--repo', '/h'), '/h');
  assert.is(expandHome('a/~/b', '--repo', '/h'), 'a/~/b');
  assert.is(expandHome('/abs/~', '--repo', '/h'), '/abs/~');
});

test('evidex call: {evidence, total} on stdout and the generation on stderr, exit 0; refusals {error:{code,message}}, exit 2', async () => {
  const ok = evidex(['call', 'find_importers', '{"module_name": "rag_common"}']);
  assert.is(ok.code, 0, ok.stderr);
  const body = JSON.parse(ok.stdout);
  assert.equal(Object.keys(body).sort(), ['evidence', 'total']);
  assert.equal(body.evidence.map((e: { path: string; start_line: number }) => `${e.path}:${e.start_line}`),
    ['src/build_index.py:4', 'src/chat_reranker.py:6', 'src/chat_reranker_guarded.py:6', 'src/rag_chat.py:10']);
  assert.is(body.total, 4);
  assertEvidenceChecks(repo, body.evidence);
  // The generation that answered, on stderr as other commands' footers say it (stdout keeps the contract's shape):
  // the daemon's own, and it moves with the index.
  const generationOf = (r: { stderr: string }): number => Number(/(?:^|\n)index generation (\d+)\n$/.exec(r.stderr)?.[1]);
  const statusGeneration = (): number => JSON.parse(evidex(['daemon', 'status', '--json']).stdout).generation as number;
  const before = generationOf(ok);
  assert.ok(before > 0, ok.stderr);
  // A new file makes a new generation: the call then says that one (checked until the call and the daemon's status agree,
  // as a watcher batch may land between them).
  write(repo, { 'notes/generation-probe.txt': 'a file that only moves the index on\n' });
  await waitFor('a call answered from the new generation', () => {
    const g = generationOf(evidex(['call', 'search_code', '{"query": "moves the index on"}']));
    return g > before && g === statusGeneration() ? g : null;
  }, 30_000, 50);
  // Gone again, from the tree and the index, so the diff below sees only its own change.
  rmSync(join(repo, 'notes/generation-probe.txt'));
  await waitFor('the probe out of the index', () => JSON.parse(evidex(['call', 'search_code', '{"query": "moves the index on"}']).stdout).total === 0 || null, 30_000, 50);

  const cases: Array<[string[], string]> = [
    [['call', 'search_code', '{"query": "x", "limit": "5"}'], 'invalid_arguments'],
    [['call', 'search_code', '{"query": "x", "bogus": 1}'], 'invalid_arguments'],
    [['call', 'read_evidence', '{"path": "src/rag_common.py"}'], 'invalid_arguments'],
    [['call', 'run_shell', '{"cmd": "ls"}'], 'unknown_tool'],
    [['call', 'read_evidence', '{"path": "../../etc/passwd", "start_line": 1}'], 'path_denied'],
    [['call', 'read_evidence', '{"path": "/etc/passwd", "start_line": 1}'], 'path_denied'],
    [['call', 'read_evidence', '{"path": ".env", "start_line": 1}'], 'secret_denied'],
    [['call', 'read_evidence', '{"path": "debug.log", "start_line": 1}'], 'not_indexed'],
    [['call', 'read_evidence', '{"path": "src/rag_common.py", "start_line": 9999}'], 'out_of_range'],
    [['call', 'read_git_diff', '{"base": "-x"}'], 'bad_ref'],
    [['call', 'read_git_diff', '{"base": "no-such-ref"}'], 'bad_ref'],
    [['call', 'search_code', 'not json'], 'invalid_arguments'],
  ];
  for (const [args, code] of cases) {
    const r = evidex(args);
    assert.is(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stdout}${r.stderr}`);
    const err = JSON.parse(r.stdout).error;
    assert.is(err.code, code, `${args.join(' ')} → ${r.stdout}`);
    assert.type(err.message, 'string');
    assert.not.match(err.message, /\n/);
  }
});

test('friendly commands print path:line: text that matches the files', () => {
  const s = evidex(['search', 'COLLECTION_NAME', '--limit', '200']);
  assert.is(s.code, 0, s.stderr);
  assert.ok(s.stdout.includes('src/rag_common.py:12: COLLECTION_NAME = "mobileai_docs"'), s.stdout);
  assert.match(s.stderr, /^\d+ of \d+ shown/m);
  const lines = readFileSync(join(repo, 'src/rag_common.py'), 'utf8').split('\n');
  for (const l of s.stdout.trim().split('\n')) {
    const m = /^(src\/rag_common\.py):(\d+): (.*)$/.exec(l);
    if (m) assert.is(m[3], lines[Number(m[2]) - 1]);
  }
  const first = evidex(['search', 'build_index', '--json']);
  assert.is(JSON.parse(first.stdout).evidence[0].kind, 'path_match');
  assert.is(JSON.parse(first.stdout).evidence[0].path, 'src/build_index.py');

  const sym = evidex(['symbol', 'Settings.Defaults.Retry', '--json']);
  const e = JSON.parse(sym.stdout).evidence;
  assert.is(e.length, 1);
  assert.is(e[0].kind, 'class');
  assertEvidenceChecks(repo, e);

  const read = evidex(['read', 'src/rag_common.py:12-13', '--context', '1']);
  assert.is(read.code, 0, read.stderr);
  assert.equal(read.stdout.trim().split('\n').map((l) => l.split(':')[1]), ['11', '12', '13', '14']);

  const bad = evidex(['read', 'src/rag_common.py:12', '--context', 'lots']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--context takes a whole number/);
});

test('diff shows a working-tree hunk with new-file line numbers', () => {
  appendFileSync(join(repo, 'src/rag_common.py'), 'EXTRA_SETTING = 1\n');
  const r = evidex(['diff', '--json']);
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.is(body.evidence.length, 1);
  const h = body.evidence[0];
  assert.is(h.kind, 'diff');
  assert.is(h.path, 'src/rag_common.py');
  const n = readFileSync(join(repo, 'src/rag_common.py'), 'utf8').trimEnd().split('\n').length;
  assert.ok(h.start_line <= n && h.end_line === n, JSON.stringify(h));
  assert.match(h.snippet, /\+EXTRA_SETTING = 1/);
});

test('--help on every command; unknown command and option are one-line usage errors', () => {
  const main = evidex(['--help']);
  assert.is(main.code, 0);
  for (const cmd of ['index', 'daemon', 'call', 'search', 'symbol', 'read', 'importers', 'diff', 'ask', 'eval', 'tools']) {
    assert.ok(main.stdout.includes(`evidex ${cmd}`), `main help lists ${cmd}`);
    const h = evidex([cmd, '--help']);
    assert.is(h.code, 0, cmd);
    assert.match(h.stdout, new RegExp(`^usage: evidex ${cmd}`), cmd);
  }
  const unknown = evidex(['frobnicate']);
  assert.is(unknown.code, 2);
  assert.is(unknown.stderr.trim().split('\n').length, 1);
  const opt = evidex(['search', 'x', '--frob']);
  assert.is(opt.code, 2);
  assert.match(opt.stderr, /unknown option --frob/);
});

test('the version: --version prints it, the main help names it, and the other ways people ask for it point to it', () => {
  const v = evidex(['--version']);
  assert.equal({ code: v.code, stderr: v.stderr }, { code: 0, stderr: '' });
  assert.match(v.stdout, /^\d+\.\d+\.\d+\S*\n$/);
  assert.match(evidex(['--help']).stdout.replace(/\s+/g, ' '), /`evidex --version` prints the version/);
  for (const asked of ['version', '-v', '-V']) {
    const r = evidex([asked]);
    assert.equal({ code: r.code, stdout: r.stdout }, { code: 2, stdout: '' }, asked);
    assert.is(r.stderr, `evidex: unknown command ${JSON.stringify(asked)}; \`evidex --version\` prints the version\n`, asked);
  }
});

test('--help fits 80 columns, broken only between words: every text of a command is there whole', async () => {
  const squash = (t: string) => t.replace(/\s+/g, ' ').trim();
  const main = evidex(['--help']).stdout;
  for (const cmd of ['index', 'daemon', 'call', 'search', 'symbol', 'read', 'importers', 'diff', 'ask', 'chat', 'eval', 'mcp', 'tools']) {
    const h = evidex([cmd, '--help']);
    assert.is(h.code, 0, cmd);
    for (const text of [h.stdout, main]) {
      const long = text.split('\n').filter((l) => [...l].length > 80);
      assert.equal(long, [], `${cmd}: lines over 80 columns`);
    }
    const { command } = await import(`../client/commands/${cmd}.js`) as { command: { usage: string; summary: string; details?: string; flags: Record<string, { help: string }> } };
    const texts = [command.usage, command.summary, ...Object.values(command.flags).map((f) => f.help)];
    for (const t of texts) {
      assert.ok(squash(h.stdout).includes(squash(t)), `${cmd} --help holds ${JSON.stringify(t)} whole`);
    }
    assert.ok(squash(main).includes(squash(command.usage)) && squash(main).includes(squash(command.summary)), `main help: ${cmd}`);
    for (const l of (command.details ?? '').split('\n')) assert.ok(squash(h.stdout).includes(squash(l)), `${cmd} details line ${JSON.stringify(l)}`);
  }
});

test('tools lists exactly the five, with the schemas the daemon validates with', () => {
  const r = evidex(['tools', '--json']);
  const names = JSON.parse(r.stdout).tools.map((t: { name: string }) => t.name);
  assert.equal(names, ['search_code', 'find_symbol', 'read_evidence', 'find_importers', 'read_git_diff']);
});

test('TS/JS from the command line: index counts the statements, symbol --kind takes the TS kinds, importers --via-reexports prints each chain', () => {
  const ts = join(tempDir('cli-ts'), 'repo');
  write(ts, {
    'src/log.ts': 'export interface Logger {\n  log(m: string): void;\n}\nexport const log = (m: string) => m;\n',
    'src/index.ts': "export * from './log';\n",
    'app.ts': "import { log } from './src';\nimport { z } from 'zod';\nlog('x');\n",
  });
  const run = (args: string[]) => evidex([...args, '--repo', ts], { cwd: ts });
  try {
    const idx = run(['index']);
    assert.is(idx.code, 0, idx.stderr);
    assert.match(idx.stdout, '  ts/js   3 imports in 3 TS/JS files: 2 in the repository, 1 external packages, 0 missing, 0 under an unreadable config\n');
    const sym = run(['symbol', 'Logger', '--kind', 'interface']);
    assert.is(sym.code, 0, sym.stderr);
    assert.is(sym.stdout, 'src/log.ts:1-3: interface Logger  export interface Logger {\n');
    assert.is(run(['symbol', 'Logger', '--kind', 'function']).stdout, '');
    const bad = run(['symbol', 'Logger', '--kind', 'struct']);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, 'interface');
    assert.is(run(['importers', 'src/log.ts']).stdout, "src/index.ts:1: export * from './log';\n");
    const via = run(['importers', 'src/log.ts', '--via-reexports']);
    assert.is(via.code, 0, via.stderr);
    assert.is(via.stdout, "# via src/index.ts\napp.ts:1: import { log } from './src';\nsrc/index.ts:1: export * from './log';\n");
    // From src/, every path of the answer — the "# via" line's too — is from there; --all takes the whole repository.
    const viaHere = evidex(['importers', 'log.ts', '--via-reexports', '--all', '--repo', ts], { cwd: join(ts, 'src') });
    assert.is(viaHere.code, 0, viaHere.stderr);
    assert.is(viaHere.stdout, "# via index.ts\n../app.ts:1: import { log } from './src';\nindex.ts:1: export * from './log';\n");
    assert.is(run(['importers', 'zod']).stdout, "app.ts:2: import { z } from 'zod';\n");
  } finally {
    run(['daemon', 'stop']);
  }
});

test('daemon status and stop', () => {
  const st = evidex(['daemon', 'status', '--json']);
  assert.is(st.code, 0, st.stdout + st.stderr);
  assert.is(JSON.parse(st.stdout).running, true);
  // The human form lists the daemon's own answer times, per tool called so far.
  assert.is(evidex(['symbol', 'Chunk']).code, 0);
  assert.is(evidex(['call', 'find_symbol', '{"name": 5}']).code, 2);
  const human = evidex(['daemon', 'status']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /^latency {6}daemon side, message read to answer written:$/m);
  const line = /^ {2}tools\/call find_symbol +(\d+) calls · p50 [\d.]+ ms · p99 [\d.]+ ms · max [\d.]+ ms · \d+ over 1 ms · (\d+) refused or failed$/m.exec(human.stdout);
  assert.ok(line, human.stdout);
  assert.ok(Number(line![1]) >= 2 && Number(line![2]) >= 1, line![0]);
  const stop = evidex(['daemon', 'stop']);
  assert.is(stop.code, 0, stop.stderr);
  const after = evidex(['daemon', 'status', '--json']);
  assert.is(after.code, 3);
  assert.is(JSON.parse(after.stdout).running, false);
});

test('daemon start: a bad EVIDEX_* setting is refused before spawning; a daemon that dies at start is reported with its last log line', async () => {
  const bad = evidex(['daemon', 'start'], { env: { EVIDEX_WARMUP: 'bogus' } });
  assert.equal({ code: bad.code, stderr: bad.stderr }, { code: 2, stderr: 'evidex: EVIDEX_WARMUP: expected on or off, got "bogus"\n' });
  // A port already taken: the daemon exits at once, and start says why instead of waiting out its 30 s.
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    // The port is held by the kernel, so this process may block in spawnSync meanwhile.
    const r = evidex(['daemon', 'start'], { env: { EVIDEX_PORT: String((taken.address() as AddressInfo).port) } });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^evidex: the evidex daemon for .* exited at start \(status 1\): evidex daemon: listen EADDRINUSE: .*; log: .*daemon\.log\n$/);
    assert.not.match(r.stderr, 'did not start within');
  } finally {
    taken.close();
  }
});

test("README's main-job command prints the four importers", () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const cmd = /^node dist\/client\/bin\.js (.+)$/m.exec(readme);
  assert.ok(cmd, 'README has a node dist/client/bin.js command');
  const args = cmd![1].split(' ');
  const r = evidex(args, { cwd: PROJECT_ROOT });
  try {
    assert.is(r.code, 0, r.stderr);
    // Printed from where the command is typed (the root lies below it), so each path works as typed there.
    assert.match(r.stdout, /^fixtures\/mobileai-local-rag\/src\/build_index\.py:4: import rag_common as rc$/m);
    assert.match(r.stdout, /^fixtures\/mobileai-local-rag\/src\/rag_chat\.py:10: from rag_common import \($/m);
  } finally {
    evidex(['daemon', 'stop', '--repo', FIXTURE], { cwd: PROJECT_ROOT });
  }
});

test.after(() => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});
test.run();
