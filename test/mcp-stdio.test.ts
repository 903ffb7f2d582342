// `evidex mcp` on bad input, through a raw stdio host (bytes written, lines
// read; not the SDK client, which would refuse to send most of this): a line
// over the size limit, a line that is not JSON, JSON that is not JSON-RPC,
// `arguments` that is not an object, arguments nested 100,000 deep. Each gets
// the JSON-RPC answer the spec names, on one line, and the session goes on
// (a real call answers after each); memory stays bounded while a 64 MiB line
// streams in; every stderr line starts `evidex mcp:`; stdin closed exits 0.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topLevelId } from '../client/mcp/messages.js';
import { MAX_MESSAGE_BYTES } from '../protocol/messages.js';
import { daemonEnv, fixtureCopy, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const repo = fixtureCopy({ git: true });
const env = daemonEnv(tempDir('mcp-stdio-home'));

/** A host that speaks to `evidex mcp` in raw lines. */
class RawHost {
  readonly child: ChildProcessWithoutNullStreams;
  private out = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  constructor() {
    this.child = spawn(process.execPath, [BIN, 'mcp', '--repo', repo], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (b: Buffer) => { this.out += b.toString(); });
    this.child.stderr.on('data', (b: Buffer) => { this.stderr += b.toString(); });
    this.exited = new Promise((r) => this.child.once('exit', (c) => r(c)));
  }
  /** Every whole line the server wrote so far, parsed (stdout must hold JSON-RPC messages only). */
  get messages(): Array<Record<string, any>> {
    return this.out.split('\n').slice(0, -1).map((l) => JSON.parse(l));
  }
  write(bytes: string | Buffer): Promise<void> {
    return new Promise((r) => { if (this.child.stdin.write(bytes)) r(); else this.child.stdin.once('drain', () => r()); });
  }
  send(msg: unknown): Promise<void> { return this.write(`${JSON.stringify(msg)}\n`); }
  /** The next message the server writes after the `n` already seen. */
  async next(n: number): Promise<Record<string, any>> {
    return waitFor(`message ${n + 1} from evidex mcp`, () => this.messages[n], 30_000, 5);
  }
  /** Sends `msg` and returns the answer to it (the next message). */
  async ask(msg: unknown): Promise<Record<string, any>> {
    const n = this.messages.length;
    await this.send(msg);
    return this.next(n);
  }
}

let host: RawHost;
let id = 100;
const callTool = (args: unknown, name = 'search_code') => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });

/** A real call answers: the session went on. */
async function stillServing(): Promise<void> {
  const r = await host.ask(callTool({ query: 'COLLECTION_NAME', limit: 1 }));
  assert.is(r.id, id);
  assert.is(r.result?.isError, undefined, JSON.stringify(r));
  assert.is(r.result.structuredContent.evidence[0].kind, 'content_match');
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '0' } } };

test.before(async () => {
  host = new RawHost();
  // Before initialize (MCP's lifecycle): ping is answered, the tools are refused.
  assert.equal((await host.ask({ jsonrpc: '2.0', id: 'p', method: 'ping' })).result, {});
  for (const early of [() => callTool({ query: 'COLLECTION_NAME', limit: 1 }), () => ({ jsonrpc: '2.0', id: ++id, method: 'tools/list' })]) {
    const r = await host.ask(early());
    assert.equal([r.id, r.error?.code], [id, -32600], JSON.stringify(r));
    assert.match(r.error.message, /^not initialized: send initialize before tools\/(call|list)$/);
  }
  const init = await host.ask(INIT);
  assert.is(init.result.serverInfo.name, 'evidex');
  await host.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await stillServing();
});

test('a second initialize is refused (-32600); the session goes on as it was', async () => {
  const again = await host.ask({ ...INIT, id: 2, params: { ...INIT.params, clientInfo: { name: 'another-host', version: '1' } } });
  assert.equal([again.id, again.error?.code], [2, -32600], JSON.stringify(again));
  assert.match(again.error.message, /^already initialized/);
  await stillServing();
});

test('a line that is not JSON: -32700 with id null, one line; the session goes on', async () => {
  for (const line of ['hello', '{"jsonrpc": "2.0", "id": 5, "method": "tools/call"', '\x1b]52;c;aGFja2Vk\x07']) {
    const n = host.messages.length;
    await host.write(`${line}\n`);
    const r = await host.next(n);
    assert.equal([r.jsonrpc, r.id, r.error.code], ['2.0', null, -32700], JSON.stringify(r));
    assert.not.match(r.error.message, /\n/);
    await stillServing();
  }
});

test('JSON that is not a JSON-RPC message: -32600 (with its id when it has one)', async () => {
  const cases: Array<[string, string | number | null]> = [['{"foo": 1}', null], ['[1, 2]', null], ['{"jsonrpc": "1.0", "id": 9, "method": "ping"}', 9], ['"just a string"', null]];
  for (const [line, wantId] of cases) {
    const n = host.messages.length;
    await host.write(`${line}\n`);
    const r = await host.next(n);
    assert.equal([r.id, r.error.code], [wantId, -32600], line);
    assert.not.match(r.error.message, /\n/);
  }
  await stillServing();
});

test('arguments that are not an object: -32602 with one short line, not a validation dump', async () => {
  for (const args of [[], 'x', 5, null]) {
    const r = await host.ask(callTool(args));
    assert.is(r.id, id);
    assert.is(r.error?.code, -32602, JSON.stringify(r));
    assert.not.match(r.error.message, /\n/);
    assert.ok(r.error.message.length < 200, r.error.message);
    assert.match(r.error.message, /^invalid params for tools\/call: params\.arguments must be an object, got (array|string|number|null)$/);
  }
  const noName = await host.ask({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { arguments: {} } });
  assert.is(noName.error.code, -32602);
  assert.match(noName.error.message, /params\.name/);
  await stillServing();
});

test('valid JSON-RPC with params that do not fit: -32602 naming the field (a bad progress token, a cursor this server never gave)', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x' }, _meta: { progressToken: { a: 1 } } } },
      /^invalid params for tools\/call: params\._meta\.progressToken must be a string or a number, got object$/],
    [{ method: 'tools/list', params: { cursor: 'bogus' } }, /^invalid params for tools\/list: params\.cursor: not a cursor this server gave /],
    [{ method: 'tools/list', params: { cursor: 5 } }, /^invalid params for tools\/list: params\.cursor must be a string, got number$/],
  ];
  for (const [msg, message] of cases) {
    const r = await host.ask({ jsonrpc: '2.0', id: ++id, ...msg });
    assert.equal([r.id, r.error?.code], [id, -32602], JSON.stringify(r));
    assert.match(r.error.message, message);
  }
  // A notification is never answered, whatever its params: the next answer is the next request's.
  await host.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { a: 1 }, _meta: { progressToken: [] } } });
  await stillServing();
  const list = await host.ask({ jsonrpc: '2.0', id: ++id, method: 'tools/list', params: {} });
  assert.is(list.result.tools.length, 5);
  assert.is(list.result.nextCursor, undefined, 'the whole list at once');
});

test('an id with a fraction (JSON-RPC: SHOULD NOT, not MUST NOT): taken, and echoed in the answer', async () => {
  const r = await host.ask({ jsonrpc: '2.0', id: 11.5, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'COLLECTION_NAME', limit: 1 } } });
  assert.is(r.id, 11.5);
  assert.is(r.result.structuredContent.evidence[0].kind, 'content_match');
  // An id that is no string or number is not a request: -32600, id null (it cannot be echoed).
  const bad = await host.ask({ jsonrpc: '2.0', id: { n: 1 }, method: 'ping' });
  assert.equal([bad.id, bad.error.code, bad.error.message], [null, -32600, 'invalid request: "id" must be a string or a number']);
});

test('arguments nested 100,000 deep: the documented refusal (an isError result), not a stack overflow', async () => {
  let deep = '1';
  for (let i = 0; i < 100_000; i++) deep = `[${deep}]`;
  for (const args of [`{"query": ${deep}}`, deep.replace(/\[/g, '{"a":').replace(/\]/g, '}')]) {
    const n = host.messages.length;
    await host.write(`{"jsonrpc": "2.0", "id": ${++id}, "method": "tools/call", "params": {"name": "search_code", "arguments": ${args}}}\n`);
    const r = await host.next(n);
    assert.is(r.id, id);
    assert.is(r.result?.isError, true, JSON.stringify(r).slice(0, 300));
    assert.is(r.result.content[0].text, 'invalid_arguments: search_code: refused before validation: the arguments nest deeper than 8 levels; every tool takes a flat object of a few scalar fields');
  }
  assert.not.match(host.stderr, /call stack/);
  await stillServing();
});

test('a message over the limit: -32600 with its id (read from its start), one line on stderr; memory stays bounded; the session goes on', async () => {
  const rss = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${host.child.pid}/status`, 'utf8'))![1]) * 1024;
  const before = rss();
  // 11 MiB, past the SDK's own 10 MiB buffer, and 256 MiB: neither is held.
  for (const size of [11 << 20, 256 << 20]) {
    const n = host.messages.length;
    const head = `{"jsonrpc": "2.0", "id": ${++id}, "method": "tools/call", "params": {"name": "search_code", "arguments": {"query": "`;
    await host.write(head);
    const piece = 'x'.repeat(1 << 20);
    for (let sent = head.length; sent < size; sent += piece.length) await host.write(piece);
    await host.write('"}}}\n');
    const r = await host.next(n);
    assert.is(r.id, id);
    assert.is(r.error.code, -32600);
    assert.match(r.error.message, `over the limit of ${MAX_MESSAGE_BYTES} bytes per message`);
  }
  // What grows is the limit's worth of one line and the pieces read until V8 frees them (some tens of MiB),
  // not the line: far under the 256 MiB a held line would take.
  assert.ok(rss() - before < 96 << 20, `RSS grew by ${((rss() - before) / 1048576).toFixed(1)} MiB`);
  // Without an id in its first part (the id comes last): id null.
  const n = host.messages.length;
  await host.write(`{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "search_code", "arguments": {"query": "${'y'.repeat(2 << 20)}"}}, "id": ${++id}}\n`);
  const r = await host.next(n);
  assert.equal([r.id, r.error.code], [null, -32600]);
  await stillServing();
});

test('the id of an oversized message is read only at the top level, as a string or a number', () => {
  assert.is(topLevelId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"na'), 42);
  assert.is(topLevelId('{ "id" : "a\\"b", "x": 1'), 'a"b');
  assert.is(topLevelId('{"params":{"id":7},"id":8,'), 8);
  assert.is(topLevelId('{"params":{"id":7},"x":"\\"id\\":9"'), null);
  assert.is(topLevelId('{"method":"x","params":{"arguments":{"q":"aaa'), null);
  assert.is(topLevelId('{"id":{"no":1},'), null);
  assert.is(topLevelId('[{"id":1},'), null);
  assert.is(topLevelId('{"\\u0069d":3,'), 3);
  assert.is(topLevelId('{"id":12'), null, 'a number cut by the limit may be longer');
});

test('every stderr line starts `evidex mcp:`; stdin closed exits 0', async () => {
  await host.write('');
  host.child.stdin.end();
  assert.is(await host.exited, 0, host.stderr);
  const lines = host.stderr.split('\n').filter(Boolean);
  assert.ok(lines.length >= 3, host.stderr);
  for (const l of lines) assert.ok(l.startsWith('evidex mcp: '), JSON.stringify(l));
  assert.match(host.stderr, /evidex mcp: refused a message of 11,534,\d+ bytes: over the limit of 1,048,576 bytes/);
});

test.after(() => {
  if (host.child.exitCode === null) host.child.kill();
  spawnSync(process.execPath, [BIN, 'daemon', 'stop', '--repo', repo], { env, stdio: 'ignore' });
  cleanupTemp();
});

test.run();
