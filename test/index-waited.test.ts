// `evidex index` run while the daemon catches up (a checkout's batch, the
// start-up check) waits for its turn behind that write: it shows the write's
// progress meanwhile, from index/status, and after its own pass says what the
// writes ahead of it did, counted as they landed (daemon/writes-ahead.ts).
// The daemon end of it, a refresh queued behind a held start-up check, is in
// start-check.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { writeAhead } from '../client/build-wait.js';
import { ProgressLine } from '../client/progress.js';
import { WritesAhead } from '../daemon/writes-ahead.js';
import { human, Screen } from '../local/human.js';
import type { StatusResult } from '../protocol/messages.js';

test('the writes ahead of a refresh: those that landed between its asking and its turn, by kind, and none before', () => {
  let now = 1_000;
  const ahead = new WritesAhead(() => now);
  ahead.add('start-up check', 5, 0); // landed before the refresh was asked for
  const asked = ahead.mark();
  assert.is(ahead.since(asked), undefined, 'nothing landed since');
  ahead.add('catch-up of changes the watcher saw', 700, 60);
  ahead.add('re-walk of the tree by the watcher', 0, 0);
  ahead.add('catch-up of changes the watcher saw', 8, 5);
  now += 2_500;
  assert.equal(ahead.since(asked), { seconds: 2.5, parsed: 708, removed: 65, writes: ['catch-up of changes the watcher saw', 're-walk of the tree by the watcher'] });
});

/** A status with only what writeAhead reads (the rest of a real one is beside the point here). */
function status(index: Partial<StatusResult['index']>, daemon: Partial<StatusResult['daemon']>): StatusResult {
  return { index, daemon } as StatusResult;
}

test('what a waiting `evidex index` shows of the daemon\'s running write, in its words and on its progress line', () => {
  const check = writeAhead(status({ state: 'ready' }, { startup: 'running', startupProgress: { phase: 'parse', done: 1, total: 4 } }));
  assert.equal(check && { what: check.what.plain, words: String(check.words), fraction: check.fraction }, { what: "the daemon's start-up check", words: 'parse 1/4 files', fraction: 0.25 });
  const build = writeAhead(status({ state: 'building' }, { startup: 'running' }));
  assert.equal(build && { what: build.what.plain, words: build.words }, { what: "the daemon's index build", words: '' });
  const batch = writeAhead(status({ state: 'ready' }, { startup: 'done', catchingUp: { changes: 812, since: new Date(0).toISOString(), rewalk: '.gitignore changed', progress: { done: 300, total: 812 } } }));
  assert.equal(batch && { what: batch.what.plain, words: String(batch.words) }, { what: 'the daemon catching up with 812 changes', words: 'read 300 of 812 files' }, 'the batch that reads, not the re-walk queued behind it');
  const rewalk = writeAhead(status({ state: 'ready' }, { startup: 'done', catchingUp: { changes: 0, since: new Date(0).toISOString(), rewalk: 'catch-up after the watcher scan' } }));
  assert.is(rewalk?.what.plain, "the daemon's re-walk (catch-up after the watcher scan)");
  assert.is(writeAhead(status({ state: 'ready' }, { startup: 'done' })), null, 'in step: nothing to show');

  // On a terminal the line is cut to its width: a wrapped line is not redrawn in place.
  const sink = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
  let out = '';
  sink.on('data', (b: Buffer) => { out += b.toString(); });
  new ProgressLine(new Screen(sink), false).show(batch!.fraction, human`waiting for ${batch!.what}: ${batch!.words}`);
  const drawn = out.replace(/\r|\x1b\[K/g, '');
  assert.is(drawn, '[###########                   ] waiting for the daemon ca…');
  assert.ok(drawn.length < 60, 'short of the last column, where a terminal may wrap');
});

test.run();
