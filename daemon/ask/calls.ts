// One reply's tool calls, each decided before anything runs: not a repeat of
// a call already answered, exact name and strict schema (the same gate as a
// client's tools/call), then run against the index. Every decision is an
// event, an attempt and an audit line; what goes back to the model is one
// `tool` message per call: the result sized to the room left, or a one-line
// refusal it can act on.
import type { ToolResult } from '../../indexer/api.js';
import { asToolError } from '../../indexer/errors.js';
import { argumentsForLog, checkToolCall, nameForLog } from '../../indexer/query/arg-bounds.js';
import type { ChatMessage, ModelToolCall, ToolMessage } from './model.js';
import { evidenceEnvelope, LOOP_REFUSALS, refusalText } from './prompt.js';
import type { Outcome, Question } from './question.js';
import { callKey } from './reply.js';
import type { Transcript } from './transcript.js';

/** Validates and runs one call against the index; throws ToolError on refusal. */
export type RunTool = (name: unknown, args: unknown) => ToolResult | Promise<ToolResult>;

/**
 * Decides and runs the calls of the reply `assistant`, in order, one `tool`
 * message each. Stops at the second refusal in a row (the calls after it are
 * not run). The results, answering one reply together, never make room for
 * each other; the next reply's may be summarised to make room.
 */
export async function answerCalls(
  q: Question, t: Transcript, runTool: RunTool, assistant: ChatMessage, calls: readonly ModelToolCall[], step: number,
): Promise<Outcome | null> {
  const results: ToolMessage[] = [];
  for (let i = 0; i < calls.length; i++) {
    q.checkAbort();
    const { message, refused } = await answerCall(q, t, runTool, calls[i], step, i, calls.length - i);
    t.add(message);
    if (!refused) results.push(message);
    const stop = q.strike(refused);
    if (stop) return stop;
  }
  t.endExchange(assistant, results);
  return null;
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

async function decideAndRun(runTool: RunTool, call: ModelToolCall): Promise<Decision> {
  try {
    checkToolCall(call.name, call.arguments); // decide before running, so the decision itself is what gets logged
  } catch (err) {
    return { refusal: asToolError(err) };
  }
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
  const decided = await decideAndRun(runTool, call);
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
  // left (the calls still to come in this reply get theirs), less its own message's overhead.
  const shrunk = t.makeRoom(Math.floor(t.budget.limit / 4));
  if (shrunk) q.notify({ type: 'summarised', step, results: shrunk });
  const room = Math.floor(t.room() / Math.max(1, callsLeft)) - t.budget.text(name) - 16;
  const env = evidenceEnvelope(name, args, r.evidence, r.total, r.generation, room, (text) => t.budget.text(text));
  q.addEvidence(env.shown);
  q.notify({ type: 'tool_result', step, index, name, items: r.evidence.length, total: r.total, generation: r.generation, ms, shown: env.shown.length, refs: env.refs });
  await q.record({ step, tool: name, arguments: args, decision: 'allowed', ms, items: r.evidence.length, total: r.total });
  return { message: toolMessage(name, env.content, call.id), refused: false };
}

function toolMessage(toolName: string, content: string, callId: string | undefined): ToolMessage {
  return { role: 'tool', content, toolName, ...(callId !== undefined ? { callId } : {}) };
}
