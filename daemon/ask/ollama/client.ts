// The one place evidex builds an `ollama` client, and turns what the package
// throws into ModelErrors with distinct, actionable one-line messages.
import { CHOOSE_MODEL } from '../../../protocol/ask-settings.js';
import { Ollama } from 'ollama';
import { boundedFetch, causeCode, UNREACHABLE } from '../http.js';
import { ModelError, shortQuote } from '../model.js';

/** Said when Ollama sends a line past the bound (../http.ts). */
const lineTooLong = (max: number): ModelError =>
  new ModelError('ollama_bad_reply', `Ollama sent a line of more than ${max.toLocaleString('en')} bytes; its reply was not read on`);

/**
 * An Ollama client whose every HTTP request (show, tags, chat — streamed or
 * not) ends when `signal` aborts, and whose every answer's lines are bounded
 * (boundedFetch). The package only aborts a streamed chat, and only after its
 * response headers arrive (its AbortController is created inside chat()).
 */
export function makeOllama(host: string, signal: AbortSignal): Ollama {
  return new Ollama({ host, fetch: boundedFetch(signal, lineTooLong) });
}

/**
 * The server's own words in a ResponseError: the package puts the body's
 * `error` there, a string from Ollama but an object from an OpenAI-style
 * server (`{"error": {"message": …}}`) at the same address.
 */
function serverSaid(error: unknown, fallback: string): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  return error === undefined || error === null ? fallback : JSON.stringify(error);
}

/** The advice for a server at OLLAMA_HOST that answers, but not as Ollama: most often an OpenAI-compatible one at its root. */
export function notOllamaAdvice(host: string): string {
  return `is OLLAMA_HOST the address of an Ollama server (its root, not a sub-path)? For an OpenAI-compatible server (llama-server, LM Studio, vLLM) ask with --api openai and EVIDEX_API_BASE=${host}/v1`;
}

const STREAM_INCOMPLETE = 'Did not receive done or success response in stream.';

/**
 * Classifies an error thrown by the `ollama` package. `phase` says whether the
 * HTTP response had already begun streaming: a plain Error thrown while reading
 * a stream is the package re-throwing an {"error": ...} line.
 */
export function classifyOllamaError(err: unknown, host: string, model: string, phase: 'request' | 'stream'): ModelError {
  if (err instanceof ModelError) return err;
  const e = err as { name?: string; message?: string; status_code?: number; error?: unknown };
  const msg = shortQuote(String(e?.message ?? err));
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') {
    const text = shortQuote(serverSaid(e.error, msg));
    if (/does not support tools/i.test(text)) {
      return new ModelError('model_no_tools', `model "${model}" does not support tool calling in Ollama at ${host} (Ollama said: ${text}); choose a model with the "tools" capability (${CHOOSE_MODEL})`);
    }
    if (e.status_code === 404 && !/model\b.*\bnot found|not found.*\bmodel|try pulling/i.test(text)) {
      // Not Ollama's "model not found": the URL does not lead to Ollama's API at all.
      return new ModelError('ollama_http_error', `${host} answered HTTP 404 (${text}) where Ollama's API should be; ${notOllamaAdvice(host)}`);
    }
    if (e.status_code === 404) {
      return new ModelError('model_not_found', `model "${model}" is not installed in Ollama at ${host} (Ollama said: ${text}); install it with \`ollama pull ${model}\` or choose another with ${CHOOSE_MODEL}`);
    }
    return new ModelError('ollama_http_error', `Ollama at ${host} answered HTTP ${e.status_code}: ${text}`);
  }
  if (err instanceof SyntaxError) {
    return new ModelError('ollama_bad_reply', `${host} sent a reply that is not JSON (${msg}); ${notOllamaAdvice(host)}`);
  }
  const sys = causeCode(err);
  if (phase === 'request' && (sys === undefined ? /fetch failed/i.test(msg) : UNREACHABLE.has(sys))) {
    const why = sys === 'ECONNREFUSED' ? 'connection refused' : sys ?? msg;
    return new ModelError('ollama_unreachable', `cannot reach Ollama at ${host} (${why}); start it with \`ollama serve\`, or point OLLAMA_HOST at the running server`);
  }
  if (msg === STREAM_INCOMPLETE || (phase === 'stream' && (e?.name === 'TypeError' || sys !== undefined))) {
    return new ModelError('ollama_stream_cut', `the reply from Ollama at ${host} ended before it was complete (${sys ?? msg}); Ollama may have crashed or been restarted`);
  }
  if (phase === 'stream' && e?.name === 'Error') {
    return new ModelError('ollama_stream_error', `Ollama reported an error in the middle of its reply: ${msg}`);
  }
  return new ModelError('ollama_http_error', `talking to Ollama at ${host} failed: ${msg}`);
}
