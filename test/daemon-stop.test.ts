// A stop is prompt (issue 31 point 6): `daemon stop` during a first build
// ends it at the build's next commit instead of waiting for the build (which
// used to run on past the stop's grace and be SIGKILLed). The index left
// behind opens (in this process, as `evidex index` would), and the next start
// finishes the build: it ends holding what an index built in one go holds. The tree is a copy of part of this machine's
// Python standard library, found at run time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { connect, daemonStop } from '../client/connection.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { openEvidexIndex } from '../indexer/index.js';
import { Methods } from '../protocol/messages.js';
import { stdlibRoot } from './helpers/corpus.js';
import { startDaemon, stopDaemon, waitFor } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** The stdlib without its tests, caches and site-packages: some two thousand files. */
function makeTree(): string {
  const root = join(tempDir('stop'), 'stdlib');
  const skip = (src: string) => !/(__pycache__|site-packages|[/\\](test|tests|idle_test)$)/.test(src);
  cpSync(stdlibRoot(), root, { recursive: true, filter: skip });
  return realpathSync(root);
}

const QUERIES: [string, unknown][] = [
  ['search_code', { query: 'import os', limit: 200 }],
  ['find_symbol', { name: '__init__', limit: 200 }],
  ['find_importers', { module_name: 'email.message', limit: 200 }],
];

test('daemon stop during the first build ends it at its next commit; the index left opens, and the next start finishes the build', async () => {
  const root = makeTree();
  const rules = await RepoRules.load(root);
  const walked = (await walkRepo(root, rules)).files.length;
  const d = await startDaemon(root);
  const c = await connect(root, { env: d.env });
  // Stop once the build has committed its first files: mid-build, with most of the tree still to parse.
  const at = await waitFor('the first commit', async () => {
    const s = await c.request(Methods.indexStatus);
    return s.index.files > 0 && s.daemon.startup === 'running' ? s.index.files : null;
  }, 60_000, 5);
  await c.close();
  const t0 = performance.now();
  const stop = await daemonStop(root, { env: d.env });
  const stopMs = performance.now() - t0;
  assert.is(stop.how, 'shutdown', stop.message);
  assert.equal(await d.exited, { code: 0, signal: null });
  const log = d.log();
  assert.match(log, /index build stopped after [\d.]+ s \(the daemon is stopping\); what it wrote stays, and the next build carries on from it/);
  assert.not.match(log, /index ready/, 'the build did not run to its end');
  assert.not.match(log, /terminate called|Napi::Error|uncaught/, 'the parse workers were let finish their chunk, not killed inside the parser');

  // What the stop left: an index that opens, marked unfinished, holding part of the tree.
  const left = await openEvidexIndex(root, { stateDir: d.stateDir });
  const s = left.status();
  await left.close();
  assert.is(s.state, 'building');
  assert.ok(s.files >= at && s.files < walked, `${s.files} of ${walked} files committed`);
  console.log(`  stopped in ${stopMs.toFixed(0)} ms with ${at} of ${walked} files committed when asked, ${s.files} when it stopped`);

  // The next start finishes the build: every walked file, answers that check against the files.
  const d2 = await startDaemon(root, { home: d.home });
  try {
    const c2 = await connect(root, { env: d2.env });
    await waitFor('the build finished', async () => (await c2.request(Methods.indexStatus)).daemon.startup === 'done', 300_000, 100);
    const done = await c2.request(Methods.indexStatus);
    assert.is(done.index.state, 'ready');
    for (const [name, args] of QUERIES) {
      const r = await c2.request(Methods.toolsCall, { name, arguments: args });
      assert.ok(r.total > 0, name);
      assertEvidenceChecks(root, r.evidence);
    }
    // And it holds what one uninterrupted build holds.
    const fresh = await openEvidexIndex(root, { stateDir: tempDir('fresh') });
    try {
      await fresh.refresh();
      const f = fresh.status();
      assert.equal([done.index.files, done.index.symbols, done.index.imports, done.index.lines, done.index.bytes], [f.files, f.symbols, f.imports, f.lines, f.bytes]);
    } finally { await fresh.close(); }
    await c2.close();
  } finally {
    await stopDaemon(d2);
  }
});

test.run();
