// Symlinks under live updates, through a real daemon over real files: each
// real file is indexed once, under its real path; a link (`alias.py ->
// real.py`, `dl -> d`) adds no name, so `git grep`'s count is evidex's. A
// caller's path through a link is followed to the real path. Each test edits
// the real file (or creates/deletes links) and checks that the one entry
// answers the new text, that links coming and going change nothing indexed,
// and finally that the index lists exactly what a fresh walk lists.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '../client/connection.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { openEvidexIndex } from '../indexer/index.js';
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

/** Every indexed path, as search_code's path matches list them. */
const indexed = async (): Promise<string[]> =>
  [...new Set((await call('search_code', { query: '.py', limit: 200 })).evidence.filter((e) => e.kind === 'path_match').map((e) => e.path))].sort();

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


/** The real .py files of the tree (what `git ls-files` would list once committed): the only names the index holds. */
const REAL = ['d/sub/deep.py', 'd/v.py', 'real.py'];

test('walk: each real file once under its real path; a sub-walk of a linked folder lists nothing', async () => {
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
  assert.equal(plain.files.map((f) => f.path), ['d/v.py', 'real.py']);
  assert.equal([plain.skipped.linked, plain.skipped.brokenLink, plain.skipped.symlinkOutside], [3, 1, 1], 'dl, d/inner.py, d/up; ghost.py; out');
  for (const under of ['dl', 'dl/up', 'd/up', 'd/up/d', 'dl/up/d']) assert.equal((await walkRepo(r, rules, { under })).files, [], under);
  assert.equal((await walkRepo(r, rules, { under: 'd' })).files.map((f) => f.path), ['d/v.py']);
});

test('start: a linked folder\'s file is found once by search and find_symbol; loops and cycles add nothing', async () => {
  await settle('real names only', indexed, REAL);
  assert.equal(await hits('return 1'), ['real.py:2:     return 1']);
  assert.equal(await hits('DEEP = 1'), ['d/sub/deep.py:1: DEEP = 1']);
  assert.equal(await symbols('f'), ['real.py:1-2']);
});

test('read_evidence through a link reads the real file and names its real path', async () => {
  for (const [asked, real] of [['alias.py', 'real.py'], ['chain.py', 'real.py'], ['dl/inner.py', 'real.py'], ['dl/sub/deep.py', 'd/sub/deep.py'], ['./dl//v.py', 'd/v.py']]) {
    const r = await call('read_evidence', { path: asked, start_line: 1 });
    assert.equal(r.evidence.map((e) => e.path), [real], asked);
    assert.equal(r.notes, [`${JSON.stringify(asked.replace('./', '').replace('//', '/'))} goes through a symbolic link to ${JSON.stringify(real)}, the name the index holds it under (each file is indexed once, under its real path)`], asked);
  }
  const plain = await call('read_evidence', { path: 'real.py', start_line: 1 });
  assert.is(plain.notes, undefined, 'a real path gets no note');
  // The loop d/up -> .. leads back into the root: followed, it names the root's own file.
  assert.equal((await call('read_evidence', { path: 'd/up/real.py', start_line: 1 })).evidence.map((e) => e.path), ['real.py']);
  for (const bad of ['cyc1', 'd/up/nope.py']) assert.ok(await isNotIndexed(c, bad), bad);
});

test('path_prefix through a linked folder looks in the real folder, and says so', async () => {
  const r = await call('search_code', { query: 'DEEP', path_prefix: 'dl/sub/' });
  assert.equal(r.evidence.filter((e) => e.kind === 'content_match').map((e) => e.path), ['d/sub/deep.py']);
  assert.equal(r.notes, ['"dl/sub/" goes through a symbolic link to "d/sub/", the name the index holds it under (each file is indexed once, under its real path)']);
  const s = await call('find_symbol', { name: 'DEEP', path_prefix: 'dl/s' });
  assert.equal(s.evidence.map((e) => e.path), ['d/sub/deep.py'], 'a partial last part is kept as typed, under the real folder');
  assert.is((await call('search_code', { query: 'DEEP', path_prefix: 'd/sub/' })).notes, undefined, 'a real folder gets no note');
});

test('edit through the real file: the one entry answers the new text', async () => {
  w('real.py', 'def f():\n    return 2\n\n\ndef g():\n    return 3\n');
  await settle('real.py', () => hits('return 2'), ['real.py:2:     return 2']);
  assert.equal(await hits('return 1'), []);
  assert.equal(await symbols('g'), ['real.py:5-6']);
  for (const p of ['real.py', 'alias.py', 'dl/inner.py']) {
    const r = await call('read_evidence', { path: p, start_line: 5, end_line: 6 });
    assert.equal(r.evidence.map((e) => [e.path, e.snippet]), [['real.py', 'def g():\n    return 3']], p);
  }
});

test('create and delete inside a linked folder: the real name comes and goes', async () => {
  w('d/new.py', 'NEW_IN_D = 1\n');
  await settle('create', () => hits('NEW_IN_D'), ['d/new.py:1: NEW_IN_D = 1']);
  mkdirSync(join(root, 'd/fresh'));
  w('d/fresh/x.py', 'FRESH_DIR = 1\n');
  await settle('new folder', () => hits('FRESH_DIR'), ['d/fresh/x.py:1: FRESH_DIR = 1']);
  rmSync(join(root, 'd/new.py'));
  await settle('delete', () => hits('NEW_IN_D'), []);
  rmSync(join(root, 'd/fresh'), { recursive: true });
  await settle('folder delete', () => hits('FRESH_DIR'), []);
  assert.equal(await indexed(), REAL);
});

/** Writes a real file after the link changes and waits for it: the watcher has then taken the links' events (they came first). */
async function afterLinks(what: string): Promise<void> {
  const marker = `LINKS_SEEN_${what.replace(/\W/g, '_')}`;
  w('marker.txt', `${marker}\n`);
  await settle(what, () => hits(marker), [`marker.txt:1: ${marker}`]);
}

test('links created, retargeted and removed while watching change nothing indexed', async () => {
  w('other.py', 'OTHER = 1\n');
  await settle('other', () => hits('OTHER'), ['other.py:1: OTHER = 1']);
  const names = [...REAL, 'other.py'].sort();
  const before = [await indexed(), await hits('return 2'), await hits('V = 1')];
  assert.equal(before[0], names);
  symlinkSync('real.py', join(root, 'late.py'));
  symlinkSync('d', join(root, 'dl2'));
  symlinkSync('later.py', join(root, 'ghost.py')); // dangling
  await afterLinks('links made');
  assert.equal([await indexed(), await hits('return 2'), await hits('V = 1')], before, 'new links add no name');
  // Replace alias.py (-> real.py) by a link to other.py, atomically, as `ln -sfn` does.
  symlinkSync('other.py', join(root, 'alias.tmp'));
  renameSync(join(root, 'alias.tmp'), join(root, 'alias.py'));
  w('later.py', 'GHOST_TARGET = 1\n'); // the dangling link comes alive: its target is indexed, under its own name
  await settle('ghost target', () => hits('GHOST_TARGET'), ['later.py:1: GHOST_TARGET = 1']);
  assert.equal(await hits('OTHER'), ['other.py:1: OTHER = 1'], 'a retargeted link adds no name');
  assert.equal((await call('read_evidence', { path: 'alias.py', start_line: 1 })).evidence.map((e) => e.path), ['other.py'], 'it is followed where it now leads');
  unlinkSync(join(root, 'late.py'));
  unlinkSync(join(root, 'dl2'));
  unlinkSync(join(root, 'ghost.py'));
  unlinkSync(join(root, 'dl'));
  await afterLinks('links removed');
  assert.equal([await indexed(), await hits('return 2'), await hits('V = 1')], [[...names, 'later.py'].sort(), before[1], before[2]], 'removing links removes nothing');
  symlinkSync('d', join(root, 'dl'));
});

/** `path:line` of each statement find_importers answers for `module_name`. */
const importers = async (m: string): Promise<string[]> =>
  (await call('find_importers', { module_name: m })).evidence.map((e) => `${e.path}:${e.start_line}`);

test('a TypeScript import through a link resolves to the real file, as links come and go', async () => {
  mkdirSync(join(root, 'tsd'));
  w('lib.ts', 'export const LIB = 1;\n');
  w('tsd/v2.ts', 'export const V2 = 1;\n');
  w('app.ts', "import { LIB } from './cur';\nimport { V2 } from './tsl/v2';\n");
  await settle('app.ts', () => hits('./tsl/v2'), ["app.ts:2: import { V2 } from './tsl/v2';"]);
  assert.equal([await importers('lib.ts'), await importers('tsd/v2.ts')], [[], []], 'no link yet: nothing resolves');
  symlinkSync('lib.ts', join(root, 'cur.ts'));
  symlinkSync('tsd', join(root, 'tsl'));
  await settle('links resolve', async () => [await importers('lib.ts'), await importers('tsd/v2.ts')], [['app.ts:1'], ['app.ts:2']]);
  // The link's own name stands for the file it leads to.
  assert.equal([await importers('cur.ts'), await importers('tsl/v2.ts')], [['app.ts:1'], ['app.ts:2']]);
  unlinkSync(join(root, 'cur.ts'));
  unlinkSync(join(root, 'tsl'));
  await settle('links gone', async () => [await importers('lib.ts'), await importers('tsd/v2.ts')], [[], []]);
  for (const p of ['app.ts', 'lib.ts']) rmSync(join(root, p));
  rmSync(join(root, 'tsd'), { recursive: true });
  await settle('ts files gone', () => hits('./tsl/v2'), []);
});

test('an import through a file link follows its target away and back (a checkout deletes and recreates it)', async () => {
  w('y.ts', 'export const Y_BACK = 1;\n');
  symlinkSync('y.ts', join(root, 'x.ts'));
  w('imp.ts', "import { Y_BACK } from './x';\n");
  await settle('resolved through x.ts', () => importers('y.ts'), ['imp.ts:1']);
  rmSync(join(root, 'y.ts'));
  await settle('target gone', () => hits('Y_BACK = 1'), []); // the same commit re-resolved imp.ts: its import is missing now
  w('y.ts', 'export const Y_BACK = 1;\n');
  await settle('target back: resolved again', () => importers('y.ts'), ['imp.ts:1']);
  for (const p of ['imp.ts', 'x.ts', 'y.ts']) rmSync(join(root, p));
  await settle('cleaned', () => hits('Y_BACK'), []);
});

test('an import through a dangling link resolves once its target (and the folder above it) appears', async () => {
  symlinkSync('gen/z.ts', join(root, 'z.ts'));      // the folder is not there either
  symlinkSync('q2.ts', join(root, 'q.ts'));
  w('imp2.ts', "import { Z } from './z';\nimport { Q } from './q';\n");
  await settle('imp2 indexed', () => hits("from './q'"), ["imp2.ts:2: import { Q } from './q';"]);
  mkdirSync(join(root, 'gen'));
  w('gen/z.ts', 'export const Z = 1;\n');
  w('q2.ts', 'export const Q = 1;\n');
  await settle('targets appeared', async () => [await importers('gen/z.ts'), await importers('q2.ts')], [['imp2.ts:1'], ['imp2.ts:2']]);
  for (const p of ['imp2.ts', 'z.ts', 'q.ts', 'q2.ts']) rmSync(join(root, p));
  rmSync(join(root, 'gen'), { recursive: true });
  await settle('cleaned', () => hits("from './q'"), []);
});

test('a dangling link\'s target appearing, told alone (as a checkout may tell it), re-resolves the import through the link', async () => {
  const r = tempDir('dangling-links');
  git(r, ['init', '-q']);
  symlinkSync('gen/z.ts', join(r, 'z.ts'));
  symlinkSync('q2.ts', join(r, 'q.ts'));
  writeFileSync(join(r, 'imp.ts'), "import { Z } from './z';\nimport { Q } from './q';\n");
  const idx = await openEvidexIndex(r, { stateDir: tempDir('dangling-state') });
  try {
    await idx.refresh();
    const targets = (): string[] => idx.store.imports(idx.store.fileByPath('imp.ts')!.fid).map((i) => i.targets.find((t) => t.startsWith('./'))?.slice(2) ?? i.why ?? '');
    assert.equal(targets(), ['missing', 'missing']);
    mkdirSync(join(r, 'gen'));
    writeFileSync(join(r, 'gen/z.ts'), 'export const Z = 1;\n');
    await idx.update(['gen']);
    assert.equal(targets(), ['gen/z.ts', 'missing'], 'the folder above the target appeared');
    writeFileSync(join(r, 'q2.ts'), 'export const Q = 1;\n');
    await idx.update(['q2.ts']);
    assert.equal(targets(), ['gen/z.ts', 'q2.ts'], 'the target itself appeared');
  } finally {
    await idx.close();
  }
});

test('each save in a linked folder is queryable once, under its real path (latency printed, not asserted)', async () => {
  const ms: number[] = [];
  for (let i = 0; i < 15; i++) {
    const marker = `ALIAS_LAT_${i}_${Date.now()}`;
    const t0 = performance.now();
    w('d/v.py', `${marker} = ${i}\n`);
    await waitFor(`save ${i}`, async () => (await hits(marker)).length === 1, 5000, 1);
    ms.push(performance.now() - t0);
    assert.equal((await hits(marker)).map((h) => h.split(':')[0]), ['d/v.py'], 'found under the real path alone, not also as dl/v.py');
  }
  const med = median(ms);
  console.log(`  save-to-queryable in d/ (linked as dl) over ${ms.length} saves: median ${med.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`);
});

test('the index lists exactly what a fresh walk lists', async () => {
  const rules = await RepoRules.load(root);
  const walked = (await walkRepo(root, rules)).files.map((f) => f.path).filter((p) => p.endsWith('.py')).sort();
  assert.ok(walked.includes('d/sub/deep.py') && !walked.some((p) => p.startsWith('dl/') || p.startsWith('d/up/')), walked.join(' '));
  await settle('index = walk', indexed, walked);
});

test.run();
