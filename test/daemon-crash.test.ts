// kill -9 of the daemon in the middle of a large (re-)index: the next start must
// answer exactly like a fresh index of the same tree. The tree is a copy of part
// of this machine's Python stdlib (found at run time, never a fixed path).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, cpSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect, RpcError } from '../client/connection.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { startDaemon, stopDaemon, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { stdlibRoot } from './helpers/corpus.js';
import { Methods } from '../protocol/messages.js';
import { lacks, testUnless } from './helpers/skip.js';

test.after(() => cleanupTemp());

/** A few MB of real Python: top-level modules plus some packages (no tests, no caches, no site-packages). */
function makeTree(): string {
  const lib = stdlibRoot();
  const root = join(tempDir('crash'), 'stdlib-part');
  const pkgs = ['email', 'json', 'asyncio', 'unittest', 'xml', 'concurrent', 'logging', 'http', 'importlib', 'multiprocessing'];
  const skip = (src: string) => !/(__pycache__|site-packages|[/\\]test[/\\]?$|[/\\]tests[/\\]?$)/.test(src);
  for (const p of pkgs) cpSync(join(lib, p), join(root, p), { recursive: true, filter: skip });
  for (const name of readdirSync(lib)) {
    if (name.endsWith('.py') && statSync(join(lib, name)).isFile()) cpSync(join(lib, name), join(root, name));
  }
  return realpathSync(root);
}

const QUERIES: [string, unknown][] = [
  ['search_code', { query: 'def ', limit: 200 }],
  ['search_code', { query: 'import os', limit: 200 }],
  ['search_code', { query: 'class Message', case_sensitive: true, limit: 200 }],
  ['search_code', { query: 'CRASH_EDIT_MARK', limit: 200 }],
  ['search_code', { query: 'json/', limit: 200 }],
  ['find_symbol', { name: '__init__', limit: 200 }],
  ['find_symbol', { name: 'Message' }],
  ['find_symbol', { name: 'get_event_loop', limit: 200 }],
  ['find_importers', { module_name: 'email.message' }],
  ['find_importers', { module_name: 'json' }],
  ['find_importers', { module_name: 'asyncio.events' }],
  ['read_evidence', { path: 'json/__init__.py', start_line: 1, end_line: 40 }],
];

/** Everything a client can observe about the index, minus the generation counter. */
async function snapshot(d: TestDaemon): Promise<unknown> {
  const c = await connect(d.root, { env: d.env });
  try {
    // A complete index answers at once while the start-up catch-up runs (by design), so what a
    // snapshot compares is the index after that catch-up: wait for it and for the watcher's queue.
    await waitFor('the start-up catch-up', async () => {
      const st = await c.request(Methods.indexStatus);
      return st.daemon.startup !== 'running' && st.daemon.pendingUpdates === 0 ? true : null;
    }, 120_000);
    const answers: unknown[] = [];
    for (const [name, args] of QUERIES) {
      try {
        const r = await c.request(Methods.toolsCall, { name, arguments: args });
        assertEvidenceChecks(d.root, r.evidence);
        answers.push({ evidence: r.evidence, total: r.total });
      } catch (e) {
        if (!(e instanceof RpcError)) throw e;
        answers.push({ error: e.data });
      }
    }
    const s = await c.request(Methods.indexStatus);
    const { files, pythonFiles, symbols, imports, lines, bytes, state } = s.index;
    return { answers, counts: { files, pythonFiles, symbols, imports, lines, bytes, state } };
  } finally { await c.close(); }
}

/** Starts a daemon for `root` (under `home`, or a fresh state folder), takes its snapshot, stops it. */
async function snapshotOfNewDaemon(root: string, home?: string): Promise<unknown> {
  const d = await startDaemon(root, { home });
  try { return await snapshot(d); } finally { await stopDaemon(d); }
}

/** Starts a daemon, waits `ms` after it listens, notes whether its start-up build is still running, and kill -9s it. */
async function killDuringBuild(root: string, home: string, ms: number): Promise<boolean> {
  const d = await startDaemon(root, { home });
  await new Promise((r) => setTimeout(r, ms));
  let running = false;
  try {
    const c = await connect(root, { env: d.env });
    const s = await c.request(Methods.indexStatus);
    running = s.daemon.startup === 'running' || s.daemon.pendingUpdates > 0;
    await c.close();
  } catch { /* it may be busy; the kill still counts */ }
  d.proc.kill('SIGKILL');
  const r = await d.exited;
  assert.is(r.signal, 'SIGKILL');
  return running;
}

testUnless(lacks.python3())('kill -9 during the first build and during a catch-up: the next start answers like a fresh index', async () => {
  const root = makeTree();
  const home = tempDir('home');
  const t0 = performance.now();
  const hits: boolean[] = [];
  for (const ms of [150, 400, 900]) hits.push(await killDuringBuild(root, home, ms));
  console.log(`  first build killed at 150/400/900 ms; build still running at the kill: ${hits.join('/')}`);
  assert.ok(hits.some(Boolean), 'at least one kill landed mid-build');

  const recovered = await snapshotOfNewDaemon(root, home);
  const expected1 = await snapshotOfNewDaemon(root);
  assert.equal(recovered, expected1, 'after kill -9 in the first build, answers equal a fresh index');

  // Change many files while no daemon runs, then kill the catch-up that the next start does.
  const py = readdirSync(join(root, 'email')).filter((n) => n.endsWith('.py'));
  for (const n of py) appendFileSync(join(root, 'email', n), '\nCRASH_EDIT_MARK = 1\n');
  const caughtUp = await killDuringBuild(root, home, 60);
  const afterEdits = await snapshotOfNewDaemon(root, home);
  const expected = await snapshotOfNewDaemon(root);
  assert.equal(afterEdits, expected, 'after kill -9 in the catch-up, answers equal a fresh index');
  const marks = (afterEdits as { answers: { total?: number }[] }).answers[3].total;
  assert.is(marks, py.length, 'every edited file is searchable');
  const before = recovered as { counts: { files: number } };
  console.log(`  catch-up killed mid-run: ${caughtUp}; ${before.counts.files} files; whole test ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

test.run();
