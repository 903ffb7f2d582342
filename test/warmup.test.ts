// The request-path warm-up (daemon/warmup.ts): which calls it makes, and how
// it shares the event loop. The daemon running it for real is tested in
// daemon-protocol.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openEvidexIndex } from '../indexer/index.js';
import { validateToolCall } from '../indexer/query/schemas.js';
import { warmRequestPath, warmupCalls, WARMUP_SLICE_MS, type WarmupCall } from '../daemon/warmup.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';

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

/**
 * A loopback server in a worker thread (its own event loop), so it can write to
 * us while this thread is busy: `go` makes it write to the connected socket.
 */
const PEER = `
const { parentPort } = require('node:worker_threads');
const net = require('node:net');
let peer = null;
const srv = net.createServer((s) => { s.on('error', () => {}); peer = s; parentPort.postMessage('accepted'); });
srv.listen(0, '127.0.0.1', () => parentPort.postMessage(srv.address().port));
parentPort.on('message', (m) => { if (m === 'go') peer.write('request'); else { peer?.destroy(); srv.close(); parentPort.close(); } });
`;

test('warmRequestPath: runs every call in order, and bytes arriving on a socket meanwhile are read between slices', async () => {
  const worker = new Worker(PEER, { eval: true });
  const [port] = await once(worker, 'message') as [number];
  const sock = connectTcp(port, '127.0.0.1');
  sock.on('error', () => undefined); // either end's close may reset the other: not this test's concern
  await Promise.all([once(sock, 'connect'), once(worker, 'message')]); // connected, and accepted there
  const seen: string[] = [];
  let readAfter = -1;
  sock.once('data', () => { readAfter = seen.length; });
  const calls: WarmupCall[] = Array.from({ length: 200 }, (_, i) => ({ name: 'find_symbol', arguments: { name: `n${i}` } }));
  // The first call has the peer write: the bytes land in the kernel while calls run, as a
  // client's request would, and only the loop's poll for I/O reads them.
  const r = await warmRequestPath(calls, async (c) => {
    if (seen.length === 0) worker.postMessage('go');
    seen.push((c.arguments as { name: string }).name);
    spin(WARMUP_SLICE_MS / 4);
  }, () => false);
  sock.destroy();
  worker.postMessage('stop');
  assert.equal(seen, calls.map((c) => (c.arguments as { name: string }).name));
  assert.equal({ calls: r.calls, outcome: r.outcome }, { calls: 200, outcome: 'done' });
  // Read at one of the yields (every four calls), not only once all 200 are done.
  assert.ok(readAfter > 0 && readAfter < 200, `the socket was read after ${readAfter} of 200 calls`);
  assert.ok(r.busyMs >= 200 * WARMUP_SLICE_MS / 4, `busy ${r.busyMs} ms`);
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
    for (const name of all.symbols) assert.ok((await idx.runTool('find_symbol', { name })).total > 0, name);
    for (const module_name of all.modules) assert.ok((await idx.runTool('find_importers', { module_name })).total > 0, module_name);
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
