// Which API and server, which model, and the bounds of one question. Environment
// variables are read here and nowhere else in daemon/ask/, so tests can pass a
// config object instead of mutating process.env.
//
// The settings belong to the user who asks, not to the daemon: a daemon is
// started once (often automatically, by whatever command ran first) and lives
// on, so its own environment is only a fallback. The client reads its
// environment with askSettingsFromEnv (protocol/ask-settings.ts, which this
// file reads the daemon's environment with too) and sends what is set as
// explicit `ask` params (AskSettings); resolveAskConfig lets those win, per
// request.
import {
  AskConfigError, apiFromEnv, askSettingsFromEnv, checkApi, checkCallsPerTurn, checkMaxSteps, checkNumCtx, checkTimeoutS, type AskSettings,
} from '../../protocol/ask-settings.js';
import {
  MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX, type ModelApi,
} from '../../protocol/messages.js';

export interface AskConfig {
  api: ModelApi;       // which API serves the model (models.ts picks the implementation)
  host: string;        // the server's normalised base URL: Ollama's root (http://127.0.0.1:11434), or an OpenAI-compatible base (http://127.0.0.1:8080/v1)
  apiKey?: string;     // the OpenAI-compatible server's key: sent to `host` alone, never logged
  model: string;
  maxSteps: number;    // model turns per question
  callsPerTurn: number; // tool calls run from one model reply
  maxReplyChars: number; // a model reply's size cap: content, thinking and call arguments, in characters
  timeoutMs: number;   // wall clock per question
  think?: boolean;     // sent as `think` when set; left to the model's default otherwise
  numCtxCap: number;   // the most num_ctx evidex asks for (the model's own context length may be less)
}

export const DEFAULT_HOST = 'http://127.0.0.1:11434';
/** EVIDEX_API_BASE's default: llama-server's own address. */
export const DEFAULT_API_BASE = 'http://127.0.0.1:8080/v1';
// A model Ollama lists with the `tools` capability. (gemma2 has none: Ollama answers 400 to any tool request.)
export const DEFAULT_MODEL = 'qwen3:8b';
export const DEFAULT_MAX_STEPS = 8;
/**
 * EVIDEX_ASK_CALLS_PER_TURN's default. A real model asks for one to three
 * calls at a time; the results of one reply share the room left in the
 * window, and past about eight each share is too small to hold a useful item.
 * It also bounds a turn's work to eight tool runs, whatever a reply asks for.
 */
export const DEFAULT_CALLS_PER_TURN = 8;
/**
 * The size cap of one model reply (content, thinking and call arguments), in
 * characters: far above an honest reply (a 32k-token reasoning trace is about
 * 128k characters), far below what would strain the daemon (2 MB of string).
 */
export const DEFAULT_MAX_REPLY_CHARS = 1 << 20;
export const DEFAULT_TIMEOUT_MS = 120_000;
/** EVIDEX_NUM_CTX's default: a window most local machines can hold; the model's own may be smaller. */
export const DEFAULT_NUM_CTX = 8192;
/** Bounds of the per-request settings: part of the protocol (the `ask` params schema uses them too). */
export { MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX };

/** The client's part, defined in protocol/ask-settings.ts: kept importable from here, where the loop takes its config. */
export { AskConfigError, askSettingsFromEnv, type AskSettings };

/** A server address in its parts, as users write it: `host`, `host:port`, `:port`, a URL. */
interface ServerUrl { protocol: string; host: string; port: string; path: string }

/**
 * Parses the forms users put in OLLAMA_HOST and EVIDEX_API_BASE (which the
 * packages do not read): `0.0.0.0:11434`, `localhost`, `:8080`, `127.0.0.1`,
 * `http://host:port/path/`. A listen-everywhere address is not something to
 * connect to, so 0.0.0.0 / [::] become the loopback address. `defaultPort`
 * is the server's own when neither a port nor a scheme is given; `label`
 * names where the value came from in the error.
 */
function parseServerUrl(raw: string, label: string, defaultPort: string): ServerUrl {
  let s = raw.trim();
  if (s.startsWith(':')) s = `127.0.0.1${s}`;
  const explicitScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
  let url: URL;
  try {
    url = new URL(explicitScheme ? s : `http://${s}`);
  } catch {
    throw new AskConfigError(`${label} ${JSON.stringify(raw)} is not a host, host:port or URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AskConfigError(`${label} ${JSON.stringify(raw)}: only http:// and https:// are supported`);
  }
  let host = url.hostname;
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '[::]') host = '[::1]';
  const port = url.port || (explicitScheme ? (url.protocol === 'https:' ? '443' : '80') : defaultPort);
  return { protocol: url.protocol, host, port, path: url.pathname.replace(/\/+$/, '') };
}

/**
 * OLLAMA_HOST normalised: Ollama's own API at the server's root (port 11434
 * unless given). A value ending in /v1 is refused here, with the value to
 * use: one that reaches this function was named Ollama's explicitly
 * (EVIDEX_API=ollama); otherwise it is taken as an OpenAI-compatible base
 * before (protocol/ask-settings.ts, apiFromEnv).
 */
export function normalizeOllamaHost(raw: string | undefined, label = 'OLLAMA_HOST'): string {
  if ((raw ?? '').trim() === '') return DEFAULT_HOST;
  const { protocol, host, port, path } = parseServerUrl(raw!, label, '11434');
  if (/\/v1$/.test(path)) {
    const fixed = `${protocol}//${host}:${port}${path.slice(0, -3)}`;
    throw new AskConfigError(`${label} ${JSON.stringify(raw)} ends in /v1, the OpenAI-compatible path; evidex uses Ollama's own API at the server's root: set OLLAMA_HOST=${fixed} (or EVIDEX_API=openai to use the OpenAI-compatible API)`);
  }
  return `${protocol}//${host}:${port}${path}`;
}

/**
 * EVIDEX_API_BASE normalised: the OpenAI-compatible server's base URL as the
 * servers document it (`http://127.0.0.1:8080/v1` for llama-server,
 * `:1234/v1` for LM Studio, `:8000/v1` for vLLM); a bare address gets `/v1`,
 * and port 8080 (llama-server's) when it names none.
 */
export function normalizeApiBase(raw: string | undefined, label = 'EVIDEX_API_BASE'): string {
  if ((raw ?? '').trim() === '') return DEFAULT_API_BASE;
  const { protocol, host, port, path } = parseServerUrl(raw!, label, '8080');
  return `${protocol}//${host}:${port}${path || '/v1'}`;
}

/** 127.0.0.0/8, ::1 and localhost: the machine the daemon runs on. */
export function isLoopbackHost(url: string): boolean {
  const h = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** How each API's server variable is named in a refusal. */
interface ServerKind { variable: string; what: string }
const OLLAMA_SERVER: ServerKind = { variable: 'OLLAMA_HOST', what: 'Ollama' };
const OPENAI_SERVER: ServerKind = { variable: 'EVIDEX_API_BASE', what: 'an OpenAI-compatible server' };

function tryOwn(own: () => string): string | null {
  try { return own(); } catch { return null; }
}

/**
 * The server a question goes to: the one its request names, when that is on
 * loopback or is the daemon's own (the daemon must not become a proxy that a
 * token holder points at any address); else the daemon's own.
 */
function requestedServer(requested: string | undefined, own: () => string, normalize: (raw: string, label: string) => string, kind: ServerKind): string {
  if (requested === undefined) return own();
  const host = normalize(requested, `${kind.variable} sent with the request`);
  if (isLoopbackHost(host)) return host;
  const ownHost = tryOwn(own);
  if (host === ownHost) return host;
  throw new AskConfigError(`${kind.variable} sent with the request (${host}) is refused: the daemon reaches ${kind.what} only on loopback or at its own ${kind.variable} (${ownHost ?? 'not set'}); `
    + `to use another host, restart the daemon with that ${kind.variable} (evidex daemon stop, then run the command again)`);
}

/**
 * The API of one question: the request's (a request that names only a server
 * asks that server's API), else the embedding code's, else the daemon's
 * environment (EVIDEX_API, or what EVIDEX_API_BASE / an OLLAMA_HOST ending in
 * /v1 imply), else Ollama's.
 */
function resolveApi(override: Partial<AskConfig>, request: AskSettings, env: NodeJS.ProcessEnv): ModelApi {
  if (request.api !== undefined) return checkApi(request.api, 'api');
  if (request.api_base !== undefined) return 'openai';
  if (request.ollama_host !== undefined) return 'ollama';
  if (override.api !== undefined) return checkApi(override.api, 'api');
  return apiFromEnv({ EVIDEX_API: env.EVIDEX_API, EVIDEX_API_BASE: env.EVIDEX_API_BASE, OLLAMA_HOST: env.OLLAMA_HOST }).api ?? 'ollama';
}

/**
 * Config from (lowest to highest priority) defaults, the daemon's environment,
 * `override` (the embedding code's config), then the request's settings. The
 * daemon's environment is only parsed for what the request leaves unset, so a
 * bad value there cannot break a request that brings its own. Throws
 * AskConfigError (one line) on a value that cannot be used.
 *
 * A host sent with the request (OLLAMA_HOST, EVIDEX_API_BASE) is used only
 * when it is on loopback or is the daemon's own: the daemon must not become a
 * proxy that a token holder points at any address. The daemon's own
 * EVIDEX_API_KEY is sent to the daemon's own base alone.
 */
export function resolveAskConfig(
  override: Partial<AskConfig> = {}, request: AskSettings = {}, env: NodeJS.ProcessEnv = process.env,
): AskConfig {
  // Each daemon variable is parsed only when the request and override leave its
  // setting unset, and alone, so a bad unrelated value there stays harmless.
  const pick = <K extends keyof AskSettings>(key: K, envName: string): AskSettings[K] =>
    askSettingsFromEnv({ [envName]: env[envName] })[key];

  const api = resolveApi(override, request, env);
  let host: string;
  let apiKey: string | undefined;
  if (api === 'ollama') {
    host = requestedServer(request.ollama_host, () => normalizeOllamaHost(override.host ?? pick('ollama_host', 'OLLAMA_HOST')), normalizeOllamaHost, OLLAMA_SERVER);
  } else {
    const ownBase = (): string => normalizeApiBase(override.host ?? apiFromEnv(env).api_base);
    host = requestedServer(request.api_base, ownBase, normalizeApiBase, OPENAI_SERVER);
    // A key goes only to the base it was given for: the request's with the request, the daemon's to the daemon's own base.
    if (request.api_key !== undefined) apiKey = request.api_key;
    else if (host === tryOwn(ownBase)) apiKey = override.apiKey ?? pick('api_key', 'EVIDEX_API_KEY');
  }
  const model = request.model?.trim() || override.model?.trim() || pick('model', 'EVIDEX_MODEL') || DEFAULT_MODEL;
  const maxSteps = request.max_steps !== undefined
    ? checkMaxSteps(request.max_steps, 'max_steps')
    : override.maxSteps !== undefined ? checkMaxSteps(override.maxSteps, 'maxSteps') : pick('max_steps', 'EVIDEX_ASK_MAX_STEPS') ?? DEFAULT_MAX_STEPS;
  const callsPerTurn = request.calls_per_turn !== undefined
    ? checkCallsPerTurn(request.calls_per_turn, 'calls_per_turn')
    : override.callsPerTurn !== undefined ? checkCallsPerTurn(override.callsPerTurn, 'callsPerTurn')
      : pick('calls_per_turn', 'EVIDEX_ASK_CALLS_PER_TURN') ?? DEFAULT_CALLS_PER_TURN;
  const maxReplyChars = override.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const timeoutMs = request.timeout_s !== undefined
    ? checkTimeoutS(request.timeout_s, 'timeout_s') * 1000
    : override.timeoutMs ?? ((pick('timeout_s', 'EVIDEX_ASK_TIMEOUT_S') ?? DEFAULT_TIMEOUT_MS / 1000) * 1000);
  if (request.think !== undefined && typeof request.think !== 'boolean') {
    throw new AskConfigError(`think=${JSON.stringify(request.think)} must be true or false`);
  }
  const think = request.think ?? override.think ?? pick('think', 'EVIDEX_THINK');
  const numCtxCap = request.num_ctx !== undefined
    ? checkNumCtx(request.num_ctx, 'num_ctx')
    : override.numCtxCap !== undefined ? checkNumCtx(override.numCtxCap, 'numCtxCap') : pick('num_ctx', 'EVIDEX_NUM_CTX') ?? DEFAULT_NUM_CTX;
  const cfg: AskConfig = { api, host, model, maxSteps, callsPerTurn, maxReplyChars, timeoutMs, numCtxCap };
  if (apiKey !== undefined) cfg.apiKey = apiKey;
  if (think !== undefined) cfg.think = think;
  if (!(cfg.timeoutMs > 0)) throw new AskConfigError(`timeoutMs must be positive (got ${cfg.timeoutMs})`);
  if (!(cfg.maxReplyChars > 0)) throw new AskConfigError(`maxReplyChars must be positive (got ${cfg.maxReplyChars})`);
  return cfg;
}
