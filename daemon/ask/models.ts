// Which API serves a question's model: the one place that knows every
// implementation of ChatModel (model.ts). Ollama's own API is the only one
// today; another is a folder beside ollama/ and one more case here, and the
// loop does not change.
import type { AskConfig } from './config.js';
import type { ChatModel } from './model.js';
import { OllamaModel } from './ollama/model.js';

export function openModel(cfg: AskConfig): ChatModel {
  return new OllamaModel({ host: cfg.host, model: cfg.model, ...(cfg.think !== undefined ? { think: cfg.think } : {}) });
}
