// The compiler's V8 code cache (indexer/typescript/compile-cache.ts, load.ts):
// a load takes its code from a cache only when the cache was made for that
// very source and the file and its folder are ours alone; a cache V8 refuses
// is replaced; and a compiler loaded from a cache gives the same definitions
// and statements as one compiled from its source.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompileCache } from '../indexer/typescript/compile-cache.js';
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
