// One question's state, which every step of the loop (loop.ts) reads and adds
// to: the settings it runs with, the evidence the model was shown, the calls
// and turns so far, the refusals in a row; and its plumbing: the events it
// sends, the audit lines it writes, and its one abort, fired by the client's
// cancel or the wall clock, whichever comes first.
import { randomUUID } from 'node:crypto';
import type { Evidence } from '../../indexer/evidence.js';
import { untilAborted } from '../../local/until-aborted.js';
import type { AskEvent, AskFailure, AttemptLog, StopReason, TurnLog } from '../../protocol/ask-events.js';
import { auditLogFor, type AuditLog } from '../audit.js';
import type { AskConfig } from './config.js';

/** How a question ended: the answer for the two stops that have one, a message for every stop but `answered`. */
export type Outcome =
  | { why: 'answered'; answer: string }
  | { why: 'incomplete'; answer: string; message: string }
  | { why: 'model_error'; message: string; error: AskFailure }
  | { why: Exclude<StopReason, 'answered' | 'incomplete' | 'model_error'>; message: string };

/** Where a question reports to. */
export interface QuestionIO {
  /** The client's own name (X-Evidex-Client), for the audit log. */
  clientId: string;
  notify: (e: AskEvent) => void;
  /** Aborts the question (client disconnected or pressed Ctrl-C); the model's request in flight is aborted too. */
  signal: AbortSignal;
  /** Where audit.log goes: the repository's state folder. */
  stateDir: string;
}

type AbortWhy = 'cancelled' | 'time_limit';

/** Thrown by checkAbort to unwind from wherever the question is to the one place that ends it. */
export class Aborted {
  constructor(readonly why: AbortWhy) {}
}

const TWO_REFUSALS = 'stopped after two refused tool calls in a row; the question goes back to you with the attempts below (rephrase it, or name the file or symbol)';

export class Question {
  readonly id = randomUUID();
  /** Every item the model was shown with its text, in order, once each. */
  readonly evidence: Evidence[] = [];
  readonly attempts: AttemptLog[] = [];
  readonly turns: TurnLog[] = [];
  /** Calls that ran, by callKey: the same call again is refused as "already answered above". */
  readonly answeredCalls = new Set<string>();
  /** Model turns taken. */
  steps = 0;
  /** Turns where the server's count showed it cut the prompt. */
  contextCuts = 0;
  /** The one retry after an empty reply has been used. */
  emptyRetried = false;
  private refusedInARow = 0;
  private readonly evidenceKeys = new Set<string>();
  private readonly audit: AuditLog;
  private readonly controller = new AbortController();
  private why: AbortWhy | null = null;
  private timer: NodeJS.Timeout;
  /** When the wall clock runs out (Date.now() time), moved on by the time spent waiting unclocked. */
  private deadline: number;
  private readonly onCancel = (): void => { this.abort('cancelled'); };

  constructor(readonly text: string, readonly cfg: AskConfig, private readonly io: QuestionIO) {
    this.audit = auditLogFor(io.stateDir);
    this.deadline = Date.now() + cfg.timeoutMs;
    this.timer = setTimeout(() => this.abort('time_limit'), cfg.timeoutMs);
    if (io.signal.aborted) this.onCancel(); else io.signal.addEventListener('abort', this.onCancel, { once: true });
  }

  /** Aborted when the question is cancelled or out of time, and when it ends: nothing may outlive it. */
  get signal(): AbortSignal { return this.controller.signal; }
  /** Why the question was aborted, once it was. */
  get abortedBy(): AbortWhy | null { return this.why; }

  /**
   * Waits for `work` with the wall clock stopped: the index's first build is
   * no time the question spent (on a large tree it outlasts the whole limit,
   * which would stop every first question before the model saw an answer).
   * A cancel still ends the wait at once.
   */
  async unclocked<T>(work: Promise<T>): Promise<T> {
    clearTimeout(this.timer);
    const left = Math.max(0, this.deadline - Date.now());
    try {
      return await untilAborted(work, this.signal, () => new Aborted(this.why ?? 'cancelled'));
    } finally {
      if (!this.signal.aborted) {
        this.deadline = Date.now() + left;
        this.timer = setTimeout(() => this.abort('time_limit'), left);
      }
    }
  }

  checkAbort(): void {
    if (this.why) throw new Aborted(this.why);
  }

  notify(e: AskEvent): void {
    try { this.io.notify(e); } catch { /* a client that cannot take an event must not break the question */ }
  }

  addEvidence(items: readonly Evidence[]): void {
    for (const e of items) {
      const key = `${e.kind}\0${e.path}\0${e.start_line}\0${e.end_line}\0${e.name}`;
      if (!this.evidenceKeys.has(key)) { this.evidenceKeys.add(key); this.evidence.push(e); }
    }
  }

  /** One decided call: kept in the attempts and appended to the audit log. */
  async record(attempt: AttemptLog): Promise<void> {
    this.attempts.push(attempt);
    await this.audit.write({
      time: new Date().toISOString(), client: this.io.clientId, question: this.text, question_id: this.id, model: this.cfg.model,
      step: attempt.step, tool: attempt.tool, arguments: attempt.arguments, decision: attempt.decision,
      ...(attempt.code ? { code: attempt.code, reason: attempt.reason } : {}),
      ...(attempt.items !== undefined ? { items: attempt.items, total: attempt.total } : {}),
      duration_ms: attempt.ms,
    });
  }

  /** Counts one decided call toward the two-strike stop; the stop itself when two in a row were refused. */
  strike(refused: boolean): Outcome | null {
    this.refusedInARow = refused ? this.refusedInARow + 1 : 0;
    return this.refusedInARow >= 2 ? { why: 'refused_twice', message: TWO_REFUSALS } : null;
  }

  /** The end of the question, however it came: the clock stops, and whatever is still in flight is aborted. */
  close(): void {
    clearTimeout(this.timer);
    this.io.signal.removeEventListener('abort', this.onCancel);
    if (!this.controller.signal.aborted) this.controller.abort();
  }

  private abort(why: AbortWhy): void {
    this.why ??= why;
    this.controller.abort();
  }
}
