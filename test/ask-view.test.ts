// What AskView writes for single events, read from plain streams (no
// terminal): the words of the progress lines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { AskView } from '../client/ask.js';
import { screenOf } from '../local/human.js';

function view(): { v: AskView; err: () => string } {
  let text = '';
  const sink = () => screenOf(new Writable({ write(chunk, _enc, done) { text += String(chunk); done(); } }), { NO_COLOR: '1' });
  return { v: new AskView({ out: sink(), err: sink(), env: { NO_COLOR: '1' }, live: false }), err: () => text };
}

const result = { type: 'tool_result', step: 1, index: 0, name: 'search_code', generation: 1, ms: 3 } as const;

test('a result cut by its limit alone says nothing of the context window; one the window cut says how', () => {
  const a = view();
  a.v.event({ ...result, items: 5, total: 20, shown: 5, refs: 0 });
  assert.is(a.err(), '  ← 5 items (total 20) in 3 ms\n');
  const b = view();
  b.v.event({ ...result, items: 5, total: 20, shown: 3, refs: 2 });
  assert.is(b.err(), '  ← 5 items (total 20) in 3 ms; 3 sent to the model (+2 as path:line) to fit the context window\n');
});

test.run();
