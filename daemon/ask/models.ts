// Which API serves a question's model: the one place that knows every
// implementation of ChatModel (model.ts). Each is a folder of its own, loaded
// on the first question that uses it, so a daemon only ever asked through
// Ollama never loads the `openai` package, and the reverse; another API is
// one more line in IMPLEMENTATIONS, and the loop does not change.
import type { ModelApi } from '../../protocol/messages.js';
import type { AskConfig } from './config.js';
import type { ChatModel, ModelDescription, ModelFacts, ModelReply, TextDelta, TurnRequest } from './model.js';

const IMPLEMENTATIONS: Record<ModelApi, (cfg: AskConfig) => Promise<ChatModel>> = {
  ollama: async (cfg) => new (await import('./ollama/model.js')).OllamaModel({ host: cfg.host, model: cfg.model, ...(cfg.think !== undefined ? { think: cfg.think } : {}) }),
  openai: async (cfg) => new (await import('./openai/model.js')).OpenAIModel({ base: cfg.host, model: cfg.model, ...(cfg.apiKey !== undefined ? { apiKey: cfg.apiKey } : {}), ...(cfg.think !== undefined ? { think: cfg.think } : {}) }),
};

/** The model of `cfg.api`, its code loaded when first used. */
export function openModel(cfg: AskConfig): ChatModel {
  let loaded: Promise<ChatModel> | undefined;
  const model = (): Promise<ChatModel> => (loaded ??= IMPLEMENTATIONS[cfg.api](cfg));
  return {
    check: async (signal: AbortSignal): Promise<ModelFacts> => (await model()).check(signal),
    describe: async (signal: AbortSignal): Promise<ModelDescription> => (await model()).describe(signal),
    turn: async (request: TurnRequest, onText: TextDelta): Promise<ModelReply> => (await model()).turn(request, onText),
  };
}
