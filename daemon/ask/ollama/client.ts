// The one place evidex builds an `ollama` client, and turns what the package
// throws into ModelErrors with distinct, actionable one-line messages.
import { Ollama } from 'ollama';
import { ModelError, shortQuote } from '../model.js';

/**
 * The longest line of an answer read from Ollama. The package reads a stream
 * line by line into one growing string; a server that never ends a line would
 * grow it without bound, below what the reply's own size cap (ReplyAssembly)
 * sees. A line of a real reply is one token, or a whole reply for a request
 * that does not stream, or /api/show's model description: far less.
 */
export const MAX_LINE_BYTES = 8 << 20;

/** `body` passed on unchanged, failing with a ModelError once a line runs past `max` bytes. */
export function boundedLines(body: ReadableStream<Uint8Array>, max: number): ReadableStream<Uint8Array> {
  let run = 0;
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let from = 0;
      let longest = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
        longest = Math.max(longest, run + nl - from);
        run = 0;
        from = nl + 1;
      }
      run += chunk.length - from;
      if (Math.max(longest, run) > max) {
        controller.error(new ModelError('ollama_bad_reply', `Ollama sent a line of more than ${max.toLocaleString('en')} bytes; its reply was not read on`));
        return;
      }
      controller.enqueue(chunk);
    },
  }));
}

/**
 * An Ollama client whose every HTTP request (show, tags, chat — streamed or
 * not) ends when `signal` aborts. The package only aborts a streamed chat, and
 * only after its response headers arrive (its AbortController is created inside
 * chat()); routing our signal through its `fetch` option also covers the wait for
 * headers and the non-streamed calls. Aborting a fetch makes undici destroy the
 * socket, so Ollama sees the connection close and stops generating. Every
 * answer's lines are bounded (MAX_LINE_BYTES).
 */
export function makeOllama(host: string, signal: AbortSignal): Ollama {
  const abortableFetch: typeof fetch = async (input, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    const res = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    if (!res.body) return res;
    return new Response(boundedLines(res.body, MAX_LINE_BYTES), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return new Ollama({ host, fetch: abortableFetch });
}

/** The system error code under a fetch failure (undici wraps it as TypeError('fetch failed', {cause})). */
function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    // AggregateError (happy-eyeballs tried several addresses): look at the first.
    const errors = (e as { errors?: unknown[] }).errors;
    e = Array.isArray(errors) && errors.length ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const STREAM_INCOMPLETE = 'Did not receive done or success response in stream.';

/**
 * Classifies an error thrown by the `ollama` package. `phase` says whether the
 * HTTP response had already begun streaming: a plain Error thrown while reading
 * a stream is the package re-throwing an {"error": ...} line.
 */
export function classifyOllamaError(err: unknown, host: string, model: string, phase: 'request' | 'stream'): ModelError {
  if (err instanceof ModelError) return err;
  const e = err as { name?: string; message?: string; status_code?: number; error?: string };
  const msg = shortQuote(String(e?.message ?? err));
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') {
    const text = shortQuote(e.error ?? msg);
    if (/does not support tools/i.test(text)) {
      return new ModelError('model_no_tools', `model "${model}" does not support tool calling in Ollama at ${host} (Ollama said: ${text}); choose a model with the "tools" capability (--model or EVIDEX_MODEL)`);
    }
    if (e.status_code === 404 && !/model\b.*\bnot found|not found.*\bmodel|try pulling/i.test(text)) {
      // Not Ollama's "model not found": the URL does not lead to Ollama's API at all.
      return new ModelError('ollama_http_error', `${host} answered HTTP 404 (${text}) where Ollama's API should be; is OLLAMA_HOST the address of an Ollama server (its root, not a sub-path)?`);
    }
    if (e.status_code === 404) {
      return new ModelError('model_not_found', `model "${model}" is not installed in Ollama at ${host} (Ollama said: ${text}); install it with \`ollama pull ${model}\` or choose another with --model / EVIDEX_MODEL`);
    }
    return new ModelError('ollama_http_error', `Ollama at ${host} answered HTTP ${e.status_code}: ${text}`);
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
