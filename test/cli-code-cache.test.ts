// The CLI's compile cache (client/code-cache.ts), through real `evidex`
// processes: on a Node that has one (22.1+) it is kept in the home's
// compile-cache/node, made ours alone, and used; a folder that is not ours
// alone, or a link, is not used, and the command runs as without it; a home
// that does not exist is not made for it. On Node 20 nothing is written.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const HAS_CACHE = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';

function evidex(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, EVIDEX_HOME: home, NO_COLOR: '1' };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dirname(home), encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The files Node wrote below `dir` (its cache is one folder per Node version and flags, a file per module). */
const cachedFiles = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(dir, f)).isFile()) : []);

test.after(cleanupTemp);

test('a home that does not exist is not made for the cache', () => {
  const home = join(tempDir('cc-none'), 'home');
  const r = evidex(home, ['--version']);
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(existsSync(home));
});

test('the cache is kept in compile-cache/node of the home, ours alone, and a second call reads it', () => {
  const home = tempDir('cc-home');
  const first = evidex(home, ['search', '--help']);
  assert.is(first.code, 0, first.stderr);
  const dir = join(home, 'compile-cache', 'node');
  if (!HAS_CACHE) {
    assert.not.ok(existsSync(join(home, 'compile-cache')), `Node ${process.version} has no compile cache: nothing is written`);
    return;
  }
  assert.is(statSync(dir).mode & 0o777, 0o700);
  assert.is(statSync(join(home, 'compile-cache')).mode & 0o077, 0, 'the folder holding it is ours alone too');
  const files = cachedFiles(dir);
  assert.ok(files.some((f) => /\d/.test(f)) && files.length >= 5, `cached: ${files.join(' ')}`);
  const second = evidex(home, ['search', '--help']);
  assert.is(second.stdout, first.stdout, 'the same help from the cache');
  assert.equal(cachedFiles(dir).sort(), files.sort(), 'nothing new to cache');
});

test('a cache folder others may write in, or a link, is not used: the command runs as without it', () => {
  const plain = evidex(tempDir('cc-plain'), ['--help']);
  const home = tempDir('cc-refused');
  const shared = join(home, 'compile-cache', 'node');
  mkdirSync(shared, { recursive: true, mode: 0o700 });
  chmodSync(shared, 0o777);
  const r = evidex(home, ['--help']);
  assert.is(r.code, plain.code);
  assert.is(r.stdout, plain.stdout);
  assert.is(r.stderr, '');
  assert.equal(cachedFiles(shared), [], 'nothing read from or written to a folder others may write in');

  const elsewhere = tempDir('cc-elsewhere');
  const linkedHome = tempDir('cc-link');
  mkdirSync(join(linkedHome, 'compile-cache'), { mode: 0o700 });
  symlinkSync(elsewhere, join(linkedHome, 'compile-cache', 'node'));
  const l = evidex(linkedHome, ['--help']);
  assert.is(l.stdout, plain.stdout);
  assert.equal(cachedFiles(elsewhere), [], 'nothing written through a link');
});

test.run();
