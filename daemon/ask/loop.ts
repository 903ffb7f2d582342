// The Ollama tool-calling loop behind `ask` (docs/ask.md). One question:
// check the model can call tools, then alternate model turns and tool calls
// until the model answers without calling a tool, two calls in a row are
// refused, the step cap or the wall clock is reached, or the client cancels.
// Every request asks for the same window (num_ctx) and every prompt is fitted
// to it first (budget.ts); what models do wrong (reply.ts) is refused with a
// reason or stops the question, never taken as an answer.
import { randomUUID } from 'node:crypto';
import type { Message, ToolCall as OllamaToolCall } from 'ollama';
import type { Evidence } from '../../indexer/evidence.js';
import { asToolError } from '../../indexer/errors.js';
import type { ToolResult } from '../../indexer/api.js';
import { argumentsForLog, checkToolCall, nameForLog } from '../../indexer/query/arg-bounds.js';
import { auditLogFor } from '../audit.js';
import { ContextBudget, chooseNumCtx } from './budget.js';
import { checkCitations } from './citations.js';
import { type AskConfig, type AskSettings, resolveAskConfig } from './config.js';
import type { AskEvent, AskResult, AttemptLog, StopReason, TurnLog } from '../../protocol/ask-events.js';
import { checkToolCapability, describeModel } from './model-check.js';
import { AskError, classifyOllamaError, makeOllama } from './ollama-client.js';
import {
  EMPTY_REPLY_NUDGE, evidenceEnvelope, LOOP_REFUSALS, ollamaTools, priorEvidenceMessage, refusalText, summariseToolContent, SYSTEM_PROMPT,
} from './prompt.js';
import { callKey, textToolCall, ThinkFilter } from './reply.js';

/** One question and the asking client's settings (each set one overrides the daemon's own environment). */
export interface AskRequest extends AskSettings {
  question: string;
  /** Also report the Ollama version and the model's digest (evidex eval). */
  describe_model?: boolean;
}

/** What a conversation (`evidex chat`) carries from one question to the next; the loop appends each answered one. */
export interface Conversation {
  turns: Array<{ question: string; answer: string; evidence: Evidence[] }>;
}

export interface AskContext {
  /** The client's own name (X-Evidex-Client), for the audit log. */
  clientId: string;
  /** Validates and runs one call against the index; throws ToolError on refusal. */
  runTool: (name: unknown, args: unknown) => ToolResult | Promise<ToolResult>;
  notify: (e: AskEvent) => void;
  /** Aborts the question (client disconnected or pressed Ctrl-C); the in-flight Ollama request is aborted too. */
  signal: AbortSignal;
  /** Where audit.log goes: the repository's state folder. */
  stateDir: string;
  config?: Partial<AskConfig>;
  conversation?: Conversation;
}

/** A tool call as it is kept in the conversation: name and arguments in a form that serialises safely. */
function historyCall(call: OllamaToolCall): OllamaToolCall {
  const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
  const name = nameForLog(fn?.name);
  const args = argumentsForLog(fn?.arguments);
  if (name === fn?.name && args === fn?.arguments) return call;
  return { ...call, function: { name, arguments: args as Record<string, unknown> } };
}

/** Thrown inside the loop to unwind to the single place that builds the result. */
class Stop {
  constructor(readonly why: StopReason, readonly message?: string) {}
}

interface AssembledReply {
  content: string; thinking: string; toolCalls: OllamaToolCall[]; doneReason?: string; promptEvalCount?: number;
}

/** A prompt message evidex may shrink to make room, and how. */
type Shrinkable = { kind: 'tool'; message: Message } | { kind: 'history'; messages: Message[] };

/** Share of the window earlier evidence of a conversation may take at most. */
const PRIOR_EVIDENCE_SHARE = 0.3;

export async function runAsk(req: AskRequest, ctx: AskContext): Promise<AskResult> {
  if (typeof req?.question !== 'string' || req.question.trim() === '') {
    throw new Error('ask: `question` must be a non-empty string');
  }
  if (req.model !== undefined && (typeof req.model !== 'string' || req.model.trim() === '')) {
    throw new Error('ask: `model` must be a non-empty string when given');
  }
  // Throws AskConfigError (code invalid_arguments, one line) for a setting this request cannot use;
  // nothing has started yet, so only this request fails.
  const cfg = resolveAskConfig(ctx.config, req);
  const questionId = randomUUID();
  const tools = ollamaTools();
  const audit = auditLogFor(ctx.stateDir);

  // One controller ends everything in flight: the client's cancel and the wall clock both fire it.
  const ac = new AbortController();
  let abortWhy: 'cancelled' | 'time_limit' | null = null;
  const onCancel = (): void => { abortWhy ??= 'cancelled'; ac.abort(); };
  const timer = setTimeout(() => { abortWhy ??= 'time_limit'; ac.abort(); }, cfg.timeoutMs);
  if (ctx.signal.aborted) onCancel(); else ctx.signal.addEventListener('abort', onCancel, { once: true });
  const ollama = makeOllama(cfg.host, ac.signal);

  const notify = (e: AskEvent): void => {
    try { ctx.notify(e); } catch { /* a client that cannot take an event must not break the question */ }
  };
  const checkAbort = (): void => { if (abortWhy) throw new Stop(abortWhy); };

  const evidence: Evidence[] = [];
  const evidenceKeys = new Set<string>();
  const addEvidence = (items: readonly Evidence[]): void => {
    for (const e of items) {
      const key = `${e.kind}\0${e.path}\0${e.start_line}\0${e.end_line}\0${e.name}`;
      if (!evidenceKeys.has(key)) { evidenceKeys.add(key); evidence.push(e); }
    }
  };
  const attempts: AttemptLog[] = [];
  const turns: TurnLog[] = [];
  const answeredCalls = new Set<string>();
  let answer = '';
  let steps = 0;
  let contextCuts = 0;
  let numCtx: number | undefined;
  let budget: ContextBudget | undefined;
  let ollamaFacts: AskResult['ollama'];
  // Messages that may be shrunk, oldest first: earlier conversation turns, then tool results as they come.
  const shrinkable: Shrinkable[] = [];
  // Whole earlier exchanges of this question (a reply's tool calls and their results), dropped oldest
  // first once every result is already summarised; the latest one always stays.
  const exchanges: Message[][] = [];

  /** One model turn, streamed, assembled whole before anything runs; <think> text never reaches the answer. */
  async function modelTurn(messages: Message[], step: number): Promise<AssembledReply> {
    let stream;
    try {
      stream = await ollama.chat({
        model: cfg.model, messages, tools, stream: true, options: { num_ctx: numCtx },
        ...(cfg.think !== undefined ? { think: cfg.think } : {}),
      });
    } catch (err) {
      checkAbort();
      throw classifyOllamaError(err, cfg.host, cfg.model, 'request');
    }
    const reply: AssembledReply = { content: '', thinking: '', toolCalls: [] };
    const think = new ThinkFilter();
    const take = (part: { content: string; thinking: string }): void => {
      if (part.thinking) { reply.thinking += part.thinking; notify({ type: 'thinking', step, text: part.thinking }); }
      if (part.content) { reply.content += part.content; notify({ type: 'content', step, text: part.content }); }
    };
    try {
      for await (const chunk of stream) {
        const m = chunk.message;
        if (m && typeof m.thinking === 'string' && m.thinking) {
          reply.thinking += m.thinking;
          notify({ type: 'thinking', step, text: m.thinking });
        }
        if (m && typeof m.content === 'string' && m.content) take(think.push(m.content));
        if (m?.tool_calls !== undefined && m.tool_calls !== null) {
          if (!Array.isArray(m.tool_calls)) throw new AskError('ollama_bad_reply', `Ollama sent tool_calls that is not a list: ${JSON.stringify(m.tool_calls).slice(0, 200)}`);
          reply.toolCalls.push(...m.tool_calls);
        }
        if (chunk.done) {
          reply.doneReason = chunk.done_reason;
          if (typeof chunk.prompt_eval_count === 'number') reply.promptEvalCount = chunk.prompt_eval_count;
        }
      }
      take(think.end());
    } catch (err) {
      checkAbort();
      throw classifyOllamaError(err, cfg.host, cfg.model, 'stream');
    }
    return reply;
  }

  async function record(attempt: AttemptLog): Promise<void> {
    attempts.push(attempt);
    await audit.write({
      time: new Date().toISOString(), client: ctx.clientId, question: req.question, question_id: questionId, model: cfg.model,
      step: attempt.step, tool: attempt.tool, arguments: attempt.arguments, decision: attempt.decision,
      ...(attempt.code ? { code: attempt.code, reason: attempt.reason } : {}),
      ...(attempt.items !== undefined ? { items: attempt.items, total: attempt.total } : {}),
      duration_ms: attempt.ms,
    });
  }

  /** A refusal of the loop's own (a text call, a repeated call): logged like any other, sent back as a `tool` message. */
  async function refuse(step: number, index: number, name: string, args: unknown, code: keyof typeof LOOP_REFUSALS): Promise<Message> {
    const content = refusalText({ code, message: LOOP_REFUSALS[code] });
    notify({ type: 'tool_call', step, index, name, arguments: args ?? null, decision: 'refused', code, reason: content });
    await record({ step, tool: name, arguments: args ?? null, decision: 'refused', code, reason: content, ms: 0 });
    return { role: 'tool', tool_name: name, content };
  }

  /**
   * Shrinks the oldest shrinkable messages (tool results to path:line lists,
   * then whole earlier conversation turns) until `need` tokens are free or
   * nothing is left to shrink. Returns how many were shrunk.
   */
  function makeRoom(messages: Message[], need: number, step: number): void {
    let shrunk = 0;
    const drop = (ms: Message[]): void => {
      for (const m of ms) { const at = messages.indexOf(m); if (at !== -1) messages.splice(at, 1); }
    };
    while (budget!.room(messages) < need && shrinkable.length) {
      const s = shrinkable.shift()!;
      if (s.kind === 'tool') {
        const summary = summariseToolContent(s.message.content ?? '');
        if (summary !== null && summary.length < (s.message.content ?? '').length) { s.message.content = summary; shrunk++; }
      } else {
        drop(s.messages);
        shrunk++;
      }
    }
    while (budget!.room(messages) < need && exchanges.length > 1) { drop(exchanges.shift()!); shrunk++; }
    if (shrunk) notify({ type: 'summarised', step, results: shrunk });
  }

  /** Decides one call (exact name, strict schema, not a repeat), runs it if allowed, logs it; returns the `tool` message. */
  async function handleCall(
    call: OllamaToolCall, step: number, index: number, messages: Message[], callsLeft: number,
  ): Promise<{ message: Message; refused: boolean }> {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    const rawName = fn?.name;
    const name = nameForLog(rawName);
    const rawArgs = fn?.arguments;
    // What is logged, sent to the client and kept in the attempts: a placeholder for arguments too deep or big to serialise.
    const args = argumentsForLog(rawArgs);
    const key = callKey(name, rawArgs);
    if (key !== null && answeredCalls.has(key)) return { message: await refuse(step, index, name, args, 'duplicate_call'), refused: true };
    const t0 = performance.now();
    let result: ToolResult | undefined;
    let refusal: { code: string; message: string } | undefined;
    try {
      checkToolCall(rawName, rawArgs);  // decide before running, so the decision itself is what gets logged
    } catch (err) {
      refusal = asToolError(err);
    }
    if (!refusal) {
      try {
        result = await ctx.runTool(rawName, rawArgs);
      } catch (err) {
        refusal = asToolError(err); // path_denied, not_indexed, out_of_range... all come back to the model
      }
    }
    const ms = Math.round((performance.now() - t0) * 100) / 100;
    const attempt: AttemptLog = { step, tool: name, arguments: args ?? null, decision: refusal ? 'refused' : 'allowed', ms };
    let content: string;
    if (refusal) {
      content = refusalText(refusal);
      attempt.code = refusal.code;
      attempt.reason = content;
      notify({ type: 'tool_call', step, index, name, arguments: args ?? null, decision: 'refused', code: refusal.code, reason: content });
    } else {
      const r = result!;
      if (key !== null) answeredCalls.add(key);
      notify({ type: 'tool_call', step, index, name, arguments: args ?? null, decision: 'allowed' });
      // Earlier results give way before this one is squeezed; then it takes its share of what is
      // left (the calls still to come in this reply get theirs), less its own message's overhead.
      makeRoom(messages, Math.floor(budget!.limit / 4), step);
      const room = Math.floor(budget!.room(messages) / Math.max(1, callsLeft)) - budget!.text(name) - 16;
      const env = evidenceEnvelope(name, args, r.evidence, r.total, r.generation, room, (t) => budget!.text(t));
      content = env.content;
      addEvidence(env.shown);
      attempt.items = r.evidence.length;
      attempt.total = r.total;
      notify({ type: 'tool_result', step, index, name, items: r.evidence.length, total: r.total, generation: r.generation, ms, shown: env.shown.length, refs: env.refs });
    }
    await record(attempt);
    return { message: { role: 'tool', tool_name: name, content }, refused: !!refusal };
  }

  /** The conversation so far, as messages that can be dropped whole (oldest first) when room runs out. */
  function historyMessages(): Message[] {
    const out: Message[] = [];
    for (const t of ctx.conversation?.turns ?? []) {
      const pair: Message[] = [{ role: 'user', content: t.question }, { role: 'assistant', content: t.answer }];
      shrinkable.push({ kind: 'history', messages: pair });
      out.push(...pair);
    }
    return out;
  }

  let stopped: StopReason;
  let message: string | undefined;
  let error: AskResult['error'];
  try {
    notify({ type: 'started', questionId, model: cfg.model, host: cfg.host, maxSteps: cfg.maxSteps, timeoutMs: cfg.timeoutMs });
    let facts;
    try {
      facts = await checkToolCapability(ollama, cfg.host, cfg.model);
      if (req.describe_model) ollamaFacts = await describeModel(ollama, cfg.model);
    } catch (err) {
      checkAbort();
      throw err;
    }
    numCtx = chooseNumCtx(facts.contextLength, cfg.numCtxCap);
    budget = new ContextBudget(numCtx, tools);
    notify({ type: 'model', numCtx, ...(facts.contextLength ? { contextLength: facts.contextLength } : {}) });

    const system: Message = { role: 'system', content: SYSTEM_PROMPT };
    const question: Message = { role: 'user', content: req.question };
    const fixed = budget.prompt([system, question]);
    if (fixed > budget.limit) {
      throw new Stop('context_full', `the question, system prompt and tool list need about ${fixed} tokens, more than fits the ${numCtx}-token window `
        + `with room for a reply; shorten the question${numCtx < cfg.numCtxCap ? ', or use a model with a longer context' : ', or raise EVIDEX_NUM_CTX'}`);
    }
    const messages: Message[] = [system, ...historyMessages()];
    const prior = ctx.conversation?.turns.flatMap((t) => t.evidence) ?? [];
    if (prior.length) {
      const room = Math.min(Math.floor(budget.limit * PRIOR_EVIDENCE_SHARE), budget.room([...messages, question]) - budget.limit / 4);
      if (room > 200) {
        const env = evidenceEnvelope('earlier_evidence', undefined, prior, prior.length, 0, room, (t) => budget!.text(t));
        const m: Message = { role: 'user', content: priorEvidenceMessage(env.content) };
        messages.push(m);
        shrinkable.push({ kind: 'history', messages: [m] });
        addEvidence(env.shown);
      }
    }
    messages.push(question);

    let refusedInARow = 0;
    let emptyRetried = false;
    for (;;) {
      checkAbort();
      if (steps >= cfg.maxSteps) {
        throw new Stop('step_cap', `stopped after ${steps} model turns without a final answer (step cap of ${cfg.maxSteps})`);
      }
      const step = ++steps;
      notify({ type: 'step', step, maxSteps: cfg.maxSteps });
      // The whole prompt fits the window with room for the reply; the question and system prompt are never what goes.
      makeRoom(messages, 0, step);
      if (budget.room(messages) < 0) {
        throw new Stop('context_full', `the conversation (about ${budget.prompt(messages)} tokens) no longer fits the ${numCtx}-token window with room for a reply, even with earlier results summarised; ask a narrower question`);
      }
      const estimate = budget.prompt(messages);
      const sent = [...messages];
      const t0 = performance.now();
      const reply = await modelTurn(messages, step);
      checkAbort();
      turns.push({ step, ms: Math.round(performance.now() - t0), estimate,
        ...(reply.promptEvalCount !== undefined ? { promptEvalCount: reply.promptEvalCount } : {}),
        ...(reply.doneReason ? { doneReason: reply.doneReason } : {}) });
      if (budget.observe(sent, reply.promptEvalCount).cut) {
        contextCuts++;
        notify({ type: 'context_cut', step, promptEvalCount: reply.promptEvalCount!, numCtx });
      }
      const assistant: Message = { role: 'assistant', content: reply.content };
      // The model's calls go back to it as its history, with arguments too deep or big to serialise replaced.
      if (reply.toolCalls.length) assistant.tool_calls = reply.toolCalls.map(historyCall);
      messages.push(assistant);

      if (reply.toolCalls.length === 0) {
        const text = reply.content.trim();
        const asText = text ? textToolCall(text) : null;
        if (asText) {
          messages.push(await refuse(step, 0, asText.name, asText.arguments, 'call_as_text'));
          refusedInARow++;
          if (refusedInARow >= 2) throw new Stop('refused_twice', TWO_REFUSALS);
          continue;
        }
        if (reply.doneReason === 'length') {
          answer = reply.content;
          throw new Stop('incomplete', `the reply was cut at the model's output limit (done_reason "length"): the answer above is incomplete`);
        }
        if (!text) {
          notify({ type: 'empty_reply', step, retrying: !emptyRetried });
          if (emptyRetried) throw new Stop('empty_reply', 'the model replied with nothing, twice; try again, rephrase the question or choose another model');
          emptyRetried = true;
          messages.pop(); // an empty assistant turn teaches the model nothing; the nudge replaces it
          messages.push({ role: 'user', content: EMPTY_REPLY_NUDGE });
          continue;
        }
        answer = reply.content;
        throw new Stop('answered');
      }
      // Parallel calls run in order, one `tool` message each. They answer one reply together,
      // so none of them is summarised to make room for another; the next reply's may be.
      const results: Message[] = [];
      for (let i = 0; i < reply.toolCalls.length; i++) {
        checkAbort();
        const { message: toolMsg, refused } = await handleCall(reply.toolCalls[i], step, i, messages, reply.toolCalls.length - i);
        messages.push(toolMsg);
        if (!refused) results.push(toolMsg);
        refusedInARow = refused ? refusedInARow + 1 : 0;
        if (refusedInARow >= 2) throw new Stop('refused_twice', TWO_REFUSALS);
      }
      for (const m of results) shrinkable.push({ kind: 'tool', message: m });
      exchanges.push(messages.slice(messages.indexOf(assistant)));
    }
  } catch (err) {
    if (err instanceof Stop) {
      stopped = err.why;
      message = err.message;
    } else if (abortWhy && (err instanceof AskError || (err as Error)?.name === 'AbortError' || (err as Error)?.name === 'TimeoutError')) {
      stopped = abortWhy;
    } else if (err instanceof AskError) {
      stopped = 'model_error';
      error = err.toJSON();
      message = err.message;
    } else {
      throw err;
    }
    if (stopped === 'time_limit') message = `stopped at the wall-clock limit of ${cfg.timeoutMs / 1000} s (EVIDEX_ASK_TIMEOUT_S)`;
    if (stopped === 'cancelled') message = 'cancelled by the client';
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
    ollama.abort(); // nothing may outlive the question
    if (!ac.signal.aborted) ac.abort();
  }

  const citations = stopped === 'answered' || stopped === 'incomplete' ? checkCitations(answer, evidence) : [];
  if (stopped === 'answered' || stopped === 'incomplete') notify({ type: 'citations', citations });
  notify({ type: 'stopped', why: stopped, ...(message ? { message } : {}) });
  if (stopped === 'answered') ctx.conversation?.turns.push({ question: req.question, answer, evidence: evidence.slice() });
  const result: AskResult = { questionId, model: cfg.model, answer, evidence, citations, stopped, attempts, steps, turns, contextCuts };
  if (numCtx !== undefined) result.numCtx = numCtx;
  if (ollamaFacts) result.ollama = ollamaFacts;
  if (message) result.message = message;
  if (error) result.error = error;
  return result;
}

const TWO_REFUSALS = 'stopped after two refused tool calls in a row; the question goes back to you with the attempts below (rephrase it, or name the file or symbol)';
