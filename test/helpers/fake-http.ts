// What the two fake model servers (test/fake-ollama, test/fake-openai) share
// as HTTP servers on loopback: every request read whole and recorded (marked
// aborted when the client leaves before the reply has ended), a queue of
// scripted turns and a fallback, pauses that stop() cancels so a scripted
// delay never keeps a test process alive, and a wait for an aborted request.
// What each one answers is its own `handle`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatTurn, RecordedRequest } from '../fake-ollama/server.js';

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
