// A folder made while chokidar scans its parent — after chokidar listed the
// parent, before it watched it — raises no event and was never watched: a
// re-cloned root's `email/` went unwatched under load in CI (daemon-root.test:
// the save after the clone was never seen). Here the folder is made at exactly
// that moment, every run: from inside chokidar's own filter call on the
// parent's listing (the rules' isIgnored, asked by the watcher's `ignored`).
// The re-walk that follows the scan must then watch it, so a save in it is
// seen (watch/unwatched.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied } from '../indexer/watch.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { inotifyWatchedInodes } from './helpers/inotify.js';

test.after(() => cleanupTemp());

test('a folder made while chokidar scanned its parent is watched after the re-walk that follows the scan: a save in it is seen', async () => {
  const root = realpathSync(fixtureCopy());
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const rules = await RepoRules.load(root);
  const late = join(root, 'late');
  // The first time chokidar's scan asks about a folder of the root's listing, `late/` is made: the listing is taken, the root not yet watched.
  let madeDuringScan = false;
  const isIgnored = rules.isIgnored.bind(rules);
  rules.isIgnored = (rel, isDir) => {
    if (!madeDuringScan && isDir && !rel.includes('/') && /chokidar/.test(new Error().stack ?? '')) {
      madeDuringScan = true;
      mkdirSync(late);
      writeFileSync(join(late, 'made.py'), 'MADE_DURING_SCAN = 1\n');
    }
    return isIgnored(rel, isDir);
  };
  const applied: WatchApplied[] = [];
  const lines: string[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  const w = await RepoWatcher.start({ root, rules, index: handle, exclusive, log: (l) => lines.push(l), onApplied: (a) => applied.push(a) });
  try {
    assert.ok(madeDuringScan, 'late/ was made during the scan');
    assert.not.ok(inotifyWatchedInodes().has(statSync(late).ino), 'chokidar missed it: no watch on late/ after the scan');
    // What the daemon does after every scan (daemon/updates.ts): a re-walk; it indexes late/ and finds it unwatched.
    w.requestRefresh('catch-up after the watcher scan');
    await w.idle();
    assert.equal((await handle.runTool('search_code', { query: 'MADE_DURING_SCAN', case_sensitive: true })).total, 1, 'the re-walk indexed it');
    assert.ok(lines.some((l) => /watcher: 1 folder\(s\) made while chokidar scanned their parent were not watched; watching them now: late$/.test(l)), lines.join('\n'));
    await waitFor('a watch on late/', () => inotifyWatchedInodes().has(statSync(late).ino));
    // A save in late/, then one in a folder watched all along: once the second is applied, the first was seen too (one inotify queue, in order).
    writeFileSync(join(late, 'saved.py'), 'SAVED_IN_LATE = 1\n');
    writeFileSync(join(root, 'src', 'after.py'), 'SAVED_IN_SRC = 1\n');
    await waitFor('the save in src/', () => applied.some((a) => a.paths.includes('src/after.py')));
    await w.idle();
    assert.ok(applied.some((a) => a.paths.includes('late/saved.py')), `the save in late/ was seen: ${JSON.stringify(applied.map((a) => a.paths))}`);
    assert.equal((await handle.runTool('search_code', { query: 'SAVED_IN_LATE', case_sensitive: true })).total, 1);
  } finally {
    await w.close();
    await handle.close();
  }
});

test.run();
