// `evidex mcp` when the host closes stdin right after its requests
// (`printf '<initialize>\n<initialized>\n<tools/call>\n' | evidex mcp`): every
// request read before the end is answered — here while the daemon is still
// being started and indexing — and then the process exits 0. A call that is
// still running after the drain limit is answered with a refusal saying so,
// and the transport does not wait for it any longer.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { McpSession } from '../client/mcp/session.js';
import { StdioTransport } from '../client/mcp/stdio.js';
import { daemonEnv, fixtureCopy, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const repo = fixtureCopy({ git: true });
const env = daemonEnv(tempDir('mcp-stdin-end-home'));

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'printf-host', version: '0' } } };
const CALL = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'COLLECTION_NAME', limit: 1 } } };

test('requests written with stdin closed at once are all answered, then exit 0', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--repo', repo], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  // One write and the end: the daemon is not even started yet. The last line has no newline: still a message.
  child.stdin.end([INIT, { jsonrpc: '2.0', method: 'notifications/initialized' }, CALL, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]
    .map((m) => JSON.stringify(m)).join('\n') + `\n${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' })}`);
  assert.is(await exited, 0, err);
  const answers = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  assert.equal(answers.map((a) => a.id).sort(), [1, 2, 3, 4], out.slice(0, 2000));
  const call = answers.find((a) => a.id === 2)!;
  assert.is(call.result.isError, undefined, JSON.stringify(call).slice(0, 2000));
  assert.is(call.result.structuredContent.evidence[0].kind, 'content_match');
  assert.ok(answers.find((a) => a.id === 3)!.result.tools.length >= 5);
  assert.equal(answers.find((a) => a.id === 4)!.result, {});
});

test('a call still running after the drain limit: run() stops waiting, and the session\'s end answers it saying why', async () => {
  // A daemon connection that never opens stands for a call that never ends.
  const session = new McpSession({ root: repo, version: '0', log: () => undefined, reconnect: true, open: () => new Promise(() => undefined) });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (b: Buffer) => { out += b.toString(); });
  const transport = new StdioTransport(stdin, stdout, session, { maxLineBytes: 1 << 20, log: () => undefined, drainMs: 20 });
  const running = transport.run();
  stdin.end([INIT, CALL].map((m) => `${JSON.stringify(m)}\n`).join(''));
  assert.is(await running, 1, 'one call left unanswered');
  // Not awaited: closing waits for the connection being opened, which never opens.
  void session.close('the MCP session ended: stdin closed and the call was still running after 0.02 s');
  await waitFor('the cut-short call\'s answer', () => out.split('\n').length > 2 || undefined, 10_000, 5);
  const answers = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  assert.equal(answers.map((a) => a.id), [1, 2], out);
  assert.is(answers[1].result.isError, true);
  assert.match(answers[1].result.content[0].text, /stdin closed and the call was still running after 0\.02 s/);
});

test.after(() => {
  spawnSync(process.execPath, [BIN, 'daemon', 'stop', '--repo', repo], { env, stdio: 'ignore' });
  cleanupTemp();
});

test.run();
