// Symlinks under live updates, through a real daemon over real files: the walk
// indexes a followed link under its own name (`alias.py -> real.py`, and
// `dl/v.py` through `dl -> d`), while the file watcher only hears of the real
// path. Each test edits the real file (or creates/deletes links) and checks that
// every name answers the new text, and finally that the index lists exactly
// what a fresh walk lists (no stale alias, no loop name).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '../client/connection.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { median, waitFor, type TestDaemon, checkedCaller, isNotIndexed, startWatched, stopWatched } from './helpers/daemon.js';
import { git, tempDir } from './helpers/fs.js';

let root: string;
let d: TestDaemon;
let c: Client;

const w = (rel: string, text: string): void => writeFileSync(join(root, rel), text);

test.before(async () => {
  root = tempDir('links');
  git(root, ['init', '-q']);
  w('real.py', 'def f():\n    return 1\n');
  symlinkSync('real.py', join(root, 'alias.py'));
  symlinkSync('alias.py', join(root, 'chain.py'));        // a chain: chain.py -> alias.py -> real.py
  mkdirSync(join(root, 'd/sub'), { recursive: true });
  w('d/v.py', 'V = 1\n');
  w('d/sub/deep.py', 'DEEP = 1\n');
  symlinkSync('d', join(root, 'dl'));
  symlinkSync('../real.py', join(root, 'd/inner.py'));    // a file link inside a linked folder: d/inner.py and dl/inner.py
  symlinkSync('..', join(root, 'd/up'));                  // a loop: never followed
  symlinkSync('cyc2', join(root, 'cyc1'));                // a cycle of links: never resolves
  symlinkSync('cyc1', join(root, 'cyc2'));
  ({ d, c } = await startWatched(root));
});
test.after(() => stopWatched(d, c));

const call = checkedCaller(() => c, () => root);

/** `path:line: text` of every content match, sorted. */
const hits = async (query: string): Promise<string[]> =>
  (await call('search_code', { query, case_sensitive: true, limit: 200 }))
    .evidence.filter((e) => e.kind === 'content_match').map((e) => `${e.path}:${e.start_line}: ${e.snippet}`).sort();

const symbols = async (name: string): Promise<string[]> =>
  (await call('find_symbol', { name })).evidence.map((e) => `${e.path}:${e.start_line}-${e.end_line}`).sort();

const notIndexed = (path: string) => isNotIndexed(c, path);

/** Waits until `fn` answers `want` (deep-equal), then asserts it once more. */
async function settle<T>(what: string, fn: () => Promise<T>, want: T): Promise<void> {
  let last: T | undefined;
  try {
    await waitFor(what, async () => { last = await fn(); assert.equal(last, want); return true; }, 10_000, 10);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n  last answer: ${JSON.stringify(last)}\n${d.log().split('\n').slice(-15).join('\n')}`);
  }
  assert.equal(await fn(), want);
}

const FILE_NAMES = ['alias.py', 'chain.py', 'd/inner.py', 'dl/inner.py', 'real.py'];

test('walk: links are reported with how they are followed; a sub-walk does not enter a loop', async () => {
  const r = tempDir('walk-links');
  mkdirSync(join(r, 'd'));
  writeFileSync(join(r, 'd/v.py'), 'V = 1\n');
  writeFileSync(join(r, 'real.py'), 'R = 1\n');
  symlinkSync('d', join(r, 'dl'));
  symlinkSync('../real.py', join(r, 'd/inner.py'));
  symlinkSync('..', join(r, 'd/up'));
  symlinkSync('nowhere/x.py', join(r, 'ghost.py'));
  symlinkSync('/', join(r, 'out'));
  const rules = await RepoRules.load(r);
  const plain = await walkRepo(r, rules);
  assert.is(plain.links, undefined, 'links only when asked for');
  const withLinks = await walkRepo(r, rules, { links: true });
  assert.equal(withLinks.files, plain.files, 'asking for links changes nothing else');
  assert.equal(withLinks.skipped, plain.skipped);
  const only = await walkRepo(r, rules, { links: 'only' });
  assert.equal(only.files, [], 'links-only lists no files');
  const show = (ls: typeof only.links) => ls!.map((l) => `${l.path} ${l.followed ?? (l.dangling ? 'dangling' : '-')} ${l.target}`).sort();
  // d/up and dl/up lead to the root ('' target) and are loops; out leads outside (null).
  const want = ['d/inner.py file real.py', 'd/up - ', 'dl dir d', 'dl/inner.py file real.py', 'dl/up - ', 'ghost.py dangling nowhere/x.py', 'out - null'];
  assert.equal(show(only.links), want);
  assert.equal(show(withLinks.links), want);
  // A sub-walk decides as the full walk: d/up and dl/up lead back up, dl is d again.
  assert.equal((await walkRepo(r, rules, { under: 'd/up' })).files, []);
  assert.equal((await walkRepo(r, rules, { under: 'dl/up' })).files, []);
  assert.equal((await walkRepo(r, rules, { under: 'dl/up/d' })).files, []);
  assert.equal((await walkRepo(r, rules, { under: 'dl' })).files.map((f) => f.path), ['dl/inner.py', 'dl/v.py']);
  assert.equal(plain.files.map((f) => f.path), ['d/inner.py', 'd/v.py', 'dl/inner.py', 'dl/v.py', 'real.py']);
});

test('start: every name of a linked file is indexed once; loops and cycles are not', async () => {
  await settle('all names', () => hits('return 1'), FILE_NAMES.map((p) => `${p}:2:     return 1`));
  assert.equal(await hits('DEEP = 1'), ['d/sub/deep.py:1: DEEP = 1', 'dl/sub/deep.py:1: DEEP = 1']);
  assert.ok(await notIndexed('d/up/real.py'), 'the loop d/up -> .. is not followed');
  assert.ok(await notIndexed('cyc1'));
});

test('edit through the real file: every alias answers the new text (read_evidence in range)', async () => {
  w('real.py', 'def f():\n    return 2\n\n\ndef g():\n    return 3\n');
  await settle('aliases of real.py', () => hits('return 2'), FILE_NAMES.map((p) => `${p}:2:     return 2`));
  assert.equal(await hits('return 1'), []);
  assert.equal(await symbols('g'), FILE_NAMES.map((p) => `${p}:5-6`));
  for (const p of FILE_NAMES) {
    const r = await call('read_evidence', { path: p, start_line: 5, end_line: 6 });
    assert.equal(r.evidence.map((e) => e.snippet), ['def g():\n    return 3'], p);
  }
});

test('edit inside a linked folder: the name through the link follows', async () => {
  w('d/v.py', 'V = 2\n');
  await settle('dl/v.py', () => hits('V = 2'), ['d/v.py:1: V = 2', 'dl/v.py:1: V = 2']);
  w('d/sub/deep.py', 'DEEP = 2\n');
  await settle('dl/sub/deep.py', () => hits('DEEP = 2'), ['d/sub/deep.py:1: DEEP = 2', 'dl/sub/deep.py:1: DEEP = 2']);
  assert.equal(await hits('V = 1'), []);
});

test('create and delete inside a linked folder: both names come and go', async () => {
  w('d/new.py', 'NEW_IN_D = 1\n');
  await settle('create', () => hits('NEW_IN_D'), ['d/new.py:1: NEW_IN_D = 1', 'dl/new.py:1: NEW_IN_D = 1']);
  mkdirSync(join(root, 'd/fresh'));
  w('d/fresh/x.py', 'FRESH_DIR = 1\n');
  await settle('new folder', () => hits('FRESH_DIR'), ['d/fresh/x.py:1: FRESH_DIR = 1', 'dl/fresh/x.py:1: FRESH_DIR = 1']);
  rmSync(join(root, 'd/new.py'));
  await settle('delete', () => hits('NEW_IN_D'), []);
  assert.ok(await notIndexed('d/new.py'));
  assert.ok(await notIndexed('dl/new.py'));
  rmSync(join(root, 'd/fresh'), { recursive: true });
  await settle('folder delete', () => hits('FRESH_DIR'), []);
  assert.ok(await notIndexed('dl/fresh/x.py'));
});

test('links created and removed while watching: new names appear, follow edits, and leave', async () => {
  symlinkSync('real.py', join(root, 'late.py'));
  symlinkSync('d', join(root, 'dl2'));
  await settle('new links', () => hits('V = 2'), ['d/v.py:1: V = 2', 'dl/v.py:1: V = 2', 'dl2/v.py:1: V = 2']);
  // dl2 also brings a new name of real.py: dl2/inner.py (the file link d/inner.py seen through dl2).
  const withNew = [...FILE_NAMES, 'dl2/inner.py', 'late.py'].sort();
  await settle('new file link', () => hits('return 2'), withNew.map((p) => `${p}:2:     return 2`));
  // The new links are known now: edits through their targets reach them.
  w('real.py', 'def f():\n    return 4\n');
  w('d/v.py', 'V = 4\n');
  await settle('late.py follows', () => hits('return 4'), withNew.map((p) => `${p}:2:     return 4`));
  await settle('dl2 follows', () => hits('V = 4'), ['d/v.py:1: V = 4', 'dl/v.py:1: V = 4', 'dl2/v.py:1: V = 4']);
  unlinkSync(join(root, 'late.py'));
  unlinkSync(join(root, 'dl2'));
  await settle('links removed', () => hits('V = 4'), ['d/v.py:1: V = 4', 'dl/v.py:1: V = 4']);
  assert.ok(await notIndexed('late.py'));
  assert.ok(await notIndexed('dl2/v.py'));
  assert.equal(await hits('return 4'), FILE_NAMES.map((p) => `${p}:2:     return 4`));
});

test('a dangling link comes alive when its target appears, and dies with it', async () => {
  symlinkSync('later.py', join(root, 'ghost.py'));
  await new Promise((r) => setTimeout(r, 150)); // let the watcher learn of the dangling link
  assert.ok(await notIndexed('ghost.py'));
  w('later.py', 'GHOST_TARGET = 1\n');
  await settle('ghost alive', () => hits('GHOST_TARGET'), ['ghost.py:1: GHOST_TARGET = 1', 'later.py:1: GHOST_TARGET = 1']);
  w('later.py', 'GHOST_TARGET = 2\n');
  await settle('ghost follows', () => hits('GHOST_TARGET'), ['ghost.py:1: GHOST_TARGET = 2', 'later.py:1: GHOST_TARGET = 2']);
  rmSync(join(root, 'later.py'));
  await settle('ghost gone', () => hits('GHOST_TARGET'), []);
  assert.ok(await notIndexed('ghost.py'));
});

test('a link retargeted in place moves its name to the new content', async () => {
  w('other.py', 'OTHER = 1\n');
  await settle('other', () => hits('OTHER'), ['other.py:1: OTHER = 1']);
  // Replace alias.py (-> real.py) by a link to other.py, atomically, as `ln -sfn` does.
  symlinkSync('other.py', join(root, 'alias.tmp'));
  renameSync(join(root, 'alias.tmp'), join(root, 'alias.py'));
  // chain.py -> alias.py follows too: both now lead to other.py.
  await settle('retargeted', () => hits('OTHER'), ['alias.py:1: OTHER = 1', 'chain.py:1: OTHER = 1', 'other.py:1: OTHER = 1']);
  w('other.py', 'OTHER = 2\n');
  await settle('retargeted follows', () => hits('OTHER'), ['alias.py:1: OTHER = 2', 'chain.py:1: OTHER = 2', 'other.py:1: OTHER = 2']);
  w('real.py', 'def f():\n    return 5\n');
  await settle('real.py no longer has alias.py', () => hits('return 5'), ['d/inner.py', 'dl/inner.py', 'real.py'].map((p) => `${p}:2:     return 5`));
});

test('save-to-queryable latency through an alias stays low (no walk per save)', async () => {
  const ms: number[] = [];
  for (let i = 0; i < 15; i++) {
    const marker = `ALIAS_LAT_${i}_${Date.now()}`;
    const t0 = performance.now();
    w('d/v.py', `${marker} = ${i}\n`);
    await waitFor(`save ${i}`, async () => (await hits(marker)).length === 2, 5000, 1);
    ms.push(performance.now() - t0);
  }
  const med = median(ms);
  console.log(`  save-to-queryable through dl -> d over ${ms.length} saves: median ${med.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`);
  assert.ok(med < 300, `median ${med} ms`);
});

test('the index lists exactly what a fresh walk lists', async () => {
  const rules = await RepoRules.load(root);
  const walked = (await walkRepo(root, rules)).files.map((f) => f.path).filter((p) => p.endsWith('.py')).sort();
  assert.ok(walked.includes('dl/sub/deep.py') && !walked.some((p) => p.startsWith('d/up/')), walked.join(' '));
  await settle('index = walk', async () =>
    [...new Set((await call('search_code', { query: '.py', limit: 200 })).evidence
      .filter((e) => e.kind === 'path_match').map((e) => e.path))].sort(), walked);
});

test.run();
