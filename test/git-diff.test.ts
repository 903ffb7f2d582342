// read_git_diff against real git repositories in temp dirs: every hunk's new
// side is compared with the real new file (working tree or index), and the
// refusals (bad refs, secrets, ignored files, not a repo) are checked by code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { RepoRules } from '../indexer/discover/rules.js';
import { ToolError } from '../indexer/errors.js';
import type { Evidence } from '../indexer/evidence.js';
import { gitConfigEnv, readGitDiff, parseUnifiedDiff, unquoteCPath } from '../indexer/query/git-diff.js';
import type { ToolArgs } from '../indexer/query/schemas.js';
import { openEvidexIndex } from '../indexer/index.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';

const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n';

/** A repository with two commits and a working tree that changes everything a diff can show. */
function buildRepo(): string {
  const root = tempDir('repo');
  git(root, ['init', '-q']);
  write(root, {
    'a.py': lines(30, 'a'), 'b.txt': lines(5, 'b'), '.env': 'TOKEN=old\n', 'del.py': lines(4, 'del'), 'shrink.py': lines(10, 's'),
    'gen/out.py': lines(3, 'gen'), 'bin.dat': Buffer.from([1, 0, 2, 3]), 'sp ace.py': 'one\n', 'q"uote.py': 'one\n', 'ünï.py': 'one\n',
    'sub/deep.py': 'deep\n', 'keys/server.pem': 'PEM old\n',
  });
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'one']);
  const a = readFileSync(join(root, 'a.py'), 'utf8').replace('a line 3\n', 'a line 3 (second commit)\n');
  // .evidexignore, not .gitignore: git never ignores a tracked file, and gen/out.py is tracked.
  write(root, { 'a.py': a, '.evidexignore': 'gen/\n' });
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'two']);
  // working tree changes
  const aLines = readFileSync(join(root, 'a.py'), 'utf8').split('\n');
  aLines[1] = 'a line 2 CHANGED';
  aLines.splice(20, 0, 'inserted after 20', 'and another');
  write(root, {
    'a.py': aLines.join('\n'), 'b.txt': lines(5, 'b').replace('b line 4', 'b line 4 staged'), '.env': 'TOKEN=new\n',
    'shrink.py': lines(10, 's').replace('s line 5\ns line 6\n', ''), 'gen/out.py': lines(3, 'GEN'), 'bin.dat': Buffer.from([1, 0, 9, 9]),
    'sp ace.py': 'two\n', 'q"uote.py': 'two\n', 'ünï.py': 'two\n', 'new.py': 'print("new")\n', 'sub/deep.py': 'deeper\n',
    'keys/server.pem': 'PEM new\n',
  });
  rmSync(join(root, 'del.py'));
  git(root, ['add', 'b.txt', 'new.py']);
  return root;
}

/** The new side of a hunk: context and added lines, without the first column. */
function newSide(e: Evidence): string[] {
  const body = e.snippet.split('\n').slice(1);
  return body.filter((l) => l === '' || l[0] === ' ' || l[0] === '+').map((l) => l.slice(1));
}

/** Asserts each hunk's new side is exactly lines start..end of the new file (as given by `read`). */
function assertHunksMatch(items: Evidence[], read: (path: string) => string | null): void {
  for (const e of items) {
    assert.is(e.kind, 'diff');
    assert.is(e.name, e.path);
    assert.match(e.snippet, /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/);
    const side = newSide(e);
    if (side.length === 0) { assert.is(e.start_line, e.end_line, `pure deletion is one line: ${e.path}`); continue; }
    const text = read(e.path);
    assert.ok(text !== null, `new file exists: ${e.path}`);
    const fileLines = text!.split('\n');
    if (fileLines[fileLines.length - 1] === '') fileLines.pop();
    assert.is(e.end_line - e.start_line + 1, side.length, `range length of ${e.path}:${e.start_line}`);
    assert.equal(fileLines.slice(e.start_line - 1, e.end_line), side, `new side of ${e.path}:${e.start_line}-${e.end_line}`);
  }
}

function sortedOK(items: Evidence[]): void {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1], b = items[i];
    assert.ok(a.path < b.path || (a.path === b.path && a.start_line <= b.start_line), `sorted at ${i}`);
  }
}

async function diff(root: string, args: ToolArgs['read_git_diff'] = {}): Promise<Evidence[]> {
  return readGitDiff(root, args, await RepoRules.load(root));
}

async function refusedWith(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, ToolError);
    assert.is((err as ToolError).code, code, (err as Error).message);
    assert.match((err as Error).message, message);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

const repo = buildRepo();
const fromWorkTree = (p: string): string | null => { try { return readFileSync(join(repo, p), 'utf8'); } catch { return null; } };
const fromIndex = (p: string): string | null => { try { return git(repo, ['show', `:${p}`]); } catch { return null; } };

test('working tree vs HEAD: modified, added, deleted, multi-hunk; secrets, ignored and binary never shown', async () => {
  const items = await diff(repo);
  assertEvidenceChecks(repo, items);
  sortedOK(items);
  const paths = [...new Set(items.map((e) => e.path))];
  assert.equal(paths, ['a.py', 'b.txt', 'del.py', 'new.py', 'q"uote.py', 'shrink.py', 'sp ace.py', 'sub/deep.py', 'ünï.py']);
  const a = items.filter((e) => e.path === 'a.py');
  assert.is(a.length, 2, 'two separate hunks in a.py');
  assert.equal([a[0].start_line, a[0].end_line], [1, 5]);
  assert.equal([a[1].start_line, a[1].end_line], [18, 25], '3 context + 2 inserted + 3 context');
  assert.ok(a[1].snippet.includes('+inserted after 20\n+and another'));
  const del = items.find((e) => e.path === 'del.py')!;
  assert.equal([del.start_line, del.end_line], [1, 1], 'deleted file: start = end = max(c, 1)');
  assert.match(del.snippet, /^@@ -1,4 \+0,0 @@\n-del line 1/);
  const shrink = items.find((e) => e.path === 'shrink.py')!;
  assert.equal([shrink.start_line, shrink.end_line], [2, 7], 'deletion with context: the context lines are the new range');
  assertHunksMatch(items, fromWorkTree);
  for (const e of items) assert.not.match(e.snippet, /TOKEN|PEM|GEN line/, 'secret / ignored content never appears');
});

test('staged: the index against HEAD, new sides checked against the index', async () => {
  const items = await diff(repo, { staged: true });
  assertEvidenceChecks(repo, items);
  assert.equal([...new Set(items.map((e) => e.path))], ['b.txt', 'new.py']);
  assert.ok(items.find((e) => e.path === 'b.txt')!.snippet.includes('+b line 4 staged'));
  assertHunksMatch(items, fromIndex);
});

test('base=HEAD~1 includes the second commit; a pure deletion hunk sits at its line', async () => {
  const items = await diff(repo, { base: 'HEAD~1', path: 'a.py' });
  assert.is(items.length, 2);
  assert.ok(items[0].snippet.includes('-a line 3\n') && items[0].snippet.includes('+a line 3 (second commit)'), items[0].snippet);
  assertHunksMatch(items, fromWorkTree);
  const head = await diff(repo, { base: 'HEAD', path: 'a.py' });
  assert.not.ok(head[0].snippet.includes('-a line 3\n'), 'against HEAD the second commit is not a change');
  // a file whose change is only removed lines, with no context: -U0 is not ours to set, so build it
  const root = tempDir('del');
  git(root, ['init', '-q']);
  write(root, { 'f.py': 'keep\n' + lines(3, 'x') });
  git(root, ['add', '-A']); git(root, ['commit', '-q', '-m', 'c']);
  write(root, { 'f.py': '' });
  const d = await diff(root);
  assert.equal(d.map((e) => [e.start_line, e.end_line]), [[1, 1]], 'emptied file: @@ -1,4 +0,0 @@ → line 1');
});

test('bad base refs are refused with bad_ref before git sees them as options', async () => {
  await refusedWith(diff(repo, { base: '-x' }), 'bad_ref', /may not start with "-"/);
  await refusedWith(diff(repo, { base: '--output=/tmp/evidex-pwned' }), 'bad_ref', /may not start with "-"/);
  await refusedWith(diff(repo, { base: 'no-such-branch' }), 'bad_ref', /"no-such-branch" is not a commit/);
  await refusedWith(diff(repo, { base: 'HEAD~99' }), 'bad_ref', /not a commit/);
  const blob = git(repo, ['rev-parse', 'HEAD:b.txt']).trim();
  await refusedWith(diff(repo, { base: blob }), 'bad_ref', /not a commit/);
  const tag = git(repo, ['rev-parse', 'HEAD~1']).trim();
  assert.ok((await diff(repo, { base: tag.slice(0, 12) })).length > 0, 'an abbreviated commit id is fine');
});

test('path filter: a file, a folder, the root; secrets, escapes and ignored files refused or empty', async () => {
  const onlyA = await diff(repo, { path: './a.py' });
  assert.ok(onlyA.length === 2 && onlyA.every((e) => e.path === 'a.py'));
  assert.equal((await diff(repo, { path: 'sub/' })).map((e) => e.path), ['sub/deep.py']);
  assert.is((await diff(repo, { path: '.' })).length, (await diff(repo)).length);
  assert.equal((await diff(repo, { path: 'del.py' })).map((e) => e.path), ['del.py'], 'a deleted file can be named');
  await refusedWith(diff(repo, { path: '.env' }), 'secret_denied', /secret file/);
  await refusedWith(diff(repo, { path: 'keys/server.pem' }), 'secret_denied', /secret file/);
  await refusedWith(diff(repo, { path: '../x' }), 'path_denied', /escapes/);
  await refusedWith(diff(repo, { path: '/etc' }), 'path_denied', /absolute/);
  assert.equal(await diff(repo, { path: 'gen/out.py' }), [], 'an ignored (but tracked) file shows nothing');
  assert.equal(await diff(repo, { path: 'keys' }), [], 'a folder holding only a secret shows nothing');
  assert.equal(await diff(repo, { path: ':(glob)*.py' }), [], 'pathspec magic is literal');
});

test('not a git work tree → not_a_git_repo', async () => {
  const plain = tempDir('plain');
  write(plain, { 'x.py': 'x\n' });
  await refusedWith(diff(plain), 'not_a_git_repo', /not inside a git work tree/);
});

test('no commits yet: diff against the empty tree (staged files are all new)', async () => {
  const root = tempDir('unborn');
  git(root, ['init', '-q']);
  write(root, { 'a.py': 'a\nb\n', 'untracked.py': 'u\n', '.env': 'S=1\n' });
  git(root, ['add', 'a.py', '.env']);
  const work = await diff(root);
  assert.equal(work.map((e) => [e.path, e.start_line, e.end_line]), [['a.py', 1, 2]]);
  assert.is(work[0].snippet, '@@ -0,0 +1,2 @@\n+a\n+b');
  const staged = await diff(root, { staged: true });
  assert.equal(staged.map((e) => e.path), ['a.py']);
  await refusedWith(diff(root, { base: 'HEAD' }), 'bad_ref', /not a commit/);
});

test('git runs read-only: .git/index untouched, caller GIT_* variables ignored', async () => {
  // Make the index stat-dirty for a file whose content did not change: that is
  // what makes `git diff` refresh and rewrite .git/index (diff.autoRefreshIndex),
  // with or without --no-optional-locks.
  const t = new Date(Date.now() + 5000);
  utimesSync(join(repo, '.evidexignore'), t, t);
  utimesSync(join(repo, 'b.txt'), t, t);
  const indexPath = join(repo, '.git/index');
  const before = { hash: createHash('sha256').update(readFileSync(indexPath)).digest('hex'), mtime: statSync(indexPath).mtimeMs };
  const other = tempDir('other');
  git(other, ['init', '-q']);
  const saved = { dir: process.env.GIT_DIR, wt: process.env.GIT_WORK_TREE, ext: process.env.GIT_EXTERNAL_DIFF, idx: process.env.GIT_INDEX_FILE };
  Object.assign(process.env, { GIT_DIR: join(other, '.git'), GIT_WORK_TREE: other, GIT_EXTERNAL_DIFF: 'false', GIT_INDEX_FILE: join(other, 'idx') });
  let items: Evidence[];
  try {
    items = await diff(repo);
  } finally {
    for (const [k, v] of [['GIT_DIR', saved.dir], ['GIT_WORK_TREE', saved.wt], ['GIT_EXTERNAL_DIFF', saved.ext], ['GIT_INDEX_FILE', saved.idx]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
  assert.ok(items.length >= 10, 'the repo at root was diffed, not the one in GIT_DIR');
  const after = { hash: createHash('sha256').update(readFileSync(indexPath)).digest('hex'), mtime: statSync(indexPath).mtimeMs };
  assert.equal(after, before, '.git/index was not rewritten');
});

/** A repository whose config names `prog` for every hook a diff could run; each run appends to the returned marker. */
function hostileRepo(tag: string, attributes: string, configText: string): { root: string; marker: string } {
  const root = tempDir(tag);
  const marker = join(tempDir(`${tag}-marker`), 'ran'); // outside the repository
  // Each configured program would leave the marker behind (and pass its input through).
  const prog = `sh -c 'echo ran >> "${marker}"; cat'`;
  git(root, ['init', '-q']);
  write(root, { 'f.py': 'one\n', 'g.txt': 'one\n', 'h.txt': 'one\n', '.gitattributes': Buffer.from(attributes, 'latin1') });
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'one']);
  appendFileSync(join(root, '.git/config'), Buffer.from(configText.replaceAll('PROG', prog.replaceAll('"', '\\"')), 'latin1'));
  write(root, { 'f.py': 'one\ntwo\n', 'g.txt': 'one\nthree\n', 'h.txt': 'one\nfour\n' });
  // Stat-dirty and content-changed files both make git hash the work tree, which is where a clean filter runs.
  const t = new Date(Date.now() + 5000);
  utimesSync(join(root, 'f.py'), t, t);
  return { root, marker };
}
const ran = (marker: string): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

test('no program a repository names runs: clean/smudge/process filters (dotted or "=" in the name), textconv, external diff, fsmonitor', async () => {
  const { root, marker } = hostileRepo('progs', 'f.py filter=evil diff=evil\ng.txt filter=ev.il.dotted\nh.txt filter=a=b\n', [
    '[filter "evil"]\n\tclean = "PROG"\n\tsmudge = "PROG"\n\trequired = true\n',
    '[filter "ev.il.dotted"]\n\tprocess = "PROG"\n\trequired = true\n',
    '[filter "a=b"]\n\tclean = "PROG"\n\trequired = true\n',
    '[diff "evil"]\n\ttextconv = "PROG"\n[diff]\n\texternal = "PROG"\n[core]\n\tfsmonitor = "PROG"\n',
  ].join(''));
  const work = await diff(root);
  assert.equal(work.map((e) => [e.path, e.start_line, e.end_line]), [['f.py', 1, 2], ['g.txt', 1, 2], ['h.txt', 1, 2]]);
  assertEvidenceChecks(root, work);
  assert.is(ran(marker), '', 'a configured program ran for the work tree diff');
  // Stage by hand with every program off (as env settings: git splits `-c` at the first "=", which a driver name may hold).
  git(root, ['add', '-A'], gitConfigEnv([
    ['core.fsmonitor', 'false'], ['filter.evil.clean', ''], ['filter.evil.required', 'false'],
    ['filter.ev.il.dotted.process', ''], ['filter.ev.il.dotted.required', 'false'], ['filter.a=b.clean', ''], ['filter.a=b.required', 'false'],
  ]));
  assert.is(ran(marker), '', 'staging by hand ran a program');
  const staged = await diff(root, { staged: true });
  assert.equal(staged.map((e) => e.path), ['f.py', 'g.txt', 'h.txt']);
  assert.is(ran(marker), '', 'a configured program ran for the staged diff');
});

test('a filter driver whose name is not UTF-8 cannot be switched off: refused with git_failed, nothing runs', async () => {
  const { root, marker } = hostileRepo('nonutf8', 'f.py filter=a\xffb\n', '[filter "a\xffb"]\n\tclean = "PROG"\n\trequired = true\n');
  await refusedWith(diff(root), 'git_failed', /not UTF-8/);
  assert.is(ran(marker), '');
});

test('root in a subfolder of the work tree: paths relative to the root, nothing from outside it', async () => {
  const items = await diff(join(repo, 'sub'));
  assert.equal(items.map((e) => e.path), ['deep.py']);
  assertEvidenceChecks(join(repo, 'sub'), items);
});

test('parser: C-quoted names, tab after spaced names, no-newline markers, long hunks capped', () => {
  assert.is(unquoteCPath('"a\\tb\\"c\\\\d"'), 'a\tb"c\\d');
  assert.is(unquoteCPath('"\\303\\251t\\303\\251.py"'), 'été.py');
  assert.is(unquoteCPath('plain.py'), 'plain.py');
  const out = [
    'diff --git "a/x\\ty.py" "b/x\\ty.py"', 'index 1..2 100644', '--- "a/x\\ty.py"', '+++ "b/x\\ty.py"', '@@ -1 +1 @@', '-a',
    '\\ No newline at end of file', '+b', '\\ No newline at end of file',
    'diff --git a/s p.py b/s p.py', '--- a/s p.py\t', '+++ b/s p.py\t', '@@ -1,2 +1,2 @@', ' diff --git a/fake b/fake', '-@@ -9 +9 @@', '+x',
    // A quoted name with a space gets the tab too (a hostile name: a line break and a space).
    'diff --git "a/f:1: x\\ny.py" "b/f:1: x\\ny.py"', '--- "a/f:1: x\\ny.py"\t', '+++ "b/f:1: x\\ny.py"\t', '@@ -1 +1 @@', '-a', '+b', '',
  ].join('\n');
  const hunks = parseUnifiedDiff(out);
  assert.equal(hunks.map((h) => [h.path, h.newStart, h.newCount]), [['x\ty.py', 1, 1], ['s p.py', 1, 2], ['f:1: x\ny.py', 1, 1]]);
  assert.ok(hunks[0].text.endsWith('+b\n\\ No newline at end of file'));
  assert.is(hunks[1].text, '@@ -1,2 +1,2 @@\n diff --git a/fake b/fake\n-@@ -9 +9 @@\n+x', 'content lines that look like headers stay content');
});

test('a hunk over 4000 characters is cut and flagged', async () => {
  const root = tempDir('long');
  git(root, ['init', '-q']);
  write(root, { 'big.py': lines(10, 'old') });
  git(root, ['add', '-A']); git(root, ['commit', '-q', '-m', 'c']);
  write(root, { 'big.py': lines(400, 'a much longer new line') });
  const items = await diff(root);
  assert.is(items.length, 1);
  assert.ok(items[0].truncated === true && items[0].snippet.length === 4000);
  assert.equal([items[0].start_line, items[0].end_line], [1, 400]);
});

test('paging through the tool: default 20 items, each window the slice of the full hunk list, total always the whole count', async () => {
  const root = tempDir('pages');
  git(root, ['init', '-q']);
  // 9 files with 7 separated changes each: 63 hunks, more than three default pages.
  const files = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}.py`, lines(80, `f${i}`)]));
  write(root, files);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'one']);
  for (const [p, text] of Object.entries(files)) write(root, { [p]: text.replace(/line ([1-7]0)\n/g, 'line $1 changed\n') });
  const full = await diff(root, {});
  assert.is(full.length, 63, 'one hunk per change');
  const idx = await openEvidexIndex(root, { stateDir: tempDir('pages-state') });
  try {
    const page = (args: Record<string, unknown>) => idx.runTool('read_git_diff', args);
    const first = await page({});
    assert.equal(first.evidence, full.slice(0, 20), 'default limit 20');
    assert.is(first.total, 63);
    const windows: Array<[number, number]> = [[0, 1], [1, 1], [19, 2], [20, 20], [60, 20], [62, 5], [63, 5], [100, 200], [0, 200], [5, 58]];
    for (const [offset, limit] of windows) {
      const r = await page({ offset, limit });
      assert.equal(r.evidence, full.slice(offset, offset + limit), `offset ${offset} limit ${limit}`);
      assert.is(r.total, 63);
    }
    const onePath = await page({ path: 'f3.py', offset: 2, limit: 3 });
    assert.equal(onePath.evidence, full.filter((e) => e.path === 'f3.py').slice(2, 5));
    assert.is(onePath.total, 7);
  } finally {
    await idx.close();
  }
});

test('untracked files through the tool: each indexed text file a new-file hunk equal to git diff --no-index /dev/null; ignored, secret, binary and empty ones never', async () => {
  const root = tempDir('untracked');
  git(root, ['init', '-q']);
  write(root, { 'kept.py': lines(3, 'kept'), '.gitignore': 'build/\n' });
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'one']);
  write(root, {
    'kept.py': lines(3, 'kept').replace('kept line 2', 'kept line 2 changed'),
    'fresh.py': lines(12, 'fresh'), 'pkg/deep/new_mod.py': 'def f():\n\treturn 1', 'one.txt': 'only\n', 'crlf.txt': 'a\r\nb\r\n',
    'build/gen.py': lines(2, 'ignored'), '.env.local': 'TOKEN=s3cret\n', 'keys/id_rsa': 'PRIVATE\n',
    'blob.bin': Buffer.from([1, 0, 2]), 'empty.py': '',
  });
  const idx = await openEvidexIndex(root, { stateDir: tempDir('untracked-state') });
  await idx.refresh();
  try {
    const call = async (args: Record<string, unknown>) => (await idx.runTool('read_git_diff', args)).evidence;
    const all = await call({ limit: 200 });
    assert.equal(all.map((e) => e.path), ['crlf.txt', 'fresh.py', 'kept.py', 'one.txt', 'pkg/deep/new_mod.py']);
    const tracked = (await diff(root)).map((e) => e.path);
    assert.equal(tracked, ['kept.py'], 'readGitDiff without the index: tracked files only');
    for (const e of all.filter((x) => x.path !== 'kept.py')) {
      // git's own new-file hunk is the reference; the index drops a line's trailing \r, as the contract says of lines.
      const r = spawnSync('git', ['diff', '--no-index', '--no-color', '--', '/dev/null', e.path], { cwd: root, encoding: 'utf8' });
      assert.is(r.status, 1, r.stderr);
      const [want] = parseUnifiedDiff(r.stdout.replace(/\r$/gm, '').replace(/\n\\ No newline at end of file/g, ''));
      assert.is(e.snippet, want.text, e.path);
      assert.equal([e.start_line, e.end_line], [1, want.newCount], e.path);
    }
    assertHunksMatch(all, (p) => readFileSync(join(root, p), 'utf8').replace(/\r$/gm, ''));
    assert.equal((await call({ untracked: false })).map((e) => e.path), ['kept.py'], 'untracked: false leaves them out');
    git(root, ['add', 'kept.py']);
    assert.equal((await call({ staged: true })).map((e) => e.path), ['kept.py'], 'staged: git\'s index holds no untracked file');
    assert.equal((await call({ path: 'pkg' })).map((e) => e.path), ['pkg/deep/new_mod.py'], 'the path filter applies');
  } finally {
    await idx.close();
  }
});

test.after(() => cleanupTemp());
test.run();
