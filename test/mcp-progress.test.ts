// A host's first tools/call on a repository with no index waits for the
// daemon's first build, which can outlast the host's request timeout. A host
// that gives a progress token (the SDK client does, for `onprogress`) is sent
// notifications/progress meanwhile, over stdio and over Streamable HTTP (an
// event stream that ends with the answer); one that gives none is sent none,
// and the answer is the same either way. Real `evidex mcp` processes, the
// SDK's own clients, a real daemon building a copy of the standard library
// (some two thousand files: seconds); the tests wait on messages, not on a clock.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, daemonStop } from '../client/connection.js';
import { BuildProgressNotes, KEEPALIVE_LOOKS } from '../client/mcp/progress.js';
import { Methods } from '../protocol/messages.js';
import { stdlibCopy } from './helpers/corpus.js';
import { daemonEnv, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const CALL = { name: 'find_symbol', arguments: { name: 'HTTPConnection', kind: 'class' } };
const MESSAGE = /^waiting for the index's first build: (walk|parse|write|done) \d+(\/\d+)? files( · \d+ left out)?$/;
const WAITED = /^evidex mcp: a call waits for the index's first build \((walk|parse|write|done) \d+(\/\d+)? files[^)]*\); /m;

test.after(() => cleanupTemp());

/** A fresh repository and state: no index, no daemon. */
function fresh(): { repo: string; env: Record<string, string> } {
  return { repo: stdlibCopy('mcp-progress'), env: daemonEnv(tempDir('mcp-progress-home')) as Record<string, string> };
}

/** What MCP asks of a sequence of progress notifications: each rises, none past its total, each in the progress line's words. */
function checkProgress(seen: Progress[]): void {
  assert.ok(seen.length > 0, 'progress was sent while the call waited for the build');
  for (let i = 0; i < seen.length; i++) {
    const p = seen[i];
    if (i > 0) assert.ok(p.progress > seen[i - 1].progress, `progress rises: ${JSON.stringify(seen.slice(i - 1, i + 1))}`);
    if (p.total !== undefined) assert.ok(p.progress <= p.total, JSON.stringify(p));
    assert.match(p.message ?? '', MESSAGE);
  }
}

/** The answer a plain daemon client gets once the build is over: the call's answer must equal it. */
async function direct(repo: string, env: Record<string, string>): Promise<unknown> {
  const c = await connect(repo, { env, autoStart: false });
  try {
    return await c.request(Methods.toolsCall, CALL);
  } finally {
    await c.close();
  }
}

test('BuildProgressNotes: rises with every notification across phases, sends nothing new only as a keep-alive', () => {
  const notes = new BuildProgressNotes('t');
  const sent = (p: Parameters<BuildProgressNotes['look']>[0]) => {
    const n = notes.look(p);
    return n === null ? null : (JSON.parse(n) as { method: string; params: Progress & { progressToken: unknown } });
  };
  const walk = sent({ phase: 'walk', done: 0, total: 0 })!;
  assert.is(walk.method, 'notifications/progress');
  assert.equal(walk.params, { progressToken: 't', progress: 0, message: "waiting for the index's first build: walk 0 files" });
  // The walk's end: its count is of files found, not parsed; the words changed, so a notification, a thousandth higher.
  assert.equal(sent({ phase: 'walk', done: 300, total: 300 })!.params.progress, 0.001);
  const parse = sent({ phase: 'parse', done: 10, total: 200, leftOut: 1 })!.params;
  assert.equal(parse, { progressToken: 't', progress: 10, total: 201, message: "waiting for the index's first build: parse 10/200 files · 1 left out" });
  // The same look again: nothing, until KEEPALIVE_LOOKS of them, then one a thousandth higher.
  for (let i = 1; i < KEEPALIVE_LOOKS; i++) assert.is(notes.look({ phase: 'parse', done: 10, total: 200, leftOut: 1 }), null);
  assert.is(sent({ phase: 'parse', done: 10, total: 200, leftOut: 1 })!.params.progress, 10.001);
  assert.is(sent({ phase: 'parse', done: 200, total: 200 })!.params.progress, 200);
  // The write phase counts removals from 0: the progress stays past the files parsed, below the total.
  const write = sent({ phase: 'write', done: 0, total: 3 })!.params;
  assert.equal([write.progress, write.total], [200.001, 201]);
  assert.equal([sent({ phase: 'done', done: 199, total: 199 })!.params.progress], [201]);
});

test('stdio, with a progress token: notifications while the first build runs, then the answer a daemon client gets', async () => {
  const { repo, env } = fresh();
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--repo', repo], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => { stderr += b.toString(); });
  const mcp = new McpClient({ name: 'progress-host', version: '1' });
  await mcp.connect(transport);
  try {
    const seen: Progress[] = [];
    const r = await mcp.callTool(CALL, undefined, { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true, timeout: 300_000 });
    checkProgress(seen);
    assert.is(r.isError, undefined, JSON.stringify(r.content));
    assert.equal(r.structuredContent, await direct(repo, env));
    assert.match(stderr, WAITED);
    assert.match(stderr, /; the host is sent its progress$/m);
  } finally {
    await mcp.close();
    await daemonStop(repo, { env });
  }
});

test('stdio, without a progress token: no notification, the same answer, and a line on stderr saying why the call waits', async () => {
  const { repo, env } = fresh();
  const child = spawn(process.execPath, [BIN, 'mcp', '--repo', repo], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
  const lines: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  try {
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'no-token-host', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: CALL });
    const answer = await waitFor('the call answered', () => lines.find((l) => l.id === 2), 300_000, 50);
    assert.match(stderr, WAITED);
    assert.match(stderr, /the host asked for no progress \(no progressToken\)/);
    assert.equal(lines.filter((l) => l.method !== undefined), [], 'nothing but answers');
    assert.equal((answer.result as { structuredContent: unknown }).structuredContent, await direct(repo, env));
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    await daemonStop(repo, { env });
  }
});

/** One raw POST to the server (the host's own headers); the answer's content type and body. */
function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ type: string; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ type: String(res.headers['content-type']), text }));
    });
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('HTTP: a host with a token gets an event stream of progress, then the answer; without one, or not taking a stream, the answer alone as JSON', async () => {
  const { repo, env } = fresh();
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--repo', repo], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
  const exited = new Promise((r) => child.once('exit', r));
  let mcp: McpClient | null = null;
  try {
    await waitFor('the server said its URL and token', () => /^evidex mcp: token: /m.test(stderr), 60_000);
    const url = /at (http:\/\/\S+\/mcp)$/m.exec(stderr)![1];
    const auth = { Authorization: `Bearer ${/token: ([0-9a-f]{64})/.exec(stderr)![1]}` };
    mcp = new McpClient({ name: 'http-progress-host', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
    await mcp.connect(transport);
    const session = { ...auth, 'Mcp-Session-Id': transport.sessionId!, 'MCP-Protocol-Version': transport.protocolVersion ?? '2025-06-18' };
    // Sent while the build runs, alongside the SDK host's call: a token but JSON only, and no token at all.
    const jsonOnly = post(url, { ...session, Accept: 'application/json' }, { jsonrpc: '2.0', id: 'j', method: 'tools/call', params: { ...CALL, _meta: { progressToken: 'j' } } });
    const noToken = post(url, { ...session, Accept: 'application/json, text/event-stream' }, { jsonrpc: '2.0', id: 'n', method: 'tools/call', params: CALL });
    const seen: Progress[] = [];
    const r = await mcp.callTool(CALL, undefined, { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true, timeout: 300_000 });
    checkProgress(seen);
    const expected = await direct(repo, env);
    assert.equal(r.structuredContent, expected);
    for (const [what, answer] of [['JSON only', await jsonOnly], ['no token', await noToken]] as const) {
      assert.match(answer.type, /^application\/json/, what);
      assert.equal(JSON.parse(answer.text).result.structuredContent, expected, what);
    }
    assert.match(stderr, WAITED);
  } finally {
    await mcp?.close();
    child.kill('SIGTERM');
    await exited;
    await daemonStop(repo, { env });
  }
});

test.run();
