// The one place evidex builds an `openai` client for an OpenAI-compatible
// server (llama-server, LM Studio, vLLM, LocalAI, Jan), and fetches the
// server's own endpoints beside the API (/props, /api/v0/models, /version).
//
// The package reads the daemon's environment on its own (OPENAI_API_KEY,
// OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS,
// OPENAI_LOG, …): each option is given here explicitly, and every request
// leaves through serverFetch, which sends exactly the headers a request needs
// and the key (EVIDEX_API_KEY) only to the configured server — nothing of
// the daemon's environment reaches a local server. The package's retries are
// off: a question has its own bounds, and a refused connection is said at
// once.
import OpenAI from 'openai';
import { boundedFetch } from '../http.js';
import { MAX_TIMEOUT_S } from '../config.js';
import { ModelError } from '../model.js';

/** Where one question's requests go: the base URL (ending in /v1, as the servers document it) and its key, if it wants one. */
export interface ServerAddress {
  base: string;
  apiKey?: string;
}

/** The server's root: the base without its trailing /v1, where llama-server's /props and LM Studio's /api/v0 are. */
export function serverRoot(base: string): string {
  return base.replace(/\/v1$/, '');
}

/** Said when the server sends an SSE line past the bound (../http.ts). */
const lineTooLong = (max: number): ModelError =>
  new ModelError('api_bad_reply', `the server sent a line of more than ${max.toLocaleString('en')} bytes; its reply was not read on`);

/** The headers a request to the server carries: its body's type, what it accepts, the key; no other. */
const KEPT_HEADERS = new Set(['content-type', 'accept']);

/**
 * A fetch for the server at `address`: ends with `signal`, reads bounded
 * lines, sends only KEPT_HEADERS plus the key (to the server's own origin
 * alone), and rewrites an error body the package cannot read into the
 * `{"error": {"message": …}}` it can (vLLM's older top-level
 * `{"object": "error", "message": …}`, LM Studio's `{"error": "…"}`).
 */
export function serverFetch(address: ServerAddress, signal: AbortSignal): typeof fetch {
  const origin = new URL(address.base).origin;
  const inner = boundedFetch(signal, lineTooLong);
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = new Headers();
    for (const [k, v] of new Headers(init?.headers)) if (KEPT_HEADERS.has(k)) headers.set(k, v);
    if (address.apiKey !== undefined && url.origin === origin) headers.set('authorization', `Bearer ${address.apiKey}`);
    const res = await inner(url, { ...init, headers });
    if (res.ok) return res;
    const text = await res.text();
    return new Response(readableErrorBody(text), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** An error body as `{"error": {"message", …}}`, whichever of the servers' shapes it came in; text that is not JSON is kept. */
export function readableErrorBody(text: string): string {
  let body: unknown;
  try { body = JSON.parse(text); } catch { return text; }
  if (!body || typeof body !== 'object') return text;
  const b = body as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof b.error === 'string') return JSON.stringify({ error: { message: b.error } });
  if (b.error && typeof b.error === 'object') return text;
  const message = typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : undefined;
  return message === undefined ? text : JSON.stringify({ error: { ...b, message } });
}

/** What the package sends when no key is set; serverFetch never lets it out. */
const NO_KEY = 'evidex-no-key';

/** An `openai` client for one question's requests to the server at `address`. */
export function makeOpenAI(address: ServerAddress, signal: AbortSignal): OpenAI {
  return new OpenAI({
    baseURL: address.base, apiKey: address.apiKey ?? NO_KEY, adminAPIKey: null, organization: null, project: null, webhookSecret: null,
    maxRetries: 0, timeout: (MAX_TIMEOUT_S + 60) * 1000, logLevel: 'off', fetch: serverFetch(address, signal),
  });
}

/**
 * GET a JSON document from the server's root (`path` like /props), through
 * the same fetch: null when the server has no such endpoint or answers
 * something that is not a JSON object (a best-effort look, never an error of
 * its own; an abort still throws).
 */
export async function getServerJson(address: ServerAddress, path: string, signal: AbortSignal): Promise<Record<string, unknown> | null> {
  try {
    const res = await serverFetch(address, signal)(`${serverRoot(address.base)}${path}`, { headers: { accept: 'application/json' } });
    if (!res.ok) { await res.body?.cancel(); return null; }
    const body: unknown = await res.json();
    return body && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : null;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    return null;
  }
}
