// Every ignore source is live (issue 30, point 3), against real git on a
// running daemon: .git/info/exclude, the file core.excludesFile names (and
// core.excludesFile itself set and moved in .git/config), and the tracked set
// (`git rm --cached` of a tracked file .gitignore matches; `git add -f` back).
// Each source, and back again: a file that becomes ignored leaves every answer,
// one that stops being ignored enters it. Waits on the answers (no timing
// assertion); the time each took is printed for docs/performance/changes.md.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '../protocol/messages.js';
import { connect, type Client } from '../client/connection.js';
import { fixtureCopy, isNotIndexed, startDaemon, stopWatched, waitFor, waitWatcherReady, type TestDaemon } from './helpers/daemon.js';
import { git, tempDir } from './helpers/fs.js';

let d: TestDaemon | undefined;
let c: Client | undefined;
let root = '';
/** The daemon's HOME: git's default excludes file is under it. */
let home = '';
const took: string[] = [];
test.after.each(async () => { await stopWatched(d, c); d = c = undefined; });
test.after(() => { if (took.length) console.log(`    ignore source to answer: ${took.join(', ')}`); });

/** A git repository of the fixture with an untracked file under scratch/, and a daemon whose git reads only this test's config. */
async function start(prepare?: () => void, env: NodeJS.ProcessEnv = {}): Promise<void> {
  root = fixtureCopy({ git: true });
  writeFileSync(join(root, 'debug.log'), 'DEBUG_LOG_MARK\n');
  git(root, ['add', '-f', 'debug.log']);
  git(root, ['commit', '-qm', 'a tracked file that .gitignore matches']);
  mkdirSync(join(root, 'scratch'));
  writeFileSync(join(root, 'scratch', 'todo.txt'), 'SCRATCH_MARK\n');
  prepare?.();
  home = tempDir('gitcfg');
  ({ d } = { d: await startDaemon(root, { env: { HOME: home, XDG_CONFIG_HOME: '', GIT_CONFIG_GLOBAL: join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1', ...env } }) });
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  // The watcher's own catch-up is over too: each change below is applied as a change of its own
  // (one during the start-up catch-ups: test/ignore-catchup, at known points).
  await waitFor('the watcher\'s catch-up', () => d!.log().includes('re-walked (catch-up after the watcher scan)'), 30_000);
}

async function found(mark: string): Promise<boolean> {
  return (await c!.request(Methods.toolsCall, { name: 'search_code', arguments: { query: mark } })).total > 0;
}

/** Makes the change, then waits until `path` is out of (or back in) every answer: search and read. */
async function expect(what: string, change: () => void, path: string, mark: string, indexed: boolean): Promise<void> {
  const t0 = performance.now();
  change();
  await waitFor(what, async () => (await found(mark)) === indexed && (await isNotIndexed(c!, path)) === !indexed);
  took.push(`${what} ${Math.round(performance.now() - t0)} ms`);
}

/** The left-out counts as the watcher left them equal those of a full walk made now. */
async function countsAsAWalk(): Promise<void> {
  const live = (await c!.request(Methods.indexStatus)).index.leftOut;
  await c!.request(Methods.indexRefresh);
  assert.equal(live, (await c!.request(Methods.indexStatus)).index.leftOut);
}

test('.git/info/exclude: a line added hides an untracked file, removed shows it again; the left-out counts follow', async () => {
  await start(() => {
    writeFileSync(join(root, 'scratch', 'more.txt'), 'MORE_MARK\n');
    // A folder of files that are all ignored already (*.log): hidden as a whole, it counts once, as a walk counts it.
    mkdirSync(join(root, 'logs'));
    for (const f of ['a.log', 'b.log']) writeFileSync(join(root, 'logs', f), 'LOG\n');
  });
  assert.ok(await found('SCRATCH_MARK'));
  const exclude = join(root, '.git', 'info', 'exclude');
  const ignored = async (): Promise<number> => (await c!.request(Methods.indexStatus)).index.leftOut.ignored;
  const before = await ignored();
  await expect('exclude +', () => appendFileSync(exclude, 'scratch/\nlogs/\n'), 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await waitFor('scratch/ and logs/ counted once each', async () => (await ignored()) === before - 2 + 2 && (await isNotIndexed(c!, 'scratch/more.txt')));
  await countsAsAWalk();
  await expect('exclude -', () => writeFileSync(exclude, '# nothing\n'), 'scratch/todo.txt', 'SCRATCH_MARK', true);
  await waitFor('the logs counted again', async () => (await ignored()) === before && !(await isNotIndexed(c!, 'scratch/more.txt')));
  // New patterns re-check the paths they can flip: the tree is not walked for them.
  assert.not.match(d!.log(), /re-walked \(git's ignore/);
  await countsAsAWalk();
});

test('core.excludesFile: set in .git/config, its file edited, moved elsewhere, unset', async () => {
  await start();
  const a = join(tempDir('excl'), 'ignore-a');
  const b = join(tempDir('excl'), 'ignore-b');
  writeFileSync(a, 'scratch/\n');
  writeFileSync(b, '');
  await expect('excludesFile set', () => git(root, ['config', 'core.excludesFile', a]), 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await expect('excludesFile edited', () => writeFileSync(a, '# scratch is fine now\n'), 'scratch/todo.txt', 'SCRATCH_MARK', true);
  await expect('excludesFile edited back', () => writeFileSync(a, 'scratch/todo.txt\n'), 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await expect('excludesFile moved', () => git(root, ['config', 'core.excludesFile', b]), 'scratch/todo.txt', 'SCRATCH_MARK', true);
  // The new file is the one watched now: an edit to it counts, one to the old does not.
  await expect('new excludesFile edited', () => writeFileSync(b, 'scratch/\n'), 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await expect('excludesFile unset', () => git(root, ['config', '--unset', 'core.excludesFile']), 'scratch/todo.txt', 'SCRATCH_MARK', true);
});

test('the default excludes file, its folders made while the daemon runs (~/.config/git/ignore), then removed', async () => {
  await start();
  const config = join(home, '.config');
  await expect('~/.config/git/ignore made', () => {
    mkdirSync(join(config, 'git'), { recursive: true });
    writeFileSync(join(config, 'git', 'ignore'), 'scratch/\n');
  }, 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await expect('~/.config removed', () => rmSync(config, { recursive: true }), 'scratch/todo.txt', 'SCRATCH_MARK', true);
  // One folder at a time, the file written the moment its folder exists.
  await expect('made again', () => {
    mkdirSync(config);
    mkdirSync(join(config, 'git'));
    writeFileSync(join(config, 'git', 'ignore'), 'scratch/todo.txt\n');
  }, 'scratch/todo.txt', 'SCRATCH_MARK', false);
});

test('$XDG_CONFIG_HOME/git/ignore, the folder XDG_CONFIG_HOME names made while the daemon runs', async () => {
  const xdg = join(tempDir('xdg'), 'config');
  await start(undefined, { XDG_CONFIG_HOME: xdg });
  await expect('$XDG_CONFIG_HOME/git/ignore made', () => {
    mkdirSync(join(xdg, 'git'), { recursive: true });
    writeFileSync(join(xdg, 'git', 'ignore'), 'scratch/\n');
  }, 'scratch/todo.txt', 'SCRATCH_MARK', false);
  await expect('edited', () => writeFileSync(join(xdg, 'git', 'ignore'), '\n'), 'scratch/todo.txt', 'SCRATCH_MARK', true);
});

test('the tracked set: git rm --cached makes a matched file ignored, git add -f brings it back', async () => {
  await start();
  assert.ok(await found('DEBUG_LOG_MARK'), 'tracked, so indexed though *.log matches it');
  await expect('rm --cached', () => git(root, ['rm', '-q', '--cached', 'debug.log']), 'debug.log', 'DEBUG_LOG_MARK', false);
  await expect('add -f', () => git(root, ['add', '-f', 'debug.log']), 'debug.log', 'DEBUG_LOG_MARK', true);
  // Only the flipped path is checked again: no re-walk of the tree.
  const applied = d!.log().split('\n').filter((l) => l.includes('watch:')).slice(-1)[0];
  assert.match(applied, /watch: debug\.log:/, applied);
});

test('a .gitignore below the root: its folder is walked again, not the tree', async () => {
  await start();
  writeFileSync(join(root, 'src', 'local_notes.py'), 'LOCAL_NOTES_MARK = 1\n');
  await waitFor('the new file indexed', () => found('LOCAL_NOTES_MARK'));
  await expect('src/.gitignore +', () => writeFileSync(join(root, 'src', '.gitignore'), 'local_notes.py\n'), 'src/local_notes.py', 'LOCAL_NOTES_MARK', false);
  await expect('src/.gitignore -', () => writeFileSync(join(root, 'src', '.gitignore'), '# none\n'), 'src/local_notes.py', 'LOCAL_NOTES_MARK', true);
  const applied = d!.log().split('\n').filter((l) => l.includes('watch:'));
  assert.ok(applied.filter((l) => /watch: (\S+ )*src[ :]/.test(l)).length >= 2, applied.join('\n')); // with the names links give it
  assert.not.match(d!.log(), /re-walked \(src\/\.gitignore changed/);
});

test('a folder ignored when the daemon started comes into view: indexed, and watched from then on', async () => {
  const exclude = (): string => join(root, '.git', 'info', 'exclude');
  await start(() => {
    mkdirSync(join(root, 'hidden'));
    writeFileSync(exclude(), 'hidden/\n');
    writeFileSync(join(root, 'hidden', 'a.txt'), 'HIDDEN_A_MARK\n');
  });
  assert.not.ok(await found('HIDDEN_A_MARK'));
  await expect('ignored folder un-ignored', () => writeFileSync(exclude(), ''), 'hidden/a.txt', 'HIDDEN_A_MARK', true);
  await expect('a new file in it', () => writeFileSync(join(root, 'hidden', 'b.txt'), 'HIDDEN_B_MARK\n'), 'hidden/b.txt', 'HIDDEN_B_MARK', true).catch((e) => { throw new Error(`${(e as Error).message}\n${d!.log()}`); });
});

test.run();
