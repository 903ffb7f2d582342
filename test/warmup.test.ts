// The request-path warm-up (daemon/warmup.ts): which calls it makes, and how
// it shares the event loop. The daemon running it for real is tested in
// daemon-protocol.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateToolCall } from '../indexer/query/schemas.js';
import { warmRequestPath, warmupCalls, WARMUP_SLICE_MS, type WarmupCall } from '../daemon/warmup.js';

const SAMPLE = { symbols: ['a', 'load_config', 'Parser.parse'], modules: ['os', 'pkg.mod'], paths: ['src/x.py', 'README.md'] };

/** Blocks the thread for `ms` (the warm-up's calls are synchronous work). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* busy */ }
}

test('warmupCalls: every round a symbol and a module lookup, every tenth a search and a read, all valid calls', () => {
  const calls = [...warmupCalls(SAMPLE, 25)];
  const count = (name: string) => calls.filter((c) => c.name === name).length;
  assert.is(count('find_symbol'), 25);
  assert.is(count('find_importers'), 25);
  assert.is(count('search_code'), 3); // rounds 0, 10, 20
  assert.is(count('read_evidence'), 3);
  assert.is(calls.length, 56);
  // Names are cycled in order, so every sampled name is used.
  assert.equal(calls.filter((c) => c.name === 'find_symbol').slice(0, 4).map((c) => c.arguments), [
    { name: 'a' }, { name: 'load_config' }, { name: 'Parser.parse' }, { name: 'a' },
  ]);
  // Search queries skip names too short to be typical queries.
  assert.equal(calls.filter((c) => c.name === 'search_code').map((c) => c.arguments), [
    { query: 'load_config' }, { query: 'Parser.parse' }, { query: 'load_config' },
  ]);
  // Each call passes the tool's own schema, as the daemon will check it.
  for (const c of calls) validateToolCall(c.name, c.arguments);
});

test('warmupCalls: an empty index gives no calls; long names are cut to a query of 20 characters', () => {
  assert.is([...warmupCalls({ symbols: [], modules: [], paths: [] }, 100)].length, 0);
  const long = 'x'.repeat(250);
  const search = [...warmupCalls({ symbols: [long], modules: [], paths: [] }, 1)].find((c) => c.name === 'search_code');
  assert.equal(search?.arguments, { query: 'x'.repeat(20) });
  validateToolCall('find_symbol', { name: long }); // the name itself is a valid find_symbol argument
});

test('warmRequestPath: runs every call in order and yields to the event loop between slices', async () => {
  const calls: WarmupCall[] = Array.from({ length: 40 }, (_, i) => ({ name: 'find_symbol', arguments: { name: `n${i}` } }));
  const seen: string[] = [];
  // A callback queued before the warm-up starts, as a client's request would be: it must run while calls remain.
  let ranAfter = -1;
  setImmediate(() => { ranAfter = seen.length; });
  const r = await warmRequestPath(calls, async (c) => { seen.push((c.arguments as { name: string }).name); spin(WARMUP_SLICE_MS / 4); }, () => false);
  assert.equal(seen, calls.map((c) => (c.arguments as { name: string }).name));
  assert.is(r.calls, 40);
  assert.is(r.outcome, 'done');
  assert.ok(ranAfter > 0 && ranAfter < 40, `the queued callback ran after ${ranAfter} of 40 calls`);
  assert.ok(r.busyMs >= 40 * WARMUP_SLICE_MS / 4, `busy ${r.busyMs} ms`);
});

test('warmRequestPath: stops when told to, and at its time budget', async () => {
  const calls = Array.from({ length: 1000 }, (): WarmupCall => ({ name: 'find_importers', arguments: { module_name: 'os' } }));
  let n = 0;
  const stopped = await warmRequestPath(calls, async () => { n++; }, () => n >= 5);
  assert.equal(stopped, { calls: 5, busyMs: stopped.busyMs, outcome: 'stopped' });

  const budget = await warmRequestPath(calls, async () => spin(1), () => false, 10);
  assert.is(budget.outcome, 'budget');
  assert.ok(budget.calls > 0 && budget.calls < 1000, `${budget.calls} calls within a 10 ms budget`);
  assert.ok(budget.busyMs >= 10, `busy ${budget.busyMs} ms`);
});

test('warmRequestPath: an error from a call ends the warm-up with that error', async () => {
  const calls = Array.from({ length: 10 }, (): WarmupCall => ({ name: 'find_symbol', arguments: { name: 'x' } }));
  let n = 0;
  try {
    await warmRequestPath(calls, async () => { if (++n === 3) throw new Error('boom'); }, () => false);
    assert.unreachable('expected the error');
  } catch (e) {
    assert.is((e as Error).message, 'boom');
  }
  assert.is(n, 3);
});

test.run();
