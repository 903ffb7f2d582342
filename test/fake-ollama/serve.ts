// The fake Ollama as a process of its own, for trying `evidex ask` and
// `evidex chat` by hand in a terminal: `node dist/test/fake-ollama/serve.js`
// prints `OLLAMA_HOST=http://127.0.0.1:PORT` and serves until Ctrl-C.
//
// Its "model" is a fixed, readable policy rather than a script, so any
// question gets a sensible transcript: a question first gets a search_code
// call for its last word, then an answer streamed in pieces that cites the
// first items of the evidence it was sent, each as path:line.
import { FakeOllama, call, type ChatTurn } from './server.js';

/** The question's last word of three letters or more (what the model searches for). */
function lastWord(text: string): string {
  const words = text.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? ['def'];
  return words[words.length - 1];
}

/** `path:line` of the first items in the last tool result, if it was an evidence envelope. */
function citedLines(content: string): string[] {
  try {
    const data = JSON.parse(content)?.untrusted_data;
    const items: Array<{ path: string; start_line: number }> = Array.isArray(data?.evidence) ? data.evidence : [];
    return items.slice(0, 3).map((e) => `${e.path}:${e.start_line}`);
  } catch {
    return [];
  }
}

function reply(body: { messages?: Array<{ role: string; content: string }> }): ChatTurn {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'user') {
    return { chunks: [{ thinking: 'Search the code first. ' }, { tool_calls: [call('search_code', { query: lastWord(last.content), limit: 5 })] }], delayMs: 150 };
  }
  const cites = last?.role === 'tool' ? citedLines(last.content) : [];
  const text = cites.length ? `The search found it at ${cites.join(', ')}.` : 'The search found nothing for that.';
  return { chunks: text.split(/(?<=,) /).map((content, i, all) => ({ content: i < all.length - 1 ? `${content} ` : content })), delayMs: 250 };
}

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
