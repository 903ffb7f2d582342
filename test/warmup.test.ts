// The request-path warm-up (daemon/warmup.ts): which calls it makes, and how
// it shares the event loop. The daemon running it for real is tested in
// daemon-protocol.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { createServer, connect as connectTcp, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { validateToolCall } from '../indexer/query/schemas.js';
import { warmRequestPath, warmupCalls, WARMUP_SLICE_MS, type WarmupCall } from '../daemon/warmup.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/daemon.js';

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

test('warmRequestPath: runs every call in order, and data arriving on a socket is read between slices', async () => {
  // A loopback socket whose peer has already written: its bytes wait in the kernel, as a
  // client's request would, and are read only when the loop gets to poll for I/O.
  const server = createServer((s) => s.end('request'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sock = connectTcp((server.address() as AddressInfo).port, '127.0.0.1');
  await once(sock, 'connect');
  await new Promise((resolve) => setTimeout(resolve, 50)); // the peer's write lands
  const seen: string[] = [];
  let readAfter = -1;
  sock.once('data', () => { readAfter = seen.length; });
  const calls: WarmupCall[] = Array.from({ length: 40 }, (_, i) => ({ name: 'find_symbol', arguments: { name: `n${i}` } }));
  const r = await warmRequestPath(calls, async (c) => { seen.push((c.arguments as { name: string }).name); spin(WARMUP_SLICE_MS / 4); }, () => false);
  sock.destroy();
  server.close();
  assert.equal(seen, calls.map((c) => (c.arguments as { name: string }).name));
  assert.equal({ calls: r.calls, outcome: r.outcome }, { calls: 40, outcome: 'done' });
  // Four calls fill a slice: the socket is read after the first slices, not after all 40 calls.
  assert.ok(readAfter > 0 && readAfter <= 8, `the socket was read after ${readAfter} of 40 calls`);
  assert.ok(r.busyMs >= 40 * WARMUP_SLICE_MS / 4, `busy ${r.busyMs} ms`);
});

test('warmRequestPath: stops when told to, and at its time budget', async () => {
  const calls = Array.from({ length: 1000 }, (): WarmupCall => ({ name: 'find_importers', arguments: { module_name: 'os' } }));
  let n = 0;
  const stopped = await warmRequestPath(calls, async () => { n++; }, () => n >= 5);
  assert.equal(stopped, { calls: 5, busyMs: stopped.busyMs, outcome: 'stopped' });

  const budget = await warmRequestPath(calls, async () => spin(1), () => false, 10);
  assert.is(budget.outcome, 'budget');
  assert.ok(budget.calls < 1000, `${budget.calls} calls within a 10 ms budget`);
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

test('IndexHandle.sample: names, modules and paths of the index itself, spread over each list', async () => {
  const idx = await openEvidexIndex(FIXTURE, { stateDir: join(tempDir('sample'), 'state') });
  try {
    await idx.refresh();
    const all = idx.sample(100_000);
    const few = idx.sample(3);
    // Every name it gives is one find_symbol / find_importers / read_evidence knows.
    for (const name of all.symbols) assert.ok((await idx.runTool({ name: 'find_symbol', args: { name } })).total > 0, name);
    for (const module_name of all.modules) assert.ok((await idx.runTool({ name: 'find_importers', args: { module_name } })).total > 0, module_name);
    assert.is(all.paths.length, idx.status().files);
    assert.equal(new Set(all.paths).size, all.paths.length);
    for (const key of ['symbols', 'modules', 'paths'] as const) {
      assert.ok(all[key].length > 3, `${key}: the fixture has more than 3`);
      assert.is(few[key].length, 3);
      // Spread: the pick starts at the first and reaches past the middle of the list.
      assert.is(few[key][0], all[key][0]);
      assert.ok(all[key].indexOf(few[key][2]) >= all[key].length / 2, `${key}: ${few[key]} from ${all[key].length}`);
    }
  } finally {
    await idx.close();
    cleanupTemp();
  }
});

test.run();
