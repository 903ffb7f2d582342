// The JSON-RPC connection on its own, over a real ws server and client: a
// request's cancellation reaches its handler whether the handler looks at its
// signal before or after the cancel arrives, and a disconnect aborts it too.
// No sleeps: the order of messages on one connection, and promises settled by
// the abort listeners themselves, say when each step has happened.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket, WebSocketServer } from 'ws';
import { CANCEL_NOTIFICATION, RpcCode, RpcConnection, RpcError, type RequestContext, type RequestHandler } from '../daemon/jsonrpc.js';

interface Pair { client: RpcConnection; close: () => Promise<void> }

// Everything opened is closed after the suite, so a failed assertion cannot leave the process hanging.
const opened: Pair[] = [];
const gates: Array<() => void> = [];

/** 'ping' is answered at once; any other method goes to `slow`. */
function pair(slow: (ctx: RequestContext) => Promise<unknown>): Promise<Pair> {
  return serve(async (method, _params, ctx) => (method === 'ping' ? 'pong' : slow(ctx)));
}

/** A real ws server whose connections answer with `handler`, and a client connected to it; `onSocket` sees each server-side socket. */
async function serve(handler: RequestHandler, onSocket?: (ws: WebSocket) => void): Promise<Pair> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((res) => wss.once('listening', res));
  wss.on('connection', (ws) => {
    onSocket?.(ws);
    const conn = new RpcConnection(ws);
    conn.onRequest(handler);
  });
  const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}/`);
  await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
  const client = new RpcConnection(ws);
  const p: Pair = {
    client,
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

test.after(async () => {
  for (const open of gates) open();
  for (const p of opened) await p.close();
});

test.run();
