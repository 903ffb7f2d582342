// The JSON-RPC connection on its own, over a real ws server and client: a
// request's cancellation reaches its handler whether the handler looks at its
// signal before or after the cancel arrives, and a disconnect aborts it too.
// No sleeps: the order of messages on one connection, and promises settled by
// the abort listeners themselves, say when each step has happened.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket, WebSocketServer } from 'ws';
import {
  CANCEL_NOTIFICATION, ConnectionClosed, RpcCode, RpcConnection, RpcError, type RequestContext, type RequestHandler, type RpcConnectionOptions,
} from '../protocol/jsonrpc.js';
import { MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES } from '../protocol/messages.js';
import { userError } from '../client/errors.js';

/** The limits each end passes (the transport has none of its own). */
const LIMITS = { maxMessageBytes: MAX_MESSAGE_BYTES, maxBufferedBytes: MAX_PAYLOAD_BYTES };

interface Pair { client: RpcConnection; url: string; close: () => Promise<void> }

// Everything opened is closed after the suite, so a failed assertion cannot leave the process hanging.
const opened: Pair[] = [];
const gates: Array<() => void> = [];

/** 'ping' is answered at once; any other method goes to `slow`. */
function pair(slow: (ctx: RequestContext) => Promise<unknown>): Promise<Pair> {
  return serve(async (method, _params, ctx) => (method === 'ping' ? 'pong' : slow(ctx)));
}

/** A real ws server whose connections answer with `handler`, and a client connected to it; `onSocket` sees each server-side socket. */
async function serve(handler: RequestHandler, onSocket?: (ws: WebSocket) => void, opts?: Partial<RpcConnectionOptions>): Promise<Pair> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((res) => wss.once('listening', res));
  wss.on('connection', (ws) => {
    onSocket?.(ws);
    const conn = new RpcConnection(ws, { ...LIMITS, ...opts });
    conn.onRequest(handler);
  });
  const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`;
  const ws = new WebSocket(url);
  await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
  const client = new RpcConnection(ws, LIMITS);
  const p: Pair = {
    client,
    url,
    close: async () => { client.close(); for (const c of wss.clients) c.terminate(); await new Promise((res) => wss.close(res)); },
  };
  opened.push(p);
  return p;
}

/** Resolves true when `p` settles, false after `ms` (a missing event fails an assertion instead of hanging). */
function within(p: Promise<unknown>, ms = 5000): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((res) => setTimeout(() => res(false), ms).unref())]);
}

const reasonOf = (s: AbortSignal): string => String((s.reason as Error)?.message ?? s.reason);

/** A handler that waits at a gate; it reads its signal on entry (readFirst) or only after the gate opens. */
function gatedHandler(readFirst: boolean) {
  let open!: () => void;
  const gate = new Promise<void>((res) => { open = res; });
  gates.push(open);
  let entered!: () => void;
  const started = new Promise<void>((res) => { entered = res; });
  let onAbort!: () => void;
  const abortEvent = new Promise<void>((res) => { onAbort = res; });
  const seen: { aborted?: boolean; reason?: string; sameSignal?: boolean } = {};
  return {
    open, started, seen, abortEvent,
    handler: async (ctx: RequestContext) => {
      entered();
      if (readFirst) ctx.signal.addEventListener('abort', onAbort, { once: true });
      await gate;
      const signal = ctx.signal;
      seen.sameSignal = signal === ctx.signal;
      seen.aborted = signal.aborted;
      seen.reason = signal.aborted ? reasonOf(signal) : undefined;
      return 'done';
    },
  };
}

/** A 'slow' request in flight: its handler has started and waits at its gate. */
async function inFlight(readFirst: boolean) {
  const g = gatedHandler(readFirst);
  const p = await pair(g.handler);
  const answer = p.client.sendRequest('slow', {}).then((v) => v, (e: Error) => e.message);
  await g.started;
  return { g, p, answer };
}

test('a cancel that arrives before the handler reads its signal leaves that signal aborted, and always the same one', async () => {
  const { g, p, answer } = await inFlight(false);
  p.client.sendNotification(CANCEL_NOTIFICATION, { id: 1 });
  // Messages are handled in order: once 'ping' is answered, the cancel has been processed.
  assert.is(await p.client.sendRequest('ping', {}), 'pong');
  g.open();
  assert.is(await answer, 'done');
  assert.equal(g.seen, { sameSignal: true, aborted: true, reason: 'cancelled by the client' });
});

test('a cancel after the handler took its signal fires the abort event', async () => {
  const { g, p, answer } = await inFlight(true);
  p.client.sendNotification(CANCEL_NOTIFICATION, { id: 1 });
  assert.ok(await within(g.abortEvent), 'the abort event fired while the handler was still waiting');
  g.open();
  assert.is(await answer, 'done');
  assert.equal(g.seen, { sameSignal: true, aborted: true, reason: 'cancelled by the client' });
});

test('a request whose signal is already aborted is not sent at all (no cancellation ahead of a request it cannot find)', async () => {
  const seen: string[] = [];
  const p = await serve((method) => { seen.push(method); return 'pong'; });
  const ac = new AbortController();
  ac.abort();
  const r = await p.client.sendRequest('given-up', {}, ac.signal).then(() => 'answered', (e: RpcError) => e.message);
  assert.is(r, 'given-up cancelled before it was sent');
  // Messages on one connection arrive in order: by the answer to this one, the server has seen everything sent before it.
  assert.is(await p.client.sendRequest('ping'), 'pong');
  assert.equal(seen, ['ping']);
});

test('a request nobody cancels keeps an unaborted signal', async () => {
  const { g, p, answer } = await inFlight(true);
  assert.is(await p.client.sendRequest('ping', {}), 'pong');
  g.open();
  assert.is(await answer, 'done');
  assert.equal(g.seen, { sameSignal: true, aborted: false, reason: undefined });
});

test('a disconnect aborts the request in flight; the client sees its request fail', async () => {
  const { g, p, answer } = await inFlight(true);
  p.client.close();
  assert.ok(await within(g.abortEvent), 'the disconnect aborted the request');
  assert.match(String(await answer), /closed/);
});

test('a peer that closes with a request pending (a daemon stopping) fails it as ConnectionClosed, which the CLI words as the daemon gone, not an internal error', async () => {
  let server!: WebSocket;
  let entered!: () => void;
  const started = new Promise<void>((res) => { entered = res; });
  const p = await serve(async () => { entered(); return new Promise(() => undefined); }, (ws) => { server = ws; });
  const answer = p.client.sendRequest('index/refresh', {}).then(() => null, (e: unknown) => e);
  await started;
  server.close(1001, 'daemon shutting down');
  const e = await answer;
  assert.ok(e instanceof ConnectionClosed, String(e));
  assert.is((e as ConnectionClosed).reason, 'connection closed (1001 daemon shutting down)');
  const said = userError(e);
  assert.is(said.code, 'daemon_unavailable');
  assert.is(said.message, 'the evidex daemon stopped while this command ran (connection closed (1001 daemon shutting down)); run it again: it starts a new daemon');
  // Any other close is said as it is, without a daemon's stop in it (here: a message over the peer's limit).
  const tooLarge = userError(new ConnectionClosed('connection closed (1009 message too big)', 1009));
  assert.is(tooLarge.message, 'the connection to the evidex daemon closed while this command ran (connection closed (1009 message too big))');
  // An error the peer sends is still its own: not taken for a lost connection.
  assert.not.ok(new RpcError(RpcCode.INTERNAL_ERROR, 'internal error: x') instanceof ConnectionClosed);
});

test('a value from the handler is sent in the same turn; a throw, an unserialisable value and odd thenables get exactly one answer each; the connection goes on', async () => {
  let sends = 0;
  let sentBeforeMicrotasks: boolean | null = null;
  const p = await serve((method) => {
    switch (method) {
      case 'now':
        // Runs at the first microtask checkpoint after the handler returns: the answer must already be out.
        queueMicrotask(() => { sentBeforeMicrotasks = sends > 0; });
        return { n: 1 };
      case 'throws': throw new RpcError(-32001, 'refused here');
      case 'bug': throw new TypeError('a handler bug');
      case 'bigint': return { n: 1n };
      case 'rejects': return Promise.reject(new RpcError(-32002, 'refused later'));
      // Thenables that are not promises: one whose then throws, one that settles three times.
      case 'bad-then': return { then() { throw new RpcError(-32004, 'then threw'); } };
      case 'many-then': return { then(ok: (v: unknown) => void, bad: (e: unknown) => void) { ok('first'); ok('second'); bad(new Error('third')); } };
      default: return Promise.resolve('later');
    }
  }, (ws) => {
    const send = ws.send.bind(ws);
    ws.send = ((...a: Parameters<typeof ws.send>) => { sends++; return send(...a); }) as typeof ws.send;
  });
  assert.equal(await p.client.sendRequest('now', {}), { n: 1 });
  assert.is(sentBeforeMicrotasks, true, 'the answer was written before the handler\'s turn ended');
  const failure = (m: string) => p.client.sendRequest(m, {}).then(() => null, (e: RpcError) => [e.code, e.message]);
  assert.equal(await failure('throws'), [-32001, 'refused here']);
  assert.equal(await failure('bug'), [RpcCode.INTERNAL_ERROR, 'internal error: a handler bug']);
  assert.equal(await failure('bigint'), [RpcCode.INTERNAL_ERROR, 'internal error: Do not know how to serialize a BigInt']);
  assert.equal(await failure('rejects'), [-32002, 'refused later']);
  assert.equal(await failure('bad-then'), [-32004, 'then threw']);
  const before = sends;
  assert.is(await p.client.sendRequest('many-then', {}), 'first');
  assert.is(await p.client.sendRequest('other', {}), 'later');
  assert.is(sends - before, 2, 'many-then got one answer, and other one');
});

test('onAnswered sees each answered request once, timed from its read to its answer; messages that are not requests are not counted', async () => {
  const seen: Array<{ method: string; params: unknown; ms: number; ok: boolean }> = [];
  let hookThrows = false;
  const busy = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until) { /* spin */ } };
  const p = await serve((method) => {
    switch (method) {
      case 'sync-slow': busy(15); return 'done';
      case 'async-slow': return new Promise((res) => setTimeout(() => res('later'), 30));
      case 'refuse': throw new RpcError(-32001, 'no');
      case 'reject-later': return new Promise((_res, rej) => setTimeout(() => rej(new Error('late bug')), 5));
      default: return 'ok';
    }
  }, undefined, {
    onAnswered: (method, params, ms, ok) => {
      seen.push({ method, params, ms, ok });
      if (hookThrows) throw new Error('a metrics bug');
    },
  });
  assert.is(await p.client.sendRequest('sync-slow', { a: 1 }), 'done');
  assert.is(await p.client.sendRequest('async-slow'), 'later');
  const failure = (m: string) => p.client.sendRequest(m).then(() => 'answered', () => 'refused');
  assert.is(await failure('refuse'), 'refused');
  assert.is(await failure('reject-later'), 'refused');
  // Not requests: a notification, bad JSON, an invalid message. Each is followed by a
  // request on the same socket, whose answer says the ones before it were handled.
  const raw = new WebSocket(p.url);
  await new Promise((res, rej) => { raw.once('open', res); raw.once('error', rej); });
  const answers: unknown[] = [];
  raw.on('message', (d) => answers.push(JSON.parse(String(d))));
  raw.send(JSON.stringify({ jsonrpc: '2.0', method: 'note' }));
  raw.send('{not json');
  raw.send(JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'x' }));
  raw.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'after' }));
  await new Promise<void>((res) => { const t = setInterval(() => { if (answers.length === 3) { clearInterval(t); res(); } }, 2); });
  raw.close();
  assert.equal(seen.map((s) => [s.method, s.ok]), [['sync-slow', true], ['async-slow', true], ['refuse', false], ['reject-later', false], ['after', true]]);
  assert.equal(seen[0].params, { a: 1 });
  assert.ok(seen[0].ms >= 15, `a handler that ran 15 ms took ${seen[0].ms} ms`);
  assert.ok(seen[1].ms >= 25, `an answer settled after 30 ms took ${seen[1].ms} ms`); // timers may fire a little early
  // A hook that throws is the hook's problem: the answer still goes out.
  hookThrows = true;
  assert.is(await p.client.sendRequest('again'), 'ok');
  assert.is(seen.length, 6);
});

test.after(async () => {
  for (const open of gates) open();
  for (const p of opened) await p.close();
});

test.run();
