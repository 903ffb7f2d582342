// `evidex mcp` as an MCP host runs it: a real `evidex mcp` process driven by
// the SDK's own client over stdio (StdioClientTransport), against a copy of the
// fixture (a real git repo) with its own EVIDEX_HOME, so the daemon behind it is
// a real one that the server starts itself. Every answer is compared with what
// a plain daemon client gets for the same call, and its evidence is checked
// against the files.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, daemonStop, openSocket, type Client } from '../client/connection.js';
import { clientHeaderName } from '../client/mcp/daemon-link.js';
import {
  checkCancellation, checkCancelledAudit, checkEveryTool, checkInitialize, checkNoArguments, checkRefusals, checkToolList, daemonPid, stopDaemon, whileDaemonStopped,
} from './helpers/mcp-host.js';
import { canonicalRoot } from '../local/root.js';
import { stateDirFor } from '../local/state.js';
import { daemonEnv, fixtureCopy, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const repo = fixtureCopy({ git: true });
const env = daemonEnv(tempDir('mcp-home')) as Record<string, string>;
const HOST = 'evidex-test-host';

let stderr = '';
async function startMcp(name = HOST): Promise<McpClient> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--repo', repo], env, stderr: 'pipe' });
  transport.stderr?.on('data', (b: Buffer) => { stderr += b.toString(); });
  const client = new McpClient({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

let mcp: McpClient;
let direct: Client;

async function call(name: string, args: Record<string, unknown>) {
  return mcp.callTool({ name, arguments: args });
}

test.before(async () => {
  mcp = await startMcp();
  // No daemon ran for this root: the MCP server started one, which a plain client now finds.
  await mcp.listTools();
  direct = await connect(repo, { env, autoStart: false });
});

test('initialize: the server names itself, offers tools and says what its evidence is', () => checkInitialize(mcp, repo));

test('tools/list: exactly the allowlist, with the daemon\'s zod-generated schemas and model-facing descriptions', () => checkToolList(mcp));

test('tools/call: each tool answers as structuredContent and the same JSON as text, equal to a daemon client\'s answer', () => checkEveryTool(mcp, direct, repo, 'MCP_MARKER = 1'));

test('tools/call: every refusal is an isError result with the one-line reason, and the server keeps serving', () => checkRefusals(mcp, direct, repo));

test('tools/call without arguments is the same as {}: an all-optional tool answers, a required field is named', () => checkNoArguments(mcp));

test('cancellation: a cancelled call is cancelled in the daemon too, and the server answers the next call', () => checkCancellation(mcp, direct, repo, env));

test('a call cancelled after it reached the daemon is audited as cancelled, without the items the host never got', () => checkCancelledAudit(mcp, repo, env));

test('a call cancelled before its turn came is audited as cancelled, not as an internal error', async () => {
  const audited = (): Array<{ tool: string; arguments: { path?: string }; decision: string; code?: string; reason?: string }> => {
    try { return readFileSync(join(stateDirFor(canonicalRoot(repo), env), 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; }
  };
  const before = audited().length;
  let first: Promise<unknown> = Promise.resolve();
  await whileDaemonStopped(repo, env, async (stopped) => {
    // The stopped daemon reads all three at once: the first call takes the turn, the second waits
    // for it, and its cancellation is read before that turn comes.
    // Told apart by its path: the previous test's cancelled `read_git_diff {}` may reach the audit log after `before`.
    first = mcp.callTool({ name: 'read_git_diff', arguments: { path: 'docs' } });
    await stopped.reached();
    const ac = new AbortController();
    const second = mcp.callTool({ name: 'read_git_diff', arguments: { path: 'src' } }, undefined, { signal: ac.signal });
    await stopped.reached();
    const rejected = second.then(() => assert.unreachable('the call was cancelled'), (e: unknown) => assert.ok(e, 'rejected'));
    ac.abort('the host gave up');
    await stopped.reached();
    await rejected;
  });
  await first;
  const lines = await waitFor('both calls in the audit log', () => {
    const all = audited().slice(before);
    return all.some((l) => l.arguments.path === 'src') && all.some((l) => l.arguments.path === 'docs') ? all : null;
  });
  const cancelled = lines.find((l) => l.arguments.path === 'src')!;
  assert.equal([cancelled.decision, cancelled.code, cancelled.reason], ['cancelled', undefined, 'request cancelled by the client'], JSON.stringify(cancelled));
  assert.is(lines.find((l) => l.arguments.path === 'docs')!.decision, 'allowed');
});

test('a stopped daemon: the next call starts a new one and answers', async () => {
  await direct.close();
  const r = await daemonStop(repo, { env });
  assert.is(r.stopped, true);
  const again = await call('find_symbol', { name: 'Settings' });
  assert.is(again.isError, undefined, JSON.stringify(again.content));
  direct = await connect(repo, { env });
  assert.match(stderr, /daemon connection closed/);
});

test('the daemon gone with a call in flight: daemon_unavailable, saying how to go on; the next call starts a new daemon', async () => {
  await direct.close();
  const { pid, reached } = await stopDaemon(repo, env);
  const pending = call('read_git_diff', {});
  await reached();
  process.kill(pid, 'SIGKILL');
  const r = await pending;
  assert.is(r.isError, true);
  const text = (r.content as Array<{ text: string }>)[0].text;
  assert.match(text, /^daemon_unavailable: the evidex daemon stopped while this call ran \(connection (closed|error)[^;]*\); retry: the next call starts a new daemon$/);
  const again = await call('find_symbol', { name: 'Settings' });
  assert.is(again.isError, undefined, JSON.stringify(again.content));
  assert.is.not(await daemonPid(repo, env), pid);
  direct = await connect(repo, { env });
});

test('stdin closed: the server exits 0 at once; stdout held only JSON-RPC messages', async () => {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'mcp', '--repo', repo], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '0' } } })}\n`);
  await waitFor('initialize answered', () => out.includes('\n'), 20_000, 5);
  const initMs = performance.now() - t0;
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'COLLECTION_NAME', limit: 1 } } })}\n`);
  await waitFor('tools/call answered', () => out.split('\n').length > 2, 20_000, 5);
  const closedAt = performance.now();
  child.stdin.end();
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000))]);
  if (code === 'hung') child.kill('SIGKILL');
  assert.is(code, 0);
  const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { jsonrpc: string; id?: number });
  assert.ok(lines.every((m) => m.jsonrpc === '2.0'), out);
  assert.equal(lines.map((m) => m.id), [1, 2]);
  console.log(`evidex mcp: initialize answered ${initMs.toFixed(0)} ms after spawn; exit ${(performance.now() - closedAt).toFixed(0)} ms after stdin closed (loaded machine)`);
});

test('a start that fails says so in one stderr line starting `evidex mcp:`, like every other line the server writes', () => {
  const cases: Array<[string[], number, RegExp]> = [
    [['--repo', join(repo, 'no-such-folder')], 2, /^evidex mcp: no such folder: /],
    [['--repo', repo, '--port', '3'], 2, /^evidex mcp: --port goes with --http; usage: evidex mcp /],
    [['--repo', repo, 'extra'], 2, /^evidex mcp: /],
    [['--repo', repo, '--http', '--host', 'example.com'], 2, /^evidex mcp: --host takes an IP address/],
  ];
  for (const [args, exit, line] of cases) {
    const r = spawnSync(process.execPath, [BIN, 'mcp', ...args], { env, encoding: 'utf8', input: '' });
    assert.is(r.status, exit, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stdout, '', 'stdout is the protocol\'s alone');
    const lines = r.stderr.split('\n').filter(Boolean);
    assert.is(lines.length, 1, r.stderr);
    assert.match(lines[0], line);
  }
  // Other commands keep their own prefix.
  const other = spawnSync(process.execPath, [BIN, 'search', 'x', '--repo', join(repo, 'no-such-folder')], { env, encoding: 'utf8' });
  assert.match(other.stderr, /^evidex: no such folder: /);
  assert.is(other.status, 2, 'a missing --repo is a usage error');
});

test('the host\'s name is sent as a header value: printable ASCII, never empty', () => {
  assert.is(clientHeaderName('Claude Desktop'), 'Claude Desktop');
  assert.is(clientHeaderName('zed\r\nX-Evil: 1'), 'zed??X-Evil: 1');
  assert.is(clientHeaderName('  '), 'mcp');
  assert.is(clientHeaderName(undefined), 'mcp');
});

test('the daemon connection carries the host\'s name as X-Evidex-Client (a real ws server reads the upgrade)', async () => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const seen = new Promise<string | undefined>((r) => wss.once('connection', (_ws, req) => r(req.headers['x-evidex-client'] as string | undefined)));
  const { port } = wss.address() as { port: number };
  const info = { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: 't', root: repo };
  const ws = await openSocket(info, 5000, { clientName: clientHeaderName('Zed Editor') });
  assert.is(await seen, 'Zed Editor');
  ws.terminate();
  await new Promise((r) => wss.close(r));
});

/** Every module a file loads through static imports (relative ones followed, packages listed by name). */
function staticImports(file: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^(?:import|export)\s+(?:[^;']*?from\s+)?'([^']+)'/gm)) {
    if (m[1].startsWith('.')) staticImports(resolve(dirname(file), m[1]), seen, packages);
    else packages.add(m[1]);
  }
  return packages;
}

test('the MCP SDK stays out of the CLI\'s and the daemon\'s load path (only `evidex mcp` imports it)', () => {
  // What each walk must reach, so a walk that stopped at the entry file cannot pass: the CLI's
  // argument parser (the thin client loads its commands on demand, so a tool command, which
  // reaches the path handling of the tool commands, is walked too) and the daemon's ws server.
  // The executable itself imports nothing statically (node:module comes from process.getBuiltinModule), then,
  // dynamically, the compile cache's switch and the CLI (run.js).
  assert.equal([...staticImports(join(PROJECT_ROOT, 'dist', 'client', 'bin.js'))], []);
  const binText = readFileSync(join(PROJECT_ROOT, 'dist', 'client', 'bin.js'), 'utf8');
  // (local/node-line.js and local/human.js only on a Node too old to run the CLI, to say which lines it supports.)
  assert.equal([...binText.matchAll(/import\('([^']+)'\)/g)].map((m) => m[1]), ['../local/node-line.js', '../local/human.js', './code-cache.js', './run.js']);
  // What each walk reaches: a module two imports away (the CLI's modules take Node's builtins from
  // process.getBuiltinModule, so no builtin shows it), or for the daemon the ws package.
  const deep = [['client/run.js', 'client/command.js'], ['client/code-cache.js', 'local/state-trust.js'], ['client/commands/search.js', 'local/root.js'], ['daemon/main.js', 'ws']];
  for (const [entry, reached] of deep) {
    const files = new Set<string>();
    const pkgs = [...staticImports(join(PROJECT_ROOT, 'dist', entry), files)];
    const walked = [...files].map((f) => relative(join(PROJECT_ROOT, 'dist'), f).split(sep).join('/'));
    assert.ok(pkgs.includes(reached) || walked.includes(reached), `${entry}: the walk follows imports to ${reached} (${walked.join(', ')}; ${pkgs.join(', ')})`);
    assert.equal(pkgs.filter((p) => p.startsWith('@modelcontextprotocol/')), [], entry);
  }
  assert.ok([...staticImports(join(PROJECT_ROOT, 'dist', 'client', 'mcp', 'server.js'))].some((p) => p.startsWith('@modelcontextprotocol/sdk')));
});

test.after(async () => {
  await mcp?.close();
  await direct?.close();
  await daemonStop(repo, { env });
  cleanupTemp();
});

test.run();
