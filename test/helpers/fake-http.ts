// What the two fake model servers (test/fake-ollama, test/fake-openai) share
// as HTTP servers on loopback: every request read whole and recorded (marked
// aborted when the client leaves before the reply has ended), a queue of
// scripted turns and a fallback, pauses that stop() cancels so a scripted
// delay never keeps a test process alive, and a wait for an aborted request;
// the ways a scripted turn is streamed whatever the wire's framing (a line
// delayed, or cut in two; an endless stream; a line that never ends); and
// running a fake as a process of its own, by hand. What each one answers,
// and how it frames a line, is its own `handle`.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatTurn, FakeChunk, RecordedRequest } from '../fake-ollama/server.js';

/** Resolves when `res` can take more, or is closed (the listeners go either way). */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

export abstract class FakeHttpServer<R extends RecordedRequest> {
  readonly requests: R[] = [];
  readonly turns: ChatTurn[] = [];
  /** Called when the scripted queue is empty (e.g. an endless tool-calling model); undefined → HTTP 500. */
  fallback?: (body: any, n: number) => ChatTurn;
  port = 0;
  private readonly server: Server;
  private readonly closeWaiters: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  /** `label` names the fake in its own errors. */
  constructor(private readonly label: string) {
    this.server = createServer((req, res) => { void this.receive(req, res); });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  script(...turns: ChatTurn[]): this { this.turns.push(...turns); return this; }

  /** Resolves once some recorded request has been aborted by the client (or after `ms`, rejecting). */
  waitForAbort(ms = 5000): Promise<R> {
    const found = (): R | undefined => this.requests.find((r) => r.aborted);
    return new Promise((resolve, reject) => {
      const hit = found();
      if (hit) { resolve(hit); return; }
      const t = setTimeout(() => reject(new Error(`${this.label}: no request was aborted within ${ms} ms`)), ms);
      this.closeWaiters.push(() => { const r = found(); if (r) { clearTimeout(t); resolve(r); } });
    });
  }

  /** A pause that stop() cancels. */
  protected sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.timers.delete(t); resolve(); }, ms);
      this.timers.add(t);
    });
  }

  /**
   * Writes one line of a stream after the turn's delay. Like Go's net/http and
   * the servers the fakes play, headers leave with the first body write: while
   * a model loads (delayMs before the first line) the client is still waiting
   * for them. A turn with splitLines has each line cut in two writes 5 ms
   * apart. False once the client has gone.
   */
  protected async streamLine(res: ServerResponse, turn: ChatTurn, headers: OutgoingHttpHeaders, line: string): Promise<boolean> {
    if (turn.delayMs) await this.sleep(turn.delayMs);
    if (res.destroyed) return false;
    if (!res.headersSent) res.writeHead(200, headers);
    if (turn.splitLines && line.length > 4) {
      const cut = Math.floor(line.length / 2);
      res.write(line.slice(0, cut));
      await this.sleep(5); // let the first half reach the client on its own
      if (res.destroyed) return false;
      res.write(line.slice(cut));
    } else {
      res.write(line);
    }
    return true;
  }

  /** A turn that never ends: `line(chunk)` written as fast as the socket takes it (a pause only when its buffer is full, so the client's reading sets the pace) until the client goes away; `sent` counts the lines. */
  protected async streamEndless(res: ServerResponse, headers: OutgoingHttpHeaders, endless: { chunk: FakeChunk; sent?: number }, line: (c: FakeChunk) => string): Promise<void> {
    endless.sent = 0;
    while (!res.destroyed) {
      if (!res.headersSent) res.writeHead(200, headers);
      endless.sent++;
      if (!res.write(line(endless.chunk))) await drained(res);
    }
  }

  /** A line that never ends: `piece` written until `bytes` are sent, then the stream left open until the client goes away. */
  protected async streamUnendedLine(res: ServerResponse, piece: string, bytes: number): Promise<void> {
    for (let n = 0; n < bytes && !res.destroyed; n += piece.length) if (!res.write(piece)) await drained(res);
  }

  protected json(res: ServerResponse, rec: R, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body), () => { rec.completed = true; });
  }

  /** The record of a request as it arrives (its body not yet read). */
  protected abstract record(req: IncomingMessage): R;
  /** Answers a request whose body `raw` was read whole; `rec` is already in `requests`. */
  protected abstract handle(req: IncomingMessage, res: ServerResponse, rec: R, raw: string): Promise<void>;

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rec = this.record(req);
    this.requests.push(rec);
    res.on('close', () => {
      if (!res.writableFinished) { rec.aborted = true; for (const w of this.closeWaiters) w(); }
    });
    await this.handle(req, res, rec, Buffer.concat(chunks).toString('utf8'));
  }
}

/**
 * Serves `fake` as a process of its own, for trying `evidex ask` and `evidex
 * chat` by hand in a terminal: its "model" answers every request with
 * `answer` (fake-ollama/policy.ts's readable replies); prints
 * `VARIABLE=URL`, the setting that points evidex at it, and serves until
 * Ctrl-C (or SIGTERM).
 */
export async function serveByHand(fake: FakeHttpServer<RecordedRequest> & { url: string }, variable: string, answer: (body: any) => ChatTurn): Promise<void> {
  fake.fallback = (body) => answer(body);
  await fake.start();
  process.stdout.write(`${variable}=${fake.url}\n`);
  const stop = (): void => { void fake.stop().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
