// A daemon whose root is deleted for good exits by itself after a grace period
// (daemon/server.ts, ROOT_GONE_GRACE_MS; EVIDEX_ROOT_GONE_GRACE gives tests a short one),
// with a log line; `daemon prune` then has nothing running to stop. A root made again
// within the grace is re-indexed as before, and the daemon stays. Real daemons, real folders.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Client } from '../client/connection.js';
import { Methods } from '../protocol/messages.js';
import { evidex } from './helpers/cli.js';
import { fixtureCopy, startDaemon, stopDaemon, waitFor, waitWatcherReady, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';

let d: TestDaemon | undefined;
let c: Client | undefined;
test.after.each(async () => {
  await c?.close().catch(() => undefined);
  if (d) await stopDaemon(d);
  d = c = undefined;
  cleanupTemp();
});

const line = (d: TestDaemon, re: RegExp): string | undefined => d.log().split('\n').find((l) => re.test(l));

test('root deleted for good: the daemon exits after the grace, says why, and prune removes its state', async () => {
  const root = fixtureCopy();
  d = await startDaemon(root, { env: { EVIDEX_ROOT_GONE_GRACE: '1s' } });
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  rmSync(root, { recursive: true, force: true });
  const exit = await d.exited;
  assert.is(exit.code, 0, d.log());
  assert.ok(line(d, /root: exits in 1s unless a folder is back at /), d.log());
  assert.ok(line(d, new RegExp(`shutting down: root: ${root} has been gone for 1s; nothing to serve`)), d.log());
  const prune = await evidex(['daemon', 'prune'], { cwd: tempDir('cwd'), home: d.home });
  assert.is(prune.code, 0, prune.stderr);
  assert.not.match(prune.stdout, /still runs/);
  assert.match(prune.stdout, /removed/i);
});

test('root made again within the grace: re-indexed, and the daemon stays past the grace', async () => {
  const root = fixtureCopy();
  const again = join(tempDir('again'), 'copy');
  cpSync(FIXTURE, again, { recursive: true, verbatimSymlinks: true });
  d = await startDaemon(root, { env: { EVIDEX_ROOT_GONE_GRACE: '2s' } });
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  rmSync(root, { recursive: true, force: true });
  const armed = await waitFor('the grace armed', () => line(d!, /root: exits in 2s unless/));
  const since = Date.parse(armed.slice(0, armed.indexOf(' ')));
  renameSync(again, root); // one rename: the folder is back whole
  await waitFor('the re-index', () => line(d!, /root: the folder at .* is indexed/), 20_000);
  // Past the grace as the daemon counts it (its log's clock), it still answers.
  await waitFor('the grace over', () => Date.now() > since + 3000, 10_000, 100);
  const r = await c.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: 'COLLECTION_NAME' } });
  assert.ok(r.evidence.length > 0);
  assert.is(d.proc.exitCode, null, d.log());
  assert.not.ok(line(d, /shutting down/), d.log());
});

test.run();
