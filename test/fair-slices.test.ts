// find_symbol and find_importers in slices (issue 31, point 4's leftovers):
// their work is bounded by the page except for a name with very many
// definitions or importers, and a re-export graph followed through many
// barrels. Those run in slices like search_code. As in fair-service.test.ts,
// what is asserted is never a time: the slice clock is a counter.
//  - sortInSlices sorts as Array.prototype.sort does (stable), yielding.
//  - Each worst case, paced by a clock that always says "due", pauses and
//    answers exactly what it answers in one go.
//  - A find_importers --via-reexports paused while a write lands answers from
//    one generation: it equals the answer asked afterwards, new file included.
//  - Under FairTurns, a light find_symbol asked while a crowded call runs is
//    answered before it (in one go, the crowded call would answer first).
//  - A real daemon under 8 connections pipelining find_symbol for a name with
//    thousands of definitions answers another client's find_symbol after at
//    most one flood answer per flooding connection, and every flood answer
//    is whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Daemon } from '../daemon/server.js';
import { FairTurns } from '../daemon/fair-turns.js';
import { openEvidexIndex } from '../indexer/index.js';
import type { IndexHandle, Pace } from '../indexer/api.js';
import { drain, sortInSlices } from '../indexer/store/in-slices.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { waitFor } from './helpers/daemon.js';
import { askDuringFlood, assertAnsweredBeforeBacklog, CROWDED_NAME, CROWDED_PACKAGE, LONE_SYMBOL, writeCrowdedTree } from './helpers/flood.js';
import { countingClock, eagerPace } from './helpers/clock.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';
import { mulberry32 } from './helpers/random.js';

test.after(() => cleanupTemp());

const FILES = 600, DEFS = 10, BARRELS = 40;

/** A crowded tree (helpers/flood.ts) with `extra` files, indexed, its search text and symbol index in memory. */
async function warmCrowdedIndex(name: string, files: number, defs: number, barrels: number, extra: Record<string, string> = {}): Promise<{ root: string; idx: IndexHandle }> {
  const root = tempDir(name);
  writeCrowdedTree(root, files, defs, barrels);
  if (Object.keys(extra).length) write(root, extra);
  const idx = await openEvidexIndex(root, { stateDir: tempDir(`${name}-state`) });
  try {
    await idx.refresh();
    await waitFor('the search text and the symbol index in memory', () => idx.status().warm, 60_000);
  } catch (e) {
    await idx.close();
    throw e;
  }
  return { root, idx };
}

test('sortInSlices: the order and stability of Array.prototype.sort, in slices', () => {
  const random = mulberry32(31);
  for (const n of [0, 1, 7, 2048, 2049, 5000, 20_000]) {
    // Few distinct keys, so stability shows: equal keys keep their input order.
    const xs = Array.from({ length: n }, (_, i) => ({ key: Math.floor(random() * 50), i }));
    const order = (a: { key: number }, b: { key: number }) => a.key - b.key;
    const expected = [...xs].sort(order);
    let yields = 0;
    const it = sortInSlices([...xs], order, () => true);
    let r = it.next();
    while (!r.done) { yields++; r = it.next(); }
    assert.equal(r.value, expected, `n = ${n}`);
    if (n > 2048) assert.ok(yields > 0, `a sort of ${n} yielded (${yields} times)`);
    assert.equal(drain(sortInSlices([...xs], order, () => false)), expected, `n = ${n}, in one go`);
    // Already in order (runs are copied, not merged), and in reverse.
    assert.equal(drain(sortInSlices([...expected], order, () => true)), expected, `n = ${n}, sorted`);
    assert.equal(drain(sortInSlices([...xs].reverse(), order, () => true)), [...xs].reverse().sort(order), `n = ${n}, reversed`);
  }
});

test('find_symbol and find_importers on a crowded tree: paced, they pause and answer what they answer in one go', async () => {
  const { root, idx } = await warmCrowdedIndex('slices', FILES, DEFS, BARRELS);
  try {
    const calls: Array<[string, Record<string, unknown>, number]> = [
      ['find_symbol', { name: CROWDED_NAME }, FILES * DEFS],
      ['find_symbol', { name: CROWDED_NAME, offset: FILES * DEFS - 5 }, FILES * DEFS],
      ['find_symbol', { name: CROWDED_NAME, kind: 'function', path_prefix: 'crowd/' }, FILES * DEFS],
      ['find_symbol', { name: `mod.${CROWDED_NAME}` }, FILES * DEFS],
      ['find_importers', { module_name: CROWDED_PACKAGE, offset: 20 }, FILES],
      ['find_importers', { module_name: CROWDED_PACKAGE, via_reexports: true }, FILES],
      ['find_importers', { module_name: 'chain/core.ts', via_reexports: true, offset: BARRELS * 10 - 3 }, BARRELS * 11],
    ];
    for (const [name, args, total] of calls) {
      const pace = eagerPace();
      const paced = await idx.runTool(name, args, pace);
      const whole = await idx.runTool(name, args);
      assert.ok(pace.pauses > 0, `${name} ${JSON.stringify(args)} ran in slices (${pace.pauses} pauses)`);
      assert.is(paced.total, total, `${name} ${JSON.stringify(args)}`);
      assert.equal(paced, whole, `${name} ${JSON.stringify(args)}: the same answer paced and in one go`);
      assert.ok(paced.evidence.length > 0);
      assertEvidenceChecks(root, paced.evidence);
    }
    // The deepest importer of the chain reaches core.ts through every barrel, nearest first.
    const deep = await idx.runTool('find_importers', { module_name: 'chain/core.ts', via_reexports: true, path_prefix: `chain/use${String(BARRELS - 1).padStart(5, '0')}/`, limit: 1 });
    assert.is(deep.evidence[0].via?.length, BARRELS);
    assert.is(deep.evidence[0].via?.[0], `chain/b${String(BARRELS - 1).padStart(5, '0')}.ts`);
    assert.is(deep.evidence[0].via?.[BARRELS - 1], 'chain/b00000.ts');
  } finally {
    await idx.close();
  }
});

test('search_code paused while other searches run between its slices answers what it answers in one go', async () => {
  // A search holds its candidate blocks across its pauses; they were the signatures' scratch,
  // which the next search's match wrote over: the paused one then scanned other blocks (a
  // wrong line, a match on an empty line, or "evidence span outside FILE" under load).
  const { root, idx } = await warmCrowdedIndex('slices-search', FILES, DEFS, BARRELS);
  try {
    const others = ['return', 'import', 'chain'];
    let between = 0;
    const busy: Pace = {
      due: () => true,
      pause: async () => {
        await idx.runTool('search_code', { query: others[between++ % others.length], limit: 1 });
        await new Promise((r) => setImmediate(r));
      },
    };
    for (const args of [{ query: 'def ', limit: 200, offset: 300 }, { query: CROWDED_NAME, case_sensitive: true, limit: 50 }]) {
      between = 0;
      const paced = await idx.runTool('search_code', args, busy);
      const whole = await idx.runTool('search_code', args);
      assert.ok(between > 0, `${JSON.stringify(args)} ran in slices with searches between them (${between})`);
      assert.ok(whole.evidence.length > 0);
      assert.equal(paced, whole, JSON.stringify(args));
      assertEvidenceChecks(root, paced.evidence);
    }
  } finally {
    await idx.close();
  }
});

test('under FairTurns, a one-definition find_symbol asked after a crowded call started is answered first', async () => {
  const { idx } = await warmCrowdedIndex('slices-turns', FILES, DEFS, BARRELS, { 'zz_quiet.py': `def ${LONE_SYMBOL}():\n    return 1\n` });
  try {
    const heavy: Array<[string, Record<string, unknown>]> = [
      ['find_symbol', { name: CROWDED_NAME, offset: FILES * DEFS - 1 }],
      ['find_importers', { module_name: CROWDED_PACKAGE }],
      ['find_importers', { module_name: 'chain/core.ts', via_reexports: true }],
    ];
    for (const [name, args] of heavy) {
      const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
      const log: string[] = [];
      // The heavy call starts at once (the turns are idle); the light one comes while it runs.
      const a = Promise.resolve(turns.run({}, (pace) => idx.runTool(name, args, pace))).then(() => log.push('heavy'));
      const b = Promise.resolve(turns.run({}, (pace) => idx.runTool('find_symbol', { name: LONE_SYMBOL }, pace))).then(() => log.push('light'));
      await Promise.all([a, b]);
      // In one go, the heavy call would have answered before the light one was even run.
      assert.equal(log, ['light', 'heavy'], `${name} ${JSON.stringify(args)}`);
    }
  } finally {
    await idx.close();
  }
});

test('find_importers --via-reexports paused while a write lands starts again and answers from one generation', async () => {
  const { root, idx } = await warmCrowdedIndex('slices-gen', 4, 1, BARRELS);
  try {
    // The last page: chain/zz_late.ts comes last in path order.
    const args = { module_name: 'chain/core.ts', via_reexports: true, offset: BARRELS * 11 - 10, limit: 200 };
    const before = await idx.runTool('find_importers', args);
    let wrote = false;
    const pace: Pace = {
      due: () => true,
      pause: async () => {
        if (wrote) return;
        wrote = true;
        write(root, { 'chain/zz_late.ts': "import { core } from './b00000';\n" });
        await idx.update(['chain/zz_late.ts']);
      },
    };
    const paced = await idx.runTool('find_importers', args, pace);
    assert.ok(wrote, 'the answer paused');
    const after = await idx.runTool('find_importers', args);
    assert.is(after.total, before.total + 1);
    assert.equal(paced, after);
    assert.ok(paced.evidence.some((e) => e.path === 'chain/zz_late.ts'));
  } finally {
    await idx.close();
  }
});

test('a daemon under 8 connections pipelining find_symbol for a crowded name answers another client\'s find_symbol before the backlog', async () => {
  const root = tempDir('slices-flood');
  writeCrowdedTree(root, FILES, DEFS, 0);
  write(root, { 'zz_quiet.py': `def ${LONE_SYMBOL}():\n    return 1\n` });
  const CONNS = 8, EACH = 10;
  const d = await Daemon.start({ root, stateDir: join(tempDir('slices-flood-state'), 's'), watch: 'off', warmup: false, turns: { sliceMs: 1, now: countingClock() } });
  try {
    await waitFor('the start-up build', () => d.status().daemon.startup === 'done' && d.status().index.warm, 60_000);
    // The deepest page: every definition is ordered before it is cut.
    const seen = await askDuringFlood(d.info.url, d.info.token, CONNS, EACH, { name: 'find_symbol', arguments: { name: CROWDED_NAME, offset: FILES * DEFS - 1 } });
    assertAnsweredBeforeBacklog(root, seen, CONNS);
    assert.equal(seen.totals, [FILES * DEFS]);
  } finally {
    await d.shutdown('test over');
  }
});

test.run();
