// `evidex mcp` as an MCP host runs it: a real `evidex mcp` process driven by
// the SDK's own client over stdio (StdioClientTransport), against a copy of the
// fixture (a real git repo) with its own EVIDEX_HOME, so the daemon behind it is
// a real one that the server starts itself. Every answer is compared with what
// a plain daemon client gets for the same call, and its evidence is checked
// against the files.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { WebSocketServer } from 'ws';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, daemonStop, openSocket, type Client } from '../client/connection.js';
import { clientHeaderName } from '../client/mcp/server.js';
import { canonicalRoot } from '../local/root.js';
import { readDaemonInfo, stateDirFor } from '../local/state.js';
import { TOOL_NAMES, toolDescriptors } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { daemonEnv, fixtureCopy, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';
import { Methods } from '../protocol/messages.js';

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

test('initialize: the server names itself, offers tools and says what its evidence is', () => {
  assert.is(mcp.getServerVersion()?.name, 'evidex');
  assert.ok(mcp.getServerCapabilities()?.tools, 'tools capability');
  assert.not.ok(mcp.getServerCapabilities()?.resources, 'nothing but tools is exposed');
  assert.not.ok(mcp.getServerCapabilities()?.prompts, 'nothing but tools is exposed');
  assert.ok(mcp.getInstructions()?.includes(canonicalRoot(repo)), mcp.getInstructions());
});

test('tools/list: exactly the allowlist, with the daemon\'s zod-generated schemas and model-facing descriptions', async () => {
  const { tools } = await mcp.listTools();
  assert.equal(tools.map((t) => t.name), TOOL_NAMES);
  const ours = toolDescriptors();
  for (const t of tools) {
    const d = ours.find((x) => x.name === t.name)!;
    assert.equal(t.inputSchema, d.inputSchema, `${t.name} inputSchema`);
    assert.equal(t.outputSchema, d.outputSchema, `${t.name} outputSchema`);
    assert.ok(t.description!.startsWith(d.description), `${t.name}: the allowlist's own description comes first`);
    assert.ok(t.description!.length > d.description.length + 40, `${t.name}: says when to use it`);
    if ((d.inputSchema.properties as Record<string, unknown>).limit) assert.match(t.description!, /`total` counts every match/);
    assert.is(t.annotations?.readOnlyHint, true);
    assert.is(t.annotations?.destructiveHint, false);
  }
  assert.equal((tools[0].outputSchema as { required?: string[] }).required?.sort(), ['evidence', 'generation', 'total']);
});

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['search_code', { query: 'COLLECTION_NAME' }],
  ['search_code', { query: 'def ', limit: 3 }],
  ['find_symbol', { name: 'Settings' }],
  ['read_evidence', { path: 'src/rag_common.py', start_line: 1, end_line: 8, context: 2 }],
  ['find_importers', { module_name: 'rag_common' }],
];

test('tools/call: each tool answers as structuredContent and the same JSON as text, equal to a daemon client\'s answer', async () => {
  appendFileSync(join(repo, 'src', 'rag_common.py'), '\nMCP_MARKER = 1\n');
  for (const [name, args] of [...CALLS, ['read_git_diff', {}] as [string, Record<string, unknown>]]) {
    const r = await call(name, args);
    const where = `${name} ${JSON.stringify(args)}`;
    assert.is(r.isError, undefined, `${where}: ${JSON.stringify(r.content)}`);
    const content = r.content as Array<{ type: string; text: string }>;
    assert.is(content.length, 1);
    assert.is(content[0].type, 'text');
    assert.equal(JSON.parse(content[0].text), r.structuredContent, where);
    const s = r.structuredContent as { evidence: Array<{ path: string; start_line: number; end_line: number; kind: string; name: string; snippet: string }>; total: number; generation: number };
    assert.ok(s.evidence.length > 0, `${where}: found something`);
    assert.ok(s.total >= s.evidence.length && Number.isInteger(s.generation), where);
    assertEvidenceChecks(repo, s.evidence);
    const own = await direct.requestRaw('tools/call', { name, arguments: args }) as typeof s;
    assert.equal(s.evidence, own.evidence, `${where}: same items as the daemon's own answer`);
    assert.is(s.total, own.total, where);
  }
  const diff = (await call('read_git_diff', {})).structuredContent as { evidence: Array<{ snippet: string }> };
  assert.ok(diff.evidence.some((e) => e.snippet.includes('+MCP_MARKER = 1')), 'the diff shows the edit');
});

test('tools/call: every refusal is an isError result with the one-line reason, and the server keeps serving', async () => {
  writeFileSync(join(repo, '.env.local'), 'TOKEN=very-secret\n');
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['write_file', { path: 'x' }, 'unknown_tool'],
    ['search_code', { query: 'x', limit: '5' }, 'invalid_arguments'],
    ['search_code', { query: 'x', regex: true }, 'invalid_arguments'],
    ['read_evidence', { start_line: 1 }, 'invalid_arguments'],
    ['read_evidence', { path: '../../etc/passwd', start_line: 1 }, 'path_denied'],
    ['read_evidence', { path: '/etc/passwd', start_line: 1 }, 'path_denied'],
    ['read_evidence', { path: '.env', start_line: 1 }, 'secret_denied'],
    ['read_evidence', { path: '.env.local', start_line: 1 }, 'secret_denied'],
    ['read_evidence', { path: 'config/server.pem', start_line: 1 }, 'secret_denied'],
    ['read_git_diff', { base: '--output=/tmp/x' }, 'bad_ref'],
  ];
  for (const [name, args, code] of cases) {
    const r = await call(name, args);
    const where = `${name} ${JSON.stringify(args)}`;
    assert.is(r.isError, true, where);
    assert.is(r.structuredContent, undefined, where);
    const text = (r.content as Array<{ text: string }>)[0].text;
    assert.ok(text.startsWith(`${code}: `), `${where}: ${text}`);
    assert.not.match(text, /\n/, `${where}: one line`);
    assert.not.match(text, /very-secret/, where);
    // The daemon refuses the same call with the same code: the MCP server adds no rules of its own.
    const own = await direct.requestRaw('tools/call', { name, arguments: args }).then(() => null, (e: { data?: { code?: string } }) => e.data?.code);
    assert.is(own, code, where);
  }
  const after = await call('search_code', { query: 'COLLECTION_NAME' });
  assert.is(after.isError, undefined);
});

test('tools/call without arguments is the same as {}: an all-optional tool answers, a required field is named', async () => {
  const diff = await mcp.callTool({ name: 'read_git_diff' });
  assert.is(diff.isError, undefined, JSON.stringify(diff.content));
  const bad = await mcp.callTool({ name: 'find_symbol' });
  assert.is(bad.isError, true);
  assert.match((bad.content as Array<{ text: string }>)[0].text, /^invalid_arguments: find_symbol: name/);
});

test('cancellation: a cancelled call is cancelled in the daemon too, and the server answers the next call', async () => {
  const stateDir = stateDirFor(canonicalRoot(repo), env);
  const info = (await readDaemonInfo(stateDir))!;
  const key = 'tools/call read_git_diff';
  const before = (await direct.request(Methods.indexStatus)).daemon.latency[key];
  // A stopped daemon holds the call and its cancellation unread; once resumed it reads
  // both together: git has started for the call when the cancellation arrives.
  process.kill(info.pid, 'SIGSTOP');
  const ac = new AbortController();
  const pending = mcp.callTool({ name: 'read_git_diff', arguments: {} }, undefined, { signal: ac.signal });
  try {
    await new Promise((r) => setTimeout(r, 300));
    ac.abort('the host gave up');
    await pending.then(() => assert.unreachable('the call was cancelled'), (e: unknown) => assert.ok(e, 'rejected'));
  } finally {
    process.kill(info.pid, 'SIGCONT');
  }
  const after = await waitFor('the daemon answered the cancelled call', async () => {
    const l = (await direct.request(Methods.indexStatus)).daemon.latency[key];
    return l && l.calls > (before?.calls ?? 0) ? l : null;
  });
  assert.is(after.calls - (before?.calls ?? 0), 1);
  assert.is(after.errors - (before?.errors ?? 0), 1, 'answered as cancelled, not with the diff');
  const next = await call('find_symbol', { name: 'Settings' });
  assert.is(next.isError, undefined);
  assert.is((next.structuredContent as { evidence: Array<{ path: string }> }).evidence[0].path, 'src/mobileai_rag/config.py');
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
  for (const [entry, reached] of [['client/bin.js', 'node:fs'], ['client/commands/search.js', 'node:path'], ['daemon/main.js', 'ws']]) {
    const pkgs = [...staticImports(join(PROJECT_ROOT, 'dist', entry))];
    assert.ok(pkgs.includes(reached), `${entry}: the walk follows imports (${pkgs.join(', ')})`);
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
