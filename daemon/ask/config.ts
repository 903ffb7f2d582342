// Where Ollama is, which model, and the bounds of one question. Environment
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
  AskConfigError, askSettingsFromEnv, checkCallsPerTurn, checkMaxSteps, checkNumCtx, checkTimeoutS, type AskSettings,
} from '../../protocol/ask-settings.js';
import { MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX } from '../../protocol/messages.js';

export interface AskConfig {
  host: string;        // normalised base URL, e.g. http://127.0.0.1:11434
  model: string;
  maxSteps: number;    // model turns per question
  callsPerTurn: number; // tool calls run from one model reply
  maxReplyChars: number; // a model reply's size cap: content, thinking and call arguments, in characters
  timeoutMs: number;   // wall clock per question
  think?: boolean;     // sent as `think` when set; left to the model's default otherwise
  numCtxCap: number;   // the most num_ctx evidex asks for (the model's own context length may be less)
}

export const DEFAULT_HOST = 'http://127.0.0.1:11434';
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

/**
 * Normalises the forms users put in OLLAMA_HOST (which the `ollama` package
 * does not read): `0.0.0.0:11434`, `localhost`, `:11434`, `127.0.0.1`,
 * `http://host:port/`. A listen-everywhere address is not something to
 * connect to, so 0.0.0.0 / [::] become the loopback address. `label` names
 * where the value came from in the error.
 */
export function normalizeOllamaHost(raw: string | undefined, label = 'OLLAMA_HOST'): string {
  let s = (raw ?? '').trim();
  if (s === '') return DEFAULT_HOST;
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
  const port = url.port || (explicitScheme ? (url.protocol === 'https:' ? '443' : '80') : '11434');
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v1$/.test(path)) {
    const fixed = `${url.protocol}//${host}:${port}${path.slice(0, -3)}`;
    throw new AskConfigError(`${label} ${JSON.stringify(raw)} ends in /v1, the OpenAI-compatible path; evidex uses Ollama's own API at the server's root: set OLLAMA_HOST=${fixed}`);
  }
  return `${url.protocol}//${host}:${port}${path}`;
}

/** 127.0.0.0/8, ::1 and localhost: the machine the daemon runs on. */
export function isLoopbackHost(url: string): boolean {
  const h = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Config from (lowest to highest priority) defaults, the daemon's environment,
 * `override` (the embedding code's config), then the request's settings. The
 * daemon's environment is only parsed for what the request leaves unset, so a
 * bad value there cannot break a request that brings its own. Throws
 * AskConfigError (one line) on a value that cannot be used.
 *
 * A host sent with the request is used only when it is on loopback or is the
 * daemon's own OLLAMA_HOST: the daemon must not become a proxy that a token
 * holder points at any address.
 */
export function resolveAskConfig(
  override: Partial<AskConfig> = {}, request: AskSettings = {}, env: NodeJS.ProcessEnv = process.env,
): AskConfig {
  // Each daemon variable is parsed only when the request and override leave its
  // setting unset, and alone, so a bad unrelated value there stays harmless.
  const pick = <K extends keyof AskSettings>(key: K, envName: string): AskSettings[K] =>
    askSettingsFromEnv({ [envName]: env[envName] })[key];

  const ownHost = (): string => normalizeOllamaHost(override.host ?? pick('ollama_host', 'OLLAMA_HOST'));
  let host: string;
  if (request.ollama_host !== undefined) {
    host = normalizeOllamaHost(request.ollama_host, 'OLLAMA_HOST sent with the request');
    if (!isLoopbackHost(host)) {
      let own: string | null;
      try { own = ownHost(); } catch { own = null; }
      if (host !== own) {
        throw new AskConfigError(`OLLAMA_HOST sent with the request (${host}) is refused: the daemon reaches Ollama only on loopback or at its own OLLAMA_HOST (${own ?? 'not set'}); `
          + 'to use another host, restart the daemon with that OLLAMA_HOST (evidex daemon stop, then run the command again)');
      }
    }
  } else {
    host = ownHost();
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
  const cfg: AskConfig = { host, model, maxSteps, callsPerTurn, maxReplyChars, timeoutMs, numCtxCap };
  if (think !== undefined) cfg.think = think;
  if (!(cfg.timeoutMs > 0)) throw new AskConfigError(`timeoutMs must be positive (got ${cfg.timeoutMs})`);
  if (!(cfg.maxReplyChars > 0)) throw new AskConfigError(`maxReplyChars must be positive (got ${cfg.maxReplyChars})`);
  return cfg;
}
