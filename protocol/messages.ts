// The daemon's protocol, defined once and imported by both ends: every
// method's wire name with its params and result TYPES, every notification
// with its params TYPE,
// the error codes and the limits both ends need. It takes only types from the
// indexer (and the transport's error codes from jsonrpc.ts), and no schema
// library: a client that sends one request loads this file and the transport,
// nothing of the daemon or the indexer. The daemon
// validates params against its own zod schemas (daemon/methods.ts), which are
// type-checked against the params types declared here.
//
// Error codes a client sees:
//   -32700 parse error        bad JSON
//   -32600 invalid request    not a JSON-RPC 2.0 object, a batch (refused), a binary frame
//   -32601 method not found
//   -32602 invalid params     params failed the method's schema; data = {code: 'invalid_arguments', message}
//   -32603 internal error     an unexpected exception (one-line message); the daemon keeps serving
//   -32001 TOOL_ERROR         a tool refused or failed; data = {code, message, calls?} from ToolError (calls: PlacedCall[])
//                             (invalid_arguments, unknown_tool, path_denied, secret_denied, not_indexed, ...)
//   -32002 ASK_ERROR          the `ask` loop could not run (Ollama unreachable, model lacks tools...); data = {code, message}
//   -32003 MESSAGE_TOO_LARGE  a message over the per-message limit (default 1 MiB); the connection stays open.
//                             An answer over MAX_ANSWER_BYTES is refused with it too, data = {code: 'answer_too_large', message, limit, size}
//   -32004 SHUTTING_DOWN      the daemon is stopping and takes no new work
//   -32800 REQUEST_CANCELLED  the client cancelled the request ($/cancelRequest) before it was answered
import type { BuildProgress, BuildSummary, IndexStatus, LeftOut, LeftOutFolder, ToolResult, UnresolvedImports } from '../indexer/api.js';
import type { Unresolved } from '../indexer/model.js';
import type { NoteCall, PlacedCall, ToolCallParams, ToolDescriptor } from '../indexer/query/schemas.js';
import type { AskEvent, AskResult } from './ask-events.js';
import type { CatchingUp, HeldReport, WatchState } from '../indexer/watch.js';
import type { Evidence } from '../indexer/evidence.js';
import { MESSAGE_TOO_LARGE, type RpcConnection } from './jsonrpc.js';

export type { Evidence, AskEvent, AskResult, LeftOutFolder, NoteCall, PlacedCall, ToolCallParams, ToolResult, ToolDescriptor, BuildProgress, BuildSummary, Unresolved, UnresolvedImports };

export const TOOL_ERROR = -32001;
export const ASK_ERROR = -32002;
export { MESSAGE_TOO_LARGE };
export const SHUTTING_DOWN = -32004;
/** The LSP code for a request its client cancelled. */
export const REQUEST_CANCELLED = -32800;

// Every size limit of a connection, defined here once (the transport, jsonrpc.ts
// and ws-client.ts, has none of its own; each end passes these).
/** Default soft limit for one message (either direction is checked by the receiver). */
export const MAX_MESSAGE_BYTES = 1 << 20;
/** Hard cap on one message (ws's `maxPayload`, the client's too): past it the socket is closed with 1009. */
export const MAX_PAYLOAD_BYTES = 16 << 20;
/** The daemon's send buffer per client: a client with more unsent bytes than this is cut off as a slow reader. */
export const MAX_SEND_BUFFER_BYTES = 8 << 20;
/**
 * The largest answer the daemon sends (clients accept up to MAX_PAYLOAD_BYTES);
 * a larger one is refused with data.code `answer_too_large`. Half the daemon's
 * send buffer, so one answer never gets a client cut off as a slow reader.
 */
export const MAX_ANSWER_BYTES = MAX_SEND_BUFFER_BYTES / 2;

/**
 * The WebSocket upgrade header a client names itself with (`cli`, an MCP
 * host's name...): the daemon's logs and audit say who asked.
 */
export const CLIENT_NAME_HEADER = 'X-Evidex-Client';
/** The longest client name the daemon keeps. */
const MAX_CLIENT_NAME = 100;
/** A name the daemon accepts in CLIENT_NAME_HEADER: 1-100 printable ASCII characters, not all spaces (else it says "unknown"). */
export function isClientName(v: string): boolean {
  return v.length <= MAX_CLIENT_NAME && /^[\x20-\x7e]+$/.test(v) && v.trim() !== '';
}
/** `name` made into one the daemon accepts: other characters as "?", trimmed, cut to length; `fallback` when nothing is left. */
export function toClientName(name: string | undefined, fallback: string): string {
  return (name ?? '').replace(/[^\x20-\x7e]/g, '?').trim().slice(0, MAX_CLIENT_NAME) || fallback;
}
/** A connection carrying this upgrade header (value `1`) only looks (daemon list, daemon status): it does not hold off an auto-started daemon's idle exit. */
export const OBSERVER_HEADER = 'x-evidex-observer';

/** Bounds of the `ask` per-request settings (the daemon's schema and its environment parsing share them). */
export const MAX_STEPS_LIMIT = 50;
export const MAX_CALLS_PER_TURN_LIMIT = 50;
export const MAX_TIMEOUT_S = 3600;
/** Bounds of the context window a client may ask for (EVIDEX_NUM_CTX). */
export const MIN_NUM_CTX = 1024;
export const MAX_NUM_CTX = 1 << 20;

/** Where a watcher stands, reported by index/status and `evidex daemon status` (the watcher's own type). */
export type WatcherState = WatchState;

/** How a finished warm-up ended: every call ran, its time budget ran out, or the daemon stopped it (daemon/warmup.ts). */
export type WarmupOutcome = 'done' | 'budget' | 'stopped';

/**
 * The request-path warm-up (daemon/warmup.ts): waiting (for start-up and the caches),
 * running, done, failed (a call hit a bug: see the log), off (turned off) or
 * skipped (the start-up build failed). `refused`: calls refused as a client's
 * would be (an empty file has no line 1); `outcome` says whether every call ran.
 */
export type WarmupStatus =
  | { state: 'waiting' | 'running' | 'failed' | 'off' | 'skipped' }
  | { state: 'done'; calls: number; refused: number; busyMs: number; outcome: WarmupOutcome };

/** Whether the warm-up is over or will not run: nothing of it is left to wait for. */
export function warmupSettled(w: WarmupStatus): boolean {
  return w.state !== 'waiting' && w.state !== 'running';
}

/**
 * One answer-time histogram as index/status sends it (daemon/latency.ts keeps
 * them): totals, a few quantiles, and the non-empty buckets, so two snapshots
 * can be subtracted.
 */
export interface LatencySnapshot {
  calls: number;
  /** Answers that were errors (refusals included). */
  errors: number;
  /** Calls that took over 1 ms (exact, not bucketed). */
  over1ms: number;
  /** Quantiles in ms, each rounded up to its bucket's upper edge (≤ 3% above the true value) but never above maxMs; null with no calls. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** The slowest call since the daemon started (exact); in a difference of two snapshots, its bucket's upper edge. */
  maxMs: number | null;
  /** [bucket index, count] for every non-empty bucket, ascending. */
  buckets: Array<[number, number]>;
}

/**
 * Whether the root folder is the tree the index holds (daemon/root-watch.ts):
 * `gone` — no folder at its path (deleted, or moved away): tool calls are
 * refused; `reindexing` — another folder stands there and is being indexed
 * from the top: tool calls wait for it.
 */
export type RootState = 'present' | 'gone' | 'reindexing';

export interface DaemonInfoStatus {
  pid: number;
  url: string;
  root: string;
  /** Absent from an older daemon's answer. */
  rootState?: RootState;
  /** Since when and why the root is not `present`. */
  rootNote?: string;
  stateDir: string;
  startedAt: string;
  uptimeSeconds: number;
  /** The idle timeout of an auto-started daemon (daemon/idle.ts); 0 = none, it runs until stopped. */
  idleTimeoutSeconds?: number;
  watcher: WatcherState;
  /** Why the watcher is polling or off, when it is. */
  watcherNote?: string;
  /** ISO time the watcher last applied an update (null: none yet). */
  lastWatchUpdate: string | null;
  /** The start-up refresh (first build or catch-up). tools/call waits for a first or interrupted build only; a complete index answers during a catch-up. */
  startup: 'running' | 'done' | 'failed';
  startupError?: string;
  /** While the start-up refresh runs: its phase and files done of total (what `evidex index` shows), for clients waiting on it. */
  startupProgress?: BuildProgress;
  warmup: WarmupStatus;
  clients: number;
  /** Updates queued behind the one running (watcher batches, refreshes), `waiting` changes included. */
  pendingUpdates: number;
  /**
   * Changes the watcher could not write (a full disk, an I/O error): kept, and
   * retried with a backoff until they land (indexer/watch/held.ts). Absent when
   * every write has landed.
   */
  waiting?: HeldReport;
  /**
   * The watcher holds changes not yet in the index (a checkout's burst, a
   * re-walk for an ignore file or the tracked set): answers given meanwhile
   * are provisional, and say so (ToolResult's `catching_up`). Absent when the
   * index is in step with every change seen.
   */
  catchingUp?: CatchingUp;
  /**
   * How long the daemon took to answer clients since it started, message read
   * to answer written (latency.ts), keyed by method, and by `tools/call TOOL`
   * per tool. Subtract two snapshots (`minus`) for the calls in between.
   */
  latency: Record<string, LatencySnapshot>;
}

export interface StatusResult {
  index: IndexStatus;
  daemon: DaemonInfoStatus;
}

/** Params of a method that takes none (`{}` or absent). */
export type NoParams = Record<string, never> | undefined;

export interface ToolsCallParams {
  name: string;
  /** The tool's own arguments, checked by the tool's strict schema (a refusal says `invalid_arguments`). */
  arguments?: unknown;
  /**
   * The folder of the repository a person reads the answer from (root-relative,
   * with its "/": "apps/web/"): the repository paths the answer's notes and a
   * refusal's reason name are written relative to it, so they work as typed
   * there. The CLI's text form sends it from a subfolder; every other field of
   * the answer (items, suggestions) keeps the tools' root-relative paths.
   */
  shown_from?: string;
}

/** The APIs the ask loop speaks. */
export const MODEL_APIS = ['ollama', 'openai'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

export interface LeftOutParams {
  query: string;
  case_sensitive?: boolean;
  /** Only paths starting with this (root-relative, as search_code's). */
  path_prefix?: string;
  /** At most this many items (default 5). */
  limit?: number;
}

export interface RefreshParams {
  /**
   * The folder the refresh was asked from (root-relative, with its "/"):
   * when the index leaves it out as a whole, the answer's `left_out_folder`
   * says so and why, as a tool answer's does for its path_prefix (`evidex
   * index` typed in an ignored folder indexes the repository around it).
   */
  folder?: string;
}

/**
 * The daemon's writes that ran ahead of an index/refresh while it waited its
 * turn in the write queue (a checkout's catch-up, the start-up check, another
 * client's refresh): what they parsed and removed is in the index, so the
 * refresh itself then finds those files unchanged. Absent when none ran.
 */
export interface WaitedFor {
  /** How long the refresh waited for its turn. */
  seconds: number;
  /** Files those writes parsed (new or changed content) and removed, in all. */
  parsed: number;
  removed: number;
  /** What they were, each kind once, as "the daemon's …" ends: `start-up check`, `catch-up of changes the watcher saw`, … */
  writes: string[];
}

/** What index/refresh answers: its own pass, the generation it left, and what ran ahead of it. */
export type RefreshResult = BuildSummary & { generation: number; left_out_folder?: Omit<LeftOutFolder, 'note'>; waited_for?: WaitedFor };

export interface UnresolvedParams {
  /** The reasons to list (default: missing and config, the statements that reach nothing and are no package). */
  reasons?: Unresolved[];
  /** At most this many statements (default 20, at most 200: the tools' page bounds). */
  limit?: number;
  /** Skip this many first (default 0). */
  offset?: number;
  /** Only statements in files whose path starts with this (root-relative, checked and normalised as the tools' path_prefix). */
  path_prefix?: string;
  /** As tools/call's: the folder a person reads the answer's notes from. */
  shown_from?: string;
}

export interface AskParams {
  question: string;
  model?: string;
  // The asking client's own settings (its OLLAMA_HOST, EVIDEX_API,
  // EVIDEX_API_BASE, EVIDEX_API_KEY, EVIDEX_ASK_MAX_STEPS,
  // EVIDEX_ASK_CALLS_PER_TURN, EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK), sent only
  // when set there. Each one overrides the daemon's environment for this request alone.
  ollama_host?: string;
  /** Which API serves the model: Ollama's own, or an OpenAI-compatible server (llama-server, LM Studio, vLLM, …). */
  api?: ModelApi;
  /** The OpenAI-compatible server's base URL (EVIDEX_API_BASE), e.g. http://127.0.0.1:8080/v1. */
  api_base?: string;
  /** The key that server wants (EVIDEX_API_KEY): sent to `api_base` alone, never logged. */
  api_key?: string;
  max_steps?: number;
  /** The most tool calls run from one model reply; the rest are not run (the model is told). */
  calls_per_turn?: number;
  timeout_s?: number;
  think?: boolean;
  /** EVIDEX_NUM_CTX of the asking client: a cap on the context window asked of Ollama. */
  num_ctx?: number;
  /** A conversation of this connection (`evidex chat`): earlier questions, answers and evidence are carried into this one. */
  conversation?: string;
  /** Also report the Ollama version and the model's digest in the result (evidex eval compares runs by them). */
  describe_model?: boolean;
}

/** `ask/model`'s params: an `ask`'s settings, without a question. */
export type AskModelParams = Omit<AskParams, 'question' | 'conversation' | 'describe_model'>;

/** What `ask/model` answers. */
export interface AskModel { model: string }

/**
 * One request type: the wire name, and (by type only) its params and result,
 * so `client.request(Methods.toolsCall, {...})` is checked at both ends.
 */
export interface RequestType<P, R> {
  readonly method: string;
  /** Phantoms: never set, they carry the types. */
  readonly _params?: P;
  readonly _result?: R;
}
const request = <P, R>(method: string): RequestType<P, R> => ({ method });

export const Methods = {
  toolsList: request<NoParams, { tools: ToolDescriptor[] }>('tools/list'),
  toolsCall: request<ToolsCallParams, ToolResult>('tools/call'),
  ask: request<AskParams, AskResult>('ask'),
  /** The model an `ask` with these settings would use, the daemon's own environment filling in what they leave unset (chat's `/model`); nothing is asked of the model's server. */
  askModel: request<AskModelParams, AskModel>('ask/model'),
  indexStatus: request<NoParams, StatusResult>('index/status'),
  indexRefresh: request<RefreshParams | undefined, RefreshResult>('index/refresh'),
  /** Left-out files whose path holds the query (`evidex search` says so): names and reasons, never content. */
  indexLeftOut: request<LeftOutParams, { items: LeftOut[]; total: number }>('index/leftOut'),
  /** TypeScript/JavaScript import statements that resolved nowhere, with why (`evidex index --unresolved`): not a tool, the five are fixed. */
  indexUnresolved: request<UnresolvedParams, UnresolvedImports>('index/unresolved'),
  daemonShutdown: request<NoParams, { stopping: true; pid: number }>('daemon/shutdown'),
} as const;

export type MethodKey = keyof typeof Methods;
export type ParamsOf<K extends MethodKey> = (typeof Methods)[K] extends RequestType<infer P, unknown> ? P : never;
export type ResultOf<K extends MethodKey> = (typeof Methods)[K] extends RequestType<unknown, infer R> ? R : never;
export type ParamsOfType<T> = T extends RequestType<infer P, unknown> ? P : never;
export type ResultOfType<T> = T extends RequestType<unknown, infer R> ? R : never;

const byName = new Map<string, MethodKey>((Object.keys(Methods) as MethodKey[]).map((k) => [Methods[k].method, k]));

/** The method key of a wire name, or null for a name that is not a method. */
export function methodKeyOf(name: string): MethodKey | null {
  return byName.get(name) ?? null;
}

/** `ask/event` params: the event itself, tagged with the id of the `ask` request it belongs to. */
export type AskEventParams = AskEvent & { requestId: string | number };
export interface IndexProgressParams { requestId: string | number; progress: BuildProgress }

/**
 * One notification type: the wire name, and (by type only) its params, so
 * the daemon's send and a client's listener of `Notifications.askEvent` are
 * checked against the same definition (LSP's NotificationType<P>).
 */
export interface NotificationType<P> {
  readonly method: string;
  /** Phantom: never set, it carries the type. */
  readonly _params?: P;
}
const notification = <P>(method: string): NotificationType<P> => ({ method });

/** Server → client notifications, each tied to the request that caused it by `requestId`. */
export const Notifications = {
  /** One `ask` progress event, sent only to the client that asked. */
  askEvent: notification<AskEventParams>('ask/event'),
  /** Progress of an `index/refresh`, sent only to the client that asked for it. */
  indexProgress: notification<IndexProgressParams>('index/progress'),
} as const;

/** Sends one notification of a definition: the params must be its params. */
export type Notify = <P>(type: NotificationType<P>, params: NoInfer<P>) => void;

/** A Notify over any connection (the daemon's side of Notifications). */
export function notifier(conn: Pick<RpcConnection, 'sendNotification'>): Notify {
  return (type, params) => conn.sendNotification(type.method, params);
}

/**
 * A listener of every notification that hands `fn` the params of `type`'s
 * alone (a client's side of Notifications). They are typed by the
 * definition, as a request's result is by its RequestType: the daemon, the
 * other end of this protocol, is not checked again here.
 */
export function listenerFor<P>(type: NotificationType<P>, fn: (params: P) => void): (method: string, params: unknown) => void {
  return (method, params) => { if (method === type.method) fn(params as P); };
}
