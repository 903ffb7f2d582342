// A client's `tools/call`: the index's runTool (which checks the call and
// answers it: IndexHandle.runTool), run as one of the client's turns
// (fair-turns.ts), plus what belongs to a request — the audit line naming the
// client, the result trimmed to what the wire carries, and cancellation of a
// call that has to wait. The ask loop runs its calls on the
// index directly and writes its own audit lines (with the question, model and
// step); it never needs the wire shape.
//
// An answer the index has at once stays a plain value (no promise, no await),
// so the connection sends it in the same turn of the event loop as the
// request arrived (see RequestHandler in protocol/jsonrpc.ts).
import type { IndexHandle, ToolResult } from '../indexer/api.js';
import type { CatchingUp } from '../indexer/query/schemas.js';
import { asToolError, ToolError } from '../indexer/errors.js';
import { notesShownFrom, refusalShownFrom, type PlacedCall } from '../indexer/query/notes.js';
import { untilAborted } from '../local/until-aborted.js';
import { RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { REQUEST_CANCELLED, type ToolsCallParams } from '../protocol/messages.js';
import type { AuditLog } from './audit.js';
import { WARMUP_CALLER, type Caller } from './caller.js';
import type { FairTurns } from './fair-turns.js';
import type { RootGate } from './root-gate.js';

/**
 * What tools/call answers: the result's three fields, its near misses and
 * notes when it has some (the paths notes name shown from `from`, when the
 * client reads from there), whether the index was catching up, and the
 * left-out folder its path_prefix is, whatever else the handle's result carries.
 */
const wireResult = (r: ToolResult, catchingUp: CatchingUp | null, from: string | undefined): ToolResult => ({
  evidence: r.evidence, total: r.total, generation: r.generation, ...(r.suggestions?.length ? { suggestions: r.suggestions } : {}),
  ...(r.notes?.length ? wireNotes(r, from) : {}),
  ...(catchingUp ? { catching_up: catchingUp } : {}),
  ...(r.left_out_folder ? { left_out_folder: r.left_out_folder } : {}),
});

/** A result's notes with the paths they name shown from `from`, and the calls they name where they land then. */
function wireNotes(r: ToolResult, from: string | undefined): Pick<ToolResult, 'notes' | 'note_calls'> {
  const { notes, calls } = notesShownFrom(r.notes ?? [], r.notePaths ?? [], from, r.note_calls);
  return { notes, ...(calls.length ? { note_calls: calls } : {}) };
}

/** A refusal whose reason names repository paths, with them shown from `from`, and its calls where they land then (as is without one, or when it names none). */
function refusalFrom(e: unknown, from: string | undefined): unknown {
  if (from === undefined || !(e instanceof ToolError) || e.paths.length === 0) return e;
  // Its calls are the tools' own (errors.ts keeps them as placed text only, below the tools' schemas).
  const shown = refusalShownFrom(e.message, e.paths, from, e.calls as readonly PlacedCall[]);
  return new ToolError(e.code, shown.message, [], shown.calls);
}

/**
 * How long a tool call waits for the watcher to write the changes it had seen
 * when the call came (a save's batch lands in milliseconds; a checkout's
 * burst in a second or two; a re-walk of a large tree may take longer). Past
 * it the call is answered from the index as it is, marked `catching_up`.
 */
const SETTLE_WAIT_MS = 1000;

/** What a tool call asks of the index's writer: whether it is behind the tree, and a wait for what it has seen. */
export interface Freshness {
  readonly answerNote: CatchingUp | null;
  settled(ms: number): Promise<boolean> | null;
}

/**
 * A tool call that waits (on the first build, on git) answers REQUEST_CANCELLED
 * as soon as its client cancels it, so a host that gave up is not kept waiting
 * and the call's answer, if it comes, is dropped. The work itself runs on: it
 * is read-only, and bounded (git by its timeout).
 */
function untilCancelled<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return untilAborted(work, signal, () => cancelledError(signal));
}

/**
 * The error a call its client gave up on is answered with, and audited by: a
 * cancellation, or the client's connection closing (it left, or the daemon is
 * stopping and closed it), each said as such.
 */
function cancelledError(signal: AbortSignal): RpcError {
  const why = signal.reason instanceof Error ? signal.reason.message : '';
  return new RpcError(REQUEST_CANCELLED, /^connection (closed|error)/.test(why) ? `request cancelled: the client's ${why}` : 'request cancelled by the client');
}

/**
 * Whether a request's client gave up on it (cancelled it, or left): asked only
 * when a queued request's turn comes, since reading `ctx.signal` creates an
 * AbortController (Cancellation in protocol/jsonrpc.ts).
 */
export function cancelledBy(ctx: RequestContext): () => Error | null {
  return () => (ctx.signal.aborted ? cancelledError(ctx.signal) : null);
}

export class ToolCalls {
  constructor(
    private readonly handle: IndexHandle,
    /** Where each call's line goes (one queue per state folder, shared with the ask loop's lines). */
    private readonly audit: AuditLog,
    /** Whether the root is still the indexed tree: a call passes, waits for its re-index, or is refused. */
    private readonly root: RootGate,
    /** Whose turn it is: every call runs as one of its client's turns. */
    private readonly turns: FairTurns,
    /** Whether the watcher holds changes not yet written (daemon/updates.ts). */
    private readonly freshness: Freshness,
  ) {}

  /**
   * A call as the index runs it (checked, then answered: IndexHandle.runTool),
   * behind the root's gate (refused while the root is gone, waiting while it is
   * re-indexed), as one of its client's turns. Both tools/call and the ask loop
   * come through here.
   */
  runTool(name: unknown, args: unknown, owner: Caller, cancelled: () => Error | null): ToolResult | Promise<ToolResult> {
    const run = () => this.root.admit(() => this.turns.run(owner, (pace) => this.handle.runTool(name, args, pace), cancelled));
    // Changes seen before the call came are waited for, up to SETTLE_WAIT_MS, before the call takes
    // its turn: waiting holds no turn, so other clients are served meanwhile. In step: answered at once.
    const settled = owner === WARMUP_CALLER ? null : this.freshness.settled(SETTLE_WAIT_MS);
    return settled ? settled.then(run) : run();
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
    const from = p.shown_from;
    try {
      r = this.runTool(p.name, p.arguments, client, cancelledBy(ctx));
    } catch (e) {
      this.auditLine(client, p, t0, null, e);
      throw refusalFrom(e, from);
    }
    if (!(r instanceof Promise)) { this.auditLine(client, p, t0, r, null); return wireResult(r, this.freshness.answerNote, from); }
    // Audited by what the client got: a call it gave up on while it waited or ran is `cancelled` when it
    // gave up, and what the work answers later (never sent) is not counted as allowed.
    return untilCancelled(r, ctx.signal).then(
      (v) => { this.auditLine(client, p, t0, v, null); return wireResult(v, this.freshness.answerNote, from); },
      (e: unknown) => { this.auditLine(client, p, t0, null, e); throw refusalFrom(e, from); },
    );
  }

  private auditLine(client: Caller, p: ToolsCallParams, t0: number, result: ToolResult | null, e: unknown): void {
    if (client === WARMUP_CALLER) return;
    // A call whose client gave up before its turn came did not run: no refusal, and no bug (internal_error).
    const cancelled = e instanceof RpcError && e.code === REQUEST_CANCELLED;
    const refusal = e === null || cancelled ? null : asToolError(e);
    void this.audit.write({
      time: new Date().toISOString(), client: client.name, question: null, tool: p.name, arguments: p.arguments ?? null,
      decision: cancelled ? 'cancelled' : refusal ? 'refused' : 'allowed',
      ...(cancelled ? { reason: e.message } : refusal ? { code: refusal.code, reason: refusal.message } : {}),
      ...(result ? { items: result.evidence.length, total: result.total } : {}),
      duration_ms: Math.round((performance.now() - t0) * 100) / 100,
    });
  }
}
