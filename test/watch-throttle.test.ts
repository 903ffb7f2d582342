// chokidar throttles a folder's re-read (NodeFsHandler._handleRead:
// `_throttle('readdir', folder, 1000)`): a change in the folder while a re-read
// runs is counted, and the folder read once more when the read ends; but the
// count lives in a 1 s timer, and a read still running when it fires forgets
// it. A folder made then (after the read listed its parent) was never watched,
// so no later save in it was seen, while the index said it was in step.
//
// The race is driven here, every run, by the real parts: the first time
// chokidar's re-read of `wide/` asks the rules about one of its folders (its
// listing is done then), the folder `wide/late` is made, and libuv's thread
// pool is filled with opens of FIFOs that have no writer yet, so the rest of the
// read (the lstat of its second batch of entries: `wide/` holds more than
// readdirp's 256 per batch) waits behind them. The pool is let go by a timer
// set after chokidar's own 1 s timer and due no earlier, so chokidar's timer
// fires first: the count of the change is forgotten, whatever the machine's
// speed. Then a save in `wide/late` must be seen (the watcher lists a folder
// again after chokidar's window, watch/throttled.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, open, openSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { IndexHandle } from '../indexer/api.js';
import { parentOf, RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied } from '../indexer/watch.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { inotifyWatchedInodes } from './helpers/inotify.js';

test.after(() => cleanupTemp());

/** More folders than readdirp reads in one batch (its highWaterMark, 256), so a read of `wide/` has a second batch to wait for. */
const WIDE_FOLDERS = 300;
/** chokidar's throttle window for a folder's re-read (ms). */
const CHOKIDAR_READDIR_WINDOW_MS = 1000;

interface Rig {
  root: string;
  handle: IndexHandle;
  watcher: RepoWatcher;
  applied: WatchApplied[];
  lines: string[];
  /** Set to a function: called once, inside chokidar's first read of `folder`'s listing after the watcher started. */
  duringRead: { folder: string; fn: () => void } | null;
}

async function rig(prepare?: (root: string) => void): Promise<Rig> {
  const root = realpathSync(fixtureCopy());
  prepare?.(root);
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const rules = await RepoRules.load(root);
  const r = { root, handle, applied: [] as WatchApplied[], lines: [] as string[], duringRead: null } as unknown as Rig;
  const isIgnored = rules.isIgnored.bind(rules);
  rules.isIgnored = (rel, isDir) => {
    const hook = r.duringRead;
    if (hook && isDir && parentOf(rel) === hook.folder && /chokidar/.test(new Error().stack ?? '')) {
      r.duringRead = null;
      hook.fn();
    }
    return isIgnored(rel, isDir);
  };
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  r.watcher = await RepoWatcher.start({ root, rules, index: handle, exclusive, log: (l) => r.lines.push(l), onApplied: (a) => r.applied.push(a) });
  return r;
}

async function close(r: Rig): Promise<void> {
  await r.watcher.close();
  await r.handle.close();
}

const watched = (abs: string): boolean => inotifyWatchedInodes().has(statSync(abs).ino);
const found = async (r: Rig, query: string): Promise<number> => (await r.handle.runTool('search_code', { query, case_sensitive: true })).total;

/** Once `folder` is watched: a save in it, then one in a folder watched all along; once the second is applied, the first was seen too (one inotify queue, in order). */
async function saveIsSeen(r: Rig, folder: string, word: string): Promise<void> {
  await waitFor(`a watch on ${folder}/`, () => watched(join(r.root, folder)));
  writeFileSync(join(r.root, folder, 'saved.py'), `${word} = 1\n`);
  const marker = `src/after_${word.toLowerCase()}.py`;
  writeFileSync(join(r.root, marker), 'AFTER = 1\n');
  await waitFor(`the save in src/ after ${folder}/`, () => r.applied.some((a) => a.paths.includes(marker)));
  await r.watcher.idle();
  assert.ok(r.applied.some((a) => a.paths.includes(`${folder}/saved.py`)), `the save in ${folder}/ was seen: ${JSON.stringify(r.applied.map((a) => a.paths))}`);
  assert.is(await found(r, word), 1);
}

/**
 * Holds every thread of libuv's pool (each blocked opening a FIFO that has no writer), so file system work queued after
 * this call waits; `release` opens the writing ends, and the pool runs again.
 */
function holdThreadPool(): { release(): void } {
  const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const dir = tempDir('fifos');
  const fifos = Array.from({ length: threads }, (_, i) => join(dir, `f${i}`));
  execFileSync('mkfifo', fifos);
  for (const f of fifos) open(f, 'r', (err, fd) => { if (!err) closeSync(fd); });
  return {
    release: () => {
      for (const f of fifos) closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    },
  };
}

test('a folder made during a re-read chokidar\'s throttle forgot is watched after chokidar\'s window: a save in it is seen', async () => {
  const r = await rig((root) => { for (let i = 0; i < WIDE_FOLDERS; i++) mkdirSync(join(root, 'wide', `d${i}`), { recursive: true }); });
  try {
    let released: () => void = () => undefined;
    const done = new Promise<void>((res) => { released = res; });
    r.duringRead = {
      folder: 'wide',
      fn: () => {
        // The listing is done: neither is in it. A file needs no watch of its own (the folder's names it); a folder does.
        mkdirSync(join(r.root, 'wide', 'late'));
        writeFileSync(join(r.root, 'wide', 'late', 'made.py'), 'MADE_IN_LATE = 1\n');
        writeFileSync(join(r.root, 'wide', 'beside.py'), 'MADE_BESIDE = 1\n');
        const pool = holdThreadPool();
        // Set after chokidar's timer (armed when this read began) and due no earlier: it fires after it.
        setTimeout(() => { pool.release(); released(); }, CHOKIDAR_READDIR_WINDOW_MS);
      },
    };
    writeFileSync(join(r.root, 'wide', 'touch.py'), 'TOUCH = 1\n'); // the change whose re-read is the slow one
    await done;
    await saveIsSeen(r, 'wide/late', 'SAVED_IN_LATE');
    assert.ok(r.lines.some((l) => /^watcher: 1 folder\(s\) made while chokidar re-read their parent were not watched; watching them now: wide\/late$/.test(l)),
      `the watcher, not chokidar, watched it: ${JSON.stringify(r.lines)}`);
    assert.is(await found(r, 'MADE_IN_LATE'), 1, 'the file made with it');
    assert.is(await found(r, 'MADE_BESIDE'), 1, 'the file made beside it, during the same read');
  } finally {
    await close(r);
  }
});

test('two folders made 100 ms apart in an idle watched folder are both watched: a save in each is seen', async () => {
  const r = await rig();
  try {
    mkdirSync(join(r.root, 'src', 'first'));
    await delay(100); // the case itself (one save, then another a moment later), not a wait for anything
    mkdirSync(join(r.root, 'src', 'second'));
    await saveIsSeen(r, 'src/first', 'SAVED_IN_FIRST');
    await saveIsSeen(r, 'src/second', 'SAVED_IN_SECOND');
  } finally {
    await close(r);
  }
});

test('a file made in a folder while chokidar re-reads it after another change there is indexed', async () => {
  const r = await rig();
  try {
    r.duringRead = { folder: 'src', fn: () => writeFileSync(join(r.root, 'src', 'second.py'), 'SECOND_FILE = 1\n') };
    mkdirSync(join(r.root, 'src', 'sub')); // the first change: chokidar re-reads src/, and asks the rules about sub/
    await waitFor('src/second.py applied', () => r.applied.some((a) => a.paths.includes('src/second.py')));
    await r.watcher.idle();
    assert.is(await found(r, 'SECOND_FILE'), 1);
    await saveIsSeen(r, 'src/sub', 'SAVED_IN_SUB');
  } finally {
    await close(r);
  }
});

test.run();
