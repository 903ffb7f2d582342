// Before the first turn: does the chosen model exist, and can it call tools?
// Ollama reports that in /api/show `capabilities`; when the answer is no, the
// user needs to know which installed models would do, so we ask each one.
import type { Ollama } from 'ollama';
import { AskError, classifyOllamaError, isAbortError } from './ollama-client.js';

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

/** Throws AskError unless `model` is installed and lists the `tools` capability. */
export async function checkToolCapability(ollama: Ollama, host: string, model: string): Promise<void> {
  let capabilities: unknown;
  try {
    capabilities = (await ollama.show({ model })).capabilities;
  } catch (err) {
    if (isAbortError(err)) throw err;
    const failure = classifyOllamaError(err, host, model, 'request');
    if (failure.code !== 'model_not_found') throw failure;
    const others = await toolCapableModels(ollama).catch((e) => { if (isAbortError(e)) throw e; return null; });
    throw new AskError('model_not_found', others ? `${failure.message}; ${suggestion(others)}` : failure.message);
  }
  if (Array.isArray(capabilities) && capabilities.includes('tools')) return;
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
  throw new AskError('model_no_tools', `model "${model}" in Ollama at ${host} ${what}; ${suggestion(others)}; choose one with --model or EVIDEX_MODEL`);
}
