// A stop during the request-path warm-up is not a failure. The stop closes the
// index under the warm-up's call in flight (waiting for its turn, or paused
// between two slices of a search): that call must end as a refusal for the
// stop, not as "the index is closed" or, resumed over the unmapped text map,
// "internal: search text read from a closed text map", and the warm-up must
// not log itself failed.
//
// The stop is made to land inside the warm-up by the daemon's own slice clock
// (an injected function, as in fair-slices.test.ts): its K-th reading once the
// warm-up runs asks for the shutdown at the next turn of the event loop. The
// clock never says a slice is over, so each call runs whole and what happens
// around the stop depends only on the order of the event loop, not on the
// machine's speed: a call that ran at once leaves the next one waiting for its
// turn (fair-turns.ts), and the stop then closes the index before that turn.
// About half of the 16 readings below land the stop in such a wait. A search
// resumed over an unmapped text map is the index's own test, first below.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Daemon } from '../daemon/server.js';
import { openEvidexIndex } from '../indexer/index.js';
import type { Pace } from '../indexer/api.js';
import { ToolError } from '../indexer/errors.js';
import { warmupSettled } from '../protocol/messages.js';
import { waitFor } from './helpers/daemon.js';
import { CROWDED_NAME, writeCrowdedTree } from './helpers/flood.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

test('a search paused as its index closes is refused as index_unavailable, not as an internal error', async () => {
  const root = tempDir('closed-under');
  writeCrowdedTree(root, 200, 10, 0);
  // A text map however small the tree: the search reads its text from the map the close unmaps.
  const idx = await openEvidexIndex(root, { stateDir: tempDir('closed-under-state'), textMapMinBytes: 1 });
  let closed: Promise<void> | null = null;
  try {
    await idx.refresh();
    await waitFor('the search text in memory', () => idx.status().warm, 60_000);
    // Every look at the clock says "due"; the first pause closes the index, and the search resumes over it.
    const pace: Pace = { due: () => true, pause: () => (closed ??= idx.close()) };
    const e = await Promise.resolve(idx.runTool('search_code', { query: CROWDED_NAME, limit: 200 }, pace)).then(() => null, (x: unknown) => x);
    assert.ok(closed, 'the search paused');
    assert.instance(e, ToolError);
    assert.equal((e as ToolError).toJSON(), { code: 'index_unavailable', message: 'the index is closed' });
  } finally {
    await (closed ?? idx.close());
  }
});

test('a stop during the warm-up ends it quietly: no failure, no internal error, wherever it lands', async () => {
  const root = tempDir('warmup-stop');
  writeCrowdedTree(root, 600, 10, 20);
  const stateDir = join(tempDir('warmup-stop-state'), 's');
  for (let k = 1; k <= 16; k++) {
    const lines: string[] = [];
    let d: Daemon | null = null;
    let asked = false;
    let reads = 0;
    const now = () => {
      if (!asked && d?.status().daemon.warmup.state === 'running' && ++reads === k) {
        asked = true;
        const daemon = d;
        setImmediate(() => { void daemon.shutdown(`test: stop at slice clock reading ${k} of the warm-up`); });
      }
      return 0;
    };
    d = await Daemon.start({ root, stateDir, watch: 'off', turns: { now }, log: (l) => lines.push(l) });
    const started = d;
    try {
      // Ended by the stop the clock asked for, or (a failure below) by the warm-up ending first.
      await Promise.race([started.stopped, waitFor('the warm-up to end', () => warmupSettled(started.status().daemon.warmup), 120_000)]);
    } finally {
      await d.shutdown('test over');
    }
    const log = lines.join('\n');
    assert.match(log, /shutting down: test: stop at slice clock reading/, `k = ${k}: the stop came during the warm-up`);
    assert.match(log, /request path warmed up: \d+ calls \(0 refused\), \d+ ms of work \(stopped\)/, `k = ${k}:\n${log}`);
    assert.not.match(log, /warm-up failed/, `k = ${k}:\n${log}`);
    assert.not.match(log, /internal/, `k = ${k}:\n${log}`);
  }
});

test.run();
