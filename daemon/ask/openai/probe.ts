// Can the model call tools through this server? An OpenAI-compatible server
// has no capability list, and the common failure is silent: llama-server
// without --jinja (older builds) takes a request with tools, answers HTTP 200
// and drops them, so the model answers without ever calling one. So before
// the first question the model is asked a tiny request that must produce a
// tool call, and what comes back decides:
//
//   a call                       tools work (cached for this server and model)
//   a call written as text       the tools reached the model, the server's
//                                parser missed its format (LM Studio returns
//                                such a call as content): the loop refuses
//                                those one by one; not a reason to stop
//   cut at max_tokens            undecided: the loop goes on (not cached)
//   plain text                   tools dropped: a one-line model_no_tools
//   HTTP 400/500                 the server's own refusal (vLLM without
//                                --enable-auto-tool-choice, newer
//                                llama-server without --jinja): errors.ts
//
// Only a working result is cached, for the daemon's life: a server restarted
// with the right flag is probed again, not held to its old answer.
import { CHOOSE_MODEL } from '../../../protocol/ask-settings.js';
import type OpenAI from 'openai';
import { isAbortError, ModelError, shortQuote } from '../model.js';
import { textToolCall } from '../reply.js';
import { classifyOpenAIError, LLAMA_NEEDS_JINJA, type ErrorContext } from './errors.js';

export const PROBE_TOOL = 'evidex_probe';
export const PROBE_PROMPT = `Call the ${PROBE_TOOL} tool now. Do not answer in text.`;
/** Enough for a short reasoning preamble before the call; a probe cut here is undecided, not failed. */
export const PROBE_MAX_TOKENS = 512;

/** Servers and models whose tool calls were seen to work, by base and model. */
const working = new Set<string>();

/** Forgets every result (tests start from a daemon that has probed nothing). */
export function forgetProbes(): void {
  working.clear();
}

type ProbeVerdict = 'calls' | 'text_call' | 'undecided' | 'dropped';

/** The request's reply, judged. */
function verdictOf(reply: unknown): ProbeVerdict {
  const choice = (reply as { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }> })?.choices?.[0];
  const calls = choice?.message?.tool_calls;
  if (Array.isArray(calls) && calls.length > 0) return 'calls';
  const content = typeof choice?.message?.content === 'string' ? choice.message.content : '';
  if (content && textToolCall(content.replace(/<think>[\s\S]*?<\/think>/g, ''))) return 'text_call';
  if (choice?.finish_reason === 'length') return 'undecided';
  return 'dropped';
}

/**
 * Throws a ModelError (model_no_tools, with the fix for the server at hand)
 * unless the model can be asked with tools; cheap after the first success.
 */
export async function probeTools(client: OpenAI, c: ErrorContext, signal: AbortSignal): Promise<void> {
  const key = `${c.base}\0${c.model}`;
  if (working.has(key)) return;
  let reply: unknown;
  try {
    reply = await client.chat.completions.create({
      model: c.model,
      messages: [{ role: 'user', content: PROBE_PROMPT }],
      tools: [{ type: 'function', function: { name: PROBE_TOOL, description: 'Tells evidex that tool calls reach it. Takes no arguments.', parameters: { type: 'object', properties: {} } } }],
      max_tokens: PROBE_MAX_TOKENS,
      stream: false,
    }, { signal });
  } catch (err) {
    if (isAbortError(err) || signal.aborted) throw signal.aborted ? signal.reason : err;
    throw classifyOpenAIError(err, c, 'request');
  }
  const verdict = verdictOf(reply);
  if (verdict === 'calls') { working.add(key); return; }
  if (verdict !== 'dropped') return;
  const said = shortQuote(String((reply as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content ?? '')) || '(nothing)';
  if (c.kind === 'llama-server') {
    throw new ModelError('model_no_tools', `llama-server at ${c.base} ignored the tools: asked to call one, the model answered in text (${said}); ${LLAMA_NEEDS_JINJA}`);
  }
  throw new ModelError('model_no_tools', `the ${c.kind === 'server' ? 'OpenAI-compatible server' : c.kind} at ${c.base} ignored the tools: asked to call one, model "${c.model}" answered in text (${said}); `
    + `the server drops tools for this model, or the model cannot call them: enable tool calling in the server, or choose another model with ${CHOOSE_MODEL}`);
}
