// The asking client's settings for `ask`: read from its own environment
// (OLLAMA_HOST, EVIDEX_API, EVIDEX_API_BASE, EVIDEX_API_KEY, EVIDEX_MODEL,
// EVIDEX_ASK_MAX_STEPS, EVIDEX_ASK_CALLS_PER_TURN, EVIDEX_ASK_TIMEOUT_S,
// EVIDEX_THINK, EVIDEX_NUM_CTX) and sent as `ask` params, because a daemon is
// started once (often by whatever command ran first) and lives on, so its own
// environment is only a fallback. The daemon reads its environment with the
// same parsing and checks a request's values with the same bounds
// (daemon/ask/config.ts), so a bad value reads the same from either end.
import {
  MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX, MODEL_APIS, type AskParams, type ModelApi,
} from './messages.js';

/** The settings part of the `ask` params (wire names). Each one set overrides the daemon's own environment. */
/**
 * How the daemon's messages say to choose another model. One phrase, so a
 * client where the model is chosen otherwise (chat's `/model`) can say that
 * instead.
 */
export const CHOOSE_MODEL = '--model or EVIDEX_MODEL';

export type AskSettings = Pick<AskParams,
  'model' | 'ollama_host' | 'api' | 'api_base' | 'api_key' | 'max_steps' | 'calls_per_turn' | 'timeout_s' | 'think' | 'num_ctx'>;

/** A setting that cannot be used. Its `code` is what the daemon reports in the JSON-RPC error's data. */
export class AskConfigError extends Error {
  readonly code = 'invalid_arguments';
  constructor(message: string) {
    super(message.replace(/\s*\n\s*/g, ' '));
    this.name = 'AskConfigError';
  }
}

/** The one check for a step cap, wherever it came from (`label` names the source in the error). */
export function checkMaxSteps(n: unknown, label: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_STEPS_LIMIT) {
    throw new AskConfigError(`${label}=${JSON.stringify(n)} must be a whole number from 1 to ${MAX_STEPS_LIMIT}`);
  }
  return n;
}

/** The one check for a cap on calls per model turn, wherever it came from. */
export function checkCallsPerTurn(n: unknown, label: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_CALLS_PER_TURN_LIMIT) {
    throw new AskConfigError(`${label}=${JSON.stringify(n)} must be a whole number from 1 to ${MAX_CALLS_PER_TURN_LIMIT}`);
  }
  return n;
}

export function checkNumCtx(n: unknown, label: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < MIN_NUM_CTX || n > MAX_NUM_CTX) {
    throw new AskConfigError(`${label}=${JSON.stringify(n)} must be a whole number of tokens from ${MIN_NUM_CTX} to ${MAX_NUM_CTX}`);
  }
  return n;
}

export function checkTimeoutS(n: unknown, label: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > MAX_TIMEOUT_S) {
    throw new AskConfigError(`${label}=${JSON.stringify(n)} must be a number of seconds above 0 and at most ${MAX_TIMEOUT_S}`);
  }
  return n;
}

/** The one check for an API name (`--api`, EVIDEX_API), wherever it came from. */
export function checkApi(v: unknown, label: string): ModelApi {
  const name = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (!(MODEL_APIS as readonly unknown[]).includes(name)) {
    throw new AskConfigError(`${label}=${JSON.stringify(v)} must be ${MODEL_APIS.join(' or ')} (Ollama's own API, or an OpenAI-compatible server such as llama-server, LM Studio or vLLM)`);
  }
  return name as ModelApi;
}

/** A URL whose path ends in /v1: the OpenAI-compatible path, not Ollama's own API. */
export function endsInV1(url: string): boolean {
  return /\/v1\/*$/.test(url.trim());
}

/**
 * Which API the variables in `env` choose, and the OpenAI-compatible base:
 * EVIDEX_API when set; else `openai` when EVIDEX_API_BASE is set, or when
 * OLLAMA_HOST ends in /v1 (the path users copy from OpenAI-compatible setups:
 * taken as that server's base, and said once, see apiNotice). With
 * EVIDEX_API=ollama such an OLLAMA_HOST stays Ollama's, and is refused there
 * with the value to use.
 */
export function apiFromEnv(env: NodeJS.ProcessEnv): Pick<AskSettings, 'api' | 'api_base'> {
  const named = envValue(env, 'EVIDEX_API');
  const base = envValue(env, 'EVIDEX_API_BASE');
  const host = envValue(env, 'OLLAMA_HOST');
  const out: Pick<AskSettings, 'api' | 'api_base'> = {};
  if (named !== undefined) out.api = checkApi(named, 'EVIDEX_API');
  else if (base !== undefined || (host !== undefined && endsInV1(host))) out.api = 'openai';
  if (base !== undefined) out.api_base = base;
  else if (out.api === 'openai' && host !== undefined && endsInV1(host)) out.api_base = host;
  return out;
}

/** The one line said when OLLAMA_HOST ending in /v1 is taken as an OpenAI-compatible server; null otherwise. */
export function apiNotice(env: NodeJS.ProcessEnv): string | null {
  const host = envValue(env, 'OLLAMA_HOST');
  if (host === undefined || !endsInV1(host) || envValue(env, 'EVIDEX_API') !== undefined || envValue(env, 'EVIDEX_API_BASE') !== undefined) return null;
  return `OLLAMA_HOST=${host} ends in /v1, the OpenAI-compatible path: asking it as an OpenAI-compatible server `
    + '(set EVIDEX_API=openai and EVIDEX_API_BASE to say so, or EVIDEX_API=ollama for Ollama\'s own API at the server\'s root)';
}

/** Unset and blank both mean "not set": `FOO= evidex ask` must not count as a value. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new AskConfigError(`${name}=${JSON.stringify(raw)} is not a number`);
  return n;
}

function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new AskConfigError(`${name}=${JSON.stringify(raw)} must be 1/true/yes/on or 0/false/no/off`);
}

/**
 * The ask settings set in `env` (OLLAMA_HOST, EVIDEX_API, EVIDEX_API_BASE,
 * EVIDEX_API_KEY, EVIDEX_MODEL, EVIDEX_ASK_MAX_STEPS, EVIDEX_ASK_CALLS_PER_TURN,
 * EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK, EVIDEX_NUM_CTX); unset ones are left out.
 * Numbers and booleans are parsed and bounded here so a bad value is named by
 * its variable; OLLAMA_HOST and EVIDEX_API_BASE are passed as written (the
 * daemon normalises them).
 */
export function askSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AskSettings {
  const out: AskSettings = {};
  const api = apiFromEnv(env);
  const host = envValue(env, 'OLLAMA_HOST');
  // An OLLAMA_HOST taken as the OpenAI-compatible base is not also sent as Ollama's.
  if (host !== undefined && !(api.api === 'openai' && api.api_base === host)) out.ollama_host = host;
  if (api.api !== undefined) out.api = api.api;
  if (api.api_base !== undefined) out.api_base = api.api_base;
  const key = envValue(env, 'EVIDEX_API_KEY');
  if (key !== undefined) out.api_key = key;
  const model = envValue(env, 'EVIDEX_MODEL');
  if (model !== undefined) out.model = model;
  const steps = envNumber(env, 'EVIDEX_ASK_MAX_STEPS');
  if (steps !== undefined) out.max_steps = checkMaxSteps(steps, 'EVIDEX_ASK_MAX_STEPS');
  const calls = envNumber(env, 'EVIDEX_ASK_CALLS_PER_TURN');
  if (calls !== undefined) out.calls_per_turn = checkCallsPerTurn(calls, 'EVIDEX_ASK_CALLS_PER_TURN');
  const timeout = envNumber(env, 'EVIDEX_ASK_TIMEOUT_S');
  if (timeout !== undefined) out.timeout_s = checkTimeoutS(timeout, 'EVIDEX_ASK_TIMEOUT_S');
  const think = envBool(env, 'EVIDEX_THINK');
  if (think !== undefined) out.think = think;
  const numCtx = envNumber(env, 'EVIDEX_NUM_CTX');
  if (numCtx !== undefined) out.num_ctx = checkNumCtx(numCtx, 'EVIDEX_NUM_CTX');
  return out;
}
