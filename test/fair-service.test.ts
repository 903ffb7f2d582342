// Fair service (issue 31, point 4): one client's backlog costs another at most
// a slice. What is asserted is the ORDER of service, never a time: slice
// clocks are counters, so a slice is the same amount of work on any machine.
//  - FairTurns alone: a quiet owner's request runs before the backlog of the
//    owners already queued, and many owners whose first requests came at once
//    ahead of it cost it a short turn each, not a slice each; a backlog of
//    short answers read at once takes turns too, rather than running whole;
//    flooding owners take turns round-robin; a request
//    whose client gave up is not run; background work waits for an idle daemon
//    (a lone answer's pauses between its slices are not idle).
//  - A real daemon (in this process, real ws, real index on disk): while 8
//    connections pipeline 200 searches that each match every line of the
//    tree, a find_symbol on a ninth is answered after at most one answer per
//    flooding connection, long before the flood is done; every flood answer
//    is still the whole count.
//  - A search paused between slices while a write lands answers from one
//    generation: it starts again, and equals the answer asked afterwards.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Daemon } from '../daemon/server.js';
import { FairTurns } from '../daemon/fair-turns.js';
import { openEvidexIndex } from '../indexer/index.js';
import type { Pace } from '../indexer/api.js';
import { waitFor } from './helpers/daemon.js';
import { askDuringFlood, assertAnsweredBeforeBacklog, FLOOD_QUERY, writeFloodTree } from './helpers/flood.js';
import { countingClock } from './helpers/clock.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** Work of `slices` slices that logs `name` at each slice it runs. */
function sliced(log: string[], name: string, slices: number): (pace: Pace) => Promise<string> | string {
  return (pace) => {
    log.push(name);
    if (slices === 1) return name;
    return (async () => {
      for (let i = 1; i < slices; i++) {
        assert.ok(pace.due(), 'a counting clock makes every slice due');
        await pace.pause();
        log.push(name);
      }
      return name;
    })();
  };
}

test('FairTurns: a quiet owner goes ahead of the backlog; flooding owners alternate', async () => {
  const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
  const log: string[] = [];
  const a = {}, b = {}, quiet = {};
  // A alone: its first request runs at once (the daemon was idle), the rest queue behind its pause.
  const work = [
    turns.run(a, sliced(log, 'a1', 3)), turns.run(a, sliced(log, 'a2', 2)),
    turns.run(b, sliced(log, 'b1', 3)),
  ];
  assert.equal(log, ['a1'], 'an idle daemon runs the first request in the same turn of the event loop');
  // The next turns: b (new, ahead of a's resumed answer), then a and b round-robin.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  work.push(turns.run(quiet, sliced(log, 'q', 1)));
  await Promise.all(work);
  const q = log.indexOf('q');
  const before = log.slice(0, q);
  assert.ok(q >= 0 && q <= 4, `the quiet owner's request ran within a slice of arriving: ${log.join(' ')}`);
  assert.ok(log.slice(q + 1).filter((x) => x.startsWith('a')).length >= 2, `a's backlog was not done before q: ${log.join(' ')}`);
  // Round-robin: a's and b's slices interleave; no owner runs twice while the other waits.
  const ab = log.filter((x) => x !== 'q').map((x) => x[0]).join('');
  assert.not.match(ab.slice(0, ab.lastIndexOf('b')), /bb/, `b ran twice in a row while a waited: ${log.join(' ')} (before q: ${before.join(' ')})`);
  assert.is(turns.waiting, 0);
});

/** Work of `units` units that logs `name` at each, looking at the slice clock after each and pausing when its slice is due. */
function inUnits(log: string[], name: string, units: number): (pace: Pace) => Promise<string> {
  return async (pace) => {
    for (let i = 0; i < units; i++) {
      log.push(name);
      if (i < units - 1 && pace.due()) await pace.pause();
    }
    return name;
  };
}

test('FairTurns: many connections whose first requests arrive at once cost a quiet owner a short turn each, not a full slice each', async () => {
  const SLICE = 20, FRESH = 2, GREEDY = 64, WORK = 100;
  const turns = new FairTurns({ sliceMs: SLICE, freshSliceMs: FRESH, now: countingClock() });
  const log: string[] = [];
  // Something runs (the daemon is busy), then a greedy client's 64 connections each send their first long request, then a quiet one asks.
  const work = [turns.run({}, inUnits(log, 'busy', WORK))];
  for (let g = 0; g < GREEDY; g++) work.push(turns.run({}, inUnits(log, `g${g}`, WORK)));
  work.push(turns.run({}, inUnits(log, 'q', 1)));
  await Promise.all(work);
  const before = log.indexOf('q');
  // Each greedy connection's first turn is short (about FRESH units of work, the clock read at the turn's start counted), the running slice is whole.
  assert.ok(before <= SLICE + GREEDY * FRESH, `the quiet request waited for ${before} units of work (at most ${SLICE + GREEDY * FRESH}; ${GREEDY} full slices would be ${GREEDY * SLICE})`);
  assert.ok(new Set(log.slice(0, before).filter((x) => x.startsWith('g'))).size === GREEDY, 'every greedy connection had its first turn before the quiet one, which came last');
  assert.is(log.length, WORK * (GREEDY + 1) + 1, 'every greedy request ran to its end, its later turns in the rotation');
  assert.is(turns.waiting, 0);
});

test('FairTurns: a lone request runs at once with a full slice, never a short first turn, and pauses only when a full slice is used up', async () => {
  const SLICE = 20, FRESH = 2, WORK = 100;
  const turns = new FairTurns({ sliceMs: SLICE, freshSliceMs: FRESH, now: countingClock() });
  let pauses = 0;
  const log: string[] = [];
  const lone = turns.run({}, (pace) => inUnits(log, 'lone', WORK)({ due: pace.due, pause: () => { pauses++; return pace.pause(); } }));
  assert.is(log.length, SLICE, 'it ran at once, for a whole slice (a unit per look at the clock)');
  await lone;
  assert.is(log.length, WORK);
  // The bench's lone client (docs/performance/fairness.md): its searches under a slice never pause; a 1-unit first turn would make this 50.
  assert.ok(pauses <= Math.ceil(WORK / SLICE), `a lone request paused ${pauses} times in ${WORK} units of work (slices of ${SLICE})`);
});

test('FairTurns: a backlog of short answers read in one pass of the event loop takes turns; a request read in the next pass does not wait for all of it', async () => {
  const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
  const log: string[] = [];
  const GREEDY = 16, EACH = 20;
  // One read of pipelined requests: every message of every greedy connection, each answered in one short turn.
  const work: Array<Promise<string> | string> = [];
  for (let g = 0; g < GREEDY; g++) {
    const owner = {};
    for (let i = 0; i < EACH; i++) work.push(turns.run(owner, () => { log.push(`g${g}`); return 'g'; }));
  }
  assert.equal(log, ['g0'], 'the first request runs at once; the rest of the read queues behind it');
  // The next pass of the event loop reads the quiet client's request.
  await new Promise((r) => setImmediate(r));
  work.push(turns.run({}, () => { log.push('q'); return 'q'; }));
  await Promise.all(work);
  const q = log.indexOf('q');
  assert.ok(q <= GREEDY + 2, `the quiet request waited for ${q} short answers (at most one per greedy connection and the one running; the backlog was ${GREEDY * EACH})`);
  assert.is(log.length, GREEDY * EACH + 1);
  assert.is(turns.waiting, 0);
});

test('FairTurns: a queued request whose client gave up is not run', async () => {
  const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
  const log: string[] = [];
  const first = turns.run({}, sliced(log, 'long', 3));
  let gaveUp = false;
  const dropped = turns.run({}, sliced(log, 'dropped', 1), () => (gaveUp ? new Error('gave up') : null));
  assert.instance(dropped, Promise, 'queued behind the running request');
  const outcome = (dropped as Promise<string>).then(() => null, (e: Error) => e);
  gaveUp = true;
  await first;
  const err = await outcome;
  assert.is(err?.message, 'gave up');
  assert.not.ok(log.includes('dropped'), `the dropped request ran: ${log.join(' ')}`);
});

test('FairTurns.whenIdle: background work waits until no request runs or waits', async () => {
  const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
  const log: string[] = [];
  await turns.whenIdle(); // nothing to wait for
  const work = [turns.run({}, sliced(log, 'a', 3)), turns.run({}, sliced(log, 'b', 2))];
  const idle = turns.whenIdle().then(() => { log.push('idle'); });
  await Promise.all([...work, idle]);
  assert.is(log[log.length - 1], 'idle', log.join(' '));
  assert.is(log.filter((x) => x !== 'idle').length, 5);
});

test('FairTurns.whenIdle: a lone answer paused between its slices is not idle time', async () => {
  const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
  const log: string[] = [];
  const lone = turns.run({}, sliced(log, 'lone', 4));
  assert.instance(lone, Promise, 'the answer runs in slices');
  const idle = turns.whenIdle().then(() => { log.push('idle'); });
  await Promise.all([lone, idle]);
  // With the answer's turn ended before it was queued again, each pause looked idle: 'lone idle lone lone lone'.
  assert.equal(log, ['lone', 'lone', 'lone', 'lone', 'idle']);
});

test('a daemon under a flood of 200 pipelined searches over 8 connections answers another client\'s find_symbol before the backlog', async () => {
  const root = tempDir('fair-flood');
  const FILES = 40, LINES = 400, CONNS = 8, EACH = 25;
  writeFloodTree(root, FILES, LINES);
  const d = await Daemon.start({ root, stateDir: join(tempDir('fair-state'), 's'), watch: 'off', warmup: false, turns: { sliceMs: 1, now: countingClock() } });
  try {
    await waitFor('the start-up build', () => d.status().daemon.startup === 'done' && d.status().index.warm, 60_000);
    const seen = await askDuringFlood(d.info.url, d.info.token, CONNS, EACH);
    assertAnsweredBeforeBacklog(root, seen, CONNS);
    // Sliced answers are whole answers: every line of the tree, counted in full.
    assert.equal(seen.totals, [FILES * LINES]);
  } finally {
    await d.shutdown('test over');
  }
});

test('a search paused while a write lands starts again and answers from one generation', async () => {
  const root = tempDir('fair-gen');
  writeFloodTree(root, 6, 300);
  const idx = await openEvidexIndex(root, { stateDir: tempDir('fair-gen-state') });
  try {
    await idx.refresh();
    let pauses = 0;
    let wrote = false;
    const pace: Pace = {
      due: () => true,
      pause: async () => {
        pauses++;
        if (wrote) return;
        wrote = true;
        // The first file is already scanned when the search pauses: an answer that went on would miss these lines.
        appendFileSync(join(root, 'flood/m0.py'), `late = 1  # ${FLOOD_QUERY}\nlater = 2  # ${FLOOD_QUERY}\n`);
        await idx.update(['flood/m0.py']);
      },
    };
    const paced = await idx.runTool('search_code', { query: FLOOD_QUERY, limit: 5 }, pace);
    assert.ok(pauses > 1, `the search ran in slices (${pauses} pauses)`);
    const after = await idx.runTool('search_code', { query: FLOOD_QUERY, limit: 5 });
    assert.is(paced.total, 6 * 300 + 2);
    assert.equal(paced, after);
  } finally {
    await idx.close();
  }
});

test.run();
