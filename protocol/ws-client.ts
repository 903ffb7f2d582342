// The WebSocket client end of the transport (RFC 6455), for clients that talk
// to their own daemon on loopback: text frames, fragmentation, ping/pong and
// the closing handshake; no extensions, no TLS, no proxies. It exists because
// a CLI call's cost is mostly start-up: the `ws` package's client pulls in
// http, https, tls and zlib, which cost a one-shot `evidex search` more than
// the daemon's whole answer; this needs only `net` and `crypto`.
// The daemon's server side is `ws` itself, and the tests run both against it.
import type { Socket } from 'node:net';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { createHash, randomBytes } = process.getBuiltinModule('node:crypto');
const { EventEmitter } = process.getBuiltinModule('node:events');
const { connect } = process.getBuiltinModule('node:net');

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

export interface WsClientOptions {
  headers?: Record<string, string>;
  /** Largest message accepted (assembled from its frames); a larger one closes the connection with 1009. */
  maxPayload: number;
  /** How long the opening handshake may take. */
  handshakeTimeout?: number;
}

/**
 * Events, as the `ws` client names them: 'open'; 'message' (data: Buffer,
 * isBinary); 'close' (code, reason: Buffer), once; 'error' (Error);
 * 'unexpected-response' (request: null, response: {statusCode}) when the
 * server answers the upgrade with anything but 101.
 */
export class WsClient extends EventEmitter {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;

  readyState = WsClient.CONNECTING;
  private readonly socket: Socket;
  private readonly key = randomBytes(16).toString('base64');
  private readonly maxPayload: number;
  private buffered: Buffer = Buffer.alloc(0);
  private handshakeDone = false;
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private fragmentBinary = false;
  private closeCode = 1006;
  private closeReason = Buffer.alloc(0);
  private closeSent = false;
  private handshakeTimer: NodeJS.Timeout | null = null;

  constructor(url: string, opts: WsClientOptions) {
    super();
    const u = new URL(url);
    if (u.protocol !== 'ws:') throw new Error(`only ws:// URLs are supported, not ${u.protocol}`);
    this.maxPayload = opts.maxPayload;
    const port = Number(u.port || 80);
    this.socket = connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port });
    this.socket.setNoDelay(true);
    if (opts.handshakeTimeout) {
      this.handshakeTimer = setTimeout(() => this.fail(new Error('Opening handshake has timed out')), opts.handshakeTimeout);
    }
    this.socket.once('connect', () => {
      const lines = [
        `GET ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, 'Upgrade: websocket', 'Connection: Upgrade',
        `Sec-WebSocket-Key: ${this.key}`, 'Sec-WebSocket-Version: 13',
        ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      ];
      this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.finish());
  }

  /** Bytes written but not yet handed to the kernel (a peer that stops reading makes this grow). */
  get bufferedAmount(): number { return this.socket.writableLength; }

  send(data: string | Buffer): void {
    if (this.readyState !== WsClient.OPEN) return;
    const binary = Buffer.isBuffer(data);
    this.writeFrame(binary ? OP.binary : OP.text, binary ? data : Buffer.from(data, 'utf8'));
  }

  /** Starts the closing handshake; the connection ends when the server answers (or after a second). */
  close(code = 1000, reason = ''): void {
    if (this.readyState === WsClient.CLOSED) return;
    if (this.readyState === WsClient.CONNECTING) { this.fail(new Error('WebSocket was closed before the connection was established')); return; }
    this.sendClose(code, reason);
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Lets the process exit while the connection is open (a pending write still holds it until written). */
  unref(): void {
    this.socket.unref();
  }

  /** Drops the connection at once, without the closing handshake (close code 1006). */
  terminate(): void {
    if (this.readyState === WsClient.CLOSED) return;
    this.readyState = WsClient.CLOSING;
    this.socket.destroy();
  }

  private sendClose(code: number, reason: string): void {
    if (this.closeSent) return;
    this.closeSent = true;
    this.readyState = WsClient.CLOSING;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason));
    body.writeUInt16BE(code, 0);
    body.write(reason, 2);
    this.writeFrame(OP.close, body);
  }

  /** A client frame: always masked (RFC 6455 §5.3), never fragmented. */
  private writeFrame(opcode: number, payload: Buffer): void {
    const len = payload.length;
    const head = Buffer.alloc(len < 126 ? 6 : len < 65536 ? 8 : 14);
    head[0] = 0x80 | opcode;
    let at = 2;
    if (len < 126) head[1] = 0x80 | len;
    else if (len < 65536) { head[1] = 0x80 | 126; head.writeUInt16BE(len, 2); at = 4; } else { head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(len), 2); at = 10; }
    const mask = randomBytes(4);
    mask.copy(head, at);
    const masked = Buffer.allocUnsafe(len);
    for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i & 3];
    this.socket.write(Buffer.concat([head, masked]));
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (!this.handshakeDone && !this.readHandshake()) return;
    this.readFrames();
  }

  /** Parses the server's answer to the upgrade; false while it is incomplete or when it failed. */
  private readHandshake(): boolean {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const [status, ...headerLines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    this.buffered = this.buffered.subarray(end + 4);
    const statusCode = Number(/^HTTP\/1\.[01] (\d{3})/.exec(status)?.[1] ?? 0);
    if (statusCode !== 101) {
      this.handshakeDone = true;
      if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
      if (this.listenerCount('unexpected-response') > 0) this.emit('unexpected-response', null, { statusCode });
      else this.report(new Error(`Unexpected server response: ${statusCode}`));
      this.readyState = WsClient.CLOSING;
      this.socket.destroy();
      return false;
    }
    const headers = new Map(headerLines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const expected = createHash('sha1').update(this.key + GUID).digest('base64');
    if (headers.get('sec-websocket-accept') !== expected) { this.fail(new Error('Invalid Sec-WebSocket-Accept header')); return false; }
    this.handshakeDone = true;
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.readyState = WsClient.OPEN;
    this.emit('open');
    return this.readyState === WsClient.OPEN;
  }

  private readFrames(): void {
    while (this.buffered.length >= 2 && this.readyState !== WsClient.CLOSED) {
      const b0 = this.buffered[0];
      const b1 = this.buffered[1];
      if (b1 & 0x80) { this.protocolError(1002, 'a server frame must not be masked'); return; }
      let len = b1 & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buffered.length < 4) return;
        len = this.buffered.readUInt16BE(2); at = 4;
      } else if (len === 127) {
        if (this.buffered.length < 10) return;
        const big = this.buffered.readBigUInt64BE(2);
        if (big > BigInt(this.maxPayload)) { this.protocolError(1009, 'Max payload size exceeded'); return; }
        len = Number(big); at = 10;
      }
      if (this.fragmentBytes + len > this.maxPayload) { this.protocolError(1009, 'Max payload size exceeded'); return; }
      if (this.buffered.length < at + len) return;
      const payload = this.buffered.subarray(at, at + len);
      this.buffered = this.buffered.subarray(at + len);
      this.frame(b0 & 0x0f, (b0 & 0x80) !== 0, payload);
    }
  }

  private frame(opcode: number, fin: boolean, payload: Buffer): void {
    switch (opcode) {
      case OP.text: case OP.binary: case OP.continuation: {
        if (opcode !== OP.continuation) { this.fragments = []; this.fragmentBytes = 0; this.fragmentBinary = opcode === OP.binary; }
        this.fragments.push(Buffer.from(payload));
        this.fragmentBytes += payload.length;
        if (!fin) return;
        const data = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments);
        this.fragments = []; this.fragmentBytes = 0;
        this.emit('message', data, this.fragmentBinary);
        return;
      }
      case OP.close:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closeReason = Buffer.from(payload.subarray(2));
        this.sendClose(this.closeCode === 1005 ? 1000 : this.closeCode, '');
        this.socket.end();
        return;
      case OP.ping:
        this.writeFrame(OP.pong, payload);
        return;
      case OP.pong:
        return;
      default:
        this.protocolError(1002, `unknown opcode ${opcode}`);
    }
  }

  /** 'error' only to a listener: with none, EventEmitter would throw it out of a socket callback. */
  private report(e: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', e);
  }

  private protocolError(code: number, message: string): void {
    this.report(new Error(message));
    this.sendClose(code, '');
    this.closeCode = code;
    this.socket.destroy();
  }

  private fail(e: Error): void {
    if (this.readyState === WsClient.CLOSED) return;
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.readyState = WsClient.CLOSING;
    this.report(e);
    this.socket.destroy();
  }

  private finish(): void {
    if (this.readyState === WsClient.CLOSED) return;
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.readyState = WsClient.CLOSED;
    this.emit('close', this.closeCode, this.closeReason);
  }
}
