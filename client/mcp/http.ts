// MCP over Streamable HTTP (the spec's transport for hosts that are servers
// themselves, such as Open WebUI): one endpoint, /mcp, on Node's own HTTP
// server. Not the SDK's server transport, which converts every request to a
// Web Request and back (Hono's adapter), answers a message that is not
// JSON-RPC as a parse error, takes batches the current protocol removed, and
// holds a body up to 4 MiB; evidex's limit is the daemon's own, 1 MiB.
//
// Each request passes http-access.ts (Host, Origin, token) before its body is
// read. A POST carries one JSON-RPC message (messages.ts reads it as stdio
// does); an initialize opens a session (session.ts) with its own daemon
// connection, named after the host, and answers with its Mcp-Session-Id;
// every other message names its session. A request's answer is one JSON
// object (application/json), unless messages of its own come before it: a
// tools/call that waits on the first build, from a host that gave a progress
// token and accepts an event stream, is answered by an SSE stream of its
// progress notifications, then its answer. A request the host cancelled is
// answered by an SSE stream that ends with no answer (the host gets none, as
// MCP's cancellation says, and the HTTP exchange still ends); a host that
// closes a request before its answer has cancelled it too. Notifications
// get 202. GET is 405 (this server sends nothing unasked); DELETE ends a
// session.
//
// A session ends when its host deletes it, when room is needed for a new one
// (the least recently used goes), or when its daemon connection closes (the
// daemon was stopped or restarted): from then on its id gets 404, which tells
// the host to start a new session.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '../connection.js';
import { checkAccess, corsHeaders, hostsFor, type AccessRules } from './http-access.js';
import { ErrorCode, errorText, readMessage, tooLarge, topLevelId, type Incoming, type Refusal } from './messages.js';
import { daemonGoneLine, McpSession } from './session.js';

/** Sessions open at once; past it, the least recently used one ends. */
export const MAX_SESSIONS = 64;
/** Ended sessions whose reason a later request is told (404). */
const ENDED_KEPT = 256;

export interface HttpServerOptions {
  root: string;
  version: string;
  /** The address to listen on (127.0.0.1 unless the user named another). */
  address: string;
  /** 0 = a free port chosen by the system. */
  port: number;
  token: string;
  /** Origins a browser may call from; none by default. */
  allowedOrigins: readonly string[];
  /** The longest body taken, in bytes; a longer one is refused (413). */
  maxBodyBytes: number;
  /** Opens a daemon connection named after a host (connect(), starting a daemon when none runs). */
  open: (clientName: string) => Promise<Client>;
  log: (line: string) => void;
  maxSessions?: number;
}

interface Answer {
  status: number;
  /** JSON text; none for 202 and 204. */
  body?: string;
  /** An empty SSE stream (a cancelled request's answer) instead of JSON. */
  sse?: boolean;
  session?: string;
  headers?: Record<string, string>;
}

const isJson = (contentType: string | undefined): boolean => /^application\/json\s*(;|$)/i.test(contentType ?? '');
/** Whether the host takes an SSE stream as a POST's answer (MCP hosts accept both it and JSON). */
const takesEvents = (accept: string | undefined): boolean => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');

/**
 * A POST's answer as an SSE stream, opened by the first message sent before
 * the answer (a progress notification); the answer, when there is one, is its
 * last event. Unopened, the answer goes as JSON as usual.
 */
class EventStream {
  opened = false;
  constructor(private readonly res: ServerResponse, private readonly headers: () => Record<string, string>) {}

  send(json: string, session: string | undefined): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    if (!this.opened) {
      this.opened = true;
      this.res.writeHead(200, { ...this.headers(), ...(session ? { 'Mcp-Session-Id': session } : {}), 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    }
    this.res.write(`event: message\ndata: ${json}\n\n`);
  }

  end(json: string | undefined): void {
    if (json !== undefined) this.send(json, undefined);
    this.res.end();
  }

  /** Calls `fn` if the host closes the exchange before its answer is written (it gave up on the request). */
  onGone(fn: () => void): void {
    this.res.once('close', () => { if (!this.res.writableFinished) fn(); });
  }
}
const noId = (code: number, message: string, data?: Record<string, unknown>): string => errorText({ id: null, code, message, ...(data ? { data } : {}) });

export class McpHttpServer {
  private readonly sessions = new Map<string, McpSession>();
  /** Why a session ended, by id, for the 404 a later request of it gets. */
  private readonly ended = new Map<string, string>();
  private rules!: AccessRules;
  /** The port listened on (known once started). */
  port = 0;

  private constructor(private readonly http: Server, private readonly opts: HttpServerOptions) {}

  static async start(opts: HttpServerOptions): Promise<McpHttpServer> {
    const http = createServer();
    const s = new McpHttpServer(http, opts);
    http.on('request', (req: IncomingMessage, res: ServerResponse) => { void s.serve(req, res); });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(opts.port, opts.address, () => { http.off('error', reject); resolve(); });
    });
    http.on('error', (e) => opts.log(`server error: ${e.message}`));
    s.port = (http.address() as AddressInfo).port;
    s.rules = { hosts: hostsFor(opts.address, s.port), origins: new Set(opts.allowedOrigins), token: opts.token };
    return s;
  }

  get openSessions(): number { return this.sessions.size; }

  /** Stops listening and ends every session. */
  async close(): Promise<void> {
    const closed = new Promise<void>((r) => this.http.close(() => r()));
    this.http.closeAllConnections();
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
    await closed;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const events = new EventStream(res, () => corsHeaders(origin, false));
    let answer: Answer;
    try {
      answer = await this.answer(req, events);
    } catch (e) {
      answer = { status: 500, body: noId(ErrorCode.InternalError, `internal error: ${(e as Error).message}`) };
    }
    // A GET is every SDK client's probe for a stream this server does not offer: its 405 is an answer, not a problem.
    if (answer.status >= 400 && !(req.method === 'GET' && answer.status === 405)) this.opts.log(`refused ${req.method} ${req.url} from ${req.socket.remoteAddress}: ${answer.status} ${this.reasonOf(answer)}`);
    // A body not read (refused before it) is drained, so the host reads this answer, not a reset connection.
    if (!req.complete) req.resume();
    const cors = corsHeaders(answer.status === 403 ? undefined : origin, req.method === 'OPTIONS');
    const headers: Record<string, string | number> = { ...cors, ...answer.headers, ...(answer.session ? { 'Mcp-Session-Id': answer.session } : {}) };
    if (events.opened) {
      events.end(answer.body);
    } else if (answer.sse) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'Content-Length': 0 }).end();
    } else if (answer.body === undefined) {
      res.writeHead(answer.status, answer.status === 204 ? headers : { ...headers, 'Content-Length': 0 }).end();
    } else {
      res.writeHead(answer.status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer.body) }).end(answer.body);
    }
  }

  private reasonOf(a: Answer): string {
    try { return (JSON.parse(a.body ?? '{}') as { error?: { message?: string } }).error?.message ?? ''; } catch { return ''; }
  }

  private async answer(req: IncomingMessage, events: EventStream): Promise<Answer> {
    const verdict = checkAccess(req.method, req.headers, this.rules);
    if (!verdict.ok) {
      const code = verdict.status === 401 ? 'unauthorized' : 'forbidden';
      return { status: verdict.status, body: noId(-32000, `${code}: ${verdict.reason}`), headers: verdict.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="evidex"' } : {} };
    }
    if (verdict.preflight) return { status: 204, headers: { Allow: 'POST, DELETE, OPTIONS' } };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return { status: 404, body: noId(-32000, `not found: the MCP endpoint is /mcp, not ${path}`) };
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return { status: 400, body: noId(-32000, `unsupported MCP-Protocol-Version ${JSON.stringify(version)} (this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`) };
    }
    const sessionId = typeof req.headers['mcp-session-id'] === 'string' ? req.headers['mcp-session-id'] : undefined;
    switch (req.method) {
      case 'POST': return this.post(req, sessionId, events);
      case 'DELETE': return this.remove(sessionId);
      default:
        return { status: 405, headers: { Allow: 'POST, DELETE' }, body: noId(-32000, `method not allowed: ${req.method} (POST a JSON-RPC message; this server sends nothing unasked, so there is no stream to GET)`) };
    }
  }

  /** The session a request names, or the answer refusing it. */
  private sessionOf(id: string | undefined): McpSession | Answer {
    if (id === undefined) return { status: 400, body: noId(-32000, 'bad request: no Mcp-Session-Id header; send initialize first (its answer carries the session id)') };
    const s = this.sessions.get(id);
    if (!s) {
      const why = this.ended.get(id);
      return { status: 404, body: noId(-32001, `session not found${why ? `: it ended (${why})` : ''}; start a new session with initialize`) };
    }
    // Most recently used last: the first is the one to end when room is needed.
    this.sessions.delete(id);
    this.sessions.set(id, s);
    return s;
  }

  private async post(req: IncomingMessage, sessionId: string | undefined, events: EventStream): Promise<Answer> {
    if (!isJson(req.headers['content-type'])) {
      return { status: 415, body: noId(-32000, `unsupported media type ${JSON.stringify(req.headers['content-type'] ?? '')}: POST one JSON-RPC message as application/json`) };
    }
    const body = await this.readBody(req);
    if ('refusal' in body) return { status: 413, body: errorText(body.refusal) };
    const read = readMessage(body.text);
    if ('refusal' in read) return refused(read.refusal);
    const m = read.message;
    if (m.kind === 'request' && m.method === 'initialize') {
      if (sessionId !== undefined) return { status: 400, body: errorText({ id: m.id, code: ErrorCode.InvalidRequest, message: 'initialize opens a new session: send it without an Mcp-Session-Id header' }) };
      return this.open(m);
    }
    const s = this.sessionOf(sessionId);
    if (!(s instanceof McpSession)) return s;
    // Messages of a request's own before its answer (progress) need a stream the host takes.
    const notify = m.kind === 'request' && takesEvents(req.headers.accept) ? (note: string) => events.send(note, sessionId) : undefined;
    // A host that closes its request has given up on it, as a notifications/cancelled would say.
    if (m.kind === 'request') events.onGone(() => s.cancel(m.id, 'the host closed its HTTP request before the answer'));
    const reply = await s.handle(m, notify);
    if (m.kind !== 'request') return { status: 202, session: sessionId };
    return reply === null ? { status: 200, sse: true, session: sessionId } : { status: 200, body: reply, session: sessionId };
  }

  /** initialize: a new session, answered once its daemon connection is open and its tool list made. */
  private async open(m: Incoming & { kind: 'request' }): Promise<Answer> {
    const id = randomUUID();
    const session = new McpSession({
      root: this.opts.root, version: this.opts.version, open: this.opts.open, log: this.opts.log,
      reconnect: false,
      onLost: (why) => { this.end(id, `the evidex daemon connection closed: ${why}`, daemonGoneLine(why, false)).catch(() => undefined); },
    });
    const reply = (await session.handle(m))!;
    try {
      await session.warm();
    } catch (e) {
      await session.close();
      return { status: 200, body: errorText({ id: m.id, code: ErrorCode.InternalError, message: `cannot reach the evidex daemon: ${(e as Error).message.replace(/\s*\n\s*/g, ' ')}` }) };
    }
    const max = this.opts.maxSessions ?? MAX_SESSIONS;
    while (this.sessions.size >= max) {
      const [oldest] = this.sessions.keys();
      this.opts.log(`ending the least recently used session to open a new one (at most ${max} at once)`);
      await this.end(oldest, `ended to make room: at most ${max} sessions at once, and it was the least recently used`);
    }
    this.sessions.set(id, session);
    this.opts.log(`session opened for ${JSON.stringify(session.clientName)} (${this.sessions.size} open)`);
    return { status: 200, body: reply, session: id };
  }

  private async remove(sessionId: string | undefined): Promise<Answer> {
    const s = this.sessionOf(sessionId);
    if (!(s instanceof McpSession)) return s;
    await this.end(sessionId!, 'the host deleted it');
    return { status: 204 };
  }

  /** Ends a session: `why` is logged and told to its later requests (404); a call in flight is refused with `refusal`. */
  private async end(id: string, why: string, refusal = `the MCP session ended: ${why}; start a new session`): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.ended.set(id, why);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
    this.opts.log(`session of ${JSON.stringify(s.clientName)} ended: ${why}`);
    await s.close(refusal);
  }

  /**
   * The body as text, or the refusal of one over the limit: past it nothing
   * more is kept (memory stays bounded) and the rest is drained, so the host
   * reads the 413 rather than a reset connection.
   */
  private readBody(req: IncomingMessage): Promise<{ text: string } | { refusal: Refusal }> {
    const limit = this.opts.maxBodyBytes;
    return new Promise((resolve, reject) => {
      const pieces: Buffer[] = [];
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        const room = limit - Math.min(bytes, limit);
        if (room > 0) pieces.push(chunk.length <= room ? chunk : chunk.subarray(0, room));
        bytes += chunk.length;
      });
      req.once('end', () => {
        const kept = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
        if (bytes > limit) resolve({ refusal: tooLarge(topLevelId(kept.toString('utf8')), bytes, limit) });
        else resolve({ text: kept.toString('utf8') });
      });
      req.once('error', reject);
    });
  }
}

/** The HTTP answer to a message refused before the session saw it: 400 for what is not a JSON-RPC message, else the JSON-RPC error. */
function refused(r: Refusal): Answer {
  return { status: r.code === ErrorCode.ParseError || r.code === ErrorCode.InvalidRequest ? 400 : 200, body: errorText(r) };
}
