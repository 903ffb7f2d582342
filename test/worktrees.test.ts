// A git work tree of the same repository below the root is not indexed
// (discover/worktrees.ts), against real git and real folders: the walk leaves
// out `git worktree add` folders (absolute, relative and linked `gitdir:`, a
// root that is itself a linked work tree) and indexes a nested clone and a
// submodule; hostile `.git` files (anywhere, huge, binary, a link, a fifo)
// neither hang, crash nor make a folder a work tree; and with a running
// watcher, `git worktree add`/`remove`, a `.git` file written after the files
// and taken away again are followed, the left-out counts as a full walk has them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IndexHandle } from '../indexer/api.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { openIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchMode } from '../indexer/watch.js';
import { formatLeftOut } from '../client/daemon-report.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** A committed repository `repo` in a temp folder, holding src/a.ts. */
function repo(): string {
  const root = join(tempDir('wt'), 'repo');
  write(root, { 'src/a.ts': 'export function alphaMark(): number { return 1; }\n' });
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'init']);
  return root;
}

function mkfifo(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
}

async function walk(root: string): Promise<{ files: string[]; worktrees: string[]; skipped: number }> {
  const w = await walkRepo(root, await RepoRules.load(root));
  return {
    files: w.files.map((f) => f.path),
    worktrees: w.leftOut.filter((e) => e.reason === 'worktree').map((e) => e.path).sort(),
    skipped: w.skipped.worktree,
  };
}

test('the walk leaves out work trees of the repository (absolute, relative, linked gitdir) and indexes a nested clone and a submodule', async () => {
  const root = repo();
  const common = join(root, '.git');
  git(root, ['worktree', 'add', '-q', '.worktrees/x', 'HEAD']);
  git(root, ['worktree', 'add', '-q', 'deep/er/wt', 'HEAD']);
  // git >= 2.48 can write the path relative (worktree.useRelativePaths): written by hand here.
  git(root, ['worktree', 'add', '-q', 'rel-wt', 'HEAD']);
  writeFileSync(join(root, 'rel-wt', '.git'), 'gitdir: ../.git/worktrees/rel-wt\n');
  // The repository reached through a link outside the root.
  git(root, ['worktree', 'add', '-q', 'link-wt', 'HEAD']);
  const alias = join(dirname(root), 'alias');
  symlinkSync(root, alias);
  writeFileSync(join(root, 'link-wt', '.git'), `gitdir: ${alias}/.git/worktrees/link-wt\n`);
  // Line ends as git reads them: CR LF trimmed.
  git(root, ['worktree', 'add', '-q', 'crlf-wt', 'HEAD']);
  writeFileSync(join(root, 'crlf-wt', '.git'), `gitdir: ${common}/worktrees/crlf-wt\r\n`);
  // Other repositories: a nested clone (a .git folder), a submodule (gitdir into modules/), another
  // repository's work tree, and a work tree git no longer knows (its folder in worktrees/ gone).
  git(dirname(root), ['clone', '-q', root, join(root, 'vendor', 'clone')]);
  mkdirSync(join(common, 'modules', 'sub'), { recursive: true });
  write(root, { 'sub/.git': 'gitdir: ../.git/modules/sub\n', 'sub/s.ts': 'export const s = 1;\n' });
  const other = repo();
  git(other, ['worktree', 'add', '-q', 'ow', 'HEAD']);
  write(root, { 'foreign/.git': `gitdir: ${other}/.git/worktrees/ow\n`, 'foreign/f.ts': 'export const f = 1;\n' });
  write(root, { 'ghost/.git': `gitdir: ${common}/worktrees/ghost\n`, 'ghost/g.ts': 'export const g = 1;\n' });

  const w = await walk(root);
  assert.equal(w.worktrees, ['.worktrees/x', 'crlf-wt', 'deep/er/wt', 'link-wt', 'rel-wt']);
  assert.is(w.skipped, 5);
  assert.equal(w.files, ['foreign/f.ts', 'ghost/g.ts', 'src/a.ts', 'sub/s.ts', 'vendor/clone/src/a.ts']);
  // git's own view agrees where it has one: each work tree is one untracked folder it does not enter.
  const untracked = git(root, ['status', '--porcelain', '--untracked-files=all']).split('\n').filter((l) => l.startsWith('?? '));
  for (const p of w.worktrees) assert.ok(untracked.includes(`?? ${p}/`), `${p}: ${untracked.join(' | ')}`);

  // The index counts and names them; one definition of alphaMark per repository copy that is not a work tree.
  const h = await openIndex(root, { stateDir: tempDir('state') });
  try {
    await h.refresh();
    const s = h.status();
    assert.is(s.leftOut.worktree, 5);
    assert.equal(s.worktreePaths, ['.worktrees/x', 'crlf-wt', 'deep/er/wt']);
    assert.is(formatLeftOut(s.leftOut, s).plain.split(' · ').find((p) => p.includes('work tree')),
      '5 work trees of this repository (.worktrees/x/, crlf-wt/, deep/er/wt/ and 2 more)');
    const defs = (await h.runTool('find_symbol', { name: 'alphaMark' })).evidence.map((e) => e.path).sort();
    assert.equal(defs, ['src/a.ts', 'vendor/clone/src/a.ts']);
    // Reading a file of one says why it is not there.
    try {
      await h.runTool('read_evidence', { path: 'deep/er/wt/src/a.ts', start_line: 1 });
      assert.unreachable('read a work tree\'s file');
    } catch (e) {
      assert.match((e as Error).message, '"deep/er/wt/src/a.ts" is in deep/er/wt/, a work tree of this repository, which is not indexed');
    }
  } finally { await h.close(); }
});

test('a root that is itself a linked work tree: a work tree of the same repository inside it is left out', async () => {
  const main = repo();
  const wtRoot = join(dirname(main), 'wt-root');
  git(main, ['worktree', 'add', '-q', wtRoot, 'HEAD']);
  git(wtRoot, ['worktree', 'add', '-q', 'inner', 'HEAD']);
  const w = await walk(wtRoot);
  assert.equal(w.worktrees, ['inner']);
  assert.equal(w.files, ['src/a.ts']);
  // The root's own .git file makes nothing of the root; the main work tree walks as ever.
  assert.equal((await walk(main)).files, ['src/a.ts']);
});

test('hostile .git files: none hangs, crashes, reads what it names, or makes its folder a work tree', async () => {
  const root = repo();
  const outside = tempDir('outside');
  // A fifo no writer ever opens: reading it would wait forever, so a walk that ends never opened it.
  mkfifo(join(outside, 'fifo'));
  mkfifo(join(root, '.git', 'worktrees', 'fifo-wt'));
  git(root, ['worktree', 'add', '-q', '.worktrees/real', 'HEAD']);
  const valid = `gitdir: ${join(root, '.git', 'worktrees', 'real')}\n`;
  const cases: Record<string, string | Buffer> = {
    'etc/.git': 'gitdir: /etc\n',
    'up/.git': 'gitdir: ../../../../../../../../worktrees/real\n',
    'escape/.git': `gitdir: ${join(root, '.git')}/worktrees/../../../outside\n`,
    'deeper/.git': `gitdir: ${join(root, '.git', 'worktrees', 'real', 'nested')}\n`,
    'outside-fifo/.git': `gitdir: ${join(outside, 'fifo')}\n`,
    'admin-fifo/.git': `gitdir: ${join(root, '.git', 'worktrees', 'fifo-wt')}\n`,
    'huge/.git': valid + 'x'.repeat(8 << 20),
    'binary/.git': Buffer.concat([Buffer.from(valid.trimEnd()), Buffer.from([0, 0xff, 0xfe, 0])]),
    'no-prefix/.git': `${valid.slice('gitdir: '.length)}`,
    'two-lines/.git': `${valid}gitdir: /etc\n`,
    'empty/.git': '',
  };
  write(root, cases);
  const folders = [...Object.keys(cases).map(dirname), 'link', 'fifo', 'git-dir'];
  for (const f of folders) write(root, { [`${f}/m.ts`]: `export const m = '${f}';\n` });
  symlinkSync(join(root, '.worktrees', 'real', '.git'), join(root, 'link', '.git')); // a valid work tree's file, through a link
  mkfifo(join(root, 'fifo', '.git'));
  write(root, { 'git-dir/.git/gitdir': valid }); // a .git folder: a nested repository, however odd

  const w = await walk(root);
  assert.equal(w.worktrees, ['.worktrees/real']);
  assert.equal(w.files, [...folders.map((f) => `${f}/m.ts`), 'src/a.ts'].sort());
  // The same verdicts one path at a time, as the watcher asks them.
  const rules = await RepoRules.load(root);
  for (const f of folders) assert.is(rules.isIgnored(f, true), false, f);
  assert.is(rules.isIgnored('.worktrees/real', true), true);
  assert.is(rules.isIgnored('.worktrees/real/src/a.ts', false), true);
});

interface Rig { root: string; handle: IndexHandle; watcher: RepoWatcher; close(): Promise<void> }

/** A committed copy of the fixture, indexed, with a watcher sharing the index's rules, as the daemon runs them. */
async function rig(mode: WatchMode = 'auto', prepare?: (root: string) => void): Promise<Rig> {
  const root = realpathSync(fixtureCopy({ git: true }));
  prepare?.(root);
  const handle = await openIndex(root, { stateDir: tempDir('state') });
  await handle.refresh();
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  const watcher = await RepoWatcher.start({ root, rules: await handle.rules(), index: handle, exclusive, mode, pollMs: 50 });
  return { root, handle, watcher, close: async () => { await watcher.close(); await handle.close(); } };
}

async function definitions(h: IndexHandle, name: string): Promise<string[]> {
  return (await h.runTool('find_symbol', { name })).evidence.map((e) => e.path).sort();
}

/** Waits until the index holds `files` files and these work trees, and the watcher has nothing queued. */
async function settled(r: Rig, files: number, worktrees: string[]): Promise<void> {
  await waitFor(`${files} files and work trees [${worktrees.join(', ')}]`, async () => {
    await r.watcher.idle();
    const s = r.handle.status();
    return s.files === files && JSON.stringify(s.worktreePaths) === JSON.stringify(worktrees) && s.leftOut.worktree === worktrees.length;
  }, 30_000);
}

/** The left-out counts as the watcher left them equal those of a full walk made now. */
async function countsAsAWalk(h: IndexHandle): Promise<void> {
  const live = h.status().leftOut;
  await h.refresh();
  assert.equal(live, h.status().leftOut);
}

for (const mode of ['auto', 'poll'] as const) {
  test(`live (${mode}): git worktree add below the root adds nothing to the index, git worktree remove leaves nothing behind`, async () => {
    const r = await rig(mode);
    try {
      const files = r.handle.status().files;
      const defs = await definitions(r.handle, 'chunk_text');
      assert.equal(defs, ['src/rag_common.py']);
      git(r.root, ['worktree', 'add', '-q', '.worktrees/live', 'HEAD']);
      await settled(r, files, ['.worktrees/live']);
      assert.equal(await definitions(r.handle, 'chunk_text'), defs);
      // A save inside the work tree stays out too (a root file saved after it says when its event has come).
      writeFileSync(join(r.root, '.worktrees/live/src/later.py'), 'def later_mark():\n    pass\n');
      writeFileSync(join(r.root, 'src/sentinel.py'), 'def sentinel_mark():\n    pass\n');
      await settled(r, files + 1, ['.worktrees/live']);
      assert.equal(await definitions(r.handle, 'later_mark'), []);
      await countsAsAWalk(r.handle);
      git(r.root, ['worktree', 'remove', '--force', '.worktrees/live']);
      await settled(r, files + 1, []);
      assert.equal(r.handle.status().leftOut.worktree, 0);
      await countsAsAWalk(r.handle);
    } finally { await r.close(); }
  });
}

for (const mode of ['auto', 'poll'] as const) test(`live (${mode}): a .git file written after the files drops the folder whole; taken away, the folder is indexed again`, async () => {
  // A copy of the tree first (a plain folder, indexed before the watcher starts: no new-folder re-walk of it
  // is due, so only the .git file's event can drop it), then made a work tree by its .git file, as a copy or a
  // clone tool may write it last.
  const r = await rig(mode, (root) => cpSync(join(root, 'src'), join(root, 'copy'), { recursive: true }));
  try {
    assert.equal(await definitions(r.handle, 'chunk_text'), ['copy/rag_common.py', 'src/rag_common.py']);
    const copied = (await walk(r.root)).files.filter((p) => p.startsWith('copy/')).length;
    assert.ok(copied > 5, `${copied} files copied`);
    const files = r.handle.status().files - copied;
    mkdirSync(join(r.root, '.git', 'worktrees', 'copy'), { recursive: true });
    writeFileSync(join(r.root, 'copy', '.git'), `gitdir: ${join(r.root, '.git', 'worktrees', 'copy')}\n`);
    await settled(r, files, ['copy']);
    assert.equal(await definitions(r.handle, 'chunk_text'), ['src/rag_common.py']);
    await countsAsAWalk(r.handle);
    rmSync(join(r.root, 'copy', '.git'));
    await settled(r, files + copied, []);
    assert.equal(await definitions(r.handle, 'chunk_text'), ['copy/rag_common.py', 'src/rag_common.py']);
  } finally { await r.close(); }
});

test.run();
