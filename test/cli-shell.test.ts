// The CLI as a shell user meets it (issue 19): real `evidex` processes against
// a git copy of the fixture with a real daemon. Paths relative to the current
// folder, repeated options, `--`, one line per definition, whole-file reads
// with paging, path matches as path:1:, colour, "did you mean", the error
// mapping, the client's name header, and what a tool call loads.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer } from 'ws';
import { connect, openSocket } from '../client/connection.js';
import { userError } from '../client/errors.js';
import { gitTopLevel, workTreeOf } from '../local/root.js';
import { ANSWER_TOO_LARGE, MESSAGE_TOO_LARGE, RpcError } from '../protocol/jsonrpc.js';
import { CLIENT_NAME_HEADER, Methods } from '../protocol/messages.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { fixtureCopy } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, git, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('cli-shell-home');
const repo = fixtureCopy({ git: false });
// A file past the read cap, and one holding an option-like string; committed so `diff` starts clean.
const BIG_LINES = 450;
writeFileSync(join(repo, 'src', 'big.py'), Array.from({ length: BIG_LINES }, (_, i) => `LINE_${i + 1} = ${i + 1}`).join('\n') + '\n');
writeFileSync(join(repo, 'notes', 'flags.txt'), 'pip install --no-deps thing\n');
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
const src = join(repo, 'src');
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '' };

function evidex(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string[] } = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...(opts.node ?? []), BIN, ...args], {
    cwd: opts.cwd ?? repo, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20, env: { ...env, ...opts.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (r: { stdout: string }) => JSON.parse(r.stdout) as { evidence: Array<{ path: string; start_line: number; end_line: number; kind: string; name: string; snippet: string }>; total: number };
const fileLines = (rel: string) => readFileSync(join(repo, rel), 'utf8').replace(/\n$/, '').split('\n');

test('path arguments are relative to the current folder inside the root; call keeps root-relative paths', () => {
  const r = evidex(['read', 'rag_common.py:12', '--json'], { cwd: src });
  assert.is(r.code, 0, r.stderr);
  assert.is(json(r).evidence[0].path, 'src/rag_common.py');
  assertEvidenceChecks(repo, json(r).evidence);
  // An absolute path inside the root, and one that climbs out of a subfolder but stays inside.
  assert.is(json(evidex(['read', `${join(src, 'rag_common.py')}:1`, '--json'], { cwd: src })).evidence[0].path, 'src/rag_common.py');
  assert.is(json(evidex(['read', '../docs/README.md:1', '--json'], { cwd: src })).evidence[0].path, 'docs/README.md');
  // --path-prefix . from src/ keeps src/ only; from the root it would keep everything.
  const under = json(evidex(['search', 'COLLECTION_NAME', '--path-prefix', '.', '--json', '--limit', '200'], { cwd: src }));
  assert.ok(under.evidence.length > 0 && under.evidence.every((e) => e.path.startsWith('src/')), JSON.stringify(under.evidence.map((e) => e.path)));
  // Without a prefix, a subfolder is searched (as git grep does, test/cli-subfolder); --all searches the whole root.
  const scoped = json(evidex(['search', 'COLLECTION_NAME', '--json', '--limit', '200'], { cwd: src }));
  assert.equal(scoped.evidence, under.evidence);
  const all = json(evidex(['search', 'COLLECTION_NAME', '--json', '--limit', '200', '--all'], { cwd: src }));
  assert.ok(all.evidence.some((e) => !e.path.startsWith('src/')), 'with --all the whole root is searched');
  // Out of the root is refused by the daemon's own rule.
  const out = evidex(['read', '../../../etc/passwd:1'], { cwd: src });
  assert.is(out.code, 2, out.stderr);
  assert.match(out.stderr, /^evidex: path_denied: /);
  // `call` passes its JSON as given: tools see root-relative paths.
  const call = evidex(['call', 'read_evidence', '{"path": "rag_common.py", "start_line": 1}'], { cwd: src });
  assert.is(call.code, 2);
  assert.is(JSON.parse(call.stdout).error.code, 'not_indexed');
  // It says so, with the path the tool takes, when the file is there from here.
  assert.match(JSON.parse(call.stdout).error.message, /; evidex call takes paths from the repository root: "rag_common\.py" from here is "src\/rag_common\.py"$/);
  assert.not.match(JSON.parse(evidex(['call', 'read_evidence', '{"path": "nope.py", "start_line": 1}'], { cwd: src }).stdout).error.message, /from here/);
});

test('the repository root is found as git finds it, without starting git', () => {
  for (const dir of [repo, src, join(src, 'mobileai_rag')]) {
    assert.is(gitTopLevel(dir, {}), realpathSync(git(dir, ['rev-parse', '--show-toplevel']).trim()), dir);
  }
  assert.is(gitTopLevel(src, { GIT_DIR: join(repo, '.git') }), null, 'git is asked when its environment steers discovery');
});

test('where the filesystem cannot say, git is asked, with the user\'s GIT_* variables: they name the repository', async () => {
  // GIT_WORK_TREE names src/ as the work tree: git's answer, and only git's, is src/, not the folder holding .git.
  const steered = { ...process.env, GIT_DIR: join(repo, '.git'), GIT_WORK_TREE: src };
  assert.is(await workTreeOf(join(src, 'mobileai_rag'), steered), realpathSync(src));
  assert.is(await workTreeOf(join(src, 'mobileai_rag'), { ...process.env, GIT_DIR: undefined, GIT_WORK_TREE: undefined }), realpathSync(repo));
  const outside = tempDir('no-repo');
  assert.is(await workTreeOf(outside, { ...process.env, GIT_CEILING_DIRECTORIES: outside }), null, 'no work tree: null, not the folder');
});

test('diff PATH from a subfolder shows the hunk of that file', () => {
  appendFileSync(join(src, 'rag_common.py'), 'SHELL_EDIT = 1\n');
  try {
    const r = evidex(['diff', 'rag_common.py', '--json'], { cwd: src });
    assert.is(r.code, 0, r.stderr);
    const body = json(r);
    assert.is(body.total, 1, r.stdout);
    assert.is(body.evidence[0].path, 'src/rag_common.py');
    assert.match(body.evidence[0].snippet, /\+SHELL_EDIT = 1/);
  } finally {
    git(repo, ['checkout', '--', 'src/rag_common.py']);
  }
});

test('a repeated option is a usage error; -- ends the options', () => {
  const twice = evidex(['search', 'x', '--repo', repo, '--repo', src]);
  assert.equal({ code: twice.code, stderr: twice.stderr }, { code: 2, stderr: 'evidex: --repo given more than once\n' });
  const limit = evidex(['search', 'x', '--limit', '1', '--limit=2']);
  assert.is(limit.code, 2);
  const dashed = evidex(['search', '--json', '--', '--no-deps']);
  assert.is(dashed.code, 0, dashed.stderr);
  assert.equal(json(dashed).evidence.map((e) => `${e.path}:${e.start_line}`), ['notes/flags.txt:1']);
});

test('symbol prints one line per definition; --body prints the spans', () => {
  const j = json(evidex(['symbol', '__init__', '--json', '--limit', '200']));
  assert.ok(j.evidence.length >= 2, 'several __init__ definitions');
  const r = evidex(['symbol', '__init__', '--limit', '200']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.replace(/\n$/, '').split('\n');
  assert.is(lines.length, j.evidence.length);
  lines.forEach((l, i) => {
    const e = j.evidence[i];
    const span = e.start_line === e.end_line ? `${e.start_line}` : `${e.start_line}-${e.end_line}`;
    assert.is(l, `${e.path}:${span}: ${e.kind} ${e.name}  ${fileLines(e.path)[e.start_line - 1].trim()}`);
  });
  const body = evidex(['symbol', '__init__', '--body', '--limit', '200']);
  const bodyLines = body.stdout.split('\n').filter((l) => /^[^#].*:\d+: /.test(l));
  assert.is(bodyLines.length, j.evidence.reduce((n, e) => n + e.end_line - e.start_line + 1, 0));
  for (const l of bodyLines) {
    const m = /^(.+?):(\d+): (.*)$/.exec(l)!;
    assert.is(m[3], fileLines(m[1])[Number(m[2]) - 1]);
  }
});

test('read FILE prints the whole file; past the cap it stops at 400 lines and says how to go on', () => {
  const whole = evidex(['read', 'rag_common.py'], { cwd: src });
  assert.is(whole.code, 0, whole.stderr);
  // Paths printed relative to the current folder (src/), as the file was named.
  const want = fileLines('src/rag_common.py').map((t, i) => `rag_common.py:${i + 1}: ${t}`);
  assert.equal(whole.stdout.replace(/\n$/, '').split('\n'), want);
  assert.not.match(whole.stderr, /read on/);
  const big = evidex(['read', 'big.py'], { cwd: src });
  assert.is(big.code, 0, big.stderr);
  assert.is(big.stdout.replace(/\n$/, '').split('\n').length, 400);
  const note = /read on with `evidex read (big\.py:401-800)`/.exec(big.stderr);
  assert.ok(note, big.stderr);
  // The hint works as printed, from where it was printed.
  const rest = evidex(['read', note![1]], { cwd: src });
  assert.is(rest.code, 0, rest.stderr);
  const restLines = rest.stdout.replace(/\n$/, '').split('\n');
  assert.is(restLines.length, BIG_LINES - 400);
  assert.is(restLines[restLines.length - 1], `big.py:${BIG_LINES}: LINE_${BIG_LINES} = ${BIG_LINES}`);
});

test('path matches print as path:1: so editors can jump to them', () => {
  const r = evidex(['search', 'build_index']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^src\/build_index\.py:1: \[path match\]$/m);
});

test('colour: --color always highlights the match; never, NO_COLOR and a pipe do not', () => {
  const always = evidex(['search', 'collection_name', '--color', 'always']);
  assert.is(always.code, 0, always.stderr);
  assert.ok(always.stdout.includes('\x1b[35msrc/rag_common.py\x1b[0m:\x1b[32m12\x1b[0m: \x1b[1;31mCOLLECTION_NAME\x1b[0m = "mobileai_docs"'), JSON.stringify(always.stdout));
  for (const [args, extra] of [[['--color', 'never'], {}], [[], {}], [['--color', 'auto'], { NO_COLOR: '1' }]] as const) {
    const r = evidex(['search', 'COLLECTION_NAME', ...args], { env: extra });
    assert.is(r.code, 0, r.stderr);
    assert.not.match(r.stdout, /\x1b\[/, args.join(' '));
  }
  const bad = evidex(['search', 'x', '--color', 'sometimes']);
  assert.equal({ code: bad.code, stderr: bad.stderr }, { code: 2, stderr: 'evidex: --color takes auto, always, never; got "sometimes"\n' });
});

test('a near-miss command gets "did you mean"; a far one does not; --help per command explains it', () => {
  const near = evidex(['serch', 'x']);
  assert.equal({ code: near.code, stderr: near.stderr }, { code: 2, stderr: 'evidex: unknown command "serch"; did you mean `evidex search`? (run `evidex --help`)\n' });
  assert.match(evidex(['symbols', 'x']).stderr, /did you mean `evidex symbol`/);
  assert.not.match(evidex(['frobnicate']).stderr, /did you mean/);
  const h = evidex(['read', '--help']);
  assert.is(h.code, 0);
  assert.match(h.stdout.replace(/\s+/g, ' '), /relative to the current folder/, 'said, wherever --help breaks the line');
  assert.match(h.stdout, /^examples:$/m);
  assert.equal(evidex(['help', 'read']).stdout, h.stdout);
});

test('error mapping: refusals exit 2, a daemon shutting down or an internal error exits 1 and is not invalid_arguments', async () => {
  const c = await connect(repo, { env });
  try {
    await c.request(Methods.daemonShutdown);
    const e = await c.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'x' } }).then(() => null, (err: unknown) => err);
    assert.ok(e instanceof RpcError, String(e));
    const u = userError(e);
    assert.ok(u.exit === 1 && u.code !== 'invalid_arguments', JSON.stringify(u));
  } finally {
    await c.close();
  }
  assert.equal(userError(new RpcError(-32603, 'internal error: boom')), { code: 'internal_error', message: 'internal error: boom', exit: 1, plain: false });
  assert.is(userError(new RpcError(-32001, 'x', { code: 'internal_error', message: 'internal error: x' })).exit, 1);
  assert.is(userError(new RpcError(-32001, 'no', { code: 'path_denied', message: 'no' })).exit, 2);
  // A gone root's refusal says since when as the local clock, as daemon status does (local/when.ts), not in ISO UTC.
  const gone = userError(new RpcError(-32001, 'x', { code: 'index_unavailable', message: 'nothing is answered from the index: /r is gone (since 2026-12-07T06:51:08.457Z)' }));
  assert.equal({ code: gone.code, exit: gone.exit }, { code: 'index_unavailable', exit: 2 });
  assert.match(gone.message, /^nothing is answered from the index: \/r is gone \(since (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d, [^)]+ ago\)$/);
  assert.is(userError(new RpcError(-32602, 'bad', { code: 'invalid_arguments', message: 'bad' })).exit, 2);
  // -32003 carries answer_too_large in its data when the answer was too big, and nothing when the request was.
  assert.equal(userError(new RpcError(MESSAGE_TOO_LARGE, 'big', { code: ANSWER_TOO_LARGE, message: 'big', limit: 4 })), { code: 'answer_too_large', message: 'big', exit: 2, plain: false });
  assert.is(userError(new RpcError(MESSAGE_TOO_LARGE, 'message too large')).code, 'message_too_large');
});

test('the client names itself with the X-Evidex-Client upgrade header (the CLI: cli)', async () => {
  const seen: Array<string | undefined> = [];
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws, req: IncomingMessage) => { seen.push(req.headers[CLIENT_NAME_HEADER.toLowerCase()] as string | undefined); ws.close(); });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  const info = { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: 't', root: repo };
  try {
    (await openSocket(info, 5000, { clientName: 'cli' })).terminate();
    (await openSocket(info)).terminate();
    assert.equal(seen, ['cli', undefined]);
  } finally {
    wss.close();
    http.close();
  }
});

/**
 * What `evidex ARGS` loads: every module the ESM loader resolves (a resolve
 * hook), CommonJS ones (NODE_DEBUG=module), and Node's own builtins
 * (process.moduleLoadList at exit, written by a preload that imports nothing).
 */
function loadedBy(args: string[], name: string): { loaded: string; builtins: string[] } {
  const dir = tempDir(name);
  const log = join(dir, 'resolved.txt');
  const builtinLog = join(dir, 'builtins.txt');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(hook, `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`);
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`;
  const atExit = `const fs = process.getBuiltinModule('node:fs'); process.on('exit', () => fs.writeFileSync(${JSON.stringify(builtinLog)}, process.moduleLoadList.join('\\n')));`;
  const dataUrl = (js: string) => `data:text/javascript,${encodeURIComponent(js)}`;
  const r = evidex(args, { node: ['--import', dataUrl(register), '--import', dataUrl(atExit)], env: { NODE_DEBUG: 'module' } });
  assert.is(r.code, 0, r.stderr);
  return { loaded: `${readFileSync(log, 'utf8')}\n${r.stderr}`, builtins: readFileSync(builtinLog, 'utf8').split('\n') };
}

/** Packages no CLI call needs: the index's store, the parsers, the models' clients, zod (the daemon validates). */
const NOT_IN_A_CALL = /node_modules\/(lmdb|tree-sitter|tree-sitter-python|typescript|ollama|openai|zod)\//;

test('a tool call loads nothing of the daemon or the indexer (but its import-free limits.ts and suggestion-groups.ts), lmdb, tree-sitter, typescript, ollama, openai, zod or fs/promises', () => {
  assert.is(evidex(['search', 'x']).code, 0, 'a daemon runs (an earlier test stopped it): what is measured is a call to it');
  for (const [i, args] of [['search', 'COLLECTION_NAME'], ['symbol', 'VectorStore']].entries()) {
    const { loaded, builtins } = loadedBy(args, `loads-${i}`);
    assert.match(loaded, /dist\/client\/connection\.js/, 'the hook saw the client modules');
    // indexer/query/limits.ts is allowed: a few lines with no imports, the bounds `read FILE` pages by and the snippet cut;
    // so is indexer/query/suggestion-groups.ts, no imports either: what each of find_importers' near misses names.
    // The client knows a daemon through local/ and protocol/ alone: nothing of daemon/ is loaded.
    for (const banned of [/dist\/indexer\/(?!query\/(?:limits|suggestion-groups)\.js)/, NOT_IN_A_CALL, /dist\/daemon\//]) {
      assert.not.match(loaded, banned, `${args[0]} loaded: ${loaded.split('\n').filter((l) => banned.test(l)).join(' ')}`);
    }
    // fs/promises (with readline, watchers, streams) is loaded by importing node:fs or by its first use; Node 20's
    // own ES module loader reads files with it, so there it is loaded whatever evidex does.
    if (Number(process.versions.node.split('.')[0]) >= 22) assert.not.ok(builtins.includes('NativeModule internal/fs/promises'), `${args[0]} loaded fs/promises`);
    assert.not.ok(builtins.includes('NativeModule perf_hooks'), `${args[0]} loaded perf_hooks`);
  }
});

test('--help and --version load none of those packages, nor anything of the daemon', () => {
  for (const [i, args] of [['--help'], ['--version']].entries()) {
    const { loaded } = loadedBy(args, `loads-help-${i}`);
    for (const banned of [NOT_IN_A_CALL, /dist\/daemon\//]) assert.not.match(loaded, banned, `${args[0]} loaded: ${loaded.split('\n').filter((l) => banned.test(l)).join(' ')}`);
  }
});

test('Ctrl-C during evidex index: the progress line is finished, one line says so, the process dies of SIGINT; the next index completes', async () => {
  const big = join(tempDir('interrupt'), 'repo');
  mkdirSync(big);
  // Enough files that the build is still running when the first progress line appears.
  for (let i = 0; i < 4000; i++) writeFileSync(join(big, `m${i}.py`), `import os\n\ndef f${i}(x):\n    return os.path.join(x, "${i}")\n`);
  const child = spawn(process.execPath, [BIN, 'index', '--repo', big], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const firstLine = new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); if (stderr.includes('\n')) resolve(); }));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await firstLine;
    child.kill('SIGINT');
    const end = await exited;
    assert.equal(end, { code: null, signal: 'SIGINT' }, stderr);
    assert.match(stderr, /\nevidex: interrupted; .*\n$/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const again = evidex(['index', '--repo', big, '--json']);
  assert.is(again.code, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).files, 4000);
});

test.after(() => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});
test.run();
