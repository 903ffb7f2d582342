// The fake OpenAI-compatible server as a process of its own, for trying
// `evidex ask` and `evidex chat` by hand in a terminal, in each server's
// quirks: `node dist/test/fake-openai/serve.js [QUIRK]` (QUIRK one of
// quirks.ts's: llama-server, llama-server-nojinja, llama-server-nojinja-old,
// vllm, vllm-noauto, lmstudio, generic; default llama-server) prints
// `EVIDEX_API_BASE=http://127.0.0.1:PORT/v1` and serves until Ctrl-C. Its
// "model" answers any question readably (../fake-ollama/policy.ts).
import { reply } from '../fake-ollama/policy.js';
import { QUIRKS, type Quirk } from './quirks.js';
import { FakeOpenAI } from './server.js';

const quirk = (process.argv[2] ?? 'llama-server') as Quirk;
if (!QUIRKS.includes(quirk)) {
  process.stderr.write(`serve.js: QUIRK must be one of ${QUIRKS.join(', ')}\n`);
  process.exit(2);
}
const fake = new FakeOpenAI({ quirk, models: [
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'], contextLength: 8192 },
  { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama', contextLength: 4096 },
] });
fake.fallback = (body) => reply(body);
await fake.start();
process.stdout.write(`EVIDEX_API_BASE=${fake.url}\n`);
const stop = (): void => { void fake.stop().then(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
