// A root .gitignore changed while a batch waits for its turn is folded into
// that batch (watch/queued.ts): one re-walk, with the new rules, instead of
// the batch read with the old rules and a re-walk after it. On trpc a
// checkout between two tags whose root .gitignore differs cost a batch of
// its 1,236 paths and then a re-walk of the tree (17.4 s of it under load,
// docs/performance/bad-days.md). A re-walk that has already read the old
// rules is still followed by one with the new: nothing is lost. A real git
// repository, a real index (LMDB in a temp folder) and a real watcher; the
// batch is held at known points (the write queue's gate, the deletion hold's
// clock), so nothing depends on how fast the machine is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress, IndexHandle } from '../indexer/api.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied } from '../indexer/watch.js';
import { DELETION_QUIET_MS } from '../indexer/watch/deletions.js';
import { QueuedChanges, type Batch } from '../indexer/watch/queued.js';
import { ManualClock } from './helpers/clock.js';
import { waitFor } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';

// git as the index runs it reads this process's config: none of the machine's.
const home = tempDir('fold-home');
process.env.HOME = home;
delete process.env.XDG_CONFIG_HOME;
process.env.GIT_CONFIG_GLOBAL = join(home, 'gitconfig');
process.env.GIT_CONFIG_NOSYSTEM = '1';

test.after(() => cleanupTemp());

const OLD = Array.from({ length: 10 }, (_, i) => `old/mod_${i}.py`);

/**
 * A repository at tag v1 (root .gitignore `build/`, ten files under old/), whose tag v2 ignores `*.tmp` instead,
 * deletes old/, changes main.py and adds added.py. Untracked beside them: build/out.py (ignored at v1, not at v2)
 * and scratch.tmp (the other way round); a checkout leaves both where they are.
 */
function repo(): string {
  const root = tempDir('fold');
  write(root, { '.gitignore': 'build/\n', 'main.py': 'MAIN_V1 = 1\n' });
  for (const f of OLD) write(root, { [f]: `OLD_MARK_${f.slice(8, 9)} = 1\n` });
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'v1']);
  git(root, ['tag', 'v1']);
  git(root, ['rm', '-rq', 'old']);
  write(root, { '.gitignore': '*.tmp\n', 'main.py': 'MAIN_V2 = 2\n', 'added.py': 'ADDED_MARK = 1\n' });
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'v2']);
  git(root, ['tag', 'v2']);
  git(root, ['checkout', '-q', 'v1']);
  write(root, { 'build/out.py': 'BUILD_MARK = 1\n', 'scratch.tmp': 'TMP_MARK\n' });
  return root;
}

interface Rig {
  root: string;
  handle: IndexHandle;
  watcher: RepoWatcher;
  /** The index's writes as they start: `update` (with its paths) or `refresh`. */
  calls: string[];
  applied: WatchApplied[];
  /** Batches waiting at the write queue's gate (closed: they wait). */
  waiting: number;
  close(): void;
  open(): void;
  /** Called with each progress report of each re-walk (n counts from 1). */
  onRewalk?: (n: number, p: BuildProgress) => void;
}

async function rig(root: string, clock?: ManualClock): Promise<Rig> {
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  let gate: Promise<void> | null = null;
  let release = (): void => undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let rewalks = 0;
  const r: Rig = {
    root, handle, watcher: null as unknown as RepoWatcher, calls: [], applied: [], waiting: 0,
    close: () => { gate = new Promise((res) => { release = res; }); },
    open: () => { gate = null; release(); },
  };
  const index = {
    update: (paths: string[], onProgress?: (p: BuildProgress) => void) => { r.calls.push(`update ${paths.join(' ')}`); return handle.update(paths, onProgress); },
    refresh: (onProgress?: (p: BuildProgress) => void) => {
      const n = ++rewalks;
      r.calls.push('refresh');
      return handle.refresh((p) => { onProgress?.(p); r.onRewalk?.(n, p); });
    },
    ignoreCandidates: () => handle.ignoreCandidates(),
  };
  // The daemon's write queue: one writer at a time, in turn; a closed gate holds the next one at its turn.
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = tail.then(async () => {
      if (gate) { r.waiting++; await gate; r.waiting--; }
      return fn();
    });
    tail = p.catch(() => undefined);
    return p;
  };
  r.watcher = await RepoWatcher.start({
    root, rules: await handle.rules(), index, exclusive, timers: clock, onApplied: (a) => r.applied.push(a),
  });
  await r.watcher.idle();
  return r;
}

async function withRig(root: string, fn: (r: Rig) => Promise<void>, clock?: ManualClock): Promise<void> {
  const r = await rig(root, clock);
  try {
    await fn(r);
  } finally {
    r.open();
    await r.watcher.close();
    await r.handle.close();
  }
}

async function hits(r: Rig, query: string): Promise<number> {
  const res = await r.handle.runTool('search_code', { query });
  assertEvidenceChecks(r.root, res.evidence);
  return res.total;
}

/** What the index answers once the tree is at v2: the new rules, and the checkout's files. */
async function assertAtV2(r: Rig): Promise<void> {
  const out: Record<string, number> = {};
  for (const q of ['BUILD_MARK', 'TMP_MARK', 'MAIN_V2', 'MAIN_V1', 'ADDED_MARK', 'OLD_MARK']) out[q] = await hits(r, q);
  assert.equal(out, { BUILD_MARK: 1, TMP_MARK: 0, MAIN_V2: 1, MAIN_V1: 0, ADDED_MARK: 1, OLD_MARK: 0 });
}

const rootIgnoreQueued = (r: Rig): boolean => r.watcher.catchingUp?.rewalk?.split(', ').includes('.gitignore changed') ?? false;

test('a checkout seen while a batch waits its turn: the batch becomes the one re-walk, with the new rules', async () => {
  const root = repo();
  await withRig(root, async (r) => {
    assert.is(await hits(r, 'TMP_MARK'), 1, 'scratch.tmp indexed at v1');
    assert.is(await hits(r, 'BUILD_MARK'), 0, 'build/ ignored at v1');
    r.calls.length = 0;
    r.close();
    // A batch of one saved file waits at its turn (the write queue busy), then the checkout's events queue behind it.
    writeFileSync(join(root, 'extra.py'), 'EXTRA_MARK = 1\n');
    await waitFor('the save\'s batch waiting its turn', () => r.waiting === 1);
    git(root, ['checkout', '-q', 'v2']);
    await waitFor('the root .gitignore\'s re-walk queued', () => rootIgnoreQueued(r), 30_000);
    r.open();
    await r.watcher.idle();
    const rewalks = r.applied.filter((a) => a.refreshed);
    assert.is(r.calls[0], 'refresh', `the first write is the re-walk (writes: ${r.calls.join(' | ')})`);
    assert.is(r.calls.filter((c) => c === 'refresh').length, 1, `one re-walk (writes: ${r.calls.join(' | ')})`);
    assert.ok(rewalks[0].why?.split(', ').includes('.gitignore changed'), rewalks[0].why);
    assert.is(await hits(r, 'EXTRA_MARK'), 1, 'the waiting batch\'s own file');
    await assertAtV2(r);
    assert.is(r.watcher.catchingUp, null);
  });
});

test('a root .gitignore changed while a deletion\'s batch is held: the held batch becomes the one re-walk', async () => {
  const root = repo();
  const clock = new ManualClock();
  await withRig(root, async (r) => {
    r.calls.length = 0;
    // The checkout's first part: its deletions, held until they settle (the clock stands still till the test moves it).
    for (const f of OLD) rmSync(join(root, f));
    await waitFor('the deletion held', () => r.watcher.holdingDeletion > 0, 30_000);
    // Removals in batches before the count of paths gone was reached were written as they came (nothing runs during the hold).
    const before = r.calls.length;
    // Then the rest of it: the tree at v2, its root .gitignore among it.
    git(root, ['checkout', '-q', '-f', 'v2']);
    await waitFor('the root .gitignore\'s re-walk queued', () => rootIgnoreQueued(r), 30_000);
    // Quiet for DELETION_QUIET_MS: the hold ends. A late event of the checkout (the folder old/ gone) may be held
    // again after it, as the same deletion going on: time moves on until nothing is queued or running.
    let idle = false;
    void r.watcher.idle().then(() => { idle = true; });
    await waitFor('the watcher idle', () => {
      if (r.watcher.holdingDeletion > 0) clock.advance(DELETION_QUIET_MS + 1);
      return idle;
    }, 60_000);
    // After it, a folder the new rules let in is looked at again, as a new folder is (watch/pruned.ts): no re-walk.
    const after = r.calls.slice(before);
    assert.is(after[0], 'refresh', `the held batch is the re-walk (writes: ${r.calls.join(' | ')})`);
    assert.is(after.filter((c) => c === 'refresh').length, 1, `one re-walk (writes: ${r.calls.join(' | ')})`);
    await assertAtV2(r);
  }, clock);
});

test('a root .gitignore changed after a running re-walk read the rules: another re-walk follows, with the new ones', async () => {
  const root = repo();
  await withRig(root, async (r) => {
    r.calls.length = 0;
    let second = false;
    // As the first re-walk's walk ends (it has read the rules), the file changes again: build/ ignored, *.tmp not.
    r.onRewalk = (n, p) => {
      if (n !== 1 || second || (p.phase === 'walk' && p.total === 0)) return;
      second = true;
      writeFileSync(join(root, '.gitignore'), 'build/\n');
    };
    writeFileSync(join(root, '.gitignore'), '*.tmp\n');
    await waitFor('the second change seen', () => second || undefined, 30_000);
    await waitFor('its re-walk', () => r.calls.filter((c) => c === 'refresh').length >= 2 || undefined, 30_000);
    await r.watcher.idle();
    assert.is(await hits(r, 'BUILD_MARK'), 0, 'build/ left out again');
    assert.is(await hits(r, 'TMP_MARK'), 1, 'scratch.tmp back in');
  });
});

const batch = (b: Partial<Batch>): Batch => ({ paths: [], refresh: false, ignoreFiles: [], gitSources: false, why: '', scoped: null, ...b });

test('what joins a waiting batch: a queued re-walk, and anything a re-walk of the tree reads anyway', () => {
  // A batch of paths and a queued re-walk of the tree: one re-walk of the tree, the paths with it.
  let q = new QueuedChanges();
  q.paths.add('b.py');
  q.ignoreFileChanged('.gitignore');
  let b = batch({ paths: ['a.py'] });
  assert.ok(q.foldInto(b, false));
  assert.equal(b, batch({ paths: ['a.py', 'b.py'], refresh: true, ignoreFiles: ['.gitignore'], why: '.gitignore changed' }));
  assert.is(q.size, 0);
  // A re-walk of the tree takes paths and git's sources queued (it reads them).
  q = new QueuedChanges();
  q.paths.add('c.py');
  q.gitSources = true;
  b = batch({ refresh: true, why: 'requested' });
  assert.ok(q.foldInto(b, false));
  assert.equal(b, batch({ paths: ['c.py'], refresh: true, gitSources: true, why: 'requested' }));
  // A batch of paths alone does not take paths queued after it (they wait for the next batch, as ever).
  q = new QueuedChanges();
  q.paths.add('d.py');
  assert.not.ok(q.foldInto(batch({ paths: ['a.py'] }), false));
  assert.is(q.size, 1);
  // Folders' ignore files: a re-walk of folders, theirs joined.
  q = new QueuedChanges();
  q.ignoreFileChanged('src/x/.gitignore');
  b = batch({ refresh: true, ignoreFiles: ['lib/.gitignore'], why: 'lib/.gitignore changed', scoped: ['lib'] });
  assert.ok(q.foldInto(b, false));
  assert.equal(b.scoped, ['lib', 'src/x']);
  // ...but not to a batch that reads git's sources: together they would re-walk the tree.
  q = new QueuedChanges();
  q.ignoreFileChanged('src/.gitignore');
  assert.not.ok(q.foldInto(batch({ gitSources: true }), false));
  assert.is(q.why, 'src/.gitignore changed');
  // A folder replaced meanwhile: its ignore files changed unseen, the tree is re-walked.
  q = new QueuedChanges();
  q.ignoreFileChanged('src/.gitignore');
  b = batch({ paths: ['a.py'] });
  assert.ok(q.foldInto(b, true));
  assert.is(b.scoped, null);
  assert.ok(b.refresh);
});

test.run();
