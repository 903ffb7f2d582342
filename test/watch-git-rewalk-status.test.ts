// A change to the tracked set that asks for a re-walk (`git add` of a folder
// git did not track: "the tracked folders changed") is caught up with like
// any other: while the re-walk runs, catching_up counts it and names it.
// Before, the batch that read git's sources counted no change (its paths
// alone were counted, and it has none) and, once the check turned into a
// re-walk, named none: `daemon status` printed "catching up: re-walking" and
// "no change seen; re-walk: " with nothing after it for the whole re-walk
// (6 s on webpack after `git reset --hard HEAD~50`), while the answers were
// marked as catching up. A real git repository, a real index (LMDB in a temp
// folder) and a real watcher; the record is read inside the re-walk's own
// progress callback, so nothing depends on how fast the machine is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress } from '../indexer/api.js';
import type { CatchingUp } from '../indexer/query/schemas.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

test('a re-walk asked for by git\'s tracked set is counted and named while it runs', async () => {
  const root = realpathSync(fixtureCopy({ git: true }));
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  const seen: Array<{ p: BuildProgress; catchingUp: CatchingUp | null | undefined }> = [];
  const starts: Array<CatchingUp | null | undefined> = [];
  let watcher: RepoWatcher | null = null;
  const index = {
    update: (paths: string[]) => handle.update(paths),
    refresh: (onProgress?: (p: BuildProgress) => void) => {
      // As the re-walk begins, before its first progress report sets the count.
      starts.push(watcher?.catchingUp);
      return handle.refresh((p) => {
        onProgress?.(p);
        if (watcher) seen.push({ p, catchingUp: watcher.catchingUp });
      });
    },
  };
  watcher = await RepoWatcher.start({ root, rules: await RepoRules.load(root), index, exclusive: (fn) => fn() });
  try {
    await watcher.idle();
    seen.length = 0;
    // Made, then tracked: the watcher sees the files' events first and indexes them (a batch of its own, waited for);
    // `git add` then changes .git/index alone, and a folder tracked now that was not is a change of the tracked folders.
    mkdirSync(join(root, 'tracked_now'));
    writeFileSync(join(root, 'tracked_now', 'mod.py'), 'TRACKED_MARK = 1\n');
    await waitFor('the new file indexed', async () => (await handle.runTool('search_code', { query: 'TRACKED_MARK' })).total === 1 || undefined, 30_000, 5);
    await watcher.idle();
    seen.length = starts.length = 0;
    git(root, ['add', 'tracked_now']);
    await waitFor('the re-walk the tracked set asked for', () => seen.length > 0 || undefined, 60_000, 5);
    await watcher.idle();
    assert.is(starts.length, 1, 'one re-walk');
    const during = [{ p: { phase: 'start' }, catchingUp: starts[0] }, ...seen];
    assert.ok(during.length > 0, 'the re-walk reported its progress');
    for (const { p, catchingUp } of during) {
      assert.ok(catchingUp, `catching up during the re-walk (${JSON.stringify(p)})`);
      assert.ok(catchingUp!.changes >= 1, `the re-walk counts as a change: ${JSON.stringify(catchingUp)}`);
      assert.is(catchingUp!.rewalk, 'the tracked folders changed', JSON.stringify(catchingUp));
    }
    assert.is(watcher.catchingUp, null, 'in step once the re-walk landed');
  } finally {
    await watcher.close();
    await handle.close();
  }
});

test.run();
