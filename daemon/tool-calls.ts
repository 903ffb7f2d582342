// Running a tool in the daemon. There are two entries, for two kinds of caller:
//
// - `runTool(name, args)`: THE way the daemon runs a tool — exact name and
//   strict schema (checkToolCall), the wait for a first build, the index's
//   answer, every failure as a ToolError. The ask loop calls it for each tool
//   call a model makes; the loop writes its own audit lines (with the question,
//   model and step) and never needs the wire shape.
// - `toolsCall(client, params, ctx)`: a client's `tools/call` request. It is
//   runTool plus what belongs to a request: the audit line naming the client,
//   the result trimmed to what the wire carries, and cancellation of a call
//   that has to wait.
//
// An answer the index has at once stays a plain value through both (no
// promise, no await), so the connection sends it in the same turn of the
// event loop as the request arrived (see RequestHandler in protocol/jsonrpc.ts).
import type { IndexHandle, ToolResult } from '../indexer/api.js';
import { asToolError, ToolError } from '../indexer/errors.js';
import { checkToolCall } from '../indexer/query/arg-bounds.js';
import type { ToolCall } from '../indexer/query/schemas.js';
import { RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { REQUEST_CANCELLED, type ToolsCallParams } from '../protocol/messages.js';
import type { AuditLog } from './audit.js';
import { WARMUP_CALLER, type Caller } from './caller.js';
import type { RootGate } from './root-gate.js';

/** What a tool call needs to know of the daemon's start-up catch-up (IndexUpdates has it). */
export interface StartupGate {
  /** The index was complete when the daemon opened it: calls need not wait for the catch-up. */
  readonly servesDuringStartup: boolean;
  readonly startupState: 'running' | 'done' | 'failed';
  readonly startupError: string | undefined;
  /** Settles (never rejects) once the catch-up is over. */
  readonly startup: Promise<unknown>;
}

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

export class ToolCalls {
  constructor(
    private readonly handle: IndexHandle,
    private readonly startup: StartupGate,
    /** Every tool call's line, from tools/call and from the ask loop alike (one queue per state folder). */
    private readonly audit: AuditLog,
    /** Whether the root is still the indexed tree: a call passes, waits for its re-index, or is refused. */
    private readonly root: RootGate,
  ) {}

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
    return this.root.admit(() => {
      const s = this.startup;
      if (!s.servesDuringStartup && s.startupState === 'running') return s.startup.then(() => this.fromIndex(call));
      return this.fromIndex(call);
    });
  }

  /**
   * A client's own tools/call: run, answered, and audited (time, client, tool,
   * arguments, decision, code and reason, duration). The audit line is queued,
   * not waited for, so it costs the answer nothing. The warm-up is not a client.
   * `ctx.signal` is read only by a call that has to wait: reading it creates an
   * AbortController, a cost an answer at once does not pay (Cancellation in
   * protocol/jsonrpc.ts).
   */
  toolsCall(client: Caller, p: ToolsCallParams, ctx: RequestContext): ToolResult | Promise<ToolResult> {
    const t0 = performance.now();
    let r: ToolResult | Promise<ToolResult>;
    try {
      r = this.runTool(p.name, p.arguments);
    } catch (e) {
      this.auditLine(client, p, t0, null, e);
      throw e;
    }
    if (!(r instanceof Promise)) { this.auditLine(client, p, t0, r, null); return wireResult(r); }
    return untilCancelled(
      r.then((v) => { this.auditLine(client, p, t0, v, null); return wireResult(v); }, (e: unknown) => { this.auditLine(client, p, t0, null, e); throw e; }),
      ctx.signal,
    );
  }

  private fromIndex(call: ToolCall): ToolResult | Promise<ToolResult> {
    if (this.startup.startupState === 'failed') {
      throw new ToolError('index_unavailable', `the index could not be built: ${this.startup.startupError ?? 'unknown error'}`);
    }
    try {
      const r = this.handle.runTool(call);
      return r instanceof Promise ? r.catch((e: unknown) => { throw asToolError(e); }) : r;
    } catch (e) {
      throw asToolError(e);
    }
  }

  private auditLine(client: Caller, p: ToolsCallParams, t0: number, result: ToolResult | null, e: unknown): void {
    if (client === WARMUP_CALLER) return;
    const refusal = e === null ? null : asToolError(e);
    void this.audit.write({
      time: new Date().toISOString(), client: client.name, question: null, tool: p.name, arguments: p.arguments ?? null,
      decision: refusal ? 'refused' : 'allowed',
      ...(refusal ? { code: refusal.code, reason: refusal.message } : {}),
      ...(result ? { items: result.evidence.length, total: result.total } : {}),
      duration_ms: Math.round((performance.now() - t0) * 100) / 100,
    });
  }
}
