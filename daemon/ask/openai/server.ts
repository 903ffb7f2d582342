// Before the first turn, what an OpenAI-compatible server says about the
// model: that it serves it (/v1/models), and the window it was loaded with.
// These servers have no /api/show: the window is on each one's own endpoint
// — llama-server's /props (`n_ctx`, or `default_generation_settings.n_ctx`,
// a slot's share), LM Studio's /api/v0/models (`loaded_context_length`),
// vLLM's /v1/models (`max_model_len`) — and is fixed when the model is
// loaded: a request cannot raise it, so the prompt is fitted to it. Which of
// those endpoints answers also tells which server it is, for messages that
// name its flags. Whether the model calls tools is learned by behaviour
// (probe.ts).
import { CHOOSE_MODEL } from '../../../protocol/ask-settings.js';
import type OpenAI from 'openai';
import { isAbortError, ModelError, shortQuote, type ModelDescription } from '../model.js';
import { getServerJson, type ServerAddress } from './client.js';
import { classifyOpenAIError, type ErrorContext, type ServerKind } from './errors.js';

/** What the check learns: the server's kind and the model's window, when it says. */
export interface ServerFacts {
  kind: ServerKind;
  contextLength?: number;
}

const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** The models the server lists (/v1/models `data`), each with what it says beside its id. */
async function servedModels(client: OpenAI, c: ErrorContext): Promise<Array<Record<string, unknown>>> {
  let page: unknown;
  try {
    page = await client.get('/models');
  } catch (err) {
    if (isAbortError(err)) throw err;
    throw classifyOpenAIError(err, c, 'request');
  }
  const data = (page as { data?: unknown })?.data;
  if (!Array.isArray(data)) {
    throw new ModelError('api_http_error', `${c.base}/models answered ${shortQuote(JSON.stringify(page) ?? String(page))}, not a list of models; is EVIDEX_API_BASE the server's OpenAI-compatible base URL (it usually ends in /v1)?`);
  }
  return data.filter((m): m is Record<string, unknown> => !!m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string');
}

/** llama-server's window from /props: the smaller of `n_ctx` and a slot's `default_generation_settings.n_ctx` (what one request gets). */
function llamaWindow(props: Record<string, unknown>): number | undefined {
  const slot = positiveInt((props.default_generation_settings as { n_ctx?: unknown } | undefined)?.n_ctx);
  const all = positiveInt(props.n_ctx);
  return slot !== undefined && all !== undefined ? Math.min(slot, all) : slot ?? all;
}

/** LM Studio's window from /api/v0/models: the loaded context of the model (not its maximum: the window is what was loaded). */
function lmStudioWindow(list: Record<string, unknown>, model: string): number | undefined {
  const data = Array.isArray(list.data) ? list.data as Array<Record<string, unknown>> : [];
  const m = data.find((x) => x?.id === model);
  return m ? positiveInt(m.loaded_context_length) : undefined;
}

/**
 * The model is served (else a model_not_found naming what the server does
 * serve) and its window, from whichever server's endpoint answers.
 */
export async function checkServedModel(client: OpenAI, address: ServerAddress, c: ErrorContext, signal: AbortSignal): Promise<ServerFacts> {
  const models = await servedModels(client, c);
  const entry = models.find((m) => m.id === c.model);
  if (!entry) {
    const ids = models.map((m) => String(m.id));
    throw new ModelError('model_not_found', `model "${c.model}" is not served by the OpenAI-compatible server at ${c.base}; `
      + (ids.length ? `it serves: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}; choose one with ${CHOOSE_MODEL}` : 'it serves no model: load one in the server first'));
  }
  const vllm = positiveInt(entry.max_model_len);
  if (vllm !== undefined) return { kind: 'vLLM', contextLength: vllm };
  const props = await getServerJson(address, '/props', signal);
  if (props && ('default_generation_settings' in props || 'n_ctx' in props || 'build_info' in props)) {
    return { kind: 'llama-server', ...optional(llamaWindow(props)) };
  }
  const lm = await getServerJson(address, '/api/v0/models', signal);
  if (lm && Array.isArray(lm.data)) return { kind: 'LM Studio', ...optional(lmStudioWindow(lm, c.model)) };
  return { kind: entry.owned_by === 'vllm' ? 'vLLM' : 'server' };
}

function optional(contextLength: number | undefined): { contextLength?: number } {
  return contextLength === undefined ? {} : { contextLength };
}

/** The server's version, for reports that compare runs (evidex eval); best effort: llama-server's build, vLLM's /version. */
export async function describeServer(address: ServerAddress, signal: AbortSignal): Promise<ModelDescription> {
  const props = await getServerJson(address, '/props', signal);
  if (typeof props?.build_info === 'string') return { version: `llama-server ${props.build_info}` };
  const v = await getServerJson(address, '/version', signal);
  if (typeof v?.version === 'string') return { version: v.version };
  return {};
}
