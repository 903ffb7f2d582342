// A re-index of a root whose folder was just replaced (issue 31 point 1, held
// out): a clone makes the folder first and checks its files out afterwards.
// A catch-up that walked at once removed every file not checked out yet and
// parsed it again once it landed (on a 29,649-file tree re-cloned in 2.3 s:
// 25,453 removed, 96 s to have them all back). With `settle`, the catch-up
// walks again until two walks agree. The tree fills between the walks here by
// the test's own hand (no clock): with settle nothing is removed or parsed
// again; without, what was not there yet is removed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { cloneUnfinished, type SettleWalks } from '../indexer/build/settled-walk.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

const FOLDERS = ['a', 'm', 'z'], EACH = 20;

test('a catch-up with settle walks until the tree stops filling: files that land between its walks are neither removed nor parsed again', async () => {
  const root = join(realpathSync(tempDir('work')), 'repo');
  const tree: Record<string, string> = {};
  for (const f of FOLDERS) for (let i = 0; i < EACH; i++) tree[`${f}/m${i}.py`] = `def ${f}_fn_${i}():\n    return ${i}\n`;
  write(root, tree);
  git(root, ['init', '-q']);
  const aside = join(tempDir('aside'), 'tree');
  cpSync(root, aside, { recursive: true });
  const handle = await openEvidexIndex(root, { stateDir: join(tempDir('state'), 's') });
  try {
    assert.is((await handle.refresh()).files, FOLDERS.length * EACH);
    /** The root replaced by a clone that has made its folder and checked out the first folder only; `fill()` checks out the next. */
    const recloned = () => {
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      cpSync(join(aside, '.git'), join(root, '.git'), { recursive: true });
      const left = [...FOLDERS];
      const fill = (): void => { const f = left.shift(); if (f) cpSync(join(aside, f), join(root, f), { recursive: true }); };
      fill();
      return fill;
    };

    let fill = recloned();
    let walksWaited = 0;
    const settle: SettleWalks = { between: async () => { walksWaited++; fill(); }, maxWalks: 10, maxUnfinished: 10 };
    const settled = await handle.refresh(undefined, undefined, settle);
    assert.equal({ files: settled.files, parsed: settled.parsed, removed: settled.removed }, { files: FOLDERS.length * EACH, parsed: 0, removed: 0 });
    assert.is(walksWaited, FOLDERS.length, 'walked until two walks agreed: once per folder checked out, and once more');
    const z = await handle.runTool('find_symbol', { name: `z_fn_${EACH - 1}` });
    assert.is(z.total, 1);
    assertEvidenceChecks(root, z.evidence);

    // The same without settle: one walk, and what had not landed yet is removed (and parsed again later).
    fill = recloned();
    const once = await handle.refresh();
    assert.equal({ files: once.files, removed: once.removed }, { files: EACH, removed: (FOLDERS.length - 1) * EACH });
    fill(); fill();
    const after = await handle.refresh();
    assert.is(after.parsed, (FOLDERS.length - 1) * EACH, 'the files removed are parsed again when they land');
  } finally {
    await handle.close();
  }
});

test('settle is bounded: a tree that never stops changing is walked maxWalks times, then caught up with as it is', async () => {
  const root = join(realpathSync(tempDir('work')), 'repo');
  write(root, { 'a.py': 'A = 1\n' });
  git(root, ['init', '-q']);
  const handle = await openEvidexIndex(root, { stateDir: join(tempDir('state'), 's') });
  try {
    await handle.refresh();
    let n = 0;
    const s = await handle.refresh(undefined, undefined, { between: async () => { n++; write(root, { [`new${n}.py`]: `N${n} = ${n}\n` }); }, maxWalks: 5, maxUnfinished: 5 });
    assert.is(n, 4, 'four pauses between five walks');
    assert.is(s.files, 5, 'a.py and the four files that came between the walks');
  } finally {
    await handle.close();
  }
});

test('a clone still fetching (nothing but a .git without an index) or checking out (.git/index.lock held) never counts as settled, however long', async () => {
  // The repository cloned: a real `git clone` of a local one, staged by hand as a slow network clone goes.
  const origin = join(realpathSync(tempDir('origin')), 'repo');
  const tree: Record<string, string> = {};
  for (const f of FOLDERS) for (let i = 0; i < EACH; i++) tree[`${f}/m${i}.py`] = `def ${f}_fn_${i}():\n    return ${i}\n`;
  write(origin, tree);
  git(origin, ['init', '-q', '-b', 'main']);
  git(origin, ['add', '-A']);
  git(origin, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
  const root = join(realpathSync(tempDir('work')), 'repo');
  git(dirname(root), ['clone', '-q', origin, root]);
  const all = FOLDERS.length * EACH;
  const handle = await openEvidexIndex(root, { stateDir: join(tempDir('state'), 's') });
  try {
    assert.is((await handle.refresh()).files, all);
    // Re-cloned: the folder and its .git first (fetched, not checked out: no .git/index), the work tree last.
    rmSync(root, { recursive: true, force: true });
    git(dirname(root), ['clone', '-q', '--no-checkout', origin, root]);
    assert.ok(cloneUnfinished(root), 'a .git alone, without an index');
    // The steps a slow clone takes, one per pause between walks: the fetch goes on for 8 walks (far past maxWalks);
    // then the checkout holds .git/index.lock while it writes the work tree (one folder, then nothing for 3 walks);
    // then it is done (every file, and the index).
    const steps: Array<() => void> = [];
    for (let i = 0; i < 8; i++) steps.push(() => undefined);
    steps.push(() => { writeFileSync(join(root, '.git', 'index.lock'), ''); cpSync(join(origin, 'a'), join(root, 'a'), { recursive: true }); });
    for (let i = 0; i < 3; i++) steps.push(() => assert.ok(cloneUnfinished(root), 'index.lock held'));
    steps.push(() => { rmSync(join(root, '.git', 'index.lock')); git(root, ['checkout', '-q', '-f', 'main']); assert.not.ok(cloneUnfinished(root)); });
    let pauses = 0;
    const settle: SettleWalks = { between: async () => { steps[pauses++]?.(); }, maxWalks: 3, maxUnfinished: 100 };
    const s = await handle.refresh(undefined, undefined, settle);
    assert.equal({ files: s.files, parsed: s.parsed, removed: s.removed }, { files: all, parsed: 0, removed: 0 });
    assert.is(pauses, steps.length + 1, 'walked until the checkout was done, then once more to agree');
    const z = await handle.runTool('find_symbol', { name: `z_fn_${EACH - 1}` });
    assert.is(z.total, 1);
    assertEvidenceChecks(root, z.evidence);

    // Bounded too: a clone that never checks out (or an empty `git init`) is caught up with as it is after maxUnfinished walks.
    rmSync(root, { recursive: true, force: true });
    git(dirname(root), ['clone', '-q', '--no-checkout', origin, root]);
    let waits = 0;
    const never = await handle.refresh(undefined, undefined, { between: async () => { waits++; }, maxWalks: 3, maxUnfinished: 6 });
    assert.is(waits, 5, 'six walks of the unfinished clone');
    assert.is(never.files, 0);
  } finally {
    await handle.close();
  }
});

test.run();
