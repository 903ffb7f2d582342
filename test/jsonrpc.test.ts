// The JSON-RPC connection on its own, over a real ws server and client: a
// request's cancellation reaches its handler whether the handler looks at its
// signal before or after the cancel arrives, and a disconnect aborts it too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket, WebSocketServer } from 'ws';
import { CANCEL_NOTIFICATION, RpcConnection, type RequestContext } from '../daemon/jsonrpc.js';

interface Pair { client: RpcConnection; server: Promise<RpcConnection>; close: () => Promise<void> }

// Everything opened is closed after the suite, so a failed assertion cannot leave the process hanging.
const opened: Pair[] = [];
const gates: Array<() => void> = [];

async function pair(handler: (method: string, ctx: RequestContext) => Promise<unknown>): Promise<Pair> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((res) => wss.once('listening', res));
  const server = new Promise<RpcConnection>((res) => wss.once('connection', (ws) => {
    const conn = new RpcConnection(ws);
    conn.onRequest((method, _params, ctx) => handler(method, ctx));
    res(conn);
  }));
  const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}/`);
  await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
  const client = new RpcConnection(ws);
  const p: Pair = {
    client, server,
    close: async () => { client.close(); for (const c of wss.clients) c.terminate(); await new Promise((res) => wss.close(res)); },
  };
  opened.push(p);
  return p;
}

const tick = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** A handler that waits until told, then reports what its signal says at that moment (and later). */
function gatedHandler() {
  let open!: () => void;
  const gate = new Promise<void>((res) => { open = res; });
  gates.push(open);
  const seen: { abortedOnRead?: boolean; reason?: string; abortEvent?: boolean } = {};
  let entered!: () => void;
  const started = new Promise<void>((res) => { entered = res; });
  return {
    open, started, seen,
    handler: async (_m: string, ctx: RequestContext, readFirst: boolean) => {
      entered();
      let signal: AbortSignal | null = null;
      if (readFirst) {
        signal = ctx.signal;
        signal.addEventListener('abort', () => { seen.abortEvent = true; }, { once: true });
      }
      await gate;
      signal ??= ctx.signal;
      seen.abortedOnRead = signal.aborted;
      seen.reason = signal.aborted ? String((signal.reason as Error)?.message ?? signal.reason) : undefined;
      return 'done';
    },
  };
}

test('a cancel that arrives before the handler reads its signal leaves that signal aborted', async () => {
  const g = gatedHandler();
  const p = await pair((m, ctx) => g.handler(m, ctx, false));
  const answer = p.client.sendRequest('slow', {});
  await g.started;
  p.client.sendNotification(CANCEL_NOTIFICATION, { id: 1 });
  await tick(50);
  g.open();
  assert.is(await answer, 'done');
  assert.equal(g.seen, { abortedOnRead: true, reason: 'cancelled by the client' });
});

test('a cancel after the handler took its signal fires the abort event', async () => {
  const g = gatedHandler();
  const p = await pair((m, ctx) => g.handler(m, ctx, true));
  const answer = p.client.sendRequest('slow', {});
  await g.started;
  p.client.sendNotification(CANCEL_NOTIFICATION, { id: 1 });
  await tick(50);
  assert.is(g.seen.abortEvent, true, 'abort event fired before the handler went on');
  g.open();
  assert.is(await answer, 'done');
  assert.is(g.seen.abortedOnRead, true);
});

test('a request nobody cancels keeps an unaborted signal; a disconnect aborts the one in flight', async () => {
  const g = gatedHandler();
  const p = await pair((m, ctx) => g.handler(m, ctx, false));
  const first = p.client.sendRequest('slow', {});
  await g.started;
  g.open();
  assert.is(await first, 'done');
  assert.equal(g.seen, { abortedOnRead: false, reason: undefined });

  const g2 = gatedHandler();
  const p2 = await pair((m, ctx) => g2.handler(m, ctx, true));
  const second = p2.client.sendRequest('slow', {}).catch((e: Error) => e.message);
  await g2.started;
  p2.client.close();
  await tick(100);
  assert.is(g2.seen.abortEvent, true, 'the disconnect aborted the request');
  assert.match(String(await second), /closed/);
  g2.open();
});

test.after(async () => {
  for (const open of gates) open();
  for (const p of opened) await p.close();
});

test.run();
