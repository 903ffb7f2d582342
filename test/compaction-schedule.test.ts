// CompactionSchedule (indexer/compaction-schedule.ts) on a clock the test
// moves: a compaction due runs once the writes have been quiet for
// COMPACT_QUIET_MS with none queued, at most COMPACT_MAX_WAIT_MS after it fell
// due, at once when urged, never when not due or closed, and one wait at a
// time. Time stands still until the test moves it, so nothing here depends on
// the machine's speed. (text-map.test runs it inside a real index.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMPACT_MAX_WAIT_MS, COMPACT_QUIET_MS, CompactionSchedule } from '../indexer/compaction-schedule.js';

/** Lets every promise continuation that is ready run (a macrotask turn comes after all of them). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function scheduled() {
  const t = { now: 0, due: true, closed: false, runs: 0, waits: [] as Array<{ ms: number; go: () => void }>, writesDone: null as (() => void) | null };
  const schedule = new CompactionSchedule({
    due: () => t.due,
    closed: () => t.closed,
    writes: () => new Promise<void>((resolve) => { t.writesDone = resolve; }),
    run: () => { t.runs++; },
  }, { now: () => t.now, delay: (ms) => new Promise<void>((go) => { t.waits.push({ ms, go }); }) });
  /** Moves the clock to the end of the wait the schedule asked for (there must be exactly one), lets it run on. */
  const waitOut = async (): Promise<number> => {
    assert.is(t.waits.length, 1, 'one wait asked');
    const w = t.waits.shift()!;
    t.now += w.ms;
    w.go();
    await settle();
    return w.ms;
  };
  return { t, schedule, waitOut };
}

test('a compaction due runs once no update has landed for COMPACT_QUIET_MS; a landing restarts the wait', async () => {
  const { t, schedule, waitOut } = scheduled();
  t.now = 10_000;
  schedule.landed();
  assert.not.ok(schedule.mayCompact(), 'an update just landed');
  schedule.whenQuiet();
  schedule.whenQuiet();
  await settle();
  assert.is(t.waits.length, 1, 'one wait at a time');
  assert.is(t.waits[0].ms, COMPACT_QUIET_MS);
  // Half-way through, another update lands: the wait ends without a run and starts again from it.
  t.now += COMPACT_QUIET_MS / 2;
  schedule.landed();
  t.waits[0].ms = 0;
  await waitOut();
  assert.is(t.runs, 0);
  assert.is(await waitOut(), COMPACT_QUIET_MS);
  assert.is(t.runs, 1, 'run once quiet');
  assert.ok(schedule.mayCompact());
});

test('a queued writer keeps it waiting until the writes have run, however long ago the last update landed', async () => {
  const { t, schedule, waitOut } = scheduled();
  schedule.queued();
  assert.not.ok(schedule.mayCompact(), 'a writer is queued');
  schedule.whenQuiet();
  assert.is(await waitOut(), 0, 'quiet by the clock already');
  assert.ok(t.writesDone, 'it waits for the queued writes instead of polling');
  assert.is(t.runs, 0);
  schedule.landed();
  schedule.settled();
  t.writesDone!();
  await settle();
  assert.is(t.runs, 0, 'the write that ran just landed');
  assert.is(await waitOut(), COMPACT_QUIET_MS);
  assert.is(t.runs, 1);
});

test('a tree that never rests: it runs COMPACT_MAX_WAIT_MS after it fell due; a settled pass times the next one afresh', async () => {
  const { t, schedule } = scheduled();
  const step = COMPACT_QUIET_MS - 100;
  /** Updates land every `step` ms (never quiet for COMPACT_QUIET_MS) until it runs: how long after the round began. */
  const round = async (): Promise<number> => {
    const start = t.now;
    let nextLanding = start;
    const land = () => { schedule.landed(); nextLanding += step; };
    land();
    schedule.whenQuiet();
    await settle();
    while (t.runs === 0) {
      const w = t.waits.shift()!;
      const end = t.now + w.ms;
      t.now = Math.min(end, nextLanding);
      if (t.now === nextLanding) land();
      w.go();
      await settle();
    }
    return t.now - start;
  };
  assert.is(await round(), COMPACT_MAX_WAIT_MS);
  // The pass that ran wrote it: the next one waits its whole COMPACT_MAX_WAIT_MS again.
  t.runs = 0;
  schedule.passEnded(true);
  assert.is(await round(), COMPACT_MAX_WAIT_MS);
  // A pass that ended with it still due (not written) keeps the time it fell due: it runs at once.
  schedule.passEnded(false);
  await settle();
  assert.is(t.waits.length, 0);
  assert.is(t.runs, 2, 'still due, waited its most already');
});

test('urged, it may run at once until the pass ends; not due or closed, it never waits nor runs', async () => {
  const { t, schedule } = scheduled();
  schedule.landed();
  assert.not.ok(schedule.mayCompact());
  schedule.urge();
  assert.ok(schedule.mayCompact(), 'urged');
  t.due = false;
  schedule.passEnded(true);
  assert.not.ok(schedule.mayCompact(), 'the urge ends with the pass');
  schedule.whenQuiet();
  t.due = true;
  t.closed = true;
  schedule.whenQuiet();
  await settle();
  assert.is(t.waits.length, 0);
  assert.is(t.runs, 0);
  // Closed while waiting: it stops without a run.
  t.closed = false;
  schedule.whenQuiet();
  await settle();
  t.closed = true;
  t.waits.shift()!.go();
  await settle();
  assert.is(t.runs, 0);
});

test.run();
