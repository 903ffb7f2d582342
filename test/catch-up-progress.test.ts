// A checkout's batch names thousands of files: they are looked at together and
// parsed in the pool (Builder.update, POOL_FILES), and while it reads them the
// watcher's catching-up record carries how far it has come (`progress`, files
// read of those it has to read), which `daemon status` and the answers' footer
// show. The index it leaves is the one a cold build of the same tree makes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress, IndexHandle } from '../indexer/api.js';
import { POOL_FILES } from '../indexer/build/parse-walked.js';
import { openEvidexIndex } from '../indexer/index.js';
import { RepoWatcher } from '../indexer/watch.js';
import type { CatchingUp } from '../indexer/watch/catch-up.js';
import { readSoFar } from '../client/catching-up-note.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

const FILES = POOL_FILES + 50;

/** A repository whose `new` commit changes every one of FILES modules (each file named by its own event: the folder stays). */
function manyChanged(): string {
  const root = join(realpathSync(tempDir('work')), 'repo');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  const write = (gen: string) => { for (let i = 0; i < FILES; i++) writeFileSync(join(root, `pkg/m${i}.py`), `def ${gen}_${i}():\n    return ${i}\n`); };
  write('old');
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'old']);
  git(root, ['tag', 'old']);
  write('new');
  git(root, ['commit', '-q', '-am', 'new']);
  git(root, ['tag', 'new']);
  git(root, ['checkout', '-q', 'old']);
  return root;
}

test('a mass change: progress that moves while the batch reads, and the index a cold build of the tree makes', async () => {
  const root = manyChanged();
  const handle: IndexHandle = await openEvidexIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  /** The watcher's record each time the batch told its progress (after the watcher took it). */
  const seen: CatchingUp[] = [];
  let watcher: RepoWatcher | undefined;
  const index = {
    update: (paths: string[], onProgress?: (p: BuildProgress) => void) => handle.update(paths, (p) => {
      onProgress?.(p);
      const c = watcher?.catchingUp;
      if (c) seen.push(c);
    }),
    refresh: (onProgress?: (p: BuildProgress) => void) => handle.refresh(onProgress),
  };
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const r = queue.then(fn); queue = r.catch(() => undefined); return r; };
  watcher = await RepoWatcher.start({ root, rules: await handle.rules(), index, exclusive });
  try {
    git(root, ['checkout', '-q', 'new']);
    await new Promise<void>((resolve) => { const look = () => (watcher!.catchingUp === null && seen.length > 0 ? resolve() : setTimeout(look, 20)); look(); });
    await watcher.idle();
    const big = seen.filter((c) => c.progress && c.progress.total >= POOL_FILES);
    assert.ok(big.length > 0, `a batch of at least ${POOL_FILES} files told its progress: ${JSON.stringify(seen.slice(0, 3))}`);
    const dones = big.map((c) => c.progress!.done);
    assert.ok(new Set(dones).size >= 2, `the count moved: ${dones.join(' ')}`);
    for (let i = 1; i < dones.length; i++) assert.ok(dones[i]! >= dones[i - 1]!, `never backwards: ${dones.join(' ')}`);
    const last = big[big.length - 1]!.progress!;
    assert.is(last.done, last.total, 'all read before the write');
    assert.ok(big[0]!.changes >= 1, 'the changes still wait while it reads');
    assert.is(String(readSoFar(big[big.length - 1]!)), `; read ${last.total} of ${last.total} files`);
    assert.is(watcher.catchingUp, null, 'in step once the batch landed: no progress left behind');

    const cold = await openEvidexIndex(root, { stateDir: tempDir('cold') });
    try {
      await cold.refresh();
      for (const name of ['new_0', `new_${FILES - 1}`, 'old_0']) {
        assert.is((await handle.runTool('find_symbol', { name })).total, (await cold.runTool('find_symbol', { name })).total, name);
      }
      assert.is((await handle.runTool('find_symbol', { name: `new_${FILES - 1}` })).total, 1);
      const a = handle.status(), b = cold.status();
      assert.equal([a.files, a.symbols], [b.files, b.symbols], 'the same files and symbols as a cold build');
    } finally {
      await cold.close();
    }
  } finally {
    await watcher.close();
    await handle.close();
  }
});

test.run();
