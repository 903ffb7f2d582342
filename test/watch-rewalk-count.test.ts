// While the watcher's re-walk runs (after a checkout, an ignore file changed,
// a fallback to polling), what an answer's `catching_up.changes` says is
// current: the files the re-walk still has to read, and the re-walk itself,
// read at each of its progress reports — not the count the batch started
// with, which stayed put while the re-walk's commits moved the generation on.
// A real index (LMDB in a temp folder) and a real watcher over real files,
// re-walking because the root's ignore file changed; the counts are read
// inside the re-walk's own progress callback, so nothing depends on how fast
// the machine is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress } from '../indexer/api.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

test('during a re-walk, catching_up.changes is the files still to read plus the re-walk, falling as it reads', async () => {
  const root = realpathSync(fixtureCopy());
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  // Files the watcher never saw (written before it starts): only the re-walk finds them, 400 to read.
  for (let i = 0; i < 400; i++) writeFileSync(join(root, `new_${i}.py`), `VALUE_${i} = ${i}\n`);
  const seen: Array<{ p: BuildProgress; changes: number | undefined; queued: number }> = [];
  let watcher: RepoWatcher | null = null;
  const index = {
    update: (paths: string[]) => handle.update(paths),
    refresh: (onProgress?: (p: BuildProgress) => void) => handle.refresh((p) => {
      onProgress?.(p);
      if (p.phase === 'parse') seen.push({ p, changes: watcher?.catchingUp?.changes, queued: watcher?.queued ?? 0 });
    }),
  };
  watcher = await RepoWatcher.start({ root, rules: await RepoRules.load(root), index, exclusive: (fn) => fn() });
  try {
    // A change the watcher sees that re-walks the tree (the root's ignore file): the re-walk finds the 400 files too.
    writeFileSync(join(root, '.gitignore'), '*.tmp\n');
    await waitFor('the re-walk read the new files', () => seen.some(({ p }) => p.done === p.total) || undefined, 60_000, 5);
    await watcher.idle();
    assert.ok(seen.length > 0, 'the re-walk reported its parse progress');
    // Besides what was seen since the re-walk began (queued: a late event of the ignore file's write).
    for (const { p, changes, queued } of seen) assert.is(changes, queued + p.total - p.done + 1, JSON.stringify(p));
    assert.ok(seen[0].p.total >= 400, `${seen[0].p.total} to read`);
    assert.ok(seen.some(({ p }) => p.done < p.total), 'a report before the last file was read');
    assert.is(watcher.catchingUp, null, 'in step once the re-walk landed');
    assert.is((await handle.runTool('search_code', { query: 'VALUE_399' })).total, 1);
  } finally {
    await watcher.close();
    await handle.close();
  }
});

test.run();
