// When the daemon writes a tool call's answer: a call the index can answer
// without I/O (the four index tools, their refusals too) is answered while the
// socket's 'message' event for it is still being handled — no promise hop, no
// later turn — and read_git_diff, which runs git, is answered later. The daemon
// runs in this process (Daemon.start) so its sockets can be watched: every
// ws socket's emit and send are wrapped for the test. Real index, real ws, the
// fixture repository as a git repository on disk.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Daemon } from '../daemon/server.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { fixtureCopy, rawExchange, tryConnect, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

/** Request id -> whether its answer was sent before the 'message' event that carried the request returned. */
const answeredInEvent = new Map<number, boolean>();
const sentIds: number[] = [];
const RESPONSE = /^\{"jsonrpc":"2\.0","id":(\d+),"(?:result|error)"/;

const originalSend = WebSocket.prototype.send;
const originalEmit = WebSocket.prototype.emit;
WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
  const m = typeof data === 'string' ? RESPONSE.exec(data) : null;
  if (m) sentIds.push(Number(m[1]));
  return (originalSend as (...a: unknown[]) => void).call(this, data, ...rest);
} as typeof WebSocket.prototype.send;
WebSocket.prototype.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
  if (event !== 'message') return originalEmit.call(this, event, ...args);
  let id: unknown;
  try { id = (JSON.parse(String(args[0])) as { method?: string; id?: unknown }).id; } catch { /* not JSON: not ours */ }
  const before = sentIds.length;
  const handled = originalEmit.call(this, event, ...args);
  // Only requests count (they carry a method); the client's side receives responses, which do not.
  if (typeof id === 'number' && String(args[0]).includes('"method"')) answeredInEvent.set(id, sentIds.slice(before).includes(id));
  return handled;
};

let daemon: Daemon;
let root: string;
let ws: WebSocket;

test.before(async () => {
  root = realpathSync(fixtureCopy({ git: true }));
  daemon = await Daemon.start({ root, stateDir: join(tempDir('state'), 'd'), watch: 'off', warmup: false });
  const r = await tryConnect(daemon.info.url, { Authorization: `Bearer ${daemon.info.token}` });
  if (!('ws' in r)) throw new Error(`connection refused: ${r.status}`);
  ws = r.ws;
  await waitFor('the start-up build', () => daemon.status().daemon.startup === 'done');
});
test.after(async () => {
  ws?.close();
  await daemon?.shutdown('test over');
  WebSocket.prototype.send = originalSend;
  WebSocket.prototype.emit = originalEmit;
  cleanupTemp();
});

let nextId = 1;
async function callTool(name: string, args: unknown): Promise<{ id: number; answer: Record<string, any> }> {
  const id = nextId++;
  const answer = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
  assert.is(answer.id, id);
  return { id, answer };
}

test('index tools and their refusals are answered inside the message event; read_git_diff later', async () => {
  const inEvent: [string, unknown, 'result' | 'error'][] = [
    ['find_symbol', { name: 'Chunk' }, 'result'],
    ['search_code', { query: 'COLLECTION_NAME' }, 'result'],
    ['find_importers', { module_name: 'rag_common' }, 'result'],
    ['read_evidence', { path: 'src/rag_common.py', start_line: 1, end_line: 3 }, 'result'],
    ['read_evidence', { path: '../outside.py', start_line: 1 }, 'error'],
    ['find_symbol', { name: 'Chunk', limit: '5' }, 'error'],
  ];
  for (const [name, args, kind] of inEvent) {
    const { id, answer } = await callTool(name, args);
    const what = `${name} ${JSON.stringify(args)}`;
    assert.ok(kind in answer, `${what}: expected a ${kind}, got ${JSON.stringify(answer)}`);
    if (kind === 'result') {
      assert.ok(answer.result.total > 0, `${what} found something`);
      assertEvidenceChecks(root, answer.result.evidence);
    }
    assert.is(answeredInEvent.get(id), true, `${what} was answered inside its message event`);
  }
  const { id, answer } = await callTool('read_git_diff', {});
  assert.ok('result' in answer, JSON.stringify(answer));
  assert.is(answeredInEvent.get(id), false, 'read_git_diff (it runs git) is answered after its message event');
});

test.run();
