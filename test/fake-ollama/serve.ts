// The fake Ollama as a process of its own, for trying `evidex ask` and
// `evidex chat` by hand in a terminal: `node dist/test/fake-ollama/serve.js`
// prints `OLLAMA_HOST=http://127.0.0.1:PORT` and serves until Ctrl-C.
//
// Its "model" answers any question readably (policy.ts).
import { FakeOllama } from './server.js';
import { serveByHand } from '../helpers/fake-http.js';
import { reply } from './policy.js';

await serveByHand(new FakeOllama([
  { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
  { name: 'llama3.1:8b', capabilities: ['completion', 'tools'], family: 'llama' },
]), 'OLLAMA_HOST', reply);
