// RepoWatcher in-process over a real index (LMDB in a temp folder) and real
// files: bursts of saves end with the index equal to the disk, writes never
// overlap, a rename-over is applied as an update of the original path, folders
// (not files) hold the inotify watches and folders that come, move and go are
// followed, and an out-of-watches error switches to polling while serving continues.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexHandle } from '../indexer/api.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied, type WatchMode } from '../indexer/watch.js';
import { Rechecks } from '../indexer/watch/rechecks.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { ManualClock } from './helpers/clock.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { inotifyWatchedInodes, inotifyWatches } from './helpers/inotify.js';

test.after(() => cleanupTemp());

interface Rig { root: string; handle: IndexHandle; watcher: RepoWatcher; applied: WatchApplied[]; maxConcurrent: number; close(): Promise<void> }

async function rig(mode: WatchMode = 'auto', pollMs?: number, prepare?: (root: string) => void): Promise<Rig> {
  const root = realpathSync(fixtureCopy());
  prepare?.(root);
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const rules = await RepoRules.load(root);
  const applied: WatchApplied[] = [];
  let running = 0;
  const r: Rig = { root, handle, watcher: null as unknown as RepoWatcher, applied, maxConcurrent: 0, close: async () => { await r.watcher.close(); await handle.close(); } };
  // The daemon's write queue, reduced to its contract: one writer at a time (counted, to prove it).
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = tail.then(async () => {
      running++; r.maxConcurrent = Math.max(r.maxConcurrent, running);
      try { return await fn(); } finally { running--; }
    });
    tail = p.catch(() => undefined);
    return p;
  };
  r.watcher = await RepoWatcher.start({ root, rules, index: handle, exclusive, mode, pollMs, onApplied: (a) => applied.push(a) });
  return r;
}

async function search(h: IndexHandle, root: string, query: string): Promise<string[]> {
  const r = await h.runTool('search_code', { query, case_sensitive: true, limit: 200 });
  assertEvidenceChecks(root, r.evidence);
  return r.evidence.filter((e) => e.kind === 'content_match').map((e) => `${e.path}:${e.start_line}`);
}

test('a burst of saves to many files ends with the index equal to the disk; writes never overlap', async () => {
  const r = await rig();
  try {
    const targets = ['src/rag_common.py', 'src/rag_chat.py', 'src/build_index.py', 'notes/design.txt', 'docs/README.md'];
    const base = new Map(targets.map((t) => [t, readFileSync(join(r.root, t), 'utf8')]));
    // 5 files × 20 saves, back to back: events keep arriving while earlier batches are applied.
    for (let i = 0; i < 20; i++) {
      for (const t of targets) writeFileSync(join(r.root, t), `${base.get(t)}BURST_${i}_${t.replace(/\W/g, '_')} = 1\n`);
      if (i % 5 === 0) await new Promise((res) => setTimeout(res, 3));
    }
    await waitFor('watcher idle', async () => { await r.watcher.idle(); return true; });
    await new Promise((res) => setTimeout(res, 100)); // late inotify events, if any
    await r.watcher.idle();
    for (const t of targets) {
      const lines = base.get(t)!.split('\n').length;
      assert.equal(await search(r.handle, r.root, `BURST_19_${t.replace(/\W/g, '_')}`), [`${t}:${lines}`], t);
      assert.equal(await search(r.handle, r.root, `BURST_18_${t.replace(/\W/g, '_')} `), [], `${t}: older content gone`);
    }
    assert.is(r.maxConcurrent, 1, 'updates ran one at a time');
    assert.ok(r.applied.length >= 2, `events were batched into ${r.applied.length} updates`);
    assert.ok(r.applied.length < 100, `and batched: ${r.applied.length} updates for 100 saves`);
  } finally { await r.close(); }
});

test('a rename-over save is applied as an update of the original path', async () => {
  const r = await rig();
  try {
    const f = join(r.root, 'src/rag_common.py');
    writeFileSync(`${f}.new`, `${readFileSync(f, 'utf8')}RENAMED_OVER = 1\n`);
    renameSync(`${f}.new`, f);
    await waitFor('applied', async () => (await search(r.handle, r.root, 'RENAMED_OVER')).length === 1);
    const changed = r.applied.flatMap((a) => a.summary?.changed ?? []);
    assert.ok(changed.includes('src/rag_common.py'), JSON.stringify(r.applied));
    assert.equal(await search(r.handle, r.root, 'RENAMED_OVER'), [`src/rag_common.py:${readFileSync(f, 'utf8').split('\n').length - 1}`], 'only the original path holds the text');
  } finally { await r.close(); }
});

test('the watcher holds one inotify watch per watched folder and none per file', async () => {
  const before = inotifyWatches();
  // A FIFO is not a folder either (and never indexed): no watch of its own.
  const r = await rig('auto', undefined, (root) => assert.is(spawnSync('mkfifo', [join(root, 'notes/a.fifo')]).status, 0));
  try {
    // The fixture's folders, less the ignored cache/: the root, src, src/mobileai_rag, its retrieval/ and adapters/, config, assets, notes, tests, docs.
    const held = inotifyWatches() - before;
    const files = (await r.handle.runTool('search_code', { query: '.', limit: 200 })).evidence.filter((e) => e.kind === 'path_match').length;
    assert.ok(files >= 10, `the fixture has ${files} indexed files`);
    assert.is(held, 10, `${held} inotify watches for 10 folders and ${files} files`);
    // One new folder: one more watch, still none for the files in it.
    mkdirSync(join(r.root, 'newdir'));
    for (let i = 0; i < 5; i++) writeFileSync(join(r.root, 'newdir', `f${i}.txt`), `NEW_DIR_FILE_${i}\n`);
    await waitFor('new folder indexed', async () => (await search(r.handle, r.root, 'NEW_DIR_FILE_')).length === 5);
    await waitFor('its watch', () => inotifyWatches() - before === 11);
  } finally { await r.close(); }
  assert.is(inotifyWatches(), before, 'closing the watcher frees its watches');
});

test('folders: a tree written at once, a folder moved in from outside, one moved within, one deleted', async () => {
  const r = await rig();
  try {
    // A nested tree made and filled at once (as a checkout or an unpack does).
    mkdirSync(join(r.root, 'pkg/a/b'), { recursive: true });
    writeFileSync(join(r.root, 'pkg/__init__.py'), '');
    writeFileSync(join(r.root, 'pkg/a/b/deep.py'), 'def deep_fn():\n    return "DEEP_TEXT"\n');
    await waitFor('nested tree', async () => (await search(r.handle, r.root, 'DEEP_TEXT')).length === 1);
    // Each folder watched: chokidar lists a new folder before it watches it, so pkg/a/b made meanwhile has its watch from the
    // new folders' second look (watch/unwatched.ts); without a watch, later.py below would be found only by the 2 s re-walk.
    for (const dir of ['pkg', 'pkg/a', 'pkg/a/b']) await waitFor(`a watch on ${dir}/`, () => inotifyWatchedInodes().has(statSync(join(r.root, dir)).ino));
    // A file written into the nested folder afterwards (its own watch must be there by now).
    writeFileSync(join(r.root, 'pkg/a/b/later.py'), 'LATER_TEXT = 1\n');
    await waitFor('later file', async () => (await search(r.handle, r.root, 'LATER_TEXT')).length === 1);
    // A folder that arrives whole by rename from outside the root: no event names its files.
    const outside = join(tempDir('outside'), 'moved');
    mkdirSync(join(outside, 'inner'), { recursive: true });
    writeFileSync(join(outside, 'inner/m.py'), 'MOVED_IN_TEXT = 2\n');
    renameSync(outside, join(r.root, 'moved'));
    await waitFor('moved in', async () => (await search(r.handle, r.root, 'MOVED_IN_TEXT')).length === 1);
    writeFileSync(join(r.root, 'moved/inner/m.py'), 'MOVED_IN_EDITED = 3\n');
    await waitFor('edit inside the moved-in folder', async () => (await search(r.handle, r.root, 'MOVED_IN_EDITED')).length === 1);
    // Renamed within the tree: the old names leave, the new ones arrive.
    renameSync(join(r.root, 'pkg'), join(r.root, 'pkg2'));
    await waitFor('renamed folder', async () => {
      const hits = await search(r.handle, r.root, 'DEEP_TEXT');
      return hits.length === 1 && hits[0] === 'pkg2/a/b/deep.py:2';
    });
    assert.equal(await search(r.handle, r.root, 'LATER_TEXT'), ['pkg2/a/b/later.py:1']);
    // Deleted whole.
    rmSync(join(r.root, 'moved'), { recursive: true });
    await waitFor('deleted folder', async () => (await search(r.handle, r.root, 'MOVED_IN_')).length === 0);
  } finally { await r.close(); }
});

/**
 * Makes folder `name` holding one file with `text`, waits until it is indexed,
 * then past the new folder's re-walks (NEW_FOLDER_RECHECKS_MS, up to 2 s): from
 * then on only a live watch sees what happens in it.
 */
async function settledFolder(r: Rig, name: string, file: string, text: string): Promise<string> {
  const dir = join(r.root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, file), `${text}\n`);
  await waitFor(`folder ${name}`, async () => (await search(r.handle, r.root, text)).length === 1);
  await new Promise((res) => setTimeout(res, 2500));
  return dir;
}

test('a folder deleted and made again at once, or moved away and made again, keeps being watched', async () => {
  const r = await rig();
  try {
    const gen = await settledFolder(r, 'gen', 'a.py', 'GEN_ONE = 1');
    // As a generator or a checkout does it: the same name, a new folder, no pause.
    rmSync(gen, { recursive: true });
    mkdirSync(gen);
    writeFileSync(join(gen, 'a.py'), 'GEN_TWO = 2\n');
    await waitFor('second folder', async () => (await search(r.handle, r.root, 'GEN_TWO')).length === 1);
    // The old folder's watch died with it: the watcher starts over (and re-walks) ...
    await waitFor('restart', () => r.applied.some((a) => a.refreshed && /gen was replaced/.test(a.why ?? '')));
    await r.watcher.idle();
    // ... and edits made after that arrive through the new folder's live watch alone.
    writeFileSync(join(gen, 'a.py'), 'GEN_THREE = 3\n');
    writeFileSync(join(gen, 'b.py'), 'GEN_THREE_B = 3\n');
    await waitFor('edits in the new folder', async () => (await search(r.handle, r.root, 'GEN_THREE')).length === 2);
    assert.equal(await search(r.handle, r.root, 'GEN_TWO'), []);
    // Moved away, and a folder made under the old name.
    renameSync(gen, join(tempDir('away'), 'gen'));
    mkdirSync(gen);
    await new Promise((res) => setTimeout(res, 300));
    await r.watcher.idle();
    writeFileSync(join(gen, 'c.py'), 'GEN_FOUR = 4\n');
    await waitFor('file in the remade folder', async () => (await search(r.handle, r.root, 'GEN_FOUR')).length === 1);
    assert.equal(await search(r.handle, r.root, 'GEN_THREE'), [], 'what was moved away is gone');
  } finally { await r.close(); }
});

test('a folder that becomes a file and then a folder again is watched again', async () => {
  const r = await rig();
  try {
    const d = await settledFolder(r, 'flip', 'x.txt', 'FLIP_ONE');
    // A checkout to a branch where flip is a file, then back: no new name for chokidar.
    rmSync(d, { recursive: true });
    writeFileSync(d, 'FLIP_FILE\n');
    await waitFor('file', async () => (await search(r.handle, r.root, 'FLIP_FILE')).length === 1);
    await new Promise((res) => setTimeout(res, 300)); // the check of the name finds a file: the watch is dead
    rmSync(d);
    mkdirSync(d);
    writeFileSync(join(d, 'x.txt'), 'FLIP_TWO\n');
    await waitFor('folder again', async () => (await search(r.handle, r.root, 'FLIP_TWO')).length === 1);
    await new Promise((res) => setTimeout(res, 300));
    await r.watcher.idle();
    writeFileSync(join(d, 'y.txt'), 'FLIP_THREE\n');
    await waitFor('edit through the new watch', async () => (await search(r.handle, r.root, 'FLIP_THREE')).length === 1);
    assert.equal(await search(r.handle, r.root, 'FLIP_FILE'), []);
  } finally { await r.close(); }
});

test('a child named like its folder (or like the root) is an entry, not the folder replaced: no restart', async () => {
  const r = await rig();
  try {
    const sub = join(r.root, 'docs');
    const rootName = r.root.split('/').pop()!;
    for (let i = 0; i < 5; i++) {
      // As a build writes its output: a temp file renamed over the name.
      writeFileSync(join(sub, 'docs.tmp'), `SAME_NAME_${i}\n`);
      renameSync(join(sub, 'docs.tmp'), join(sub, 'docs'));
      writeFileSync(join(r.root, `${rootName}.tmp`), `ROOT_NAME_${i}\n`);
      renameSync(join(r.root, `${rootName}.tmp`), join(r.root, rootName));
      await new Promise((res) => setTimeout(res, 150));
    }
    await waitFor('both indexed', async () => (await search(r.handle, r.root, 'SAME_NAME_4')).length === 1 && (await search(r.handle, r.root, 'ROOT_NAME_4')).length === 1);
    await new Promise((res) => setTimeout(res, 300));
    await r.watcher.idle();
    assert.equal(r.applied.filter((a) => a.refreshed).map((a) => a.why), [], 'no re-walk');
  } finally { await r.close(); }
});

/** A fixture with enough folders that chokidar's scan takes a while (a restart is then caught mid-scan). */
function manyFolders(root: string): void {
  for (let i = 0; i < 400; i++) {
    mkdirSync(join(root, 'bulk', `d${i}`), { recursive: true });
    for (let k = 0; k < 3; k++) writeFileSync(join(root, 'bulk', `d${i}`, `f${k}.txt`), `bulk ${i} ${k}\n`);
  }
}

/** Replaces a folder (which restarts the watcher) and resolves once the new chokidar instance exists, still scanning. */
async function restartCaughtMidScan(r: Rig): Promise<import('node:events').EventEmitter> {
  const fswOf = () => (r.watcher as unknown as { fsw: import('node:events').EventEmitter | null }).fsw;
  const before = fswOf();
  rmSync(join(r.root, 'bulk/d7'), { recursive: true });
  mkdirSync(join(r.root, 'bulk/d7'));
  const until = Date.now() + 10_000;
  for (;;) {
    const now = fswOf();
    if (now !== null && now !== before) return now;
    if (Date.now() > until) throw new Error('the watcher did not restart');
    await new Promise((res) => setImmediate(res));
  }
}

test('closing the watcher while a restart scans: close resolves', async () => {
  const r = await rig('auto', undefined, manyFolders);
  await restartCaughtMidScan(r);
  const closed = await Promise.race([r.close().then(() => true), new Promise<boolean>((res) => setTimeout(() => res(false), 5000).unref())]);
  assert.ok(closed, 'close() returned within 5 s');
});

test('out of inotify watches while a restart scans: it falls back to polling and updates keep arriving', async () => {
  const r = await rig('auto', 100, manyFolders);
  try {
    const fsw = await restartCaughtMidScan(r);
    fsw.emit('error', Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }));
    await waitFor('polling', () => r.watcher.state === 'polling (inotify limit reached)');
    writeFileSync(join(r.root, 'notes/after.txt'), 'AFTER_THE_SWITCH\n');
    await waitFor('update while polling', async () => (await search(r.handle, r.root, 'AFTER_THE_SWITCH')).length === 1, 15_000, 50);
  } finally { await r.close(); }
});

test('a folder replaced by a file: what was indexed under the folder leaves', async () => {
  const r = await rig();
  try {
    const thing = join(r.root, 'thing');
    mkdirSync(thing);
    writeFileSync(join(thing, 'inner.txt'), 'INSIDE_THING\n');
    await waitFor('folder indexed', async () => (await search(r.handle, r.root, 'INSIDE_THING')).length === 1);
    // Moved away whole (no event names its files), then a file under its name.
    renameSync(thing, join(tempDir('away'), 'thing'));
    writeFileSync(thing, 'THING_IS_A_FILE\n');
    await waitFor('file indexed', async () => (await search(r.handle, r.root, 'THING_IS_A_FILE')).length === 1);
    await r.watcher.idle();
    assert.equal(await search(r.handle, r.root, 'INSIDE_THING'), []);
  } finally { await r.close(); }
});

test('new-folder re-walks: each due its delay after the folder came, those due close together handed in one batch, none after clear', () => {
  // On a clock the test moves itself: each batch is handed at exactly its due time, however busy the machine.
  const clock = new ManualClock();
  const handed: Array<{ at: number; paths: string[] }> = [];
  const r = new Rechecks((paths) => handed.push({ at: clock.now(), paths }), [40, 160], 30, clock);
  r.add('a');
  clock.advance(15);
  r.add('a/b'); // due 15 ms later than a: within the slack, so in a's batches
  clock.advance(235);
  assert.equal(handed, [{ at: 40, paths: ['a', 'a/b'] }, { at: 160, paths: ['a', 'a/b'] }]); // at the first one's due time, never before
  // Far apart: separate batches, y's short delay not held back by x's long one. Cleared: nothing more.
  handed.length = 0;
  r.add('x'); // at 250: due at 290 and 410
  clock.advance(80);
  r.add('y'); // at 330: due at 370, before x's second (410), for which a timer is already armed
  clock.advance(60);
  assert.equal(handed, [{ at: 290, paths: ['x'] }, { at: 370, paths: ['y'] }]);
  r.clear();
  clock.advance(250);
  assert.equal(handed.map((h) => h.paths), [['x'], ['y']], 'nothing handed after clear');
});

test('re-read looks (Rechecks once): a folder queued again before its turn is handed once, at its first due time; queued after it, handed again', () => {
  const clock = new ManualClock();
  const handed: Array<{ at: number; paths: string[] }> = [];
  const r = new Rechecks((paths) => handed.push({ at: clock.now(), paths }), [1500], 100, clock, true);
  r.add('src');
  clock.advance(700);
  r.add('src'); // its look at 1500 lists src/ after this rename too
  r.add('lib');
  clock.advance(800);
  assert.equal(handed, [{ at: 1500, paths: ['src'] }]);
  r.add('src'); // at 1500, after its look was handed: a look of its own
  clock.advance(1500);
  assert.equal(handed, [{ at: 1500, paths: ['src'] }, { at: 2200, paths: ['lib'] }, { at: 3000, paths: ['src'] }]);
  r.add('lib');
  r.clear();
  r.add('lib'); // clear forgot it was queued
  clock.advance(1500);
  assert.equal(handed.at(-1), { at: 4500, paths: ['lib'] });
});

test('running out of inotify watches: the watcher says so, polls, and updates keep arriving', async () => {
  const r = await rig('auto', 100);
  try {
    assert.is(r.watcher.state, 'watching');
    // Fault injection into the real chokidar instance: the error fs.watch raises when the
    // per-user inotify watch limit is reached (the limit itself is machine-wide and cannot be lowered in a test).
    const fsw = (r.watcher as unknown as { fsw: import('node:events').EventEmitter }).fsw;
    const err = Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch \'/x\''), { code: 'ENOSPC' });
    fsw.emit('error', err);
    await waitFor('polling', () => r.watcher.state === 'polling (inotify limit reached)');
    assert.match(r.watcher.note ?? '', /^ENOSPC: /);
    await r.watcher.idle();
    writeFileSync(join(r.root, 'notes/polled.txt'), 'SEEN_BY_POLLING\n');
    await waitFor('polled update', async () => (await search(r.handle, r.root, 'SEEN_BY_POLLING')).length === 1, 10_000, 50);
    // The re-walk is requested once the polling watcher has scanned, and the polled file may be
    // searchable before that batch is reported: wait for the report, do not race it.
    await waitFor('a catch-up re-walk after the switch', () => r.applied.some((a) => a.refreshed && /polling/.test(a.why ?? '')));
  } finally { await r.close(); }
});

test('mode poll watches by polling from the start; mode off does not watch', async () => {
  const r = await rig('poll', 100);
  try {
    assert.is(r.watcher.state, 'polling');
    writeFileSync(join(r.root, 'src/polled.py'), 'def polled_fn():\n    pass\n');
    await waitFor('poll update', async () => (await r.handle.runTool('find_symbol', { name: 'polled_fn' })).total === 1, 10_000, 50);
  } finally { await r.close(); }
  const off = await rig('off');
  try {
    assert.is(off.watcher.state, 'off');
  } finally { await off.close(); }
});

test.run();
