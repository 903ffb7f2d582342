// The fake OpenAI-compatible server as a process of its own, for trying
// `evidex ask` and `evidex chat` by hand in a terminal, in each server's
// quirks: `node dist/test/fake-openai/serve.js [QUIRK]` (QUIRK one of
// quirks.ts's: llama-server, llama-server-nojinja, llama-server-nojinja-old,
// vllm, vllm-noauto, lmstudio, generic; default llama-server) prints
// `EVIDEX_API_BASE=http://127.0.0.1:PORT/v1` and serves until Ctrl-C. Its
// "model" answers any question readably (../fake-ollama/policy.ts).
import { reply } from '../fake-ollama/policy.js';
import { serveByHand } from '../helpers/fake-http.js';
import { QUIRKS, type Quirk } from './quirks.js';
import { FakeOpenAI } from './server.js';

const quirk = (process.argv[2] ?? 'llama-server') as Quirk;
if (!QUIRKS.includes(quirk)) {
  process.stderr.write(`serve.js: QUIRK must be one of ${QUIRKS.join(', ')}\n`);
  process.exit(2);
}
await serveByHand(new FakeOpenAI({ quirk, models: [
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'], contextLength: 8192 },
  { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama', contextLength: 4096 },
] }), 'EVIDEX_API_BASE', reply);
