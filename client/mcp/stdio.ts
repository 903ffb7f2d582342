// The read side of MCP over stdio, in place of the SDK's StdioServerTransport,
// whose reader ends the session on a line over its buffer (10 MiB: it closes
// and the server exits 0, mid-session) and answers nothing to a line that is
// not JSON (the host waits for ever). Here every line a host sends gets what
// JSON-RPC names for it, and the session goes on:
//
//   - a line over the size limit is skipped as it arrives (never held: memory
//     stays bounded by the limit) and answered -32600, with the request's id
//     when the part read holds it at the top level, else `id: null`;
//   - a line that is not JSON: -32700, `id: null`;
//   - JSON that is not a JSON-RPC message: -32600;
//   - a request the server handles whose params do not fit its schema: -32602
//     with one line (the SDK would answer a pretty-printed validation dump,
//     as -32603 for tools/call).
//
// Only then does the SDK's protocol layer see the message. Writing is the
// SDK's one JSON line per message.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A schema the SDK's way (zod): what a request of one method must look like. */
export interface RequestSchema {
  safeParse(v: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
}

export interface GuardedStdioOptions {
  /** The longest line taken, in bytes; a longer one is refused. */
  maxLineBytes: number;
  /** The requests the server handles, by method: their params are checked here, so a mismatch is one line. */
  requests: Readonly<Record<string, RequestSchema>>;
  /** One diagnostic line (stderr). */
  log: (line: string) => void;
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ');

/** The first zod issue, as `path: message`. */
function issueLine(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  const i = error.issues[0];
  if (!i) return 'does not match the schema';
  return oneLine(`${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`);
}

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * The `id` of a JSON-RPC message from the start of its text (a message too
 * large to parse): the value of the key "id" at the top level of an object,
 * when it is a string or a number and lies inside `text`; null otherwise. A
 * small scanner over strings and nesting, no parse of the rest.
 */
export function topLevelId(text: string): RequestId | null {
  let depth = 0;
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => { while (i < n && /\s/.test(text[i])) i++; };
  /** The end (exclusive) of the string starting at i (a quote), or -1 when it runs past the text. */
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < n; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  skipSpace();
  if (text[i] !== '{') return null;
  // Inside the top object: alternate keys and values; at depth 1, a key "id" is ours.
  let expectKey = false;
  for (; i < n; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(i);
      if (end < 0) return null;
      if (depth === 1 && expectKey) {
        let key: unknown;
        try { key = JSON.parse(text.slice(i, end)); } catch { return null; }
        i = end;
        skipSpace();
        if (text[i] !== ':') return null;
        i++;
        skipSpace();
        if (key === 'id') {
          const rest = text.slice(i);
          const m = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])/.exec(rest);
          if (!m) return null;
          const v: unknown = JSON.parse(m[0]);
          return isId(v) ? v : null;
        }
        expectKey = false;
        i--; // the value starts here; the loop's i++ moves onto it
        continue;
      }
      i = end - 1;
      continue;
    }
    if (c === '{' || c === '[') { depth++; if (depth === 1) expectKey = true; continue; }
    if (c === '}' || c === ']') { depth--; if (depth === 0) return null; continue; }
    if (c === ',' && depth === 1) expectKey = true;
  }
  return null;
}

export class GuardedStdioTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];

  /** The line being read: its pieces and byte count; past the limit, only its first bytes are kept (for its id). */
  private pieces: Buffer[] = [];
  private bytes = 0;
  private closed = false;
  private readonly onData = (chunk: Buffer | string): void => this.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onError = (e: Error): void => { this.onerror?.(e); };

  constructor(private readonly stdin: Readable, private readonly stdout: Writable, private readonly opts: GuardedStdioOptions) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.pieces = [];
    this.onclose?.();
  }

  private take(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      this.keep(chunk.subarray(from, nl));
      this.endLine();
      from = nl + 1;
    }
    this.keep(chunk.subarray(from));
  }

  /** Adds to the line being read, keeping no more than the limit's worth of it. */
  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    const room = this.opts.maxLineBytes - Math.min(this.bytes, this.opts.maxLineBytes);
    if (room > 0) this.pieces.push(Buffer.from(piece.subarray(0, room)));
    this.bytes += piece.length;
  }

  private endLine(): void {
    const bytes = this.bytes;
    const kept = Buffer.concat(this.pieces);
    this.pieces = [];
    this.bytes = 0;
    if (bytes > this.opts.maxLineBytes) {
      const id = topLevelId(kept.toString('utf8'));
      this.opts.log(`refused a message of ${bytes.toLocaleString('en')} bytes: over the limit of ${this.opts.maxLineBytes.toLocaleString('en')} bytes`);
      this.refuse(id, ErrorCode.InvalidRequest, `message too large: ${bytes} bytes, over the limit of ${this.opts.maxLineBytes} bytes per message`,
        { code: 'message_too_large', bytes, limit: this.opts.maxLineBytes });
      return;
    }
    const text = kept.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    this.dispatch(text);
  }

  private dispatch(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.refuse(null, ErrorCode.ParseError, `parse error: the line is not JSON (${oneLine((e as Error).message).slice(0, 160)})`);
      return;
    }
    const id = value !== null && typeof value === 'object' && !Array.isArray(value) && isId((value as { id?: unknown }).id) ? (value as { id: RequestId }).id : null;
    const msg = JSONRPCMessageSchema.safeParse(value);
    if (!msg.success) {
      this.refuse(id, ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 request, notification or response (an object with "jsonrpc": "2.0" and a method, or a result or error)');
      return;
    }
    const m = msg.data;
    if ('method' in m && 'id' in m && Object.hasOwn(this.opts.requests, m.method)) {
      const checked = this.opts.requests[m.method].safeParse({ method: m.method, params: m.params });
      if (!checked.success) {
        this.refuse(m.id, ErrorCode.InvalidParams, `invalid params for ${m.method}: ${issueLine(checked.error)}`);
        return;
      }
    }
    try {
      this.onmessage?.(m);
    } catch (e) {
      // The protocol layer threw while taking it in (a value it could not print, say): the session goes on.
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private refuse(id: RequestId | null, code: number, message: string, data?: Record<string, unknown>): void {
    // `id: null` is JSON-RPC's answer when the id cannot be read; the SDK's message type has no room for it.
    void this.send({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } } as unknown as JSONRPCMessage);
  }
}
