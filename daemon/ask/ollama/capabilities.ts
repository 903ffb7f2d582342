// Before the first turn: does the chosen model exist, and can it call tools?
// Ollama reports that in /api/show `capabilities`; when the answer is no, the
// user needs to know which installed models would do, so we ask each one.
import { CHOOSE_MODEL } from '../../../protocol/ask-settings.js';
import type { Ollama } from 'ollama';
import { isAbortError, ModelError, shortQuote, type ModelDescription, type ModelFacts } from '../model.js';
import { classifyOllamaError, notOllamaAdvice } from './client.js';

/**
 * The Ollama version and the model's digest, for reports that compare runs
 * (evidex eval). Best effort: an Ollama that does not say is not an error.
 */
export async function describeModel(ollama: Ollama, model: string): Promise<ModelDescription> {
  const out: ModelDescription = {};
  try { out.version = (await ollama.version()).version; } catch (err) { if (isAbortError(err)) throw err; }
  try {
    const full = model.includes(':') ? model : `${model}:latest`;
    const m = (await ollama.list()).models?.find((x) => x.name === full || x.model === full);
    if (m?.digest) out.digest = m.digest;
  } catch (err) { if (isAbortError(err)) throw err; }
  return out;
}

/** Installed models (from /api/tags) whose /api/show lists `tools`, in the order Ollama lists them. */
export async function toolCapableModels(ollama: Ollama): Promise<string[]> {
  const { models } = await ollama.list();
  const out: string[] = [];
  for (const m of models ?? []) {
    try {
      const info = await ollama.show({ model: m.name });
      if (Array.isArray(info.capabilities) && info.capabilities.includes('tools')) out.push(m.name);
    } catch (err) {
      if (isAbortError(err)) throw err;
      // One broken model entry must not hide the others.
    }
  }
  return out;
}

function suggestion(models: string[]): string {
  return models.length
    ? `installed models with tool support: ${models.join(', ')}`
    : 'no installed model has tool support; install one, e.g. `ollama pull qwen3:8b` or `ollama pull llama3.1:8b`';
}

/** The model's context length from /api/show `model_info` (`<architecture>.context_length`), if it reports one. */
export function contextLengthOf(modelInfo: unknown): number | undefined {
  if (!modelInfo || typeof modelInfo !== 'object') return undefined;
  const entries = modelInfo instanceof Map ? [...modelInfo.entries()] : Object.entries(modelInfo);
  for (const [k, v] of entries) {
    if (typeof k === 'string' && k.endsWith('.context_length') && typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

/**
 * Throws when /api/show answered 200 with an error and no model at all: not
 * Ollama (LM Studio answers every endpoint it lacks that way).
 */
function notOllamaAnswer(info: unknown, host: string): void {
  const said = (info as { error?: unknown } | null)?.error;
  if (said === undefined || (info as { capabilities?: unknown }).capabilities !== undefined) return;
  const text = shortQuote(typeof said === 'string' ? said : JSON.stringify(said));
  throw new ModelError('ollama_http_error', `${host} does not look like Ollama: /api/show answered ${text}; ${notOllamaAdvice(host)}`);
}

/** Throws ModelError unless `model` is installed and lists the `tools` capability; returns what /api/show said about its window. */
export async function checkToolCapability(ollama: Ollama, host: string, model: string): Promise<ModelFacts> {
  let capabilities: unknown;
  let facts: ModelFacts;
  try {
    const info = await ollama.show({ model });
    notOllamaAnswer(info, host);
    capabilities = info.capabilities;
    facts = { contextLength: contextLengthOf(info.model_info) };
  } catch (err) {
    if (isAbortError(err)) throw err;
    const failure = classifyOllamaError(err, host, model, 'request');
    if (failure.code !== 'model_not_found') throw failure;
    const others = await toolCapableModels(ollama).catch((e) => { if (isAbortError(e)) throw e; return null; });
    throw new ModelError('model_not_found', others ? `${failure.message}; ${suggestion(others)}` : failure.message);
  }
  if (Array.isArray(capabilities) && capabilities.includes('tools')) return facts;
  let others: string[];
  try {
    others = await toolCapableModels(ollama);
  } catch (err) {
    if (isAbortError(err)) throw err;
    throw classifyOllamaError(err, host, model, 'request');
  }
  const what = Array.isArray(capabilities)
    ? `has no "tools" capability (it lists: ${capabilities.join(', ') || 'none'})`
    : 'reports no capabilities (Ollama too old? evidex needs one that lists them in /api/show)';
  throw new ModelError('model_no_tools', `model "${model}" in Ollama at ${host} ${what}; ${suggestion(others)}; choose one with ${CHOOSE_MODEL}`);
}
