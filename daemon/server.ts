// The evidex daemon: one per repository root. It owns the index handle, the
// watcher and a WebSocket JSON-RPC server on 127.0.0.1, and serves any number of
// clients without letting one of them (an error, an exception, a slow socket)
// affect the others. Methods come from protocol/messages.ts, their params
// schemas from methods.ts; each method has one handler (Daemon.handlers).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { z } from 'zod';
import type { IndexHandle, ToolResult } from '../indexer/api.js';
import type { RepoRules } from '../indexer/discover/rules.js';
import { asToolError, ToolError } from '../indexer/errors.js';
import { openIndex } from '../indexer/index.js';
import { checkToolCall } from '../indexer/query/arg-bounds.js';
import { isToolName, toolDescriptors, type ToolCall } from '../indexer/query/schemas.js';
import { RepoWatcher, type WatchMode } from '../indexer/watch.js';
import { RpcCode, RpcConnection, RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { formatDuration, IdleTimer } from './idle.js';
import { LatencyBook } from './latency.js';
import { auditLogFor, type AuditLog } from './audit.js';
import type { Conversation } from './ask/loop.js';
import {
  ASK_ERROR, MAX_ANSWER_BYTES, MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES, CLIENT_NAME_HEADER, Methods, methodKeyOf, Notifications, OBSERVER_HEADER, REQUEST_CANCELLED, SHUTTING_DOWN, TOOL_ERROR,
  type AskEventParams, type AskResult, type DaemonInfoStatus, type IndexProgressParams, type MethodKey, type ParamsOf, type ResultOf,
  type StatusResult, type WarmupStatus,
} from '../protocol/messages.js';
import { ParamsSchemas } from './methods.js';
import {
  acquireLock, createToken, ensureStateDir, removeDaemonInfo, tokensEqual, writeDaemonInfo, type DaemonInfo, type Lock,
} from './state.js';
import { warmRequestPath, warmupCalls, WARMUP_ROUNDS, WARMUP_SAMPLE, WARMUP_WAIT_MS, type WarmupCall } from './warmup.js';

export interface DaemonOptions {
  /** Canonical (real) path of the repository root. */
  root: string;
  stateDir: string;
  /** 0 (default) = a free port chosen by the OS. */
  port?: number;
  /** Origins a browser connection may come from (default none: non-browser clients send no Origin). */
  allowedOrigins?: string[];
  maxMessageBytes?: number;
  maxPayloadBytes?: number;
  /** Answers larger than this are refused with answer_too_large (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
  /** A client with more unsent bytes than this is disconnected (default 8 MiB). */
  maxBufferedBytes?: number;
  watch?: WatchMode;
  maxFileBytes?: number;
  extraSecrets?: string[];
  /** Warm the request path once the index is loaded (default true; see warmup.ts). */
  warmup?: boolean;
  /** Exit after this long with no client (idle.ts); 0 or absent = never (a daemon started by hand). */
  idleTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Runs `fn`s one after another: every index write (refresh, watcher batch) goes through one queue. */
class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  waiting = 0;
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.waiting++;
    const p = this.tail.then(fn);
    this.tail = p.then(() => undefined, () => undefined).finally(() => { this.waiting--; });
    return p;
  }
  /** Resolves when everything queued so far has finished, or after `ms`, whichever is first; true if drained. */
  async drain(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const t = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), ms); });
    const done = this.tail.then(() => true);
    try { return await Promise.race([done, t]); } finally { clearTimeout(timer); }
  }
}

interface ClientState extends Caller { ws: WebSocket; alive: boolean; conn: RpcConnection }

/**
 * Who sent a request: a client, or the daemon's own warm-up, whose notifications
 * go nowhere. `name` is what the client calls itself (X-Evidex-Client), for the
 * audit log; `conversations` are its `evidex chat` histories, gone with it.
 */
type Caller = { id: string; name: string; conn: Pick<RpcConnection, 'sendNotification'>; conversations?: Map<string, Conversation> };
const WARMUP_CALLER: Caller = { id: 'warm-up', name: 'warm-up', conn: { sendNotification: () => undefined } };

/** Conversations one connection may keep (each is bounded by the context budget when used). */
const MAX_CONVERSATIONS = 16;

/** The client's name from its upgrade request: 1-100 printable ASCII characters, else "unknown". */
export function clientNameOf(req: IncomingMessage): string {
  // Node lower-cases incoming header names.
  const v = req.headers[CLIENT_NAME_HEADER.toLowerCase()];
  return typeof v === 'string' && /^[\x20-\x7e]{1,100}$/.test(v) && v.trim() !== '' ? v : 'unknown';
}
/** Refusals a warm-up call may meet as any client's would: an empty file has no line 1, a file deleted since the sample is not indexed. */
const WARMUP_REFUSALS: ReadonlySet<string> = new Set(['out_of_range', 'not_indexed']);

const HEARTBEAT_MS = 30_000;

/**
 * The latency histogram a client's request counts in: one per method, and per
 * tool for tools/call. Method and tool names a client made up share one
 * histogram each, so no client can grow the daemon's memory with new names.
 */
function latencyName(method: string, params: unknown): string {
  if (method === Methods.toolsCall.method) {
    const name = (params as { name?: unknown } | null | undefined)?.name;
    return `${method} ${isToolName(name) ? name : '(unknown tool)'}`;
  }
  return methodKeyOf(method) ? method : '(unknown method)';
}

/** One method's handler: its validated params in, its result (or a promise of it) out. */
type Handler<K extends MethodKey> = (params: ParamsOf<K>, client: Caller, ctx: RequestContext) => ResultOf<K> | Promise<ResultOf<K>>;
type Handlers = { [K in MethodKey]: Handler<K> };

/** What tools/call answers: the result's three fields, whatever else the handle's result carries. */
const wireResult = (r: ToolResult): ToolResult => ({ evidence: r.evidence, total: r.total, generation: r.generation });

/**
 * A tool call that waits (on the first build, on git) answers REQUEST_CANCELLED
 * as soon as its client cancels it, so a host that gave up is not kept waiting
 * and the call's answer, if it comes, is dropped. The work itself runs on: it
 * is read-only, and bounded (git by its timeout).
 */
function untilCancelled<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RpcError(REQUEST_CANCELLED, 'request cancelled by the client'));
    if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class Daemon {
  private readonly queue = new WriteQueue();
  private readonly clients = new Map<string, ClientState>();
  /** How long the daemon takes to answer clients (latency.ts); warm-up calls are not clients' and are not counted. */
  private readonly latency = new LatencyBook();
  /** Every tool call's line, from tools/call and from the ask loop alike (one queue per state folder). */
  private get audit(): AuditLog { return auditLogFor(this.opts.stateDir); }
  private nextClient = 1;
  private watcher: RepoWatcher | null = null;
  private startup: Promise<void> = Promise.resolve();
  /** The index was complete when the daemon opened it: queries need not wait for the start-up catch-up. */
  private servesDuringStartup = false;
  private startupState: 'running' | 'done' | 'failed' = 'running';
  private startupError: string | undefined;
  private warmup: WarmupStatus = { state: 'off' }; // set by begin()
  private stopping: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private idleTimer: IdleTimer | null = null;
  private readonly startedAt = new Date();
  private resolveStopped!: () => void;
  /** Resolves once the daemon has shut down (files removed, sockets closed). */
  readonly stopped = new Promise<void>((r) => { this.resolveStopped = r; });
  info!: DaemonInfo;

  private constructor(
    private readonly opts: DaemonOptions,
    private readonly lock: Lock,
    private readonly handle: IndexHandle,
    private readonly rules: RepoRules,
    private readonly token: string,
    private readonly http: Server,
    private readonly wss: WebSocketServer,
  ) {}

  private log(line: string): void { this.opts.log?.(line); }

  /**
   * Takes the root's lock, opens the index, listens, writes daemon.json, then
   * (in the background) catches the index up with the tree and starts watching.
   */
  static async start(opts: DaemonOptions): Promise<Daemon> {
    await ensureStateDir(opts.stateDir);
    const lock = await acquireLock(opts.stateDir, opts.root);
    let handle: IndexHandle | null = null;
    try {
      const h = await openIndex(opts.root, { stateDir: opts.stateDir, maxFileBytes: opts.maxFileBytes, extraSecrets: opts.extraSecrets });
      handle = h;
      // The watcher decides with the index's own rules (one instance, re-read in place by every refresh).
      const rules = await h.rules();
      const token = await createToken(opts.stateDir);
      const allowed = new Set(opts.allowedOrigins ?? []);
      const http = createServer((_req, res) => {
        // Plain HTTP gets nothing but a pointer: the daemon speaks WebSocket only.
        res.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' }).end('evidex daemon: WebSocket only\n');
      });
      const wss = new WebSocketServer({
        server: http,
        maxPayload: opts.maxPayloadBytes ?? MAX_PAYLOAD_BYTES,
        perMessageDeflate: false,
        // Checked during the HTTP upgrade, so a refused connection never opens.
        verifyClient: (info: { origin: string; req: IncomingMessage }, cb: (ok: boolean, code?: number, msg?: string, headers?: Record<string, string>) => void) => {
          const origin = info.req.headers.origin;
          if (origin !== undefined && !allowed.has(origin)) return cb(false, 403, 'Origin not allowed');
          const auth = info.req.headers.authorization ?? '';
          const m = /^Bearer ([^\s]+)$/.exec(auth);
          if (!m || !tokensEqual(m[1], token)) return cb(false, 401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer' });
          const path = (info.req.url ?? '/').split('?')[0];
          if (path !== '/') return cb(false, 404, 'Not Found');
          cb(true);
        },
      });
      const d = new Daemon(opts, lock, h, rules, token, http, wss);
      await d.listen();
      d.begin();
      return d;
    } catch (e) {
      await handle?.close().catch(() => undefined);
      await lock.release().catch(() => undefined);
      throw e;
    }
  }

  private async listen(): Promise<void> {
    this.wss.on('connection', (ws, req) => this.accept(ws, clientNameOf(req), req.headers[OBSERVER_HEADER] === '1'));
    this.wss.on('error', (e) => this.log(`server error: ${e.message}`));
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port ?? 0, '127.0.0.1', () => { this.http.off('error', reject); resolve(); });
    });
    const port = (this.http.address() as AddressInfo).port;
    this.info = { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: this.token, root: this.opts.root };
    // Written only now that the server listens: a client that finds the file can connect.
    await writeDaemonInfo(this.opts.stateDir, this.info);
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.log(`listening on ${this.info.url} for ${this.opts.root} (pid ${process.pid})`);
    const idleMs = this.opts.idleTimeoutMs ?? 0;
    if (idleMs > 0) {
      const after = formatDuration(idleMs);
      this.idleTimer = new IdleTimer(idleMs, () => { void this.shutdown(`idle: no client for ${after} (idle timeout ${after}, EVIDEX_IDLE_TIMEOUT)`); });
      this.log(`idle timeout ${after}: exits after that long with no client`);
    } else {
      this.log('no idle timeout: runs until stopped');
    }
  }

  /** The start-up catch-up (first build or compare-by-hash refresh) and the watcher, both in the background. */
  private begin(): void {
    const t0 = performance.now();
    this.warmup = { state: this.opts.warmup === false ? 'off' : 'waiting' };
    this.servesDuringStartup = this.handle.status().state === 'ready';
    let lastPhase = '';
    this.startup = this.queue.run(() => this.handle.refresh((p) => {
      if (p.phase !== lastPhase) { lastPhase = p.phase; this.log(`index: ${p.phase} (${p.done}/${p.total})`); }
    })).then((s) => {
      this.startupState = 'done';
      this.log(`index ready: ${s.files} files (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed) in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
      void this.warmUp().catch((e: unknown) => {
        this.warmup = { state: 'failed' };
        this.log(`request path warm-up failed: ${e instanceof Error ? e.message : String(e)}`);
      });
    }, (e: unknown) => {
      this.startupState = 'failed';
      this.startupError = e instanceof Error ? e.message : String(e);
      this.log(`index build failed: ${this.startupError}`);
      if (this.warmup.state === 'waiting') this.warmup = { state: 'skipped' };
    });
    const watchStart = performance.now();
    RepoWatcher.start({
      root: this.opts.root,
      rules: this.rules,
      index: this.handle,
      exclusive: (fn) => this.queue.run(fn),
      mode: this.opts.watch ?? 'auto',
      log: (l) => this.log(l),
      onApplied: (a) => {
        if (a.refreshed) this.log(`watch: re-walked (${a.why}) in ${a.ms.toFixed(1)} ms`);
        else if (a.summary) {
          const s = a.summary;
          const shown = a.paths.length <= 3 ? a.paths.join(' ') : `${a.paths.slice(0, 3).join(' ')} +${a.paths.length - 3}`;
          this.log(`watch: ${shown}: ${s.changed.length} changed, ${s.removed.length} removed, ${s.unchanged.length} unchanged → generation ${s.generation} (${a.ms.toFixed(1)} ms)`);
        }
      },
    }).then((w) => {
      if (this.stopping) { void w.close(); return; }
      this.watcher = w;
      this.log(`watcher ${w.state} (${(performance.now() - watchStart).toFixed(0)} ms to scan)`);
      // The start-up refresh walked while the watcher was still scanning; a change in that window
      // could have been seen by neither, so one more (cheap, hash-comparing) catch-up closes it.
      if (w.state !== 'off') w.requestRefresh('catch-up after the watcher scan');
    }, (e: unknown) => {
      this.log(`watcher failed to start: ${e instanceof Error ? e.message : String(e)}; serving without live updates`);
    });
  }

  private beat(): void {
    for (const c of this.clients.values()) {
      // A peer that did not answer the last ping is gone (half-open TCP); free its slot.
      if (!c.alive) { c.conn.terminate('no pong: peer unresponsive'); continue; }
      c.alive = false;
      try { c.ws.ping(); } catch { /* closed meanwhile */ }
    }
  }

  /** `observer`: a connection that only looks (daemon list); it does not hold off the idle timeout. */
  private accept(ws: WebSocket, name: string, observer = false): void {
    const id = `c${this.nextClient++}`;
    const conn = new RpcConnection(ws, {
      maxMessageBytes: this.opts.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      maxBufferedBytes: this.opts.maxBufferedBytes ?? 8 << 20,
      maxAnswerBytes: this.opts.maxAnswerBytes ?? MAX_ANSWER_BYTES,
      onAnswered: (method, params, ms, ok) => this.latency.record(latencyName(method, params), ms, ok),
    });
    const state: ClientState = { id, name, conn, ws, alive: true, conversations: new Map() };
    ws.on('pong', () => { state.alive = true; });
    this.clients.set(id, state);
    if (!observer) this.idleTimer?.opened();
    conn.onClose((reason) => {
      this.clients.delete(id);
      if (!observer) this.idleTimer?.closed();
      this.log(`client ${id} (${name}) left: ${reason}`);
    });
    conn.onRequest((method, params, ctx) => this.dispatch(state, method, params, ctx));
    if (this.stopping) conn.close(1001, 'daemon shutting down');
  }

  /** One handler per method; dispatch() runs them with validated params. */
  private readonly handlers: Handlers = {
    toolsList: () => ({ tools: toolDescriptors() }),
    toolsCall: (p, client, ctx) => {
      const r = this.toolsCall(client, p.name, p.arguments);
      return r instanceof Promise ? untilCancelled(r, ctx.signal) : r;
    },
    ask: (p, client, ctx) => this.ask(client, ctx, p),
    indexStatus: () => this.status(),
    indexRefresh: (_p, client, ctx) => this.refresh(client, ctx),
    daemonShutdown: (_p, client) => {
      // Answer first; the shutdown starts once this response is on its way.
      setImmediate(() => { void this.shutdown(`daemon/shutdown from ${client.id}`); });
      return { stopping: true, pid: process.pid };
    },
  };

  /**
   * Every request passes here: method lookup, params schema, then the
   * method's handler; nothing thrown escapes as anything but an RpcError. A
   * tool call the index can answer without waiting comes back as a value,
   * which the connection sends at once (RequestHandler); everything else as a
   * promise.
   */
  private dispatch(client: Caller, method: string, params: unknown, ctx: RequestContext): unknown {
    const key = methodKeyOf(method);
    if (!key) throw new RpcError(RpcCode.METHOD_NOT_FOUND, `method not found: ${method}`);
    if (this.stopping && key !== 'indexStatus') throw new RpcError(SHUTTING_DOWN, 'the daemon is shutting down');
    try {
      const out = this.run(key, params, client, ctx);
      return out instanceof Promise ? out.catch((e: unknown) => { throw this.rpcErrorOf(e, method, client); }) : out;
    } catch (e) {
      throw this.rpcErrorOf(e, method, client);
    }
  }

  /** Validates `params` with method K's schema and calls K's handler: the one place the key ties schema, handler and types. */
  private run<K extends MethodKey>(key: K, params: unknown, client: Caller, ctx: RequestContext): unknown {
    const parsed = (ParamsSchemas[key] as z.ZodType<ParamsOf<K>>).safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.map(String).join('.') : 'params';
      const message = `${Methods[key].method}: ${where}: ${issue?.message ?? 'invalid'}`;
      throw new RpcError(RpcCode.INVALID_PARAMS, message, { code: 'invalid_arguments', message });
    }
    return (this.handlers[key] as Handler<K>)(parsed.data, client, ctx);
  }

  /** A refusal keeps its code (TOOL_ERROR carries the tool's); anything else is a bug: logged, answered as an internal error. */
  private rpcErrorOf(e: unknown, method: string, client: Caller): RpcError {
    if (e instanceof RpcError) return e;
    if (e instanceof ToolError) return new RpcError(TOOL_ERROR, e.message, e.toJSON());
    const msg = e instanceof Error ? e.message : String(e);
    this.log(`internal error in ${method} for ${client.id}: ${e instanceof Error && e.stack ? e.stack : msg}`);
    return new RpcError(RpcCode.INTERNAL_ERROR, `internal error: ${msg}`);
  }

  /**
   * A client's own tools/call: run, answered, and audited (time, client, tool,
   * arguments, decision, code and reason, duration). The audit line is queued,
   * not waited for, so it costs the answer nothing. The warm-up is not a client.
   */
  private toolsCall(client: Caller, name: string, args: unknown): ToolResult | Promise<ToolResult> {
    const t0 = performance.now();
    const audit = (result: ToolResult | null, e: unknown): void => {
      if (client === WARMUP_CALLER) return;
      const refusal = e === null ? null : asToolError(e);
      void this.audit.write({
        time: new Date().toISOString(), client: client.name, question: null, tool: name, arguments: args ?? null,
        decision: refusal ? 'refused' : 'allowed',
        ...(refusal ? { code: refusal.code, reason: refusal.message } : {}),
        ...(result ? { items: result.evidence.length, total: result.total } : {}),
        duration_ms: Math.round((performance.now() - t0) * 100) / 100,
      });
    };
    let r: ToolResult | Promise<ToolResult>;
    try {
      r = this.runTool(name, args);
    } catch (e) {
      audit(null, e);
      throw e;
    }
    if (!(r instanceof Promise)) { audit(r, null); return wireResult(r); }
    return r.then((v) => { audit(v, null); return wireResult(v); }, (e: unknown) => { audit(null, e); throw e; });
  }

  /**
   * Validates (exact name, strict schema), then runs. A first build (or one a
   * crash cut short) is waited for; a complete index from the last run answers at
   * once while the start-up catch-up runs behind it — each answer is a whole
   * generation, and `index/status` says the catch-up is still running. An
   * answer the index has at once is returned as a value (see IndexHandle.runTool).
   * Refusals are ToolErrors, thrown or rejected.
   */
  runTool(name: unknown, args: unknown): ToolResult | Promise<ToolResult> {
    const call = checkToolCall(name, args);
    if (!this.servesDuringStartup && this.startupState === 'running') return this.startup.then(() => this.runChecked(call));
    return this.runChecked(call);
  }

  private runChecked(call: ToolCall): ToolResult | Promise<ToolResult> {
    if (this.startupState === 'failed') {
      throw new ToolError('index_unavailable', `the index could not be built: ${this.startupError ?? 'unknown error'}`);
    }
    try {
      const r = this.handle.runTool(call);
      return r instanceof Promise ? r.catch((e: unknown) => { throw asToolError(e); }) : r;
    } catch (e) {
      throw asToolError(e);
    }
  }

  private async ask(client: Caller, ctx: RequestContext, req: ParamsOf<'ask'>): Promise<AskResult> {
    // Loaded on first use: a daemon that never asks never loads the Ollama client.
    const { runAsk } = await import('./ask/loop.js');
    try {
      // The whole validated params: the client's settings override this daemon's environment per request.
      let conversation: Conversation | undefined;
      if (req.conversation !== undefined && client.conversations) {
        conversation = client.conversations.get(req.conversation);
        if (!conversation) {
          if (client.conversations.size >= MAX_CONVERSATIONS) client.conversations.delete(client.conversations.keys().next().value!);
          conversation = { turns: [] };
          client.conversations.set(req.conversation, conversation);
        }
      }
      const { conversation: _c, ...request } = req;
      return await runAsk(request, {
        clientId: client.name,
        ...(conversation ? { conversation } : {}),
        runTool: (name, args) => this.runTool(name, args),
        // Events go to the asking client only; the params are the event itself plus the request id.
        notify: (event) => client.conn.sendNotification(Notifications.askEvent, { ...event, requestId: ctx.id } satisfies AskEventParams),
        signal: ctx.signal, // aborted when this client disconnects or sends $/cancelRequest
        stateDir: this.opts.stateDir,
      });
    } catch (e) {
      if (e instanceof RpcError || e instanceof ToolError) throw e;
      const err = e as { code?: unknown; message?: unknown };
      const code = typeof err?.code === 'string' ? err.code : 'ask_failed';
      const message = typeof err?.message === 'string' ? err.message.replace(/\s*\n\s*/g, ' ') : String(e);
      throw new RpcError(ASK_ERROR, message, { code, message });
    }
  }

  private async refresh(client: Caller, ctx: RequestContext) {
    const summary = await this.queue.run(() => this.handle.refresh((progress) => {
      client.conn.sendNotification(Notifications.indexProgress, { requestId: ctx.id, progress } satisfies IndexProgressParams);
    }));
    return { ...summary, generation: this.handle.status().generation };
  }

  /**
   * Runs the request-path warm-up (warmup.ts) once the index's caches are
   * loaded: tools/call requests over the index's own names, each parsed from
   * text, dispatched and its response serialised as a connection does (only
   * the socket is left out). A call that fails otherwise than a client's could
   * is a bug: it ends the warm-up (`failed`, logged by the caller).
   */
  private async warmUp(): Promise<void> {
    if (this.warmup.state !== 'waiting') return;
    // The caches load in the background after start-up, retrying while updates land, so
    // there is no one promise to wait on. Calls made before would take the paths they replace.
    const until = performance.now() + WARMUP_WAIT_MS;
    while (!this.handle.status().warm && !this.stopping && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
    }
    if (this.stopping) return;
    this.warmup = { state: 'running' };
    const ctx: RequestContext = { id: 'warm-up', signal: new AbortController().signal };
    let refused = 0;
    const run = async (call: WarmupCall, seq: number): Promise<void> => {
      const request = JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: seq, method: Methods.toolsCall.method, params: call })) as { method: string; params: unknown };
      try {
        const result = await this.dispatch(WARMUP_CALLER, request.method, request.params, ctx);
        JSON.stringify({ jsonrpc: '2.0', id: seq, result }); // what a connection sends: part of the path being warmed
      } catch (e) {
        const code = e instanceof RpcError && e.code === TOOL_ERROR ? (e.data as { code?: string } | undefined)?.code : undefined;
        if (code === undefined || !WARMUP_REFUSALS.has(code)) throw e;
        refused++;
      }
    };
    const r = await warmRequestPath(warmupCalls(this.handle.sample(WARMUP_SAMPLE), WARMUP_ROUNDS), run, () => this.stopping !== null);
    this.warmup = { state: 'done', calls: r.calls, refused, busyMs: Math.round(r.busyMs), outcome: r.outcome };
    const note = r.outcome === 'budget' ? ' (time budget reached)' : r.outcome === 'stopped' ? ' (stopped)' : '';
    this.log(`request path warmed up: ${r.calls} calls (${refused} refused), ${r.busyMs.toFixed(0)} ms of work${note}`);
  }

  status(): StatusResult {
    const w = this.watcher;
    const daemon: DaemonInfoStatus = {
      pid: process.pid,
      url: this.info.url,
      root: this.opts.root,
      stateDir: this.opts.stateDir,
      startedAt: this.startedAt.toISOString(),
      uptimeSeconds: Math.round((Date.now() - this.startedAt.getTime()) / 1000),
      idleTimeoutSeconds: Math.round((this.opts.idleTimeoutMs ?? 0) / 1000),
      watcher: w ? w.state : (this.opts.watch === 'off' ? 'off' : 'starting'),
      ...(w?.note ? { watcherNote: w.note } : {}),
      lastWatchUpdate: w?.lastUpdate ?? null,
      startup: this.startupState,
      ...(this.startupError ? { startupError: this.startupError } : {}),
      warmup: this.warmup,
      clients: this.clients.size,
      pendingUpdates: (w?.queued ?? 0) + Math.max(0, this.queue.waiting - 1),
      latency: this.latency.snapshot(),
    };
    return { index: this.handle.status(), daemon };
  }

  /** Test and shutdown aid: resolves when the watcher has applied everything it has seen. */
  async idle(): Promise<void> {
    await this.startup;
    await this.watcher?.idle();
  }

  /**
   * Stops taking work, closes clients, the watcher and the index, removes
   * daemon.json and the lock. An update in progress gets a few seconds to
   * finish; past that the process may exit anyway — the index is crash-safe.
   */
  shutdown(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      this.log(`shutting down: ${reason}`);
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.idleTimer?.stop();
      for (const c of this.clients.values()) c.conn.close(1001, 'daemon shutting down');
      await this.watcher?.close().catch((e: Error) => this.log(`closing the watcher: ${e.message}`));
      await this.audit.flush().catch(() => undefined);
      const drained = await this.queue.drain(5000);
      if (drained) await this.handle.close().catch((e: Error) => this.log(`closing the index: ${e.message}`));
      else this.log('an index update is still running; leaving it to crash recovery');
      await removeDaemonInfo(this.opts.stateDir, process.pid, { token: true }).catch(() => undefined);
      await this.lock.release().catch(() => undefined);
      // Give closing handshakes a moment, then drop whoever is left.
      await new Promise((r) => setTimeout(r, 200));
      for (const c of this.wss.clients) c.terminate();
      await new Promise<void>((r) => this.wss.close(() => r()));
      await new Promise<void>((r) => this.http.close(() => r()));
      this.log('stopped');
      this.resolveStopped();
    })();
    return this.stopping;
  }
}

/**
 * Runs a daemon in this process until it is told to stop (daemon/shutdown,
 * SIGTERM, SIGINT), then exits 0. `evidex daemon run` and daemon/main.js use it.
 */
export async function serveForeground(opts: DaemonOptions): Promise<never> {
  // Once stdout is a closed pipe (`evidex daemon run | head`, or a parent that died), writing to it
  // fails with EPIPE as an 'error' event; logging that error would write again, a loop that spins a
  // core and never reaches a signal handler. A log nobody can read any more is dropped instead.
  let stdoutOpen = true;
  process.stdout.on('error', () => { stdoutOpen = false; });
  const log = opts.log ?? ((l: string) => { if (stdoutOpen) process.stdout.write(`${new Date().toISOString()} ${l}\n`); });
  // Signal handlers go in before the daemon exists: a SIGTERM that lands right after
  // daemon.json is written (a client may act on it at once) must still stop it cleanly.
  let daemon: Daemon | null = null;
  let pendingStop: string | null = null;
  const stop = (sig: string) => { if (daemon) void daemon.shutdown(sig); else pendingStop ??= sig; };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A bug in one code path must not take every client down with it; it is logged instead.
  process.on('uncaughtException', (e) => log(`uncaught exception: ${e.stack ?? e.message}`));
  process.on('unhandledRejection', (e) => log(`unhandled rejection: ${e instanceof Error ? e.stack ?? e.message : String(e)}`));
  daemon = await Daemon.start({ ...opts, log });
  if (pendingStop) void daemon.shutdown(pendingStop);
  await daemon.stopped;
  process.exit(0);
}
