// The daemon's endpoint (daemon/listener.ts) on its own, on a real port: what
// it admits, what it tells the daemon of each peer, and the pings that drop a
// peer whose TCP connection is half-open (it never answers again).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import { Listener, type Peer } from '../daemon/listener.js';
import type { RpcConnection } from '../protocol/jsonrpc.js';
import { MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES } from '../protocol/messages.js';
import { WsClient } from '../protocol/ws-client.js';
import { waitFor } from './helpers/daemon.js';

const TOKEN = 'listener-test-token';
const BEAT_MS = 200;

interface Accepted { conn: RpcConnection; peer: Peer; closedWith: string | null }
const accepted: Accepted[] = [];
let listener: Listener;
let url: string;

test.before(async () => {
  listener = await Listener.open({
    port: 0, token: TOKEN, allowedOrigins: ['http://allowed.example'], maxPayloadBytes: MAX_MESSAGE_BYTES,
    connection: { maxMessageBytes: MAX_MESSAGE_BYTES, maxBufferedBytes: MAX_PAYLOAD_BYTES },
    heartbeatMs: BEAT_MS, log: () => undefined,
    onConnection: (conn, peer) => {
      const a: Accepted = { conn, peer, closedWith: null };
      conn.onClose((reason) => { a.closedWith = reason; });
      accepted.push(a);
    },
  });
  url = `ws://127.0.0.1:${listener.port}/`;
});
test.after(async () => { await listener.close(); });

function open(headers: Record<string, string>): Promise<WsClient> {
  const c = new WsClient(url, { headers: { Authorization: `Bearer ${TOKEN}`, ...headers }, maxPayload: MAX_PAYLOAD_BYTES, handshakeTimeout: 5000 });
  return new Promise((resolve, reject) => { c.once('open', () => resolve(c)); c.once('error', reject); });
}

/** A raw upgrade request: the status line of the answer, and the socket (left open when the upgrade succeeded). */
function rawUpgrade(path: string, headers: Record<string, string>): Promise<{ status: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(listener.port, '127.0.0.1');
    let got = '';
    socket.on('error', reject);
    socket.on('data', function first(chunk: Buffer) {
      got += chunk.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      socket.off('data', first);
      socket.on('data', () => undefined); // whatever comes next (pings) is read and never answered
      resolve({ status: got.split('\r\n')[0], socket });
    });
    const lines = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${listener.port}`, 'Upgrade: websocket', 'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

test('an upgrade without the token, with a wrong one, from a foreign Origin or on another path never reaches the daemon', async () => {
  const before = accepted.length;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const cases: Array<[string, Record<string, string>, string]> = [
    ['/', {}, '401'],
    ['/', { Authorization: 'Bearer wrong' }, '401'],
    ['/', { ...auth, Origin: 'http://evil.example' }, '403'],
    ['/other', auth, '404'],
  ];
  for (const [path, headers, code] of cases) {
    const { status, socket } = await rawUpgrade(path, headers);
    socket.destroy();
    assert.match(status, new RegExp(`^HTTP/1\\.1 ${code} `), `${path} ${JSON.stringify(headers)}`);
  }
  const ok = await rawUpgrade('/', { ...auth, Origin: 'http://allowed.example' });
  ok.socket.destroy();
  assert.match(ok.status, /^HTTP\/1\.1 101 /, 'an allowed Origin with the token is admitted');
  assert.is(accepted.length, before + 1, 'only the admitted upgrade was handed on');
});

test('each peer is handed on with its name (X-Evidex-Client, else "unknown") and whether it only observes', async () => {
  const cases: Array<[Record<string, string>, Peer]> = [
    [{ 'X-Evidex-Client': 'cli' }, { name: 'cli', observer: false }],
    [{ 'X-Evidex-Client': 'x'.repeat(100), 'x-evidex-observer': '1' }, { name: 'x'.repeat(100), observer: true }],
    [{ 'X-Evidex-Client': 'x'.repeat(101) }, { name: 'unknown', observer: false }],
    [{ 'X-Evidex-Client': 'host é' }, { name: 'unknown', observer: false }],
    [{ 'x-evidex-observer': '0' }, { name: 'unknown', observer: false }],
  ];
  for (const [headers, peer] of cases) {
    const before = accepted.length;
    const c = await open(headers);
    await waitFor('the connection handed on', () => accepted.length === before + 1);
    assert.equal(accepted[before].peer, peer, JSON.stringify(headers));
    c.close();
  }
});

test('a peer that stops answering pings is dropped ("no pong"); one that answers stays', async () => {
  const before = accepted.length;
  const live = await open({ 'X-Evidex-Client': 'live' });
  const dead = await rawUpgrade('/', { Authorization: `Bearer ${TOKEN}`, 'X-Evidex-Client': 'half-open' });
  assert.match(dead.status, /^HTTP\/1\.1 101 /);
  await waitFor('both connections handed on', () => accepted.length === before + 2);
  const byName = (n: string) => accepted.slice(before).find((a) => a.peer.name === n)!;
  const t0 = Date.now();
  await waitFor('the silent peer dropped', () => byName('half-open').closedWith !== null, 20 * BEAT_MS, 10);
  assert.is(byName('half-open').closedWith, 'no pong: peer unresponsive');
  console.log(`half-open peer dropped ${Date.now() - t0} ms after it connected (pings every ${BEAT_MS} ms; loaded machine)`);
  await new Promise((r) => setTimeout(r, 5 * BEAT_MS));
  assert.is(byName('live').closedWith, null, 'the peer answering pings is still connected after five pings');
  assert.is(byName('live').conn.isOpen, true);
  live.close();
  dead.socket.destroy();
});

test.run();
