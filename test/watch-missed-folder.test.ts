// A folder made while chokidar scans its parent — after chokidar listed the
// parent, before it watched it — raises no event and was never watched: a
// re-cloned root's `email/` went unwatched under load in CI (daemon-root.test:
// the save after the clone was never seen). Here the folder is made at exactly
// that moment, every run: from inside chokidar's own filter call on the
// parent's listing (the rules' isIgnored, asked by the watcher's `ignored`).
// The re-walk that follows the scan must then watch it, so a save in it is
// seen (watch/unwatched.ts). The same for a folder made while chokidar reads a
// new folder (a checkout's nested folders): the new folder's second look
// (watch/rechecks.ts) watches it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexHandle } from '../indexer/api.js';
import { parentOf, RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied } from '../indexer/watch.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { inotifyWatchedInodes } from './helpers/inotify.js';
import { openChokidar } from '../indexer/watch/chokidar.js';
import { MissedFolders } from '../indexer/watch/unwatched.js';

test.after(() => cleanupTemp());

interface Rig { root: string; handle: IndexHandle; watcher: RepoWatcher; applied: WatchApplied[]; lines: string[]; made(): boolean }

/**
 * A watcher on a fixture copy whose rules make `folder` (with one file) the first time chokidar asks them about a folder
 * of `listing` (relative to the root; '' the root): chokidar has listed that folder then, and not yet watched it.
 */
async function rig(listing: string, folder: string, beforeStart = false): Promise<Rig> {
  const root = realpathSync(fixtureCopy());
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const rules = await RepoRules.load(root);
  let made = false;
  let armed = beforeStart;
  const isIgnored = rules.isIgnored.bind(rules);
  rules.isIgnored = (rel, isDir) => {
    if (armed && !made && isDir && parentOf(rel) === listing && /chokidar/.test(new Error().stack ?? '')) {
      made = true;
      mkdirSync(join(root, folder));
      writeFileSync(join(root, folder, 'made.py'), 'MADE_UNWATCHED = 1\n');
    }
    return isIgnored(rel, isDir);
  };
  const applied: WatchApplied[] = [];
  const lines: string[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  const watcher = await RepoWatcher.start({ root, rules, index: handle, exclusive, log: (l) => lines.push(l), onApplied: (a) => applied.push(a) });
  armed = true;
  return { root, handle, watcher, applied, lines, made: () => made };
}

const watched = (abs: string): boolean => inotifyWatchedInodes().has(statSync(abs).ino);
const found = async (r: Rig, query: string): Promise<number> => (await r.handle.runTool('search_code', { query, case_sensitive: true })).total;

/** Once `folder` is watched: a save in it, then one in a folder watched all along; once the second is applied, the first was seen too (one inotify queue, in order). */
async function saveIsSeen(r: Rig, folder: string): Promise<void> {
  await waitFor(`a watch on ${folder}/`, () => watched(join(r.root, folder)));
  writeFileSync(join(r.root, folder, 'saved.py'), 'SAVED_IN_IT = 1\n');
  writeFileSync(join(r.root, 'src', 'after.py'), 'SAVED_IN_SRC = 1\n');
  await waitFor('the save in src/', () => r.applied.some((a) => a.paths.includes('src/after.py')));
  await r.watcher.idle();
  assert.ok(r.applied.some((a) => a.paths.includes(`${folder}/saved.py`)), `the save in ${folder}/ was seen: ${JSON.stringify(r.applied.map((a) => a.paths))}`);
  assert.is(await found(r, 'SAVED_IN_IT'), 1);
}

test('a folder made while chokidar scanned its parent is watched after the re-walk that follows the scan: a save in it is seen', async () => {
  const r = await rig('', 'late', true);
  try {
    assert.ok(r.made(), 'late/ was made during the scan');
    assert.not.ok(watched(join(r.root, 'late')), 'chokidar missed it: no watch on late/ after the scan');
    // What the daemon does after every scan (daemon/updates.ts): a re-walk; it indexes late/ and finds it unwatched.
    r.watcher.requestRefresh('catch-up after the watcher scan');
    await r.watcher.idle();
    assert.is(await found(r, 'MADE_UNWATCHED'), 1, 'the re-walk indexed it');
    // After its turn in the write queue, the watched folders are listed: late/ is found missing from the watch.
    await waitFor('late/ found unwatched', () => r.lines.some((l) => /watcher: 1 folder\(s\) made while chokidar scanned their parent were not watched; watching them now: late$/.test(l)));
    await saveIsSeen(r, 'late');
  } finally {
    await r.watcher.close();
    await r.handle.close();
  }
});

test('a folder made while chokidar read a new folder (a checkout making nested folders) is watched at that folder\'s second look: a save in it is seen', async () => {
  const r = await rig('fresh', 'fresh/late');
  try {
    mkdirSync(join(r.root, 'fresh', 'first'), { recursive: true });
    await waitFor('fresh/late made while chokidar read fresh/', () => r.made());
    await waitFor('the second look at fresh/', () => r.lines.some((l) => / watching them now: fresh\/late$/.test(l)), 30_000);
    await saveIsSeen(r, 'fresh/late');
    assert.is(await found(r, 'MADE_UNWATCHED'), 1);
  } finally {
    await r.watcher.close();
    await r.handle.close();
  }
});

test('a folder found missing is added once: while chokidar does not list it, each look finds nothing new; a new chokidar instance finds it again', async () => {
  const root = realpathSync(tempDir('missed'));
  mkdirSync(join(root, 'kept-out'));
  // chokidar is told to skip kept-out/ (it never lists it); the look lets it in, as a folder chokidar cannot read would be.
  const fsw = openChokidar(root, (abs) => abs.endsWith('/kept-out'), false);
  await new Promise<void>((res) => fsw.once('ready', () => res()));
  try {
    const missed = new MissedFolders(root);
    const letIn = (): boolean => false;
    assert.equal(await missed.find(fsw, letIn), ['kept-out']);
    assert.equal(await missed.find(fsw, letIn), [], 'not added again');
    assert.equal(await missed.find(fsw, letIn, { below: ['kept-out'] }), [], 'nor by a look below it');
    mkdirSync(join(root, 'later'));
    await waitFor('chokidar lists later/', () => Object.keys(fsw.getWatched()).includes(join(root, 'later')));
    assert.equal(await missed.find(fsw, letIn), [], 'a folder chokidar lists is not missing');
    missed.clear();
    assert.equal(await missed.find(fsw, letIn), ['kept-out'], 'a new chokidar instance: found again');
    missed.clear();
    assert.equal(await missed.find(fsw, letIn, { at: ['later'] }), [], 'a look at later/ alone lists later/ only');
    assert.equal(await missed.find(fsw, letIn, { at: [''] }), ['kept-out'], 'a look at the root alone lists the root');
  } finally {
    await fsw.close();
  }
});

test.run();
