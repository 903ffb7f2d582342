// The Ollama tool-calling loop behind `ask` (contract §6). One question:
// check the model can call tools, then alternate model turns and tool calls
// until the model answers without calling a tool, two calls in a row are
// refused, the step cap or the wall clock is reached, or the client cancels.
import { randomUUID } from 'node:crypto';
import type { Message, ToolCall as OllamaToolCall } from 'ollama';
import type { Evidence } from '../../indexer/evidence.js';
import { asToolError, ToolError } from '../../indexer/errors.js';
import type { ToolResult } from '../../indexer/api.js';
import { argumentsForLog, checkToolCall, nameForLog } from '../../indexer/query/arg-bounds.js';
import { appendAudit } from './audit.js';
import { checkCitations } from './citations.js';
import { type AskConfig, type AskSettings, resolveAskConfig } from './config.js';
import type { AskEvent, AskResult, AttemptLog, StopReason } from './events.js';
import { checkToolCapability } from './model-check.js';
import { AskError, classifyOllamaError, isAbortError, makeOllama } from './ollama-client.js';
import { evidenceEnvelope, ollamaTools, refusalText, SYSTEM_PROMPT } from './prompt.js';

/** One question and the asking client's settings (each set one overrides the daemon's own environment). */
export interface AskRequest extends AskSettings { question: string }

export interface AskContext {
  clientId: string;
  /** Validates and runs one call against the index; throws ToolError on refusal. */
  runTool: (name: unknown, args: unknown) => Promise<ToolResult>;
  notify: (e: AskEvent) => void;
  /** Aborts the question (client disconnected or pressed Ctrl-C); the in-flight Ollama request is aborted too. */
  signal: AbortSignal;
  /** Where audit.log goes: the repository's state folder. */
  stateDir: string;
  config?: Partial<AskConfig>;
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

interface AssembledReply { content: string; thinking: string; toolCalls: OllamaToolCall[]; doneReason?: string }

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
  const attempts: AttemptLog[] = [];
  let answer = '';
  let steps = 0;

  /** One model turn, streamed, assembled whole before anything runs. */
  async function modelTurn(messages: Message[], step: number): Promise<AssembledReply> {
    let stream;
    try {
      stream = await ollama.chat({
        model: cfg.model, messages, tools, stream: true, ...(cfg.think !== undefined ? { think: cfg.think } : {}),
      });
    } catch (err) {
      checkAbort();
      throw classifyOllamaError(err, cfg.host, cfg.model, 'request');
    }
    const reply: AssembledReply = { content: '', thinking: '', toolCalls: [] };
    try {
      for await (const chunk of stream) {
        const m = chunk.message;
        if (m && typeof m.thinking === 'string' && m.thinking) {
          reply.thinking += m.thinking;
          notify({ type: 'thinking', step, text: m.thinking });
        }
        if (m && typeof m.content === 'string' && m.content) {
          reply.content += m.content;
          notify({ type: 'content', step, text: m.content });
        }
        if (m?.tool_calls !== undefined && m.tool_calls !== null) {
          if (!Array.isArray(m.tool_calls)) throw new AskError('ollama_bad_reply', `Ollama sent tool_calls that is not a list: ${JSON.stringify(m.tool_calls).slice(0, 200)}`);
          reply.toolCalls.push(...m.tool_calls);
        }
        if (chunk.done) reply.doneReason = chunk.done_reason;
      }
    } catch (err) {
      checkAbort();
      throw classifyOllamaError(err, cfg.host, cfg.model, 'stream');
    }
    return reply;
  }

  /** Decides one call (exact name, strict schema), runs it if allowed, logs it; returns the `tool` message. */
  async function handleCall(call: OllamaToolCall, step: number, index: number): Promise<{ message: Message; refused: boolean }> {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    const rawName = fn?.name;
    const name = nameForLog(rawName);
    const rawArgs = fn?.arguments;
    // What is logged, sent to the client and kept in the attempts: a placeholder for arguments too deep or big to serialise.
    const args = argumentsForLog(rawArgs);
    const t0 = performance.now();
    let result: ToolResult | undefined;
    let refusal: ToolError | undefined;
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
      notify({ type: 'tool_call', step, index, name, arguments: args ?? null, decision: 'allowed' });
      const env = evidenceEnvelope(name, r.evidence, r.total, r.generation, cfg.maxToolChars);
      content = env.content;
      for (const e of env.shown) {
        const key = `${e.kind}\0${e.path}\0${e.start_line}\0${e.end_line}\0${e.name}`;
        if (!evidenceKeys.has(key)) { evidenceKeys.add(key); evidence.push(e); }
      }
      attempt.items = r.evidence.length;
      attempt.total = r.total;
      notify({ type: 'tool_result', step, index, name, items: r.evidence.length, total: r.total, generation: r.generation, ms });
    }
    attempts.push(attempt);
    await appendAudit(ctx.stateDir, {
      time: new Date().toISOString(), client: ctx.clientId, question: questionId, model: cfg.model, step,
      tool: name, arguments: args ?? null, decision: attempt.decision,
      ...(attempt.code ? { code: attempt.code, reason: attempt.reason } : {}),
      ...(attempt.items !== undefined ? { items: attempt.items, total: attempt.total } : {}),
      ms,
    });
    return { message: { role: 'tool', tool_name: name, content }, refused: !!refusal };
  }

  let stopped: StopReason;
  let message: string | undefined;
  let error: AskResult['error'];
  try {
    notify({ type: 'started', questionId, model: cfg.model, host: cfg.host, maxSteps: cfg.maxSteps, timeoutMs: cfg.timeoutMs });
    try {
      await checkToolCapability(ollama, cfg.host, cfg.model);
    } catch (err) {
      checkAbort();
      throw err;
    }
    const messages: Message[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: req.question },
    ];
    let refusedInARow = 0;
    for (;;) {
      checkAbort();
      if (steps >= cfg.maxSteps) {
        throw new Stop('step_cap', `stopped after ${steps} model turns without a final answer (step cap; raise it with EVIDEX_ASK_MAX_STEPS)`);
      }
      const step = ++steps;
      notify({ type: 'step', step, maxSteps: cfg.maxSteps });
      const reply = await modelTurn(messages, step);
      checkAbort();
      const assistant: Message = { role: 'assistant', content: reply.content };
      if (reply.thinking) assistant.thinking = reply.thinking;
      // The model's calls go back to it as its history, with arguments too deep or big to serialise replaced.
      if (reply.toolCalls.length) assistant.tool_calls = reply.toolCalls.map(historyCall);
      messages.push(assistant);
      if (reply.toolCalls.length === 0) {
        answer = reply.content;
        throw new Stop('answered');
      }
      // Parallel calls run in order, one `tool` message each.
      for (let i = 0; i < reply.toolCalls.length; i++) {
        checkAbort();
        const { message: toolMsg, refused } = await handleCall(reply.toolCalls[i], step, i);
        messages.push(toolMsg);
        refusedInARow = refused ? refusedInARow + 1 : 0;
        if (refusedInARow >= 2) {
          throw new Stop('refused_twice',
            'stopped after two refused tool calls in a row; the question goes back to you with the attempts below (rephrase it, or name the file or symbol)');
        }
      }
    }
  } catch (err) {
    if (err instanceof Stop) {
      stopped = err.why;
      message = err.message;
    } else if (abortWhy && (isAbortError(err) || err instanceof AskError)) {
      stopped = abortWhy;
    } else if (err instanceof AskError) {
      stopped = 'model_error';
      error = err.toJSON();
      message = err.message;
    } else {
      throw err;
    }
    if (stopped === 'time_limit') message = `stopped at the wall-clock limit of ${cfg.timeoutMs / 1000} s (raise it with EVIDEX_ASK_TIMEOUT_S)`;
    if (stopped === 'cancelled') message = 'cancelled by the client';
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
    ollama.abort(); // nothing may outlive the question
    if (!ac.signal.aborted) ac.abort();
  }

  const citations = stopped === 'answered' ? checkCitations(answer, evidence) : [];
  if (stopped === 'answered') notify({ type: 'citations', citations });
  notify({ type: 'stopped', why: stopped, ...(message ? { message } : {}) });
  const result: AskResult = { questionId, model: cfg.model, answer, evidence, citations, stopped, attempts, steps };
  if (message) result.message = message;
  if (error) result.error = error;
  return result;
}
