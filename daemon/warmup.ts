// Request-path warm-up. V8 runs a function as bytecode until it has been
// called many times and only then compiles it to fast code, so a daemon that
// has just started answers its first calls with slow code. Measured on the
// stdlib, daemon side (message received to answer written), over the first 300
// calls of each tool, 4 runs each way: find_symbol took 32-49 ms in all with
// this warm-up against 45-63 ms without, find_importers 66-81 against 79-100 ms,
// search_code 411-539 against 494-572 ms. So once its caches are loaded, the
// daemon sends itself tool calls over its own contents, through the path a
// client's request takes (params validation, the tool, the JSON of the
// response), in short slices that let client requests in between.
//
// The calls only read: the four index tools, never read_git_diff (it starts git).
// This module holds both the calls and their pacing (warmupCalls,
// warmRequestPath) and the daemon's driver of them (RequestPathWarmup).
import type { IndexHandle, IndexSample } from '../indexer/api.js';
import type { ToolCallParams } from '../indexer/query/schemas.js';
import { RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { Methods, SHUTTING_DOWN, TOOL_ERROR, type WarmupOutcome, type WarmupStatus } from '../protocol/messages.js';
import { WARMUP_CALLER, type Caller } from './caller.js';
import { collectGarbage } from './collect-garbage.js';

/** A tools/call the warm-up makes: any tool but read_git_diff. */
export type WarmupCall = Exclude<ToolCallParams, { name: 'read_git_diff' }>;

/**
 * Names of each kind (definitions, modules, paths) the calls are drawn from:
 * enough that the calls meet answers of every size and the code paths they
 * take, few enough to pick in a few milliseconds even on a large tree.
 */
export const WARMUP_SAMPLE = 1000;
/**
 * How long the warm-up waits for the background load of the index's caches
 * before it runs anyway (a tree that keeps changing can hold the load back).
 */
export const WARMUP_WAIT_MS = 60_000;

/**
 * Rounds of calls: each round is a find_symbol and a find_importers call, and
 * every SEARCH_EVERY-th round adds a search_code and a read_evidence call.
 * 3,000 rounds made the difference above; 1,500 did not clearly.
 */
export const WARMUP_ROUNDS = 3000;
/** Searches cost ~10x a lookup (and much more on a large tree), so they come less often. */
const SEARCH_EVERY = 10;
/**
 * Work between two turns of the event loop. A client request waits behind at
 * most one slice plus the call in progress when it ends: a lookup takes well
 * under 1 ms, a search up to ~15 ms on the stdlib.
 */
export const WARMUP_SLICE_MS = 2;
/** The warm-up ends after this much work whatever is left (a large tree's searches cost more). */
export const WARMUP_BUDGET_MS = 3000;

export interface WarmupResult { calls: number; busyMs: number; outcome: WarmupOutcome }

/** The warm-up's calls, `rounds` rounds over the sampled names (cycled when there are fewer). */
export function* warmupCalls(sample: IndexSample, rounds: number): Generator<WarmupCall> {
  const { symbols, modules, paths } = sample;
  // search_code wants 1-200 characters; a definition name is a typical query (the bench's are 3-20).
  const queries = symbols.filter((s) => s.length >= 3).map((s) => s.slice(0, 20));
  for (let i = 0; i < rounds; i++) {
    if (symbols.length) yield { name: 'find_symbol', arguments: { name: symbols[i % symbols.length] } };
    if (modules.length) yield { name: 'find_importers', arguments: { module_name: modules[i % modules.length] } };
    if (i % SEARCH_EVERY !== 0) continue;
    const k = i / SEARCH_EVERY;
    if (queries.length) yield { name: 'search_code', arguments: { query: queries[k % queries.length] } };
    if (paths.length) yield { name: 'read_evidence', arguments: { path: paths[k % paths.length], start_line: 1, end_line: 1 } };
  }
}

/**
 * Runs `calls` one after another through `run`, yielding to the event loop
 * (setImmediate: after pending I/O, so a waiting request is served) once a
 * slice has taken WARMUP_SLICE_MS (or through `between`, which the daemon
 * makes wait until no client's request waits either). Stops when `stopped()`
 * says so or the busy time reaches `budgetMs`.
 */
export async function warmRequestPath(
  calls: Iterable<WarmupCall>,
  run: (call: WarmupCall, seq: number) => Promise<void>,
  stopped: () => boolean,
  budgetMs = WARMUP_BUDGET_MS,
  between: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): Promise<WarmupResult> {
  let n = 0;
  let busyMs = 0;
  let sliceStart = performance.now();
  for (const call of calls) {
    if (stopped()) return { calls: n, busyMs, outcome: 'stopped' };
    await run(call, n++);
    const now = performance.now();
    if (now - sliceStart < WARMUP_SLICE_MS) continue;
    busyMs += now - sliceStart;
    if (busyMs >= budgetMs) return { calls: n, busyMs, outcome: 'budget' };
    await between();
    sliceStart = performance.now();
  }
  busyMs += performance.now() - sliceStart;
  return { calls: n, busyMs, outcome: stopped() ? 'stopped' : 'done' };
}

/** Refusals a warm-up call may meet as any client's would: an empty file has no line 1, a file deleted since the sample is not indexed. */
const WARMUP_REFUSALS: ReadonlySet<string> = new Set(['out_of_range', 'not_indexed']);

export interface WarmupDeps {
  handle: Pick<IndexHandle, 'status' | 'sample'>;
  /** The daemon's dispatch (Dispatcher.dispatch): the path a client's request takes. */
  dispatch: (caller: Caller, method: string, params: unknown, ctx: RequestContext) => unknown;
  /** True once the daemon is shutting down. */
  stopped: () => boolean;
  /**
   * Resolves when no client's request runs or waits (FairTurns.whenIdle): the
   * warm-up's slices take only what clients leave, and its time budget counts
   * its own work, not theirs.
   */
  idle?: () => Promise<void>;
  log: (line: string) => void;
}

/** The daemon's warm-up: its status for index/status, and the one run that moves it on. */
export class RequestPathWarmup {
  status: WarmupStatus;

  constructor(enabled: boolean, private readonly deps: WarmupDeps) {
    this.status = { state: enabled ? 'waiting' : 'off' };
  }

  /** The start-up build failed: there is nothing to warm up. */
  skip(): void {
    if (this.status.state === 'waiting') this.status = { state: 'skipped' };
  }

  /** Starts the warm-up in the background (once the start-up build is done); a failure is logged, not thrown. */
  start(): void {
    void this.run().catch((e: unknown) => {
      this.status = { state: 'failed' };
      this.deps.log(`request path warm-up failed: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  /**
   * Runs once the index's caches are loaded: tools/call requests over the
   * index's own names, each parsed from text, dispatched and its response
   * serialised as a connection does (only the socket is left out). A call that
   * fails otherwise than a client's could is a bug: it ends the warm-up.
   */
  private async run(): Promise<void> {
    if (this.status.state !== 'waiting') return;
    const { handle, dispatch, stopped, log } = this.deps;
    // The caches load in the background after start-up, retrying while updates land, so
    // there is no one promise to wait on. Calls made before would take the paths they replace.
    const until = performance.now() + WARMUP_WAIT_MS;
    while (!handle.status().warm && !stopped() && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
    }
    if (stopped()) return;
    this.status = { state: 'running' };
    const ctx: RequestContext = { id: 'warm-up', signal: new AbortController().signal };
    let refused = 0;
    const run = async (call: WarmupCall, seq: number): Promise<void> => {
      const request = JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: seq, method: Methods.toolsCall.method, params: call })) as { method: string; params: unknown };
      try {
        const result = await dispatch(WARMUP_CALLER, request.method, request.params, ctx);
        JSON.stringify({ jsonrpc: '2.0', id: seq, result }); // what a connection sends: part of the path being warmed
      } catch (e) {
        // The daemon's stop cut this call short (it waited for its turn, or its next slice, as the index closed):
        // no failure, and the loop ends at its next look at `stopped`.
        if (e instanceof RpcError && e.code === SHUTTING_DOWN) return;
        const code = e instanceof RpcError && e.code === TOOL_ERROR ? (e.data as { code?: string } | undefined)?.code : undefined;
        if (code === undefined || !WARMUP_REFUSALS.has(code)) throw e;
        refused++;
      }
    };
    const idle = this.deps.idle;
    const between = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await idle?.();
    };
    const r = await warmRequestPath(warmupCalls(handle.sample(WARMUP_SAMPLE), WARMUP_ROUNDS), run, stopped, WARMUP_BUDGET_MS, between);
    const note = r.outcome === 'budget' ? ' (time budget reached)' : r.outcome === 'stopped' ? ' (stopped)' : '';
    log(`request path warmed up: ${r.calls} calls (${refused} refused), ${r.busyMs.toFixed(0)} ms of work${note}`);
    // What warm-up left behind is garbage V8 would keep until the heap grows again: collected once, when no client waits.
    if (r.outcome !== 'stopped') {
      await between();
      const ms = stopped() ? null : await collectGarbage();
      if (ms !== null) log(`heap collected after warm-up in ${ms.toFixed(0)} ms`);
    }
    this.status = { state: 'done', calls: r.calls, refused, busyMs: Math.round(r.busyMs), outcome: r.outcome };
  }
}
