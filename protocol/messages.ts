// The daemon's protocol, defined once and imported by both ends: every method's
// name, its params schema (zod, validated by the server before any handler
// runs), its result type, and every notification. Transport details (framing,
// ids, generic error codes) are in jsonrpc.ts.
//
// Error codes a client sees:
//   -32700 parse error        bad JSON
//   -32600 invalid request    not a JSON-RPC 2.0 object, a batch (refused), a binary frame
//   -32601 method not found
//   -32602 invalid params     params failed the method's schema; data = {code: 'invalid_arguments', message}
//   -32603 internal error     an unexpected exception (one-line message); the daemon keeps serving
//   -32001 TOOL_ERROR         a tool refused or failed; data = {code, message} from ToolError
//                             (invalid_arguments, unknown_tool, path_denied, secret_denied, not_indexed, ...)
//   -32002 ASK_ERROR          the `ask` loop could not run (Ollama unreachable, model lacks tools...); data = {code, message}
//   -32003 MESSAGE_TOO_LARGE  a message over the per-message limit (default 1 MiB); the connection stays open
//   -32004 SHUTTING_DOWN      the daemon is stopping and takes no new work
//   -32800 REQUEST_CANCELLED  the client cancelled the request ($/cancelRequest) before it was answered
import { z } from 'zod';
import type { BuildProgress, BuildSummary, IndexStatus, ToolResult } from '../indexer/api.js';
import type { ToolDescriptor } from '../indexer/query/schemas.js';
import { MAX_STEPS_LIMIT, MAX_TIMEOUT_S } from '../daemon/ask/config.js';
import type { AskEvent, AskResult } from '../daemon/ask/events.js';
import type { LatencySnapshot } from '../daemon/latency.js';
import type { WarmupOutcome } from '../daemon/warmup.js';
import { MESSAGE_TOO_LARGE } from './jsonrpc.js';
import type { WatchState } from '../indexer/watch.js';

export type { AskEvent, AskResult, LatencySnapshot };

export const TOOL_ERROR = -32001;
export const ASK_ERROR = -32002;
export { MESSAGE_TOO_LARGE };
export const SHUTTING_DOWN = -32004;
/** The LSP code for a request its client cancelled. */
export const REQUEST_CANCELLED = -32800;

/** Default soft limit for one message (either direction is checked by the receiver). */
export const MAX_MESSAGE_BYTES = 1 << 20;
/** Hard cap enforced by ws itself (`maxPayload`): past it the socket is closed with 1009. */
export const MAX_PAYLOAD_BYTES = 16 << 20;

/** Where a watcher stands, reported by index/status and `evidex daemon status` (the watcher's own type). */
export type WatcherState = WatchState;

/**
 * The request-path warm-up (warmup.ts): waiting (for start-up and the caches),
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

export interface DaemonInfoStatus {
  pid: number;
  url: string;
  root: string;
  stateDir: string;
  startedAt: string;
  uptimeSeconds: number;
  watcher: WatcherState;
  /** Why the watcher is polling or off, when it is. */
  watcherNote?: string;
  /** ISO time the watcher last applied an update (null: none yet). */
  lastWatchUpdate: string | null;
  /** The start-up refresh (first build or catch-up). tools/call waits for a first or interrupted build only; a complete index answers during a catch-up. */
  startup: 'running' | 'done' | 'failed';
  startupError?: string;
  warmup: WarmupStatus;
  clients: number;
  /** Updates queued behind the one running (watcher batches, refreshes). */
  pendingUpdates: number;
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


const Empty = z.strictObject({}).optional();

/** One request type: the method name, the params schema the server validates, and (by type only) the result. */
export interface RequestType<P, R> {
  readonly method: string;
  readonly params: z.ZodType<P>;
  /** Phantom: carries the result type for the client's typed `request`. */
  readonly _result?: R;
}
function request<R>() {
  return <S extends z.ZodType>(method: string, params: S): RequestType<z.output<S>, R> => ({ method, params: params as unknown as z.ZodType<z.output<S>> });
}

export const Methods = {
  toolsList: request<{ tools: ToolDescriptor[] }>()('tools/list', Empty),
  toolsCall: request<ToolResult>()('tools/call', z.strictObject({
    name: z.string().min(1).max(200),
    // The tool's own arguments are checked by validateToolCall (strict schema), so the refusal says `invalid_arguments`.
    arguments: z.unknown().optional(),
  })),
  ask: request<AskResult>()('ask', z.strictObject({
    question: z.string().min(1).max(20_000),
    model: z.string().min(1).max(200).optional(),
    // The asking client's own settings (its OLLAMA_HOST, EVIDEX_ASK_MAX_STEPS,
    // EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK), sent only when set there. Each one
    // overrides the daemon's environment for this request alone; the host is
    // normalised and checked by the ask loop (a bad one fails only this request).
    ollama_host: z.string().min(1).max(2048).optional(),
    max_steps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional(),
    timeout_s: z.number().positive().max(MAX_TIMEOUT_S).optional(),
    think: z.boolean().optional(),
  })),
  indexStatus: request<StatusResult>()('index/status', Empty),
  indexRefresh: request<BuildSummary & { generation: number }>()('index/refresh', Empty),
  daemonShutdown: request<{ stopping: true; pid: number }>()('daemon/shutdown', Empty),
} as const;

export type MethodKey = keyof typeof Methods;
type MethodOf<K extends MethodKey> = (typeof Methods)[K];
export type MethodName = MethodOf<MethodKey>['method'];
export type ParamsOf<K extends MethodKey> = MethodOf<K> extends RequestType<infer P, unknown> ? P : never;
export type ResultOf<K extends MethodKey> = MethodOf<K> extends RequestType<unknown, infer R> ? R : never;

/** Finds a method definition by its wire name. */
export function methodByName(name: string): { key: MethodKey; def: RequestType<unknown, unknown> } | null {
  for (const key of Object.keys(Methods) as MethodKey[]) {
    const def = Methods[key] as RequestType<unknown, unknown>;
    if (def.method === name) return { key, def };
  }
  return null;
}

/** Server → client notifications, each tied to the request that caused it by `requestId`. */
export const Notifications = {
  /** One `ask` progress event, sent only to the client that asked. */
  askEvent: 'ask/event',
  /** Progress of an `index/refresh`, sent only to the client that asked for it. */
  indexProgress: 'index/progress',
} as const;

/** `ask/event` params: the event itself, tagged with the id of the `ask` request it belongs to. */
export type AskEventParams = AskEvent & { requestId: string | number };
export interface IndexProgressParams { requestId: string | number; progress: BuildProgress }
