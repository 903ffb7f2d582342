// The evidex daemon: one per repository root. It owns the index handle and
// composes the parts that serve it, each in its own module:
//
//   listener.ts    HTTP server, upgrade checks (Origin, token, path), one RpcConnection per client, pings
//   dispatch.ts    method lookup, params schemas (methods.ts), the handler call, RPC errors
//   tool-calls.ts  a client's tools/call: the index's runTool, audited, trimmed for the wire, cancellable
//   fair-turns.ts  whose turn it is: every tool call (a client's, its model turns') runs as one of its connection's turns
//   ask-handler.ts the `ask` method: a client's question to the Ollama loop, with its conversations
//   updates.ts     every index write: start-up catch-up, watcher, index/refresh, through one queue
//   root-watch.ts  the root as an identity: notices it deleted, moved or replaced (root-gate.ts: what calls meet then)
//   state-claim.ts the daemon's claim on its state folder (folder, lock, daemon.json): lost, the daemon exits
//   warmup.ts      the request-path warm-up, once the index's caches are loaded
//   collect-after-writes.ts  a full collection once the daemon is quiet after a large batch of writes (a branch jump)
//   idle.ts        the idle timeout of an auto-started daemon
//   token.ts       the token every connection presents (the state folder itself is local/state.ts)
//   foreground.ts  the process around a daemon: signals, stdout log, exit
//
// This file holds what ties them together: start-up, the connected clients,
// the handlers table (one handler per method of protocol/messages.ts), status
// and shutdown. One client (an error, an exception, a slow socket) never
// affects the others.
import type { IndexHandle } from '../indexer/api.js';
import type { RepoRules } from '../indexer/discover/rules.js';
import { ToolError } from '../indexer/errors.js';
import { openIndex } from '../indexer/index.js';
import { DEFAULT_LIMIT, DEFAULT_UNRESOLVED_REASONS } from '../indexer/query/limits.js';
import { toolDescriptors } from '../indexer/query/schemas.js';
import type { WatchMode } from '../indexer/watch.js';
import { acquireLock, ensureStateDir, removeDaemonInfo, writeDaemonInfo, type DaemonInfo, type Lock } from '../local/state.js';
import { formatDuration } from '../protocol/daemon-settings.js';
import { RpcError, type RequestContext, type RpcConnection } from '../protocol/jsonrpc.js';
import {
  MAX_ANSWER_BYTES, MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES, MAX_SEND_BUFFER_BYTES, Notifications, notifier, SHUTTING_DOWN,
  type DaemonInfoStatus, type StatusResult,
} from '../protocol/messages.js';
import { handleAsk, handleAskModel } from './ask-handler.js';
import { indexedVia } from './ask/citations.js';
import { auditLogFor, type AuditLog } from './audit.js';
import { CollectAfterWrites, type CollectAfterWritesOptions } from './collect-after-writes.js';
import type { Caller } from './caller.js';
import { Dispatcher, latencyName, type Handlers } from './dispatch.js';
import { FairTurns, type FairTurnsOptions } from './fair-turns.js';
import { IdleTimer } from './idle.js';
import { LatencyBook } from './latency.js';
import { Listener, type Peer } from './listener.js';
import { createToken } from './token.js';
import { cancelledBy, ToolCalls } from './tool-calls.js';
import { RootGate } from './root-gate.js';
import { RootWatch, type RootChange } from './root-watch.js';
import { StateClaim } from './state-claim.js';
import { IndexUpdates } from './updates.js';
import { RequestPathWarmup } from './warmup.js';

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
  /** A client with more unsent bytes than this is disconnected (default MAX_SEND_BUFFER_BYTES). */
  maxBufferedBytes?: number;
  watch?: WatchMode;
  maxFileBytes?: number;
  extraSecrets?: string[];
  /** Warm the request path once the index is loaded (default true; see warmup.ts). */
  warmup?: boolean;
  /** Exit after this long with no client (idle.ts); 0 or absent = never (a daemon started by hand). */
  idleTimeoutMs?: number;
  /** Exit once the root has been gone this long (default ROOT_GONE_GRACE_MS; 0 = never; a test gives a short one). */
  rootGoneGraceMs?: number;
  /** The slice of a turn and its clock (fair-turns.ts); a test gives its own clock. */
  turns?: FairTurnsOptions;
  /** When a collection follows a large batch of writes (collect-after-writes.ts); a test gives its own clock and collection. */
  collectAfterWrites?: CollectAfterWritesOptions;
  log?: (line: string) => void;
}

/** After a re-index of a replaced root, how long calls may wait for the watcher to apply what it saw meanwhile. */
const REINDEX_SETTLE_MS = 5000;

/**
 * How long the root may be gone before the daemon exits: `rm -rf repo && git clone … repo`
 * makes the folder again within seconds (it is then re-indexed, as issue 31 built), while a
 * root deleted for good left its daemon refusing every call until its idle timeout (3 h).
 */
export const ROOT_GONE_GRACE_MS = 60_000;

/** The one refusal of work while the daemon stops: calls that came after the stop, and calls it cut short. */
const shuttingDown = (): RpcError => new RpcError(SHUTTING_DOWN, 'the daemon is shutting down');

/** A connected client: a Caller whose connection the daemon can close. */
type Client = Caller & { conn: RpcConnection };

export class Daemon {
  private readonly clients = new Map<string, Client>();
  /** How long the daemon takes to answer clients (latency.ts); warm-up calls are not clients' and are not counted. */
  private readonly latency = new LatencyBook();
  private readonly audit: AuditLog;
  private readonly updates: IndexUpdates;
  private readonly tools: ToolCalls;
  /** Whose turn it is to run a tool call (fair-turns.ts). */
  private readonly turns: FairTurns;
  private readonly dispatcher: Dispatcher<Caller>;
  private readonly warmup: RequestPathWarmup;
  /** A full collection once the daemon is quiet after a large batch of writes (a branch jump). */
  private readonly collector: CollectAfterWrites;
  /** Whether the root is still the indexed tree: tool calls pass, wait, or are refused (root-gate.ts). */
  private readonly rootGate = new RootGate();
  private claim: StateClaim | null = null;
  private listener!: Listener;
  private nextClient = 1;
  private stopping: Promise<void> | null = null;
  private idleTimer: IdleTimer | null = null;
  /** Armed while the root is gone: the daemon exits when it fires (ROOT_GONE_GRACE_MS). */
  private goneTimer: NodeJS.Timeout | null = null;
  /** Root changes seen so far: a re-index's "is indexed" line is logged only if no later change superseded it. */
  private rootChanges = 0;
  private readonly startedAt = new Date();
  private resolveStopped!: () => void;
  /** Resolves once the daemon has shut down (files removed, sockets closed). */
  readonly stopped = new Promise<void>((r) => { this.resolveStopped = r; });
  info!: DaemonInfo;

  private constructor(
    private readonly opts: DaemonOptions,
    private readonly lock: Lock,
    private readonly handle: IndexHandle,
    rules: RepoRules,
    private readonly token: string,
    private readonly rootWatch: RootWatch,
  ) {
    const log = (line: string) => this.log(line);
    this.audit = auditLogFor(opts.stateDir);
    this.turns = new FairTurns(opts.turns);
    this.collector = new CollectAfterWrites({
      ...opts.collectAfterWrites,
      indexedFiles: () => handle.status().files,
      writesDone: () => this.updates.idle(),
      requestsDone: () => this.turns.whenIdle(),
      log,
    });
    this.updates = new IndexUpdates(handle, {
      root: opts.root, rules, watch: opts.watch ?? 'auto', log,
      onRootTouched: () => rootWatch.touched(),
      onWritten: (files) => this.collector.written(files),
    });
    this.tools = new ToolCalls(handle, this.audit, this.rootGate, this.turns, this.updates);
    this.dispatcher = new Dispatcher<Caller>({
      handlers: this.handlers,
      admit: (key) => {
        if (this.stopping && key !== 'indexStatus') throw shuttingDown();
      },
      // The stop closes the index under calls still running or waiting for their turn: they are refused as calls after it are.
      overrule: (e) => (this.stopping && e instanceof ToolError && e.code === 'index_unavailable' ? shuttingDown() : null),
      logInternal: (method, caller, e) => {
        const msg = e instanceof Error ? e.message : String(e);
        this.log(`internal error in ${method} for ${caller.id}: ${e instanceof Error && e.stack ? e.stack : msg}`);
      },
    });
    this.warmup = new RequestPathWarmup(opts.warmup !== false, {
      handle,
      dispatch: (caller, method, params, ctx) => this.dispatcher.dispatch(caller, method, params, ctx),
      stopped: () => this.stopping !== null,
      idle: () => this.turns.whenIdle(),
      log,
    });
  }

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
      // Which folder the root is, taken before the first walk: a change from here on is noticed.
      const rootWatch = new RootWatch({ root: opts.root, onChange: (c, why) => d.rootChanged(c, why), log: (l) => opts.log?.(l) });
      if (!rootWatch.present) throw new Error(`repository folder ${opts.root} cannot be opened: it is not a folder at its real path`);
      const h = await openIndex(opts.root, {
        stateDir: opts.stateDir, maxFileBytes: opts.maxFileBytes, extraSecrets: opts.extraSecrets, log: (l) => opts.log?.(l),
        // A compaction leaves the old pieces and the heap text it moved as garbage: collected as after a large write.
        onTextMapCompacted: (files) => d.collector.written(files),
      });
      handle = h;
      // The watcher decides with the index's own rules (one instance, re-read in place by every refresh).
      const rules = await h.rules();
      const token = await createToken(opts.stateDir);
      const d: Daemon = new Daemon(opts, lock, h, rules, token, rootWatch);
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
    this.listener = await Listener.open({
      port: this.opts.port ?? 0,
      token: this.token,
      allowedOrigins: this.opts.allowedOrigins ?? [],
      maxPayloadBytes: this.opts.maxPayloadBytes ?? MAX_PAYLOAD_BYTES,
      connection: {
        maxMessageBytes: this.opts.maxMessageBytes ?? MAX_MESSAGE_BYTES,
        maxBufferedBytes: this.opts.maxBufferedBytes ?? MAX_SEND_BUFFER_BYTES,
        maxAnswerBytes: this.opts.maxAnswerBytes ?? MAX_ANSWER_BYTES,
        onAnswered: (method, params, ms, ok) => this.latency.record(latencyName(method, params), ms, ok),
      },
      onConnection: (conn, peer) => this.accept(conn, peer),
      log: (l) => this.log(l),
    });
    const port = this.listener.port;
    this.info = { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: this.token, root: this.opts.root };
    // Written only now that the server listens: a client that finds the file can connect.
    await writeDaemonInfo(this.opts.stateDir, this.info);
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

  /**
   * The start-up catch-up and the watcher (updates.ts), then the warm-up once
   * the index is built; and from now on, an eye on the root (root-watch.ts)
   * and on the daemon's claim to its state folder (state-claim.ts).
   */
  private begin(): void {
    this.updates.begin();
    void this.updates.startup.then((built) => { if (built) this.warmup.start(); else this.warmup.skip(); });
    this.rootWatch.start();
    // A change between the identity taken at start and the watch made now has no event of its own.
    this.rootWatch.check('timer');
    this.claim = new StateClaim({
      stateDir: this.opts.stateDir, info: this.info, log: (l) => this.log(l),
      onLost: (why) => { void this.shutdown(`${why}; stepping aside (the next command starts a daemon where clients look)`); },
    });
    this.claim.start();
  }

  /**
   * The root is not the indexed tree any more: nothing is answered from the
   * old index. Gone: calls are refused until a folder is back. Replaced (or
   * back): the folder now at the path is indexed from the top, as at start,
   * and calls wait for it (docs/architecture.md explains why the daemon
   * re-indexes rather than exits).
   */
  private rootChanged(change: RootChange, why: string): void {
    if (this.stopping) return;
    const thisChange = ++this.rootChanges;
    if (change === 'gone') {
      this.log(`root: ${why}; tool calls are refused until a folder is back at that path`);
      this.rootGate.gone(why);
      void this.updates.suspend(why);
      this.exitIfStillGone();
      return;
    }
    if (this.goneTimer) { clearTimeout(this.goneTimer); this.goneTimer = null; }
    this.log(`root: ${why}; indexing the folder there now from the top (tool calls wait for it)`);
    const t0 = performance.now();
    // A folder put at the path is usually still being filled (a clone checks its files out after
    // making it): calls wait for the catch-up and then for the watcher to apply what it saw meanwhile,
    // but no longer than REINDEX_SETTLE_MS past the catch-up, so a tree that never stops changing
    // does not hold them forever.
    const settled = this.updates.reindex(why).then(async (ok) => {
      if (ok) await Promise.race([this.updates.idle(), new Promise((r) => setTimeout(r, REINDEX_SETTLE_MS).unref())]);
      return ok;
    });
    this.rootGate.reindexing(why, settled);
    // A later change (a re-clone right after this one) supersedes this one: its own line reports it.
    void settled.then((ok) => {
      if (ok && thisChange === this.rootChanges) this.log(`root: the folder at ${this.opts.root} is indexed: ${this.handle.status().files} files, ${((performance.now() - t0) / 1000).toFixed(2)} s after the change was seen`);
    });
  }

  /**
   * Exits once the root has stayed gone for the grace period: nothing is left to serve, and
   * `daemon prune` can then remove the state. A folder made at the path later gets a daemon
   * from the next command, which catches up from the index left here.
   */
  private exitIfStillGone(): void {
    const ms = this.opts.rootGoneGraceMs ?? ROOT_GONE_GRACE_MS;
    if (ms <= 0 || this.goneTimer) return;
    const grace = formatDuration(ms);
    this.log(`root: exits in ${grace} unless a folder is back at ${this.opts.root}`);
    this.goneTimer = setTimeout(() => {
      this.goneTimer = null;
      void this.shutdown(`root: ${this.opts.root} has been gone for ${grace}; nothing to serve (the next command in a folder made there starts a new daemon)`);
    }, ms);
    this.goneTimer.unref(); // the server keeps the process alive; this timer alone should not
  }

  /** An accepted connection becomes a client: named, counted by the idle timer (unless it only observes), dispatched. */
  private accept(conn: RpcConnection, peer: Peer): void {
    const id = `c${this.nextClient++}`;
    const client: Client = { id, name: peer.name, conn, notify: notifier(conn), conversations: new Map() };
    this.clients.set(id, client);
    if (!peer.observer) this.idleTimer?.opened();
    conn.onClose((reason) => {
      this.clients.delete(id);
      if (!peer.observer) this.idleTimer?.closed();
      this.log(`client ${id} (${peer.name}) left: ${reason}`);
    });
    conn.onRequest((method, params, ctx) => this.dispatcher.dispatch(client, method, params, ctx));
    if (this.stopping) conn.close(1001, 'daemon shutting down');
  }

  /** One handler per method; the dispatcher runs them with validated params. */
  private readonly handlers: Handlers<Caller> = {
    toolsList: () => ({ tools: toolDescriptors() }),
    toolsCall: (p, client, ctx) => this.tools.toolsCall(client, p, ctx),
    // A model turn's calls are its client's requests: they take that connection's turns like its own tools/calls.
    ask: (p, client, ctx) => handleAsk(p, client, ctx, {
      runTool: (name, args) => this.tools.runTool(name, args, client, cancelledBy(ctx)),
      firstBuild: () => this.handle.firstBuild,
      stateDir: this.opts.stateDir,
      root: this.handle.root,
      // The index itself, not the client's turn: a citation's file looked up is no tool call of the question.
      indexed: indexedVia((name, args) => this.handle.runTool(name, args)),
    }),
    askModel: (p) => handleAskModel(p),
    indexStatus: () => this.status(),
    // A refresh of a root that is gone would walk nothing and empty the index: refused, like a tool call.
    indexRefresh: (p, client, ctx) => this.rootGate.admit(() => this.refresh(client, ctx, p?.folder)),
    indexLeftOut: (p) => this.handle.leftOutByName(p.query, { caseSensitive: p.case_sensitive, pathPrefix: p.path_prefix, limit: p.limit ?? 5 }),
    indexUnresolved: (p) => this.handle.unresolvedImports({
      reasons: p.reasons ?? DEFAULT_UNRESOLVED_REASONS, limit: p.limit ?? DEFAULT_LIMIT, offset: p.offset ?? 0, path_prefix: p.path_prefix, shown_from: p.shown_from,
    }),
    daemonShutdown: (_p, client) => {
      // Answer first; the shutdown starts once this response is on its way.
      setImmediate(() => { void this.shutdown(`daemon/shutdown from ${client.id}`); });
      return { stopping: true, pid: process.pid };
    },
  };

  /** index/refresh: the summary, what the writes ahead of it did, and whether `folder` (where it was asked from) is a folder the index leaves out. */
  private async refresh(client: Caller, ctx: RequestContext, folder: string | undefined) {
    const summary = await this.updates.refresh((progress) => {
      client.notify(Notifications.indexProgress, { requestId: ctx.id, progress });
    });
    const leftOut = folder === undefined ? null : await this.handle.leftOutFolder(folder);
    return { ...summary, generation: this.handle.status().generation, ...(leftOut ? { left_out_folder: leftOut } : {}) };
  }

  status(): StatusResult {
    const u = this.updates;
    const catchingUp = u.catchingUp;
    const daemon: DaemonInfoStatus = {
      pid: process.pid,
      url: this.info.url,
      root: this.opts.root,
      rootState: this.rootGate.state,
      ...(this.rootGate.note ? { rootNote: this.rootGate.note } : {}),
      stateDir: this.opts.stateDir,
      startedAt: this.startedAt.toISOString(),
      uptimeSeconds: Math.round((Date.now() - this.startedAt.getTime()) / 1000),
      idleTimeoutSeconds: Math.round((this.opts.idleTimeoutMs ?? 0) / 1000),
      watcher: u.watcherState,
      ...(u.watcherNote ? { watcherNote: u.watcherNote } : {}),
      lastWatchUpdate: u.lastWatchUpdate,
      startup: u.startupState,
      ...(u.startupState === 'running' && u.startupProgress ? { startupProgress: u.startupProgress } : {}),
      ...(u.startupError ? { startupError: u.startupError } : {}),
      warmup: this.warmup.status,
      clients: this.clients.size,
      pendingUpdates: u.pendingUpdates,
      ...(u.waiting ? { waiting: u.waiting } : {}),
      ...(catchingUp ? { catchingUp } : {}),
      latency: this.latency.snapshot(),
    };
    return { index: this.handle.status(), daemon };
  }

  /** Test and shutdown aid: resolves when the watcher has applied everything it has seen. */
  idle(): Promise<void> {
    return this.updates.idle();
  }

  /**
   * Stops taking work, closes clients, the watcher and the index, removes
   * daemon.json and the lock. A build in progress is cancelled at its next
   * commit (what it wrote stays: the next start carries on); an update in
   * progress gets a few seconds to finish, past which the process may exit
   * anyway — the index is crash-safe.
   */
  shutdown(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      this.log(`shutting down: ${reason}`);
      // First: removing daemon.json and the lock below is not a lost claim.
      this.claim?.close();
      this.rootWatch.close();
      this.listener.stopHeartbeat();
      this.idleTimer?.stop();
      if (this.goneTimer) clearTimeout(this.goneTimer);
      this.collector.stop();
      for (const c of this.clients.values()) c.conn.close(1001, 'daemon shutting down');
      await this.updates.stop('the daemon is stopping');
      await this.audit.flush().catch(() => undefined);
      const drained = await this.updates.drain(5000);
      if (drained) await this.handle.close().catch((e: Error) => this.log(`closing the index: ${e.message}`));
      else this.log('an index update is still running; leaving it to crash recovery');
      await removeDaemonInfo(this.opts.stateDir, process.pid, { token: true }).catch(() => undefined);
      await this.lock.release().catch(() => undefined);
      // Give closing handshakes a moment, then drop whoever is left.
      await new Promise((r) => setTimeout(r, 200));
      await this.listener.close();
      this.log('stopped');
      this.resolveStopped();
    })();
    return this.stopping;
  }
}
