// The spinner on a narrow terminal (tmux, 28 and 70 columns): while a model
// streams its thinking, the spinner line is redrawn in place many times a
// second. Wider than the terminal, each redraw wraps and leaves a line behind
// (the reviewer saw 18+ lines of it at 70 columns); fitted to the width, the
// screen holds no trace of it once the command ends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from './fake-ollama/server.js';
import { startAskDaemon, terminalEnv, type AskDaemon } from './helpers/ask-daemon.js';
import { TmuxSession } from './helpers/terminal.js';
import { lacks, testUnless } from './helpers/skip.js';
import { fitLine, lineWidth } from '../local/human.js';

const tmuxTest = testUnless(lacks.tmux());
const tmux = new TmuxSession(`evidex-ask-narrow-${process.pid}`);
let s: AskDaemon;

test.before(async () => {
  s = await startAskDaemon({ git: true, env: (fake) => ({ OLLAMA_HOST: fake.url }), models: [{ name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] }] });
});
test.after(async () => {
  tmux.kill();
  await s.stop();
});

test('fitLine: cut to the columns by display width, never inside an escape or a wide character', () => {
  assert.is(String(fitLine('short', 10)), 'short');
  assert.is(String(fitLine('step 12: thinking… about it', 12)), 'step 12: th…');
  assert.is(lineWidth(String(fitLine('漢字漢字漢字', 7))), 7); // three wide characters and the mark
  assert.is(String(fitLine('漢字漢字漢字', 7)), '漢字漢…');
  assert.is(String(fitLine('ab\x1bcd', 5)), 'ab…'); // `\x1b` is four columns: not split
  assert.is(String(fitLine('e\u0301e\u0301e\u0301e\u0301', 3)), 'e\u0301e\u0301…');
});

for (const columns of [28, 70]) {
  tmuxTest(`on a ${columns}-column terminal, streamed thinking leaves no spinner line behind`, async () => {
    s.fake.script(
      {
        chunks: Array.from({ length: 24 }, (_, i) => ({ thinking: `The user wants to know where COLLECTION_NAME is defined; I should search for it, step ${i}. ` }))
          .concat([{ tool_calls: [call('find_symbol', { name: 'COLLECTION_NAME', limit: 1 })] } as any]),
        delayMs: 40,
      },
      { chunks: [{ content: 'See src/rag_common.py:12.' }] },
    );
    tmux.start(['ask', 'where is COLLECTION_NAME?', '--model', 'qwen3:8b', '--repo', s.root], terminalEnv(s), { columns, rows: 40 });
    const screen = await tmux.until('the command to end', /\[exit \d+\]/, { timeoutMs: 60_000, scrollback: 200 });
    assert.not.match(screen, 'thinking…', screen);
    assert.not.match(screen, 'should search', screen);
    assert.match(screen, 'See src/rag_common.py:12.');
  });
}

test.run();
