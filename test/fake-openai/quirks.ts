// What sets the OpenAI-compatible servers apart, as the fake plays each one:
// where the window is read, the shape of an error body, what a prompt over
// the window gets, and how tools are refused. Each entry follows the server's
// own behaviour (llama.cpp's tools/server, vLLM's OpenAI entrypoint, LM
// Studio's server), so the loop meets the same answers it meets in use.

/**
 * llama-server (with --jinja), llama-server-nojinja (a newer build started
 * without --jinja: tools refused, HTTP 500), llama-server-nojinja-old (an
 * older build: tools dropped silently, HTTP 200), vllm (with
 * --enable-auto-tool-choice), vllm-noauto (without: HTTP 400), lmstudio, and
 * generic (LocalAI, Jan: /v1 alone, no window endpoint).
 */
export type Quirk = 'llama-server' | 'llama-server-nojinja' | 'llama-server-nojinja-old' | 'vllm' | 'vllm-noauto' | 'lmstudio' | 'generic';

export const QUIRKS: readonly Quirk[] = ['llama-server', 'llama-server-nojinja', 'llama-server-nojinja-old', 'vllm', 'vllm-noauto', 'lmstudio', 'generic'];

export type ServerFamily = 'llama' | 'vllm' | 'lmstudio' | 'generic';

export function familyOf(q: Quirk): ServerFamily {
  return q.startsWith('llama') ? 'llama' : q.startsWith('vllm') ? 'vllm' : q === 'lmstudio' ? 'lmstudio' : 'generic';
}

/** An error as the server's HTTP body: llama.cpp's `{"error": {code, message, type}}`, vLLM's top-level object, LM Studio's `{"error": "…"}`. */
export function errorBody(family: ServerFamily, status: number, message: string, type?: string): unknown {
  switch (family) {
    case 'llama': return { error: { code: status, message, type: type ?? (status >= 500 ? 'server_error' : 'invalid_request_error') } };
    case 'vllm': return { object: 'error', message, type: type ?? 'BadRequestError', param: null, code: status };
    case 'lmstudio': return { error: message };
    default: return { error: { message, type: type ?? 'invalid_request_error', param: null, code: null } };
  }
}

/** The refusal of a request that carries tools, for the quirks that refuse them (null: tools are taken, or dropped silently). */
export function toolsRefusal(q: Quirk): { status: number; body: unknown } | null {
  if (q === 'llama-server-nojinja') return { status: 500, body: errorBody('llama', 500, 'tools param requires --jinja flag', 'server_error') };
  if (q === 'vllm-noauto') {
    return { status: 400, body: errorBody('vllm', 400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set') };
  }
  return null;
}

/** A quirk whose server drops the tools and parses no calls: the model sees no tool list, and a call it writes stays text. */
export function dropsTools(q: Quirk): boolean {
  return q === 'llama-server-nojinja-old';
}

/** What a prompt over the window gets: an HTTP error (llama-server, vLLM), or truncation from the front (LM Studio, the rest). */
export function overflow(q: Quirk, promptTokens: number, maxTokens: number, window: number): { status: number; body: unknown } | 'truncate' | null {
  const family = familyOf(q);
  if (family === 'llama') {
    if (promptTokens <= window) return null;
    return { status: 400, body: { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: promptTokens, n_ctx: window } } };
  }
  if (family === 'vllm') {
    if (promptTokens + maxTokens <= window) return null;
    return { status: 400, body: errorBody('vllm', 400, `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`) };
  }
  return promptTokens > window ? 'truncate' : null;
}
