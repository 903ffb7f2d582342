// The progress line of `evidex index` as a file or pipe keeps it: a line every
// 2 seconds of the injected clock, and the last one, never a line for nothing
// done yet (`walk 0 files`, which every build starts with). And the build's
// own progress (a real Index on a temp folder): the parse total is the files
// the walk found to read from the first line to the last (a file's being binary
// is learnt only by reading it, and a total that dropped it then shrank late),
// and the files reading left out are said beside it.
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProgressLine } from '../client/progress.js';
import { Screen } from '../local/human.js';
import { openIndex } from '../indexer/index.js';
import type { BuildProgress } from '../indexer/api.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test('in a file or pipe: no `walk 0 files`; a line per 2 s of the clock; the last line always', () => {
  const sink = new PassThrough();
  let out = '';
  sink.on('data', (b: Buffer) => { out += b.toString(); });
  let now = 10_000;
  const bar = new ProgressLine(new Screen(sink), false, () => now);
  bar.update({ phase: 'walk', done: 0, total: 0 });
  now += 1;
  bar.update({ phase: 'walk', done: 100, total: 100 });
  now += 500;
  bar.update({ phase: 'parse', done: 10, total: 100 });
  now += 2_000;
  bar.update({ phase: 'parse', done: 60, total: 100 });
  now += 2_001;
  bar.update({ phase: 'parse', done: 100, total: 100, leftOut: 2 });
  now += 1;
  bar.update({ phase: 'done', done: 98, total: 98 });
  assert.is(out, 'walk 100/100 files\nparse 60/100 files\nparse 100/100 files · 2 left out\ndone 98/98 files\n');
});

test('a first build\'s parse total is the files found to read, from start to end; those found binary are said beside it', async () => {
  const root = tempDir('progress-root');
  for (let i = 0; i < 5; i++) writeFileSync(join(root, `m${i}.py`), `X = ${i}\n`);
  writeFileSync(join(root, 'blob.txt'), Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00]));
  const index = await openIndex(root, { stateDir: tempDir('progress-state') });
  try {
    const seen: BuildProgress[] = [];
    const summary = await index.refresh((p) => seen.push(p));
    const parse = seen.filter((p) => p.phase === 'parse');
    assert.is(summary.files, 5);
    assert.equal(seen.find((p) => p.phase === 'walk' && p.total > 0), { phase: 'walk', done: 6, total: 6 });
    assert.ok(parse.length > 0);
    // Never less than the walk's 6: the binary file is one of them (read last or first, the total is the same).
    for (const p of parse) assert.is(p.total, 6, JSON.stringify(p));
    assert.equal(parse.at(-1), { phase: 'parse', done: 6, total: 6, leftOut: 1 });
    assert.is(parse.at(-1)!.done - parse.at(-1)!.leftOut!, summary.files);
  } finally {
    await index.close();
  }
});

test.after(() => cleanupTemp());

test.run();
