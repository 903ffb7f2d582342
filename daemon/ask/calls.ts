// One reply's tool calls, each decided before anything runs: within the cap
// on calls per turn, not a repeat of a call already answered, exact name and
// strict schema (the same gate as a client's tools/call), then run against
// the index. Every decision is an event, an attempt and an audit line; what
// goes back to the model is one `tool` message per call that ran: the result
// sized to the room left, or a one-line refusal it can act on. Calls past the
// cap are not run: each is an attempt and an audit line (`not_run`), the
// client gets one event, and the model one message (callsCapNote) in place of
// those calls in its history.
import type { ToolResult } from '../../indexer/api.js';
import { asToolError } from '../../indexer/errors.js';
import { argumentsForLog, checkToolCall, nameForLog } from '../../indexer/query/arg-bounds.js';
import { TOOL_NAMES } from '../../indexer/query/schemas.js';
import { shortQuote, type AssistantMessage, type ModelToolCall, type ToolMessage } from './model.js';
import { callsCapNote, evidenceEnvelope, LOOP_REFUSALS, refusalText } from './prompt.js';
import type { Outcome, Question } from './question.js';
import { callKey } from './reply.js';
import type { Transcript } from './transcript.js';

/** Validates and runs one call against the index; throws ToolError on refusal. */
export type RunTool = (name: unknown, args: unknown) => ToolResult | Promise<ToolResult>;

/**
 * Decides and runs the calls of the reply `assistant`, in order, one `tool`
 * message each, up to the cap on calls per turn (the calls past it are not
 * run). Stops at the second refusal in a row (the calls after it within the
 * cap are not run either). The results, answering one reply together, never
 * make room for each other; the next reply's may be summarised to make room.
 */
export async function answerCalls(
  q: Question, t: Transcript, runTool: RunTool, assistant: AssistantMessage, calls: readonly ModelToolCall[], step: number,
): Promise<Outcome | null> {
  const cap = q.cfg.callsPerTurn;
  const run = calls.slice(0, cap);
  const results: ToolMessage[] = [];
  let stop: Outcome | null = null;
  try {
    for (let i = 0; i < run.length && !stop; i++) {
      q.checkAbort();
      const { message, refused } = await answerCall(q, t, runTool, run[i], step, i, run.length - i);
      t.add(message);
      if (!refused) results.push(message);
      stop = q.strike(refused);
    }
  } finally {
    // Whatever ended the turn (a stop, the wall clock), each call past the cap has its line.
    if (calls.length > cap) await notRun(q, calls, cap, step);
  }
  if (stop) return stop;
  if (calls.length > cap) {
    // The model's history keeps the calls that ran, each answered; one note stands for the rest.
    assistant.toolCalls = assistant.toolCalls?.slice(0, cap);
    t.add({ role: 'user', content: callsCapNote(calls.length, cap) });
  }
  t.endExchange(assistant, results);
  return null;
}

/** The calls of a reply past the cap: not run, each recorded (attempts, audit), the client told once. */
async function notRun(q: Question, calls: readonly ModelToolCall[], cap: number, step: number): Promise<void> {
  q.notify({ type: 'calls_not_run', step, asked: calls.length, cap });
  const reason = `not run: the reply asked for ${calls.length} tool calls, over the cap of ${cap} per model turn`;
  // Recorded in order at once (each record takes its place in the attempts and the audit queue before any is written).
  await Promise.all(calls.slice(cap).map((call) => q.record({
    step, tool: nameForLog(call.name), arguments: argumentsForLog(call.arguments) ?? null, decision: 'not_run', code: 'calls_per_turn', reason, ms: 0,
  })));
}

/** A refusal of the loop's own (a text call, a repeated call): logged like any other, sent back as a `tool` message. */
export async function refuse(
  q: Question, step: number, index: number, name: string, args: unknown, code: keyof typeof LOOP_REFUSALS, callId?: string,
): Promise<ToolMessage> {
  const content = refusalText({ code, message: LOOP_REFUSALS[code] });
  const logged = args ?? null;
  q.notify({ type: 'tool_call', step, index, name, arguments: logged, decision: 'refused', code, reason: content });
  await q.record({ step, tool: name, arguments: logged, decision: 'refused', code, reason: content, ms: 0 });
  return toolMessage(name, content, callId);
}

/** The index's answer to one call, or why it has none. */
type Decision = { result: ToolResult } | { refusal: { code: string; message: string } };

async function decideAndRun(runTool: RunTool, call: ModelToolCall, running: () => void): Promise<Decision> {
  if (call.argumentsError !== undefined && (TOOL_NAMES as readonly unknown[]).includes(call.name)) {
    // Said as what it is, not as the schema's "expected object, received string": the model can fix its JSON.
    const why = shortQuote(call.argumentsError);
    return { refusal: { code: 'invalid_arguments', message: `arguments are not valid JSON (${why}); send them as one JSON object` } };
  }
  try {
    checkToolCall(call.name, call.arguments); // decide before running, so the decision itself is what gets logged
  } catch (err) {
    return { refusal: asToolError(err) };
  }
  // Said before it runs: a call can wait (on a first build, on git) far longer than the model took to ask for it.
  running();
  try {
    return { result: await runTool(call.name, call.arguments) };
  } catch (err) {
    return { refusal: asToolError(err) }; // path_denied, not_indexed, out_of_range... all come back to the model
  }
}

/** One call: decided, run if allowed, logged; `callsLeft` counts it and the calls after it in the reply (they share the room). */
async function answerCall(
  q: Question, t: Transcript, runTool: RunTool, call: ModelToolCall, step: number, index: number, callsLeft: number,
): Promise<{ message: ToolMessage; refused: boolean }> {
  const name = nameForLog(call.name);
  // What is logged, sent to the client and kept in the attempts: a placeholder for arguments too deep or big to serialise.
  const args = argumentsForLog(call.arguments) ?? null;
  const key = callKey(name, call.arguments);
  if (key !== null && q.answeredCalls.has(key)) return { message: await refuse(q, step, index, name, args, 'duplicate_call', call.id), refused: true };
  const t0 = performance.now();
  const decided = await decideAndRun(runTool, call, () => q.notify({ type: 'tool_running', step, index, name }));
  const ms = Math.round((performance.now() - t0) * 100) / 100;
  if ('refusal' in decided) {
    const { code } = decided.refusal;
    const reason = refusalText(decided.refusal);
    q.notify({ type: 'tool_call', step, index, name, arguments: args, decision: 'refused', code, reason });
    await q.record({ step, tool: name, arguments: args, decision: 'refused', ms, code, reason });
    return { message: toolMessage(name, reason, call.id), refused: true };
  }
  const r = decided.result;
  if (key !== null) q.answeredCalls.add(key);
  q.notify({ type: 'tool_call', step, index, name, arguments: args, decision: 'allowed' });
  // Earlier results give way before this one is squeezed; then it takes its share of what is
  // left (the calls still to come in this reply get theirs), less what its message costs besides.
  const shrunk = t.makeRoom(Math.floor(t.budget.limit / 4));
  if (shrunk) q.notify({ type: 'summarised', step, results: shrunk });
  const room = Math.floor(t.room() / Math.max(1, callsLeft)) - t.budget.resultOverhead(name);
  const env = evidenceEnvelope(name, args, r.evidence, r.total, r.generation, room, (text) => t.budget.text(text), r);
  q.addEvidence(env.shown);
  q.notify({ type: 'tool_result', step, index, name, items: r.evidence.length, total: r.total, generation: r.generation, ms, shown: env.shown.length, refs: env.refs });
  await q.record({ step, tool: name, arguments: args, decision: 'allowed', ms, items: r.evidence.length, total: r.total });
  return { message: toolMessage(name, env.content, call.id), refused: false };
}

function toolMessage(toolName: string, content: string, callId: string | undefined): ToolMessage {
  return { role: 'tool', content, toolName, ...(callId !== undefined ? { callId } : {}) };
}
