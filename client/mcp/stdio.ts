// MCP over stdio: one JSON-RPC message per line in, one per line out. Not the
// SDK's StdioServerTransport, whose reader ends the session on a line over its
// buffer (10 MiB: it closes and the server exits 0, mid-session) and answers
// nothing to a line that is not JSON (the host waits for ever). Here every
// line a host sends gets what JSON-RPC names for it (messages.ts), and the
// session goes on; a line over the size limit is skipped as it arrives (never
// held: memory stays bounded by the limit) and answered -32600, with the
// request's id when the part read holds it at the top level, else `id: null`.
// When stdin ends, the requests already read are still answered (a host may
// write its requests and close stdin at once: `printf … | evidex mcp`), for
// up to `drainMs`; a call still running then is answered by the session's end.
import type { Readable, Writable } from 'node:stream';
import { errorText, readMessage, tooLarge, topLevelId } from './messages.js';
import type { McpSession } from './session.js';

export interface StdioOptions {
  /** The longest line taken, in bytes; a longer one is refused. */
  maxLineBytes: number;
  /** One diagnostic line (stderr). */
  log: (line: string) => void;
  /** After stdin ends, how long the requests already read may take to be answered before run() resolves. */
  drainMs: number;
}

/** How long `evidex mcp` waits, after stdin closed, for the answers to the requests it read (docs/mcp.md). */
export const STDIN_END_DRAIN_MS = 60_000;

export class StdioTransport {
  /** The line being read: its pieces and byte count; past the limit, only its first bytes are kept (for its id). */
  private pieces: Buffer[] = [];
  private bytes = 0;
  /** Requests read and not yet answered: stdin's end waits for them (bounded by drainMs). */
  private readonly pending = new Set<Promise<void>>();
  private readonly onData = (chunk: Buffer | string): void => this.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);

  constructor(private readonly stdin: Readable, private readonly stdout: Writable, private readonly session: McpSession, private readonly opts: StdioOptions) {}

  /**
   * Reads stdin until it ends (the host went away), then waits up to drainMs
   * for the answers to what it read; resolves with the number of requests
   * still unanswered then (the caller's session.close() answers them).
   */
  async run(): Promise<number> {
    await new Promise<void>((resolve) => {
      this.stdin.on('data', this.onData);
      this.stdin.on('error', (e) => this.opts.log(`stdin: ${e.message}`));
      const done = () => {
        this.stdin.off('data', this.onData);
        // A last line without its newline is still a message.
        if (this.bytes > 0) this.endLine();
        this.pieces = [];
        resolve();
      };
      this.stdin.once('end', done);
      this.stdin.once('close', done);
    });
    if (this.pending.size === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => { timer = setTimeout(resolve, this.opts.drainMs); });
    await Promise.race([Promise.all(this.pending), limit]);
    clearTimeout(timer);
    return this.pending.size;
  }

  /** Writes one message (JSON text) as one line. */
  private write(text: string): void {
    this.stdout.write(`${text}\n`);
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
    const kept = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces);
    this.pieces = [];
    this.bytes = 0;
    if (bytes > this.opts.maxLineBytes) {
      this.opts.log(`refused a message of ${bytes.toLocaleString('en')} bytes: over the limit of ${this.opts.maxLineBytes.toLocaleString('en')} bytes`);
      this.write(errorText(tooLarge(topLevelId(kept.toString('utf8')), bytes, this.opts.maxLineBytes)));
      return;
    }
    const text = kept.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    const read = readMessage(text);
    if ('refusal' in read) {
      this.write(errorText(read.refusal));
      return;
    }
    // Progress notifications of a request go out as lines of their own, before its answer.
    const answered: Promise<void> = this.session.handle(read.message, (note) => this.write(note))
      .then((reply) => { if (reply !== null) this.write(reply); })
      .finally(() => this.pending.delete(answered));
    this.pending.add(answered);
  }
}
