// JSON-RPC 2.0 transport, shared by the daemon and the client (the layering of
// vscode-jsonrpc: this file knows messages, ids and error codes, nothing about
// evidex's methods — those live in messages.ts). One RpcConnection wraps one
// WebSocket — the daemon's `ws` server sockets, the client's WsClient (ws-client.ts)
// — and either end may send requests and notifications.
import type { RawData } from 'ws';

/** What RpcConnection needs of a WebSocket; `ws`'s sockets and WsClient both have it. */
export interface RpcSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  on(event: 'message', fn: (data: RawData, isBinary: boolean) => void): unknown;
  on(event: 'close', fn: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}
/** WebSocket ready states (the same numbers in every implementation). */
const CONNECTING = 0;
const OPEN = 1;

/** The error codes JSON-RPC 2.0 itself defines. Server-defined codes (-32000..-32099) are in messages.ts, but MESSAGE_TOO_LARGE, which this transport raises itself. */
export const RpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** Code for a message over the per-message soft limit (server-defined range). */
export const MESSAGE_TOO_LARGE = -32003;

/** `data.code` of the refusal sent instead of an answer larger than the per-message limit. */
export const ANSWER_TOO_LARGE = 'answer_too_large';

function answerTooLarge(size: number | null, limit: number): RpcError {
  const message = `the answer (${size === null ? 'over 512 MiB' : `${size} bytes`}) is larger than the ${limit}-byte limit for one answer; narrow the request or ask for fewer items at a time (limit, offset)`;
  return new RpcError(MESSAGE_TOO_LARGE, message, { code: ANSWER_TOO_LARGE, message, limit, ...(size === null ? {} : { size }) });
}

export type RpcId = string | number;

export interface RpcErrorObject { code: number; message: string; data?: unknown }

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message.replace(/\s*\n\s*/g, ' ')); // one line, always
    this.name = 'RpcError';
  }
  toObject(): RpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * A request's answer lost with its connection (`reason`: the close code and
 * reason, or the socket's error): the peer went away while it was pending,
 * which is not an error the peer made.
 */
export class ConnectionClosed extends RpcError {
  /** `closeCode`: the WebSocket close code (1001: the peer is going away), or null for a socket error. */
  constructor(readonly reason: string, readonly closeCode: number | null) {
    super(RpcCode.INTERNAL_ERROR, reason);
    this.name = 'ConnectionClosed';
  }
}

export type Incoming =
  | { kind: 'request'; id: RpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: RpcId | null; result?: unknown; error?: RpcErrorObject }
  // A message we must answer with an error (id is null when it could not be read).
  | { kind: 'invalid'; id: RpcId | null; error: RpcError };

function isId(v: unknown): v is RpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Classifies one decoded JSON value. Batches (arrays) are refused: one request per message keeps per-message limits and ordering simple. */
export function classify(msg: unknown): Incoming {
  if (Array.isArray(msg)) {
    return { kind: 'invalid', id: null, error: new RpcError(RpcCode.INVALID_REQUEST, 'batch requests are not supported; send one JSON-RPC request per message') };
  }
  if (msg === null || typeof msg !== 'object') {
    return { kind: 'invalid', id: null, error: new RpcError(RpcCode.INVALID_REQUEST, 'a JSON-RPC message must be a JSON object') };
  }
  const m = msg as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, error: new RpcError(RpcCode.INVALID_REQUEST, 'missing "jsonrpc": "2.0"') };
  }
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') {
      return { kind: 'invalid', id, error: new RpcError(RpcCode.INVALID_REQUEST, '"method" must be a non-empty string') };
    }
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object')) {
      return { kind: 'invalid', id, error: new RpcError(RpcCode.INVALID_REQUEST, '"params" must be an object or an array') };
    }
    if (!('id' in m)) return { kind: 'notification', method: m.method, params: m.params };
    if (!isId(m.id)) {
      return { kind: 'invalid', id: null, error: new RpcError(RpcCode.INVALID_REQUEST, '"id" must be a string or a number') };
    }
    return { kind: 'request', id: m.id, method: m.method, params: m.params };
  }
  if ('result' in m || 'error' in m) {
    const err = m.error as RpcErrorObject | undefined;
    return { kind: 'response', id: isId(m.id) ? m.id : null, result: m.result, error: err };
  }
  return { kind: 'invalid', id, error: new RpcError(RpcCode.INVALID_REQUEST, 'neither a request ("method") nor a response ("result"/"error")') };
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/** Reads the id of an oversized message so its sender's pending request can fail; null when it has none. */
function idOf(text: string): RpcId | null {
  try {
    const v = JSON.parse(text) as { id?: unknown };
    return v && typeof v === 'object' && isId(v.id) ? v.id : null;
  } catch {
    return null;
  }
}

export interface RequestContext {
  id: RpcId;
  /** Aborted when the peer cancels this request ($/cancelRequest) or disconnects. */
  signal: AbortSignal;
}
/**
 * Answers one request: with a value, which is sent at once (in the same turn
 * of the event loop as the request arrived), or with a promise of one. A
 * thrown error, or a rejection, becomes the error answer.
 */
export type RequestHandler = (method: string, params: unknown, ctx: RequestContext) => unknown;
export type NotificationHandler = (method: string, params: unknown) => void;

/** Limits and hooks of one connection. The transport has no sizes of its own: each end passes its own (evidex's are in messages.ts). */
export interface RpcConnectionOptions {
  /** Soft per-message limit in bytes: a larger message gets an error answer, the connection stays open. */
  maxMessageBytes: number;
  /** Disconnect a peer whose unsent output grows past this many bytes (a slow reader must not hold the daemon's memory). */
  maxBufferedBytes: number;
  /**
   * The largest answer this end sends (default maxMessageBytes): a larger one is
   * refused with data.code `answer_too_large` instead, so it can neither exceed
   * what the peer accepts nor fill the send buffer and cut the connection.
   */
  maxAnswerBytes?: number;
  /** Called for every error answer this end sends, and for protocol problems (for logs). */
  onProtocolError?: (err: RpcError) => void;
  /**
   * Called once per request this end answered, with the time from the moment
   * its message was read off the socket (before JSON.parse) to the moment its
   * answer was handed to the socket: what this end adds to the peer's round
   * trip. `ok` is false for an error answer. Not called for messages that were
   * never a request (bad JSON, oversized, invalid). An answer to a peer that has
   * gone meanwhile is dropped, and still counted: the time is this end's all the same.
   */
  onAnswered?: (method: string, params: unknown, ms: number, ok: boolean) => void;
}

/** The LSP name for cancelling an in-flight request: `{id}`. */
export const CANCEL_NOTIFICATION = '$/cancelRequest';

/**
 * A request's cancellation, made into an AbortController only when the handler
 * reads `signal` (the ask loop does; a tool call never does). Creating one per
 * request was a measurable share of a small tool call's time in the daemon.
 */
class Cancellation {
  private controller: AbortController | null = null;
  private reason: unknown = undefined;
  private aborted = false;
  /** The same AbortSignal on every read (a handler may add and later remove a listener). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<RpcId, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly inflight = new Map<RpcId, Cancellation>();
  private requestHandler: RequestHandler | null = null;
  private readonly notificationHandlers = new Set<NotificationHandler>();
  private readonly closeHandlers = new Set<(reason: string) => void>();
  private closedReason: string | null = null;
  readonly maxMessageBytes: number;
  readonly maxBufferedBytes: number;
  readonly maxAnswerBytes: number;

  constructor(private readonly ws: RpcSocket, private readonly opts: RpcConnectionOptions) {
    this.maxMessageBytes = opts.maxMessageBytes;
    this.maxBufferedBytes = opts.maxBufferedBytes;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? this.maxMessageBytes;
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('close', (code: number, reason: Buffer) => this.closed(`connection closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`, code));
    ws.on('error', (err: Error) => this.closed(`connection error: ${err.message}`, null));
  }

  get isOpen(): boolean { return this.closedReason === null; }

  onRequest(handler: RequestHandler): void { this.requestHandler = handler; }
  onNotification(handler: NotificationHandler): () => void {
    this.notificationHandlers.add(handler);
    return () => this.notificationHandlers.delete(handler);
  }
  onClose(handler: (reason: string) => void): void { this.closeHandlers.add(handler); }

  sendRequest(method: string, params?: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.closedReason !== null) return Promise.reject(new RpcError(RpcCode.INTERNAL_ERROR, this.closedReason));
    // Given up on before it was sent: nothing is sent (a cancellation sent first would find no request to cancel).
    if (signal?.aborted) return Promise.reject(new RpcError(RpcCode.INTERNAL_ERROR, `${method} cancelled before it was sent`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      signal?.addEventListener('abort', () => { if (this.pending.has(id)) this.sendNotification(CANCEL_NOTIFICATION, { id }); }, { once: true });
    });
  }

  sendNotification(method: string, params?: unknown): void {
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  close(code = 1000, reason = ''): void {
    if (this.ws.readyState === OPEN || this.ws.readyState === CONNECTING) this.ws.close(code, reason);
  }

  /** Drops the peer at once (no closing handshake): for peers that stopped reading. */
  terminate(reason: string): void {
    this.closed(reason, null);
    this.ws.terminate();
  }

  private write(msg: object): void {
    this.writeText(JSON.stringify(msg));
  }

  private writeText(text: string): void {
    if (this.closedReason !== null || this.ws.readyState !== OPEN) return;
    this.ws.send(text);
    // A peer that does not read lets ws buffer everything in our memory; cut it off instead.
    if (this.ws.bufferedAmount > this.maxBufferedBytes) {
      this.terminate(`peer not reading: ${this.ws.bufferedAmount} bytes unsent`);
    }
  }

  private sendError(id: RpcId | null, err: RpcError): void {
    this.opts.onProtocolError?.(err);
    this.write({ jsonrpc: '2.0', id, error: err.toObject() });
  }

  private receive(data: RawData, isBinary: boolean): void {
    // The clock only for a hook (the daemon's metrics): the first read of `performance` loads perf_hooks, which a CLI call has no use for.
    const readAt = this.opts.onAnswered ? performance.now() : 0;
    if (isBinary) {
      this.sendError(null, new RpcError(RpcCode.INVALID_REQUEST, 'binary frames are not supported; send JSON text'));
      return;
    }
    // ws hands over a Buffer (binaryType 'nodebuffer'); only the other shapes need converting (Buffer.from would copy).
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (buf.length > this.maxMessageBytes) {
      const text = buf.toString('utf8');
      this.sendError(idOf(text), new RpcError(MESSAGE_TOO_LARGE,
        `message of ${buf.length} bytes exceeds the ${this.maxMessageBytes}-byte limit`, { limit: this.maxMessageBytes, size: buf.length }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8'));
    } catch (e) {
      this.sendError(null, new RpcError(RpcCode.PARSE_ERROR, `parse error: ${(e as Error).message}`));
      return;
    }
    const msg = classify(value);
    switch (msg.kind) {
      case 'invalid': this.sendError(msg.id, msg.error); return;
      case 'response': this.settle(msg); return;
      case 'notification': this.notification(msg.method, msg.params); return;
      case 'request': this.request(msg.id, msg.method, msg.params, readAt); return;
    }
  }

  private settle(msg: { id: RpcId | null; result?: unknown; error?: RpcErrorObject }): void {
    if (msg.id === null) {
      // An error about a message the peer could not attribute (bad JSON, oversized without id...).
      if (msg.error) this.opts.onProtocolError?.(new RpcError(msg.error.code, msg.error.message, msg.error.data));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) {
      const e = msg.error;
      p.reject(new RpcError(typeof e.code === 'number' ? e.code : RpcCode.INTERNAL_ERROR, String(e.message ?? 'error'), e.data));
    } else {
      p.resolve(msg.result);
    }
  }

  private notification(method: string, params: unknown): void {
    if (method === CANCEL_NOTIFICATION) {
      const id = (params as { id?: unknown } | undefined)?.id;
      if (isId(id)) this.inflight.get(id)?.abort(new Error('cancelled by the client'));
      return;
    }
    for (const h of this.notificationHandlers) {
      try { h(method, params); } catch { /* a listener's bug must not break the connection */ }
    }
  }

  private request(id: RpcId, method: string, params: unknown, readAt: number): void {
    if (!this.requestHandler) {
      this.sendError(id, new RpcError(RpcCode.METHOD_NOT_FOUND, `method not found: ${method}`));
      this.answered(method, params, readAt, false);
      return;
    }
    const cancel = new Cancellation();
    // In flight from before the handler runs: a disconnect the handler itself causes still aborts it.
    this.inflight.set(id, cancel);
    let out: unknown;
    try {
      out = this.requestHandler(method, params, { id, get signal() { return cancel.signal; } });
    } catch (e) {
      this.inflight.delete(id);
      this.answerError(id, e);
      this.answered(method, params, readAt, false);
      return;
    }
    // A value is answered now: no promise, no microtask turn, and the answer goes
    // out before the rest of this socket read is handled (a tool call's usual path).
    if (!isThenable(out)) {
      this.inflight.delete(id);
      this.answered(method, params, readAt, this.answer(id, out));
      return;
    }
    // Through Promise.resolve: a thenable that throws or settles twice still gives exactly one answer.
    Promise.resolve(out).then(
      (result) => { this.inflight.delete(id); this.answered(method, params, readAt, this.answer(id, result)); },
      (e: unknown) => { this.inflight.delete(id); this.answerError(id, e); this.answered(method, params, readAt, false); },
    );
  }

  private answered(method: string, params: unknown, readAt: number, ok: boolean): void {
    const hook = this.opts.onAnswered;
    if (!hook) return;
    try { hook(method, params, performance.now() - readAt, ok); } catch { /* a metrics bug must not break the connection */ }
  }

  /**
   * Sends the result; one that cannot be serialised (a handler's bug) is
   * answered as an internal error instead. True when the result was sent.
   */
  private answer(id: RpcId, result: unknown): boolean {
    let text: string;
    try {
      text = JSON.stringify({ jsonrpc: '2.0', id, result: result === undefined ? null : result });
    } catch (e) {
      // V8 refuses to build a string past its length limit: that answer is too large by any measure.
      if (e instanceof RangeError && /string length/i.test(e.message)) this.sendError(id, answerTooLarge(null, this.maxAnswerBytes));
      else this.answerError(id, e);
      return false;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit: the exact count is needed only near the limit.
    if (text.length * 3 > this.maxAnswerBytes) {
      const size = Buffer.byteLength(text);
      if (size > this.maxAnswerBytes) {
        this.sendError(id, answerTooLarge(size, this.maxAnswerBytes));
        return false;
      }
    }
    this.writeText(text);
    return true;
  }

  private answerError(id: RpcId, e: unknown): void {
    this.sendError(id, e instanceof RpcError ? e
      : new RpcError(RpcCode.INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`));
  }

  private closed(reason: string, code: number | null): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    for (const c of this.inflight.values()) c.abort(new Error(reason));
    for (const p of this.pending.values()) p.reject(new ConnectionClosed(reason, code));
    this.pending.clear();
    for (const h of this.closeHandlers) {
      try { h(reason); } catch { /* ignore */ }
    }
  }
}
