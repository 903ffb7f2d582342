// What the `openai` package throws, talking to an OpenAI-compatible server,
// turned into ModelErrors with one line the user can act on — and the
// servers' known refusals of tools, each with the flag that switches tools on.
import { CHOOSE_MODEL } from '../../../protocol/ask-settings.js';
import { APIConnectionError, APIError } from 'openai';
import { causeCode, UNREACHABLE } from '../http.js';
import { ModelError, shortQuote } from '../model.js';

/** Which server it is, when the model check could tell (by the endpoints it answers beside the API). */
export type ServerKind = 'llama-server' | 'LM Studio' | 'vLLM' | 'server';

/** What a message needs to name: where the server is, which model, what kind of server. */
export interface ErrorContext {
  base: string;
  model: string;
  kind: ServerKind;
  /** Never in a message: a server that quotes the request back must not put the key on the user's screen. */
  apiKey?: string;
}

/** llama-server without --jinja (newer builds refuse tools; older ones drop them silently, see probe.ts). */
export const LLAMA_NEEDS_JINJA = 'start llama-server with --jinja (and a model whose chat template supports tools), then ask again';
/** vLLM without automatic tool choice. */
export const VLLM_NEEDS_AUTO_TOOLS = 'start vLLM with --enable-auto-tool-choice --tool-call-parser PARSER (hermes for Qwen, llama3_json for Llama 3.1, pythonic or another for other models: see vLLM\'s tool-calling docs), then ask again';

function scrub(text: string, key: string | undefined): string {
  return key ? text.split(key).join('***') : text;
}

/** The server's own words of an APIError: its body's message (or the status line when it sent none). */
function serverSaid(e: APIError): string {
  const body = e.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : e.message.replace(/^\d{3} /, '');
}

/**
 * How many tokens a server counted in a prompt it refused as over its window,
 * when it says: llama-server's `n_prompt_tokens` beside the message, vLLM's
 * "(N in the messages, M in the completion)" or "has N input tokens".
 */
function refusedPromptTokens(e: APIError, said: string): number | undefined {
  const n = (e.error as { n_prompt_tokens?: unknown } | undefined)?.n_prompt_tokens;
  if (typeof n === 'number' && Number.isInteger(n) && n > 0) return n;
  const m = /(\d+) in the messages|has (\d+) input tokens/.exec(said);
  const v = m ? Number(m[1] ?? m[2]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

/** A refusal of tools the servers are known to give, as the one line that fixes it; null for anything else. */
export function toolsRefusal(said: string, c: ErrorContext): ModelError | null {
  if (/--jinja/.test(said)) {
    return new ModelError('model_no_tools', `llama-server at ${c.base} does not take tools without --jinja (it said: ${shortQuote(said)}); ${LLAMA_NEEDS_JINJA}`);
  }
  if (/enable-auto-tool-choice|tool-call-parser/.test(said)) {
    return new ModelError('model_no_tools', `vLLM at ${c.base} refused the tools (HTTP 400: ${shortQuote(said)}); ${VLLM_NEEDS_AUTO_TOOLS}`);
  }
  if (/does not support tools|tool(s| use| calling)? (is |are )?not supported|no endpoints found that support tool/i.test(said)) {
    return new ModelError('model_no_tools', `model "${c.model}" at ${c.base} cannot call tools (the server said: ${shortQuote(said)}); choose a model that can, with ${CHOOSE_MODEL}`);
  }
  return null;
}

/**
 * Classifies an error thrown by the `openai` package. `phase` says whether
 * the reply had begun streaming: an error then is the server's error event,
 * or the connection breaking mid-reply.
 */
export function classifyOpenAIError(err: unknown, c: ErrorContext, phase: 'request' | 'stream'): ModelError {
  if (err instanceof ModelError) return err;
  const where = `the ${c.kind === 'server' ? 'OpenAI-compatible server' : c.kind} at ${c.base}`;
  if (err instanceof APIConnectionError) {
    const sys = causeCode(err);
    if (phase === 'request' && (sys === undefined || UNREACHABLE.has(sys))) {
      const why = sys === 'ECONNREFUSED' ? 'connection refused' : sys ?? shortQuote(String((err.cause as Error | undefined)?.message ?? err.message));
      return new ModelError('api_unreachable', scrub(`cannot reach ${where} (${why}); start it (llama-server, LM Studio's server, vllm serve, …), or point EVIDEX_API_BASE at the running server`, c.apiKey));
    }
    return new ModelError('api_stream_cut', scrub(`the reply from ${where} ended before it was complete (${sys ?? shortQuote(err.message)}); the server may have crashed or been restarted`, c.apiKey));
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const said = scrub(serverSaid(err), c.apiKey);
    const tools = toolsRefusal(said, c);
    if (tools) return tools;
    if (err.status === 401 || err.status === 403) {
      const fix = c.apiKey === undefined ? 'it wants a key: set EVIDEX_API_KEY to the key the server was started with' : 'set EVIDEX_API_KEY to the key the server was started with';
      return new ModelError('api_http_error', `${where} refused the request (HTTP ${err.status}: ${shortQuote(said)}); ${fix}`);
    }
    if (err.status === 404 && /model/i.test(said)) {
      return new ModelError('model_not_found', `model "${c.model}" is not served by ${where} (it said: ${shortQuote(said)}); choose a model it serves with ${CHOOSE_MODEL}`);
    }
    if (err.status === 404) {
      return new ModelError('api_http_error', `${c.base} answered HTTP 404 (${shortQuote(said)}) where an OpenAI-compatible API should be; is EVIDEX_API_BASE the server's base URL, ending in /v1?`);
    }
    if (/context (size|length|window)|maximum context|exceeds? the available context|too many tokens/i.test(said)) {
      const over = new ModelError('api_http_error', `${where} refused the prompt as longer than its context window (HTTP ${err.status}: ${shortQuote(said)}); the window is fixed when the model is loaded: load it with a larger one (llama-server -c, LM Studio's context length, vLLM --max-model-len) or set EVIDEX_NUM_CTX to the window it has`);
      const counted = refusedPromptTokens(err, said);
      if (counted !== undefined) over.promptTokens = counted;
      return over;
    }
    return new ModelError('api_http_error', `${where} answered HTTP ${err.status}: ${shortQuote(said)}`);
  }
  if (err instanceof APIError) {
    // No status: the package raising an error event found inside the 200 stream.
    const said = scrub(serverSaid(err), c.apiKey);
    return toolsRefusal(said, c) ?? new ModelError('api_stream_error', `${where} reported an error in the middle of its reply: ${shortQuote(said)}`);
  }
  if (err instanceof SyntaxError) {
    return new ModelError('api_bad_reply', `${where} sent a reply that is not JSON (${shortQuote(err.message)}); is EVIDEX_API_BASE an OpenAI-compatible API?`);
  }
  const msg = scrub(shortQuote(String((err as Error)?.message ?? err)), c.apiKey);
  return new ModelError('api_http_error', `talking to ${where} failed: ${msg}`);
}
