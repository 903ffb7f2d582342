// The fake Ollama as a process of its own, for trying `evidex ask` and
// `evidex chat` by hand in a terminal: `node dist/test/fake-ollama/serve.js`
// prints `OLLAMA_HOST=http://127.0.0.1:PORT` and serves until Ctrl-C.
//
// Its "model" answers any question readably (policy.ts).
import { reply } from './policy.js';
import { FakeOllama } from './server.js';

const fake = new FakeOllama([
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
  { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' },
]);
fake.fallback = (body) => reply(body);
await fake.start();
process.stdout.write(`OLLAMA_HOST=${fake.url}\n`);
const stop = (): void => { void fake.stop().then(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
