// The client end of the transport (protocol/ws-client.ts) against a real `ws`
// server, as the daemon runs it: each part of RFC 6455 the client relies on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsClient } from '../protocol/ws-client.js';
import { MAX_PAYLOAD_BYTES } from '../protocol/messages.js';

let http: Server;
let wss: WebSocketServer;
let url: string;
let onConnection: (ws: WebSocket, headers: Record<string, unknown>) => void = () => undefined;

test.before(async () => {
  http = createServer();
  wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  http.on('upgrade', (req, socket, head) => {
    if (req.headers.authorization !== 'Bearer good') { socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n'); return; }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req.headers));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `ws://127.0.0.1:${(http.address() as { port: number }).port}/`;
});
test.after(async () => {
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => http.close(r));
});

function open(opts: { headers?: Record<string, string>; maxPayload?: number } = {}): Promise<WsClient> {
  const c = new WsClient(url, { headers: { Authorization: 'Bearer good', ...opts.headers }, maxPayload: opts.maxPayload ?? MAX_PAYLOAD_BYTES, handshakeTimeout: 5000 });
  return new Promise((resolve, reject) => { c.once('open', () => resolve(c)); c.once('error', reject); });
}
const nextMessage = (c: WsClient) => new Promise<[Buffer, boolean]>((r) => c.once('message', (d: Buffer, b: boolean) => r([d, b])));
const closed = (c: WsClient) => new Promise<[number, string]>((r) => c.once('close', (code: number, reason: Buffer) => r([code, reason.toString()])));

test('headers reach the server; text both ways, short, 16-bit and 64-bit lengths; binary flagged', async () => {
  let seen: Record<string, unknown> = {};
  onConnection = (ws, h) => { seen = h; ws.on('message', (d, binary) => ws.send(d, { binary })); };
  const c = await open({ headers: { 'X-Evidex-Client': 'cli' } });
  assert.is(seen['x-evidex-client'], 'cli');
  for (const size of [5, 125, 126, 65_535, 65_536, 300_000]) {
    const text = 'é'.repeat(Math.ceil(size / 2)).slice(0, Math.ceil(size / 2));
    const got = nextMessage(c);
    c.send(text);
    const [data, binary] = await got;
    assert.is(data.toString('utf8'), text, `size ${size}`);
    assert.is(binary, false);
  }
  const got = nextMessage(c);
  c.send(Buffer.from([0, 1, 2, 255]));
  assert.equal(await got, [Buffer.from([0, 1, 2, 255]), true]);
  const done = closed(c);
  c.close(1000, 'client done');
  assert.equal(await done, [1000, 'client done'], 'the server echoes the close frame');
  assert.is(c.readyState, WsClient.CLOSED);
});

test('a fragmented message is assembled; a ping is answered with a pong carrying its data', async () => {
  let server!: WebSocket;
  onConnection = (ws) => { server = ws; };
  const c = await open();
  const got = nextMessage(c);
  server.send('frag', { fin: false });
  server.send('ment', { fin: false });
  server.send('ed', { fin: true });
  assert.is((await got)[0].toString(), 'fragmented');
  const pong = new Promise<Buffer>((r) => server.once('pong', r));
  server.ping(Buffer.from('are you there'));
  assert.is((await pong).toString(), 'are you there');
  const done = closed(c);
  server.close(4001, 'server says bye');
  assert.equal(await done, [4001, 'server says bye']);
});

test('a refused upgrade is an unexpected-response with its status, never an open', async () => {
  const c = new WsClient(url, { headers: { Authorization: 'Bearer bad' }, maxPayload: MAX_PAYLOAD_BYTES });
  const status = await new Promise<number>((resolve, reject) => {
    c.once('open', () => reject(new Error('opened')));
    c.once('unexpected-response', (_req: unknown, res: { statusCode: number }) => resolve(res.statusCode));
  });
  assert.is(status, 401);
});

test('a message over maxPayload closes the connection with 1009 and reports an error', async () => {
  onConnection = (ws) => ws.send('x'.repeat(2000));
  const c = new WsClient(url, { headers: { Authorization: 'Bearer good' }, maxPayload: 1000 });
  const errors: string[] = [];
  c.on('error', (e: Error) => errors.push(e.message));
  const [code] = await closed(c);
  assert.is(code, 1009);
  assert.equal(errors, ['Max payload size exceeded']);
});

test('terminate drops the connection at once (1006); a closed port is an error, not a hang', async () => {
  onConnection = () => undefined;
  const c = await open();
  const done = closed(c);
  c.terminate();
  assert.equal(await done, [1006, '']);
  const dead = new WsClient('ws://127.0.0.1:9/', { maxPayload: MAX_PAYLOAD_BYTES, handshakeTimeout: 2000 });
  const err = await new Promise<Error>((r) => dead.once('error', r));
  assert.match(err.message, /ECONNREFUSED/);
});

test.run();
