// The asking client's settings for `ask`: read from its own environment
// (OLLAMA_HOST, EVIDEX_MODEL, EVIDEX_ASK_MAX_STEPS, EVIDEX_ASK_CALLS_PER_TURN,
// EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK, EVIDEX_NUM_CTX) and sent as `ask` params, because a daemon is
// started once (often by whatever command ran first) and lives on, so its own
// environment is only a fallback. The daemon reads its environment with the
// same parsing and checks a request's values with the same bounds
// (daemon/ask/config.ts), so a bad value reads the same from either end.
import { MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX, type AskParams } from './messages.js';

/** The settings part of the `ask` params (wire names). Each one set overrides the daemon's own environment. */
export type AskSettings = Pick<AskParams, 'model' | 'ollama_host' | 'max_steps' | 'calls_per_turn' | 'timeout_s' | 'think' | 'num_ctx'>;

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
 * The ask settings set in `env` (OLLAMA_HOST, EVIDEX_MODEL, EVIDEX_ASK_MAX_STEPS,
 * EVIDEX_ASK_CALLS_PER_TURN, EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK, EVIDEX_NUM_CTX); unset ones are left out.
 * Numbers and booleans are parsed and bounded here so a bad value is named by
 * its variable; OLLAMA_HOST is passed as written (the daemon normalises it).
 */
export function askSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AskSettings {
  const out: AskSettings = {};
  const host = envValue(env, 'OLLAMA_HOST');
  if (host !== undefined) out.ollama_host = host;
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
