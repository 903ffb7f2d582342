// Where Ollama is, which model, and the bounds of one question. Environment
// variables are read here and nowhere else in daemon/ask/, so tests can pass a
// config object instead of mutating process.env.

export interface AskConfig {
  host: string;        // normalised base URL, e.g. http://127.0.0.1:11434
  model: string;
  maxSteps: number;    // model turns per question
  timeoutMs: number;   // wall clock per question
  think?: boolean;     // sent as `think` when set; left to the model's default otherwise
  maxToolChars: number; // budget for one tool message's evidence text sent to the model
}

export const DEFAULT_HOST = 'http://127.0.0.1:11434';
// A model Ollama lists with the `tools` capability. (gemma2 has none: Ollama answers 400 to any tool request.)
export const DEFAULT_MODEL = 'qwen3:8b';
export const DEFAULT_MAX_STEPS = 8;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_TOOL_CHARS = 24_000;

/**
 * Normalises the forms users put in OLLAMA_HOST (which the `ollama` package
 * does not read): `0.0.0.0:11434`, `localhost`, `:11434`, `127.0.0.1`,
 * `http://host:port/`. A listen-everywhere address is not something to
 * connect to, so 0.0.0.0 / [::] become the loopback address.
 */
export function normalizeOllamaHost(raw: string | undefined): string {
  let s = (raw ?? '').trim();
  if (s === '') return DEFAULT_HOST;
  if (s.startsWith(':')) s = `127.0.0.1${s}`;
  const explicitScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
  let url: URL;
  try {
    url = new URL(explicitScheme ? s : `http://${s}`);
  } catch {
    throw new Error(`OLLAMA_HOST ${JSON.stringify(raw)} is not a host, host:port or URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`OLLAMA_HOST ${JSON.stringify(raw)}: only http:// and https:// are supported`);
  }
  let host = url.hostname;
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '[::]') host = '[::1]';
  const port = url.port || (explicitScheme ? (url.protocol === 'https:' ? '443' : '80') : '11434');
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${host}:${port}${path}`;
}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${JSON.stringify(raw)} must be a positive number`);
  return n;
}

/** Config from (lowest to highest priority) defaults, the environment, `override`, then the request's model. */
export function resolveAskConfig(
  override: Partial<AskConfig> = {}, reqModel?: string, env: NodeJS.ProcessEnv = process.env,
): AskConfig {
  const steps = positiveInt('EVIDEX_ASK_MAX_STEPS', env.EVIDEX_ASK_MAX_STEPS);
  const timeoutS = positiveInt('EVIDEX_ASK_TIMEOUT_S', env.EVIDEX_ASK_TIMEOUT_S);
  const cfg: AskConfig = {
    host: normalizeOllamaHost(override.host ?? env.OLLAMA_HOST),
    model: reqModel?.trim() || override.model || env.EVIDEX_MODEL?.trim() || DEFAULT_MODEL,
    maxSteps: Math.floor(override.maxSteps ?? steps ?? DEFAULT_MAX_STEPS),
    timeoutMs: override.timeoutMs ?? (timeoutS !== undefined ? timeoutS * 1000 : DEFAULT_TIMEOUT_MS),
    maxToolChars: override.maxToolChars ?? DEFAULT_MAX_TOOL_CHARS,
  };
  const think = override.think ?? (env.EVIDEX_THINK === undefined ? undefined : env.EVIDEX_THINK !== '0' && env.EVIDEX_THINK !== 'false');
  if (think !== undefined) cfg.think = think;
  if (!(cfg.maxSteps >= 1)) throw new Error(`maxSteps must be at least 1 (got ${cfg.maxSteps})`);
  if (!(cfg.timeoutMs > 0)) throw new Error(`timeoutMs must be positive (got ${cfg.timeoutMs})`);
  return cfg;
}
