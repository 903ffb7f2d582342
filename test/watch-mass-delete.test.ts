// `rm -rf repo && git clone … repo` under a running watcher: the deletion runs
// file by file before the root itself goes, and the watcher used to write the
// removals meanwhile, so the catch-up of the tree put back found no rows to
// keep and parsed every file again. Held until the deletion settles
// (watch/deletions.ts), they are never written when the root went with them,
// and written in full when it did not. RepoWatcher in-process over a real
// index (LMDB in a temp folder), real files (parts of this machine's Python
// standard library) and a clock the test moves (the hold's quiet period).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { IndexHandle, UpdateSummary } from '../indexer/api.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { DELETION_GAP_MS, DELETION_QUIET_MS, MASS_DELETION_GONE } from '../indexer/watch/deletions.js';
import { stdlibRoot } from './helpers/corpus.js';
import { ManualClock } from './helpers/clock.js';
import { waitFor } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** Every file under `dir` (relative POSIX paths), deepest first, as `rm -rf` deletes them. */
function filesOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name)); else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.reverse();
}

interface Rig { root: string; origin: string; handle: IndexHandle; watcher: RepoWatcher; clock: ManualClock; summaries: UpdateSummary[]; rewalks: number; touched: number; log: string[] }

async function rig(): Promise<Rig> {
  const origin = join(tempDir('origin'), 'repo');
  for (const p of ['json', 'email', 'logging']) cpSync(join(stdlibRoot(), p), join(origin, p), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  // Deleted with the rest, it queues a re-walk, which would find the tree half deleted.
  writeFileSync(join(origin, '.gitignore'), '*.log\n');
  const root = join(realpathSync(tempDir('work')), 'repo');
  cpSync(origin, root, { recursive: true });
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const rules = await RepoRules.load(root);
  const clock = new ManualClock();
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  const r: Rig = { root, origin, handle, watcher: null as unknown as RepoWatcher, clock, summaries: [], rewalks: 0, touched: 0, log: [] };
  r.watcher = await RepoWatcher.start({
    root, rules, index: handle, exclusive, timers: clock,
    onApplied: (a) => { if (a.summary) r.summaries.push(a.summary); if (a.refreshed) r.rewalks++; },
    onRootTouched: () => { r.touched++; },
    log: (line) => r.log.push(line),
  });
  return r;
}

/** Runs `fn` over a new rig, closed afterwards whatever happens. */
async function withRig(fn: (r: Rig) => Promise<void>): Promise<void> {
  const r = await rig();
  try {
    await fn(r);
  } finally {
    await r.watcher.close();
    await r.handle.close();
  }
}

const removedCount = (r: Rig): number => r.summaries.reduce((n, s) => n + s.removed.length, 0);

/** Deletes `files` one by one, then waits until the watcher has written their removals (by name, or by re-walking) or holds them. */
async function deleteAll(r: Rig, files: string[]): Promise<void> {
  const rewalks = r.rewalks;
  for (const f of files) rmSync(join(r.root, f));
  await waitFor('the removals written or held', () => r.watcher.holdingDeletion > 0 || removedCount(r) >= files.length || (r.rewalks > rewalks && r.watcher.catchingUp === null));
}

test('a tree deleted file by file, then its root, and cloned back: the catch-up parses nothing again', () => withRig(async (r) => {
  const files = filesOf(r.root);
  assert.ok(files.length >= 30 && files.includes('.gitignore'), `${files.length} files`);
  await deleteAll(r, files);
  // While held, the deleted files are still listed, and every answer is marked: changes seen and not written.
  if (r.watcher.holdingDeletion > 0) assert.ok((r.watcher.catchingUp?.changes ?? 0) > 0, 'answers are marked catching up meanwhile');
  // The root goes, and the same content comes back (new files: new inodes, new times).
  rmSync(r.root, { recursive: true });
  cpSync(r.origin, r.root, { recursive: true });
  r.clock.advance(DELETION_QUIET_MS);
  await waitFor('the watcher says the root changed', () => r.touched > 0);
  // What the daemon does then (IndexUpdates.reindex): the watcher closed, the tree caught up from the top.
  await r.watcher.close();
  const s = await r.handle.refresh();
  // Parsed again: by the catch-up, or by the watcher's batches before it was closed.
  const parsed = s.parsed + r.summaries.reduce((n, u) => n + u.changed.length, 0);
  assert.ok(parsed < MASS_DELETION_GONE, `parsed again: ${parsed} of ${files.length} (the catch-up: ${s.parsed} parsed, ${s.unchanged} unchanged)`);
  assert.ok(removedCount(r) < MASS_DELETION_GONE, `${removedCount(r)} removals written before the hold`);
  assert.is(s.files, files.length);
  const hit = await r.handle.runTool('search_code', { query: 'def dumps', case_sensitive: true, limit: 5 });
  assert.ok(hit.evidence.some((e) => e.path === 'json/__init__.py'), 'the tree is searchable');
  assertEvidenceChecks(r.root, hit.evidence);
}));

test('a mass deletion that leaves the root is written once the deletion settles, every file of it', () => withRig(async (r) => {
  const gone = filesOf(join(r.root, 'email')).map((f) => `email/${f}`);
  await deleteAll(r, gone);
  assert.is(removedCount(r) < MASS_DELETION_GONE, true, 'held');
  r.clock.advance(DELETION_QUIET_MS);
  await r.watcher.idle();
  assert.is(r.touched, 0, 'the root stayed: nobody told');
  assert.is(removedCount(r), gone.length, 'every removal written');
  const hit = await r.handle.runTool('search_code', { query: 'import', case_sensitive: true, limit: 200 });
  assert.ok(hit.evidence.length > 0);
  assert.equal(hit.evidence.filter((e) => e.path.startsWith('email/')), [], 'no deleted file listed');
  assertEvidenceChecks(r.root, hit.evidence);
  assert.is(r.watcher.catchingUp, null, 'in step');
}));

test('a few files deleted are written at once, not held', () => withRig(async (r) => {
  const gone = filesOf(join(r.root, 'json')).slice(0, MASS_DELETION_GONE - 1).map((f) => `json/${f}`);
  for (const f of gone) rmSync(join(r.root, f));
  await waitFor('the removals written', () => removedCount(r) >= gone.length);
  assert.ok(!r.log.some((l) => l.includes('held')), r.log.join('\n'));
}));

/** Deletes `file` and waits until the watcher has written its removal (the `n`th). */
async function deleteWritten(r: Rig, file: string, n: number): Promise<void> {
  rmSync(join(r.root, file));
  await waitFor(`removal ${n} written`, () => removedCount(r) >= n);
}

test('a deletion one file per batch is counted across batches: the first written as they come, then held, the rest written at once; held again if it goes on', () => withRig(async (r) => {
  const files = filesOf(join(r.root, 'email')).map((f) => `email/${f}`);
  assert.ok(files.length >= MASS_DELETION_GONE + 10, `${files.length} files`);
  // Each removal written before the next file goes: one path per batch, as `rm` run per file lands.
  for (let i = 0; i < MASS_DELETION_GONE - 1; i++) await deleteWritten(r, files[i], i + 1);
  assert.is(r.summaries.length, MASS_DELETION_GONE - 1, 'one generation each');
  // The eighth gone in the same deletion (no clock moved: no pause between them) is held, though its batch has one path.
  rmSync(join(r.root, files[MASS_DELETION_GONE - 1]));
  await waitFor('the deletion held', () => r.watcher.holdingDeletion > 0);
  const rest = files.slice(MASS_DELETION_GONE);
  for (const f of rest) rmSync(join(r.root, f));
  // Every path that goes meanwhile seen (the held one and those that came after it) before the deletion is let settle.
  await waitFor('the rest seen', () => (r.watcher.catchingUp?.changes ?? 0) >= rest.length + 1);
  assert.is(removedCount(r), MASS_DELETION_GONE - 1, 'nothing more written while held');
  r.clock.advance(DELETION_QUIET_MS);
  await r.watcher.idle();
  assert.is(removedCount(r), files.length, 'every removal written');
  assert.is(r.summaries.length, MASS_DELETION_GONE, 'the held ones in one generation');
  assert.is(r.watcher.catchingUp, null, 'in step');
  // The deletion goes on less than a pause after its hold ended: held again at its next path.
  rmSync(join(r.root, 'json/decoder.py'));
  await waitFor('held again', () => r.watcher.holdingDeletion > 0);
  r.clock.advance(DELETION_QUIET_MS);
  await r.watcher.idle();
  assert.is(removedCount(r), files.length + 1);
}));

test('gone paths a pause apart, or put back, are not one deletion: each written as it comes', () => withRig(async (r) => {
  const files = filesOf(join(r.root, 'email')).map((f) => `email/${f}`);
  const few = MASS_DELETION_GONE - 1;
  assert.ok(files.length >= MASS_DELETION_GONE + 2 * few, `${files.length} files`);
  let n = 0;
  for (const f of files.slice(0, MASS_DELETION_GONE)) {
    await deleteWritten(r, f, ++n);
    r.clock.advance(DELETION_GAP_MS + 1);
  }
  // A few gone with no pause, then put back: they no longer count, and a few more gone (no pause either) stay below.
  const back = files.slice(MASS_DELETION_GONE, MASS_DELETION_GONE + few);
  for (const f of back) await deleteWritten(r, f, ++n);
  for (const f of back) cpSync(join(r.origin, f), join(r.root, f));
  await waitFor('the files put back written', () => r.summaries.reduce((k, s) => k + s.changed.length, 0) >= back.length);
  for (const f of files.slice(MASS_DELETION_GONE + few, MASS_DELETION_GONE + 2 * few)) await deleteWritten(r, f, ++n);
  assert.ok(!r.log.some((l) => l.includes('held')), r.log.join('\n'));
}));

test.run();
