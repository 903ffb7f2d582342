// The compiler's V8 code cache (indexer/typescript/compile-cache.ts, load.ts):
// a load takes its code from a cache only when the cache was made for that
// very source and the file and its folder are ours alone; a cache V8 refuses
// is replaced; and a compiler loaded from a cache gives the same definitions
// and statements as one compiled from its source.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lutimesSync, mkdirSync, readdirSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompileCache, KEEP_CACHES } from '../indexer/typescript/compile-cache.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { TS_FIXTURE } from './helpers/ts-corpus.js';

const CHILD = join(PROJECT_ROOT, 'dist', 'test', 'helpers', 'ts-load-child.js');

const WRAP = { before: '(function () {', after: '})' };

function cacheFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cache')).sort();
}

test('a cache is read back only for the source it was made from, from a file and folder of ours alone', () => {
  const home = tempDir('cc');
  const dir = join(home, 'compile-cache');
  const script = join(home, 'script.js');
  writeFileSync(script, 'module.exports = 1;\n');
  const first = CompileCache.open(dir, script, WRAP)!;
  assert.ok(first, 'a folder it made is ours');
  assert.is(first.cached, null, 'no cache yet');
  assert.is(first.source, '(function () {module.exports = 1;\n})', 'the source as it is compiled: wrapped');
  assert.is(statSync(dir).mode & 0o777, 0o700, 'the folder is made for us alone');
  first.write(Buffer.from('cached code'));
  const [name] = cacheFiles(dir);
  assert.is(statSync(join(dir, name)).mode & 0o777, 0o600);
  assert.is(CompileCache.open(dir, script, WRAP)!.cached?.toString(), 'cached code', 'read back');
  assert.equal(readdirSync(dir), [name], 'no temporary file left');

  // The same length, another source: another key, so no cache (V8 itself would check only the length).
  writeFileSync(script, 'module.exports = 2;\n');
  assert.is(CompileCache.open(dir, script, WRAP)!.cached, null, 'an edited source does not get the old cache');
  writeFileSync(script, 'module.exports = 1;\n');
  assert.is(CompileCache.open(dir, script, { before: '(function  (', after: ')' })!.cached, null, 'nor does the same source wrapped otherwise');

  chmodSync(join(dir, name), 0o622);
  assert.is(CompileCache.open(dir, script, WRAP)!.cached, null, 'a cache others may write is not read');
  chmodSync(join(dir, name), 0o600);

  const elsewhere = join(home, 'planted');
  copyFileSync(join(dir, name), elsewhere);
  unlinkSync(join(dir, name));
  symlinkSync(elsewhere, join(dir, name));
  assert.is(CompileCache.open(dir, script, WRAP)!.cached, null, 'a symbolic link is not followed');
  unlinkSync(join(dir, name));

  chmodSync(dir, 0o777);
  assert.is(CompileCache.open(dir, script, WRAP), null, 'a folder others may write in is not used at all');
  chmodSync(dir, 0o700);

  const notAFolder = join(home, 'file');
  writeFileSync(notAFolder, '');
  assert.is(CompileCache.open(notAFolder, script, WRAP), null);
  assert.is(CompileCache.open(join(home, 'missing', 'deeper'), script, WRAP), null, 'a folder whose parent is missing: none');
});

test('writing a cache removes all but the most recently used of ours, and nothing that is not ours', () => {
  const home = tempDir('cc');
  const dir = join(home, 'compile-cache');
  const a = join(home, 'a.js');
  const b = join(home, 'b.js');
  writeFileSync(a, 'module.exports = "a";\n');
  writeFileSync(b, 'module.exports = "b";\n');
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
  CompileCache.open(dir, b, WRAP)!.write(Buffer.from('b code'));
  const [bName] = cacheFiles(dir);
  utimesSync(join(dir, bName), hoursAgo(240), hoursAgo(240));
  // Caches of other compilers or V8s, each an hour older than the one before.
  const old = Array.from({ length: 8 }, (_, i) => `typescript.js-${i.toString(16).padStart(32, '0')}-v8-${1000 + i}.cache`);
  old.forEach((name, i) => {
    writeFileSync(join(dir, name), `old ${i}`, { mode: 0o600 });
    utimesSync(join(dir, name), hoursAgo(i + 1), hoursAgo(i + 1));
  });
  const staleTemp = `${old[0]}.4242-0.tmp`;
  const freshTemp = `${old[1]}.4243-1.tmp`;
  writeFileSync(join(dir, staleTemp), 'half', { mode: 0o600 });
  utimesSync(join(dir, staleTemp), hoursAgo(2), hoursAgo(2));
  writeFileSync(join(dir, freshTemp), 'being written', { mode: 0o600 });
  // What is not ours, each older than every cache: kept whatever its name.
  const planted = join(home, 'planted');
  writeFileSync(planted, 'not in the folder');
  const notOurs = {
    foreign: 'notes.txt',
    link: `typescript.js-${'a'.repeat(32)}-v8-1.cache`,
    folder: `typescript.js-${'b'.repeat(32)}-v8-2.cache`,
    othersMayWrite: `typescript.js-${'c'.repeat(32)}-v8-3.cache`,
  };
  writeFileSync(join(dir, notOurs.foreign), 'a note', { mode: 0o600 });
  symlinkSync(planted, join(dir, notOurs.link));
  mkdirSync(join(dir, notOurs.folder));
  writeFileSync(join(dir, notOurs.othersMayWrite), 'x', { mode: 0o600 });
  chmodSync(join(dir, notOurs.othersMayWrite), 0o622);
  for (const name of Object.values(notOurs)) lutimesSync(join(dir, name), hoursAgo(720), hoursAgo(720));
  utimesSync(planted, hoursAgo(720), hoursAgo(720));

  // Reading b's cache marks it used: the oldest file until now, it is kept.
  assert.is(CompileCache.open(dir, b, WRAP)!.cached?.toString(), 'b code');
  assert.is(readdirSync(dir).length, 1 + old.length + 2 + 4, 'opening removes nothing');
  const before = readdirSync(home);
  CompileCache.open(dir, a, WRAP)!.write(Buffer.from('a code'));
  const aName = cacheFiles(dir).find((f) => f.startsWith('a.js-'))!;
  assert.ok(aName, 'the new cache is written');
  const kept = [aName, bName, ...old.slice(0, KEEP_CACHES - 2)];
  assert.equal(
    readdirSync(dir).sort(),
    [...kept, freshTemp, ...Object.values(notOurs)].sort(),
    `kept: the new cache, the ${KEEP_CACHES - 1} most recently used others, a temporary file still young, and everything not ours`,
  );
  assert.ok(old.slice(KEEP_CACHES - 2).every((n) => !existsSync(join(dir, n))));
  assert.ok(existsSync(planted) && statSync(join(dir, notOurs.link)).isFile(), 'the link and what it points to are left');
  assert.equal(readdirSync(home), before, 'nothing outside the folder changed');
  assert.is(CompileCache.open(dir, a, WRAP)!.cached?.toString(), 'a code');
  assert.is(CompileCache.open(dir, b, WRAP)!.cached?.toString(), 'b code');
});

test('the compiler loaded from its cache extracts as the one compiled from source; a cache V8 refuses is replaced', () => {
  const dir = join(tempDir('cc'), 'compile-cache');
  const files = readdirSync(join(TS_FIXTURE, 'packages'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f)).map((f) => join(TS_FIXTURE, 'packages', f));
  assert.ok(files.length > 20, `fixture files: ${files.length}`);
  const run = (d: string) => JSON.parse(execFileSync(process.execPath, [CHILD, d, ...files], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { fromCache: boolean; extracted: unknown };
  const plain = run('-');
  const made = run(dir);
  assert.is(made.fromCache, false, 'first load: no cache');
  assert.is(cacheFiles(dir).length, 1, 'the first load wrote one');
  const cached = run(dir);
  assert.is(cached.fromCache, true, 'second load: from the cache');
  assert.equal(made.extracted, plain.extracted);
  assert.equal(cached.extracted, plain.extracted);

  // Same name, not V8's: refused by V8, compiled from source, and written anew.
  const [name] = cacheFiles(dir);
  writeFileSync(join(dir, name), Buffer.alloc(4096, 7), { mode: 0o600 });
  const refused = run(dir);
  assert.is(refused.fromCache, false, 'a cache V8 refuses is not used');
  assert.equal(refused.extracted, plain.extracted);
  assert.ok(statSync(join(dir, name)).size > 100_000, 'and is replaced by a real one');
  assert.is(run(dir).fromCache, true);
});

test.after(cleanupTemp);
test.run();
