// The daemon's network endpoint: an HTTP server on 127.0.0.1 that speaks
// nothing but the WebSocket upgrade, and admits a connection only when it
// passes the checks of docs/architecture.md — no Origin or an allowed one (a web page
// must not reach the daemon), the daemon's bearer token, the path `/`. The
// checks run during the upgrade, so a refused connection never opens. Each
// admitted socket becomes one RpcConnection, handed to `onConnection` with what
// its upgrade request said of the peer (its name, whether it only observes);
// pings drop peers that stopped answering. Methods are not this module's
// business: it never looks inside a message.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { RpcConnection, type RpcConnectionOptions } from '../protocol/jsonrpc.js';
import { CLIENT_NAME_HEADER, isClientName, OBSERVER_HEADER } from '../protocol/messages.js';
import { bearerOf, tokensEqual } from '../local/bearer.js';

/** Pings go out this often; a peer that has not answered one by the next is dropped (half-open TCP). */
const HEARTBEAT_MS = 30_000;

/** What the upgrade request said of the peer. */
export interface Peer {
  /** The client's name (X-Evidex-Client), "unknown" when it gave none or a bad one. */
  name: string;
  /** A connection that only looks (daemon list, daemon status): it does not hold off the idle timeout. */
  observer: boolean;
}

export interface ListenerOptions {
  /** 0 = a free port chosen by the OS. */
  port: number;
  token: string;
  /** Origins a browser connection may come from (non-browser clients send no Origin). */
  allowedOrigins: readonly string[];
  /** Hard cap enforced by ws (`maxPayload`): past it the socket is closed with 1009. */
  maxPayloadBytes: number;
  /** Limits and hooks of every connection. */
  connection: RpcConnectionOptions;
  onConnection: (conn: RpcConnection, peer: Peer) => void;
  log: (line: string) => void;
  /** How often peers are pinged (default HEARTBEAT_MS); one that missed the last ping is dropped. */
  heartbeatMs?: number;
}

/** The client's name from its upgrade request when it is one (isClientName), else "unknown". */
export function clientNameOf(req: IncomingMessage): string {
  // Node lower-cases incoming header names.
  const v = req.headers[CLIENT_NAME_HEADER.toLowerCase()];
  return typeof v === 'string' && isClientName(v) ? v : 'unknown';
}

export class Listener {
  /** Open connections and whether each answered the last ping. */
  private readonly peers = new Map<RpcConnection, { ws: WebSocket; alive: boolean }>();
  private heartbeat: NodeJS.Timeout | null = null;

  /** The port it listens on (known once open() has resolved). */
  port = 0;

  private constructor(private readonly http: Server, private readonly wss: WebSocketServer) {}

  /** Listens on 127.0.0.1 and starts accepting connections. */
  static async open(opts: ListenerOptions): Promise<Listener> {
    const allowed = new Set(opts.allowedOrigins);
    const http = createServer((_req, res) => {
      // Plain HTTP gets nothing but a pointer: the daemon speaks WebSocket only.
      res.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' }).end('evidex daemon: WebSocket only\n');
    });
    const wss = new WebSocketServer({
      server: http,
      maxPayload: opts.maxPayloadBytes,
      perMessageDeflate: false,
      verifyClient: (info: { origin: string; req: IncomingMessage }, cb: (ok: boolean, code?: number, msg?: string, headers?: Record<string, string>) => void) => {
        const origin = info.req.headers.origin;
        if (origin !== undefined && !allowed.has(origin)) return cb(false, 403, 'Origin not allowed');
        const presented = bearerOf(info.req.headers.authorization);
        if (presented === null || !tokensEqual(presented, opts.token)) return cb(false, 401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer' });
        const path = (info.req.url ?? '/').split('?')[0];
        if (path !== '/') return cb(false, 404, 'Not Found');
        cb(true);
      },
    });
    const l = new Listener(http, wss);
    wss.on('connection', (ws, req) => l.accept(ws, req, opts));
    // ws re-emits the HTTP server's errors (a port in use, too); without a listener they would be thrown.
    wss.on('error', (e) => opts.log(`server error: ${e.message}`));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(opts.port, '127.0.0.1', () => { http.off('error', reject); resolve(); });
    });
    l.port = (http.address() as AddressInfo).port;
    l.heartbeat = setInterval(() => l.beat(), opts.heartbeatMs ?? HEARTBEAT_MS);
    l.heartbeat.unref();
    return l;
  }

  private accept(ws: WebSocket, req: IncomingMessage, opts: ListenerOptions): void {
    const conn = new RpcConnection(ws, opts.connection);
    const entry = { ws, alive: true };
    ws.on('pong', () => { entry.alive = true; });
    this.peers.set(conn, entry);
    conn.onClose(() => { this.peers.delete(conn); });
    opts.onConnection(conn, { name: clientNameOf(req), observer: req.headers[OBSERVER_HEADER] === '1' });
  }

  private beat(): void {
    for (const [conn, c] of this.peers) {
      // A peer that did not answer the last ping is gone (half-open TCP); free its slot.
      if (!c.alive) { conn.terminate('no pong: peer unresponsive'); continue; }
      c.alive = false;
      try { c.ws.ping(); } catch { /* closed meanwhile */ }
    }
  }

  /** Stops the pings (the first step of a shutdown: its connections are closing anyway). */
  stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  /** Drops whoever is still connected, then closes the server. */
  async close(): Promise<void> {
    this.stopHeartbeat();
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
    await new Promise<void>((r) => this.http.close(() => r()));
  }
}
