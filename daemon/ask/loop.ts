// The tool-calling loop behind `ask` (docs/ask.md), as named steps over one
// question's state (question.ts):
//
//   checkModel      the model can call tools; the window and its budget
//   openTranscript  system prompt, earlier turns and evidence, the question
//   takeTurn        repeated: fitPrompt, modelTurn, then either answerCalls
//                   (calls.ts) or judgeText (an answer, or what is not one)
//   finish          citations checked, the result
//
// until the model answers without calling a tool, two calls in a row are
// refused, the step cap or the wall clock is reached, or the client cancels.
// The model is a ChatModel (model.ts): which API serves it is models.ts's
// business, so nothing here depends on one.
import type { Evidence } from '../../indexer/evidence.js';
import { argumentsForLog, nameForLog } from '../../indexer/query/arg-bounds.js';
import type { AskResult } from '../../protocol/ask-events.js';
import { ContextBudget, chooseNumCtx } from './budget.js';
import { answerCalls, refuse, type RunTool } from './calls.js';
import { citesNoEvidence, settleCitations } from './citations.js';
import { type AskConfig, type AskSettings, resolveAskConfig } from './config.js';
import {
  isAbortError, ModelError, type AssistantMessage, type ChatMessage, type ChatModel, type ModelDescription, type ModelReply, type ToolSpec,
} from './model.js';
import { openModel } from './models.js';
import { EMPTY_REPLY_NUDGE, evidenceEnvelope, modelTools, priorEvidenceMessage, SYSTEM_PROMPT } from './prompt.js';
import { Aborted, Question, type Outcome, type QuestionIO } from './question.js';
import { textToolCall } from './reply.js';
import { Transcript } from './transcript.js';

/** One question and the asking client's settings (each set one overrides the daemon's own environment). */
export interface AskRequest extends AskSettings {
  question: string;
  /** Also report the server's version and the model's digest (evidex eval). */
  describe_model?: boolean;
}

/** What a conversation (`evidex chat`) carries from one question to the next; the loop appends each answered one. */
export interface Conversation {
  turns: Array<{ question: string; answer: string; evidence: Evidence[] }>;
}

export interface AskContext extends QuestionIO {
  /** Validates and runs one call against the index; throws ToolError on refusal. */
  runTool: RunTool;
  config?: Partial<AskConfig>;
  conversation?: Conversation;
  /** The repository's absolute root: an answer's absolute path under it cites the repository path. */
  root?: string;
  /** Whether a repository path is an indexed file (citations.ts indexedVia); without it, no citation is told apart as no_such_file. */
  indexed?: (path: string) => Promise<boolean>;
  /** The index's first build while it runs, else null: a call that waits for it does so with the question's clock stopped (Question.unclocked). */
  firstBuild?: () => Promise<unknown> | null;
  /** The model the question is put to (default: the API models.ts chooses for the settings). */
  openModel?: (cfg: AskConfig) => ChatModel;
}

/** What the model check establishes: the budget every prompt is fitted to, and the tools it counts. */
interface CheckedModel {
  budget: ContextBudget;
  tools: ToolSpec[];
  description?: ModelDescription;
}

/** Share of the window earlier evidence of a conversation may take at most. */
const PRIOR_EVIDENCE_SHARE = 0.3;

/**
 * Runs one question to its end. `req` is the `ask` params as daemon/methods.ts
 * validated them; a setting this request cannot use throws AskConfigError
 * (code invalid_arguments, one line) before anything has started.
 */
export async function runAsk(req: AskRequest, ctx: AskContext): Promise<AskResult> {
  const cfg = resolveAskConfig(ctx.config, req);
  const model = (ctx.openModel ?? openModel)(cfg);
  const q = new Question(req.question, cfg, ctx); // its clock runs from here: every path below ends in q.close()
  let checked: CheckedModel | undefined;
  let outcome: Outcome;
  try {
    q.notify({ type: 'started', questionId: q.id, model: cfg.model, host: cfg.host, maxSteps: cfg.maxSteps, timeoutMs: cfg.timeoutMs, ...(cfg.api !== 'ollama' ? { api: cfg.api } : {}) });
    checked = await checkModel(q, model, req.describe_model === true);
    outcome = await converse(q, model, checked, { ...ctx, runTool: afterFirstBuild(q, ctx) });
  } catch (err) {
    outcome = outcomeOf(err, q);
  } finally {
    q.close();
  }
  return finish(q, outcome, checked, ctx);
}


/** ctx.runTool, after the index's first build when one runs, waited for off the question's clock. */
function afterFirstBuild(q: Question, ctx: AskContext): RunTool {
  return async (name, args) => {
    const build = ctx.firstBuild?.() ?? null;
    if (build) await q.unclocked(build);
    return ctx.runTool(name, args);
  };
}

/** The model exists and can call tools; the window every request asks for: its context length, capped by EVIDEX_NUM_CTX. */
async function checkModel(q: Question, model: ChatModel, describe: boolean): Promise<CheckedModel> {
  const facts = await model.check(q.signal);
  const description = describe ? await model.describe(q.signal) : undefined;
  const numCtx = chooseNumCtx(facts.contextLength, q.cfg.numCtxCap);
  const tools = modelTools();
  q.notify({ type: 'model', numCtx, ...(facts.contextLength ? { contextLength: facts.contextLength } : {}) });
  return { budget: new ContextBudget(numCtx, tools), tools, ...(description ? { description } : {}) };
}

async function converse(q: Question, model: ChatModel, checked: CheckedModel, ctx: AskContext): Promise<Outcome> {
  const t = openTranscript(q, checked, ctx.conversation);
  if (!(t instanceof Transcript)) return t;
  for (;;) {
    const ended = await takeTurn(q, model, t, ctx.runTool);
    if (ended) return ended;
  }
}

/**
 * The first prompt: the system prompt, a conversation's earlier turns and as
 * much of their evidence as its share of the window holds, then the question.
 * A question that does not fit even alone stops here.
 */
function openTranscript(q: Question, { budget, tools }: CheckedModel, conversation: Conversation | undefined): Transcript | Outcome {
  const system: ChatMessage = { role: 'system', content: SYSTEM_PROMPT };
  const question: ChatMessage = { role: 'user', content: q.text };
  const fixed = budget.prompt([system, question]);
  if (fixed > budget.limit) {
    return { why: 'context_full', message: `the question, system prompt and tool list need about ${fixed} tokens, more than fits the ${budget.numCtx}-token window `
      + `with room for a reply; shorten the question${budget.numCtx < q.cfg.numCtxCap ? ', or use a model with a longer context' : ', or raise EVIDEX_NUM_CTX'}` };
  }
  const t = new Transcript(budget, tools);
  t.add(system);
  for (const turn of conversation?.turns ?? []) t.addDroppable([{ role: 'user', content: turn.question }, { role: 'assistant', content: turn.answer }]);
  const prior = conversation?.turns.flatMap((turn) => turn.evidence) ?? [];
  if (prior.length) {
    const room = Math.min(Math.floor(budget.limit * PRIOR_EVIDENCE_SHARE), budget.room([...t.messages, question]) - budget.limit / 4);
    if (room > 200) {
      const env = evidenceEnvelope('earlier_evidence', undefined, prior, prior.length, 0, room, (text) => budget.text(text));
      t.addDroppable([{ role: 'user', content: priorEvidenceMessage(env.content) }]);
      q.addEvidence(env.shown);
    }
  }
  t.add(question);
  return t;
}

/** One step: a model turn on a prompt that fits, then what its reply calls for; the outcome once the question ends. */
async function takeTurn(q: Question, model: ChatModel, t: Transcript, runTool: RunTool): Promise<Outcome | null> {
  q.checkAbort();
  if (q.steps >= q.cfg.maxSteps) {
    return { why: 'step_cap', message: `stopped after ${q.steps} model turns without a final answer (step cap of ${q.cfg.maxSteps})` };
  }
  const step = ++q.steps;
  q.notify({ type: 'step', step, maxSteps: q.cfg.maxSteps });
  const full = fitPrompt(q, t, step);
  if (full) return full;
  const reply = await modelTurn(q, model, t, step);
  if (reply.overCap !== undefined) return overCap(reply, reply.overCap);
  const assistant: AssistantMessage = { role: 'assistant', content: reply.content };
  // The model's calls go back to it as its history, with names and arguments too deep or big to serialise replaced.
  if (reply.toolCalls.length) {
    assistant.toolCalls = reply.toolCalls.map((c) => ({ ...c, name: nameForLog(c.name), arguments: argumentsForLog(c.arguments) }));
  }
  t.add(assistant);
  return reply.toolCalls.length ? answerCalls(q, t, runTool, assistant, reply.toolCalls, step) : judgeText(q, t, reply, step);
}

/** A reply stopped at its size cap (ReplyAssembly): the question ends incomplete, and none of its calls runs. */
function overCap(reply: ModelReply, cap: number): Outcome {
  const calls = reply.toolCalls.length ? `; the ${reply.toolCalls.length} tool call${reply.toolCalls.length === 1 ? '' : 's'} it held ${reply.toolCalls.length === 1 ? 'was' : 'were'} not run` : '';
  return {
    why: 'incomplete', answer: reply.content,
    message: `the model's reply reached the size cap of ${cap.toLocaleString('en')} characters (its text, thinking and call arguments together) and was stopped there${calls}: the answer above is incomplete`,
  };
}

/** The whole prompt fits the window with room for the reply; the question and system prompt are never what goes. */
function fitPrompt(q: Question, t: Transcript, step: number): Outcome | null {
  const shrunk = t.makeRoom(0);
  if (shrunk) q.notify({ type: 'summarised', step, results: shrunk });
  if (t.room() >= 0) return null;
  return { why: 'context_full', message: `the conversation (about ${t.budget.prompt(t.messages)} tokens) no longer fits the ${t.budget.numCtx}-token window with room for a reply, even with earlier results summarised; ask a narrower question` };
}

/**
 * Asks the model, streaming its text to the client; logs the turn and learns
 * from the server's count of the prompt. A server that refuses the prompt as
 * over its window and says what it counted (llama-server, vLLM) is asked once
 * more, with the budget fitted to that count and the prompt fitted again
 * (when nothing is left to shrink, its refusal stands).
 */
async function modelTurn(q: Question, model: ChatModel, t: Transcript, step: number, refitted = false): Promise<ModelReply> {
  const { budget } = t;
  const estimate = budget.prompt(t.messages);
  const sent = [...t.messages];
  const t0 = performance.now();
  let reply: ModelReply;
  try {
    reply = await model.turn(
      { messages: sent, tools: t.tools, numCtx: budget.numCtx, replyReserve: budget.reserve, maxReplyChars: q.cfg.maxReplyChars, signal: q.signal },
      (type, text) => q.notify({ type, step, text }),
    );
  } catch (err) {
    if (refitted || !(err instanceof ModelError) || err.promptTokens === undefined) throw err;
    q.turns.push({ step, ms: Math.round(performance.now() - t0), estimate, promptEvalCount: err.promptTokens, doneReason: 'over_window' });
    budget.observe(sent, err.promptTokens, true);
    // With nothing left to shrink, the server's refusal is the answer: it says how to load a larger window.
    if (fitPrompt(q, t, step)) throw err;
    return modelTurn(q, model, t, step, true);
  }
  q.checkAbort();
  q.turns.push({ step, ms: Math.round(performance.now() - t0), estimate,
    ...(reply.promptTokens !== undefined ? { promptEvalCount: reply.promptTokens } : {}),
    ...(reply.doneReason ? { doneReason: reply.doneReason } : {}) });
  if (reply.promptTokens !== undefined && budget.observe(sent, reply.promptTokens).cut) {
    q.contextCuts++;
    q.notify({ type: 'context_cut', step, promptEvalCount: reply.promptTokens, numCtx: budget.numCtx });
  }
  return reply;
}

/** A reply without tool calls: an answer, unless it is a call written as text, cut at the output limit, or empty. */
async function judgeText(q: Question, t: Transcript, reply: ModelReply, step: number): Promise<Outcome | null> {
  const text = reply.content.trim();
  const asText = text ? textToolCall(text) : null;
  if (asText) {
    t.add(await refuse(q, step, 0, asText.name, asText.arguments, 'call_as_text'));
    return q.strike(true);
  }
  if (reply.doneReason === 'length') {
    return { why: 'incomplete', answer: reply.content, message: 'the reply was cut at the model\'s output limit (done_reason "length"): the answer above is incomplete' };
  }
  if (!text) {
    q.notify({ type: 'empty_reply', step, retrying: !q.emptyRetried });
    if (q.emptyRetried) return { why: 'empty_reply', message: 'the model replied with nothing, twice; try again, rephrase the question or choose another model' };
    q.emptyRetried = true;
    t.messages.pop(); // an empty assistant turn teaches the model nothing; the nudge replaces it
    t.add({ role: 'user', content: EMPTY_REPLY_NUDGE });
    return null;
  }
  return { why: 'answered', answer: reply.content };
}

/** How a question ends when something was thrown: its abort, a model that could not be used; anything else is a bug and goes on up. */
function outcomeOf(err: unknown, q: Question): Outcome {
  const aborted = q.abortedBy;
  if (aborted && (err instanceof Aborted || err instanceof ModelError || isAbortError(err))) {
    return aborted === 'time_limit'
      ? { why: 'time_limit', message: `stopped at the wall-clock limit of ${q.cfg.timeoutMs / 1000} s (EVIDEX_ASK_TIMEOUT_S)` }
      : { why: 'cancelled', message: 'cancelled by the client' };
  }
  if (err instanceof ModelError) return { why: 'model_error', message: err.message, error: err.toJSON() };
  throw err;
}

/** The end of every question: an answer's citations checked against the evidence shown, the last events, the result. */
async function finish(q: Question, outcome: Outcome, checked: CheckedModel | undefined, ctx: AskContext): Promise<AskResult> {
  const conversation = ctx.conversation;
  const answer = 'answer' in outcome ? outcome.answer : '';
  const citations = 'answer' in outcome ? await settleCitations(answer, q.evidence, ctx.root, ctx.indexed) : [];
  const uncited = outcome.why === 'answered' && citesNoEvidence(answer, citations, q.attempts.length > 0);
  if ('answer' in outcome) q.notify({ type: 'citations', citations, ...(uncited ? { uncited: true as const } : {}) });
  const message = 'message' in outcome ? outcome.message : undefined;
  q.notify({ type: 'stopped', why: outcome.why, ...(message ? { message } : {}) });
  if (outcome.why === 'answered') conversation?.turns.push({ question: q.text, answer, evidence: q.evidence.slice() });
  const result: AskResult = {
    questionId: q.id, model: q.cfg.model, answer, evidence: q.evidence, citations, stopped: outcome.why,
    attempts: q.attempts, steps: q.steps, turns: q.turns, contextCuts: q.contextCuts,
  };
  if (checked) result.numCtx = checked.budget.numCtx;
  if (checked?.description) result.ollama = checked.description;
  if (q.cfg.api !== 'ollama') result.api = q.cfg.api;
  if (message) result.message = message;
  if (uncited) result.uncited = true;
  if (outcome.why === 'model_error') result.error = outcome.error;
  return result;
}
