// How a model server is fetched, whatever its API: every request ends with the
// question's signal, every answer is read in bounded lines, and a failed fetch
// is told apart (the server is not there, or it went away mid-answer).
//
// The bound on lines: both APIs' clients
// read a streamed answer line by line into one growing string (Ollama's
// NDJSON, the OpenAI-compatible servers' SSE `data:` lines); a server that
// never ends a line would grow it without bound, below what the reply's own
// size cap (ReplyAssembly) sees. A line of a real reply is one token, or a
// whole reply for a request that does not stream, or a model's description:
// far less than the bound.

/** The longest line of an answer read from a model server. */
export const MAX_LINE_BYTES = 8 << 20;

/** `body` passed on unchanged, failing with `tooLong(max)` once a line runs past `max` bytes. */
export function boundedLines(body: ReadableStream<Uint8Array>, max: number, tooLong: (max: number) => Error): ReadableStream<Uint8Array> {
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
        controller.error(tooLong(max));
        return;
      }
      controller.enqueue(chunk);
    },
  }));
}

/**
 * A fetch whose every request also ends when `signal` aborts (a package may
 * abort only a streamed request, and only once its headers arrive; routing
 * the signal through its `fetch` option covers the wait for headers and the
 * calls that do not stream too — undici then destroys the socket, so the
 * server sees the connection close and stops generating), and whose every
 * answer's lines are bounded.
 */
export function boundedFetch(signal: AbortSignal, tooLong: (max: number) => Error): typeof fetch {
  return async (input, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    const res = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    if (!res.body) return res;
    return new Response(boundedLines(res.body, MAX_LINE_BYTES, tooLong), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The system error code under a fetch failure (undici wraps it as TypeError('fetch failed', {cause}); a package may wrap that again). */
export function causeCode(err: unknown): string | undefined {
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

/** Codes that mean nothing answers at the address: the server is not running there. */
export const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
