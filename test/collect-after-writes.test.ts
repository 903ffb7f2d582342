// The collection after a large batch of writes (daemon/collect-after-writes.ts;
// docs/performance/memory.md, "After branch jumps"). What is asserted is the
// mechanism, never memory or a time: the quiet period is a hook the test ends.
//  - The scheduler with the real FairTurns: a batch under the threshold arms
//    nothing; one over it waits for its quiet period, starts the wait over when
//    another write lands meanwhile, and collects only once the request in
//    flight has finished — never while it runs.
//  - A real daemon (in this process, real watcher, real files): 150 new files
//    written into the tree are followed by one collection, logged; a batch of
//    5 files afterwards arms none; the start-up build arms none (warm-up's
//    collection follows that one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollectAfterWrites } from '../daemon/collect-after-writes.js';
import { FairTurns } from '../daemon/fair-turns.js';
import { Daemon } from '../daemon/server.js';
import { waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

const turnOfLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

test('after a large batch the collection waits for quiet, starts the wait over on a new write, and never runs during a request', async () => {
  const turns = new FairTurns();
  const quiet: Array<() => void> = [];
  const order: string[] = [];
  const logs: string[] = [];
  let inFlight = false;
  const c = new CollectAfterWrites({
    minFiles: 100,
    quietMs: 2000,
    delay: () => new Promise<void>((resolve) => { quiet.push(resolve); }),
    collect: () => { order.push(inFlight ? 'collect during the request' : 'collect'); return Promise.resolve(7); },
    indexedFiles: () => 300,
    writesDone: () => Promise.resolve(),
    requestsDone: () => turns.whenIdle(),
    log: (line) => logs.push(line),
  });
  c.written(60);
  assert.is(quiet.length, 0, '60 files (under 100) arm nothing');
  assert.not.ok(c.pending);
  c.written(60);
  assert.is(quiet.length, 1, '120 files arm the quiet period');
  assert.ok(c.pending);
  // Another write of the same jump lands during the quiet period: the wait starts over.
  c.written(5);
  quiet[0]();
  await waitFor('the second quiet period', () => quiet.length === 2);
  assert.equal(order, []);
  // A request in flight over two turns when the quiet period ends.
  let finish!: () => void;
  const held = new Promise<void>((resolve) => { finish = resolve; });
  const request = turns.run({}, (pace) => pace.pause().then(() => { inFlight = true; order.push('request running'); return held; }));
  await waitFor('the request\'s second turn', () => inFlight);
  quiet[1]();
  for (let i = 0; i < 20; i++) await turnOfLoop();
  assert.equal(order, ['request running'], 'no collection while the request runs');
  inFlight = false;
  finish();
  await request;
  await waitFor('the collection', () => order.length === 2);
  assert.equal(order, ['request running', 'collect']);
  assert.equal(logs, ['heap collected after 125 files written, in 7 ms']);
  await waitFor('the collector idle', () => !c.pending);
  // Counted from the collection on: 50 more files arm nothing.
  c.written(50);
  assert.is(quiet.length, 2);
  // On a large index the threshold is a tenth of it: 120 of 3,000 files arm nothing.
  const big = new CollectAfterWrites({ minFiles: 100, delay: () => new Promise<void>(() => { quiet.push(() => undefined); }), indexedFiles: () => 3000, writesDone: () => Promise.resolve(), requestsDone: () => Promise.resolve(), log: () => undefined });
  big.written(120);
  assert.not.ok(big.pending);
  big.written(200);
  assert.ok(big.pending);
  big.stop();
});

test('a real daemon collects once after 150 files land through its watcher, and not after 5 or after its start-up build', async () => {
  const root = tempDir('collect-writes');
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `start_${i}.py`), `def start_${i}():\n    return ${i}\n`);
  let armed = 0;
  const collected: string[] = [];
  const lines: string[] = [];
  const d = await Daemon.start({
    root, stateDir: join(tempDir('collect-writes-state'), 's'), watch: 'auto', warmup: false,
    collectAfterWrites: {
      minFiles: 100,
      delay: () => { armed++; return turnOfLoop(); },
      collect: () => { collected.push(`with ${d.status().index.files} files indexed`); return Promise.resolve(3); },
    },
    log: (line) => lines.push(line),
  });
  try {
    await waitFor('the start-up build and the watcher', () => d.status().daemon.startup === 'done' && d.status().daemon.watcher === 'watching', 60_000);
    await d.idle();
    assert.is(armed, 0, 'the start-up build arms no collection');
    for (let i = 0; i < 150; i++) writeFileSync(join(root, `jump_${i}.py`), `def jump_${i}():\n    return ${i}\n`);
    await waitFor('the 150 files indexed and collected after', () => d.status().index.files === 170 && collected.length > 0, 60_000);
    await d.idle();
    // The watcher may see the 150 in more than one batch; the collection waits for the quiet after them.
    assert.equal(collected.length, 1, collected.join(' '));
    const said = lines.map((l) => /^heap collected after (\d+) files written, in 3 ms$/.exec(l)).filter((m) => m !== null);
    assert.is(said.length, 1, lines.join('\n'));
    assert.ok(Number(said[0]![1]) >= 100, said[0]![0]);
    const armedAfterJump = armed;
    assert.ok(armedAfterJump >= 1);
    for (let i = 0; i < 5; i++) writeFileSync(join(root, `small_${i}.py`), `def small_${i}():\n    return ${i}\n`);
    await waitFor('the 5 files indexed', () => d.status().index.files === 175, 60_000);
    await d.idle();
    assert.is(armed, armedAfterJump, '5 files arm no collection');
    assert.is(collected.length, 1);
  } finally {
    await d.shutdown('test over');
  }
});

test.run();
