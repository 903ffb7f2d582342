// Issue 26 point 5, as a person sees it: on a 160×50 terminal (tmux), an
// answer whose question gathered dozens of evidence items, with a citation
// the evidence backs and one it does not, must still be on the visible screen
// when `evidex ask` ends — the evidence is counted, not listed — and each
// citation shows the line it cites. `--evidence` lists it all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, type FakeOllama } from './fake-ollama/server.js';
import { startAskDaemon, terminalEnv, type AskDaemon } from './helpers/ask-daemon.js';
import { TmuxSession } from './helpers/terminal.js';
import { lacks, testUnless } from './helpers/skip.js';

const tmuxTest = testUnless(lacks.tmux());
const tmux = new TmuxSession(`evidex-ask-screen-${process.pid}`);
let s: AskDaemon;
let f: FakeOllama;
let root: string;

test.before(async () => {
  s = await startAskDaemon({
    git: true, env: (fake) => ({ OLLAMA_HOST: fake.url }),
    models: [{ name: 'qwen3:8b', capabilities: ['completion', 'tools'], contextLength: 65536 }],
  });
  ({ fake: f, root } = s);
});
test.after(async () => {
  tmux.kill();
  await s.stop();
});

const ANSWER = [
  'rag_common is the shared settings module.',
  'It is imported by src/build_index.py:4 and read by the chat scripts;',
  'the collection name comes from there as well (see src/rag_common.py:999).',
  'Every script that talks to the vector store goes through it,',
  'so changing a setting there changes it everywhere.',
];

async function run(extra: string[]): Promise<string> {
  f.script(
    { chunks: [{ tool_calls: [call('search_code', { query: 'import', limit: 60 })] }] },
    { chunks: [{ content: ANSWER.join('\n') }] },
  );
  tmux.start(['ask', 'what is rag_common?', '--model', 'qwen3:8b', '--repo', root, ...extra], terminalEnv(s, { EVIDEX_NUM_CTX: '65536' }));
  return tmux.until('the command to end', /\[exit \d+\]/, { timeoutMs: 60_000 });
}

tmuxTest('on a 50-row terminal the answer stays on screen after a long evidence list; citations show their line', async () => {
  const screen = await run([]);
  for (const line of ANSWER) assert.match(screen, line, `answer line ${JSON.stringify(line)} scrolled away:\n${screen}`);
  assert.match(screen, /✔ src\/build_index\.py:4 {2}import rag_common as rc/);
  assert.match(screen, '✘ src/rag_common.py:999  (not in the evidence gathered for this question)');
  const counted = /evidence: (\d+) items \(`evidex ask --evidence` lists them\)/.exec(screen);
  assert.ok(counted && Number(counted[1]) > 30, `evidence counted:\n${screen}`);
  assert.match(screen, '[exit 4]');
});

tmuxTest('--evidence lists every item (the answer may then scroll, as asked)', async () => {
  const screen = await run(['--evidence']);
  const items = screen.split('\n').filter((l) => /^ {2}\S+:\d+(-\d+)? {2}content_match {2}import$/.test(l));
  assert.ok(items.length > 30, `${items.length} evidence lines listed:\n${screen}`);
  assert.not.match(screen, /evidence: \d+ items/);
  assert.match(screen, '[exit 4]');
});

test.run();
