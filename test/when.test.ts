// local/when.ts: a daemon's UTC times as a reader of the CLI wants them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Read before when.ts uses any Date: local time is UTC+2 with no summer time here, so local and UTC differ.
process.env.TZ = 'Etc/GMT-2';
const { clock, when, whenIn } = await import('../local/when.js');

const now = Date.parse('2026-12-07T05:30:00.000Z'); // 07:30:00 local

test('a time of today is its local clock and its age', () => {
  assert.is(when('2026-12-07T05:28:13.760Z', now), '07:28:13, 1 min ago');
  assert.is(when('2026-12-07T05:29:58.000Z', now), '07:29:58, 2 s ago');
  assert.is(when('2026-12-07T01:00:00.000Z', now), '03:00:00, 4 h ago');
});

test('a time of another day carries its local date', () => {
  // 22:59 UTC on the 6th is the 7th at 00:59 local: today.
  assert.is(when('2026-12-06T22:59:00.000Z', now), '00:59:00, 6 h ago');
  assert.is(when('2026-12-06T21:59:00.000Z', now), '2026-12-06 23:59:00, 7 h ago');
  assert.is(when('2026-12-04T05:30:00.000Z', now), '2026-12-04 07:30:00, 3 days ago');
  assert.is(when('2026-12-06T05:30:00.000Z', now), '2026-12-06 07:30:00, 1 day ago');
});

test('clock is the same local time without its age', () => {
  assert.is(clock('2026-12-07T05:28:13.760Z', now), '07:28:13');
  assert.is(clock('2026-12-06T21:59:00.000Z', now), '2026-12-06 23:59:00');
  assert.is(clock('not a time', now), 'not a time');
});

test('a time ahead of this clock, or none readable, is said as it is', () => {
  assert.is(when('2026-12-07T05:31:00.000Z', now), '07:31:00, ahead of this clock');
  assert.is(when('not a time', now), 'not a time');
});

test("the ISO times in a daemon's sentence are said as the local clock, the rest as it was", () => {
  assert.is(whenIn('/r was replaced: another folder stands at that path (since 2026-12-07T05:28:13.760Z); re-indexing it', now),
    '/r was replaced: another folder stands at that path (since 07:28:13, 1 min ago); re-indexing it');
  assert.is(whenIn('no time here, 2026-12-07 nor 05:28', now), 'no time here, 2026-12-07 nor 05:28');
});

test.run();
