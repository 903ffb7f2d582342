// The runner's net for what a test file leaves behind (test/leftovers.mjs):
// a marked child still running is found, named and stopped; one that ignores
// SIGTERM is killed; unmarked processes are left alone. A file's own temp
// folder is removed whole, and what was left in it named.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT_ROOT } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';

type Reaper = {
  marked(mark: string): { pid: number; cmd: string }[]; reap(mark: string, graceMs?: number): Promise<string[]>;
  tempFolder(mark: string): string; sweep(dir: string): string[];
};
const load = (): Promise<Reaper> => import(pathToFileURL(join(PROJECT_ROOT, 'test', 'leftovers.mjs')).href) as Promise<Reaper>;

/** A child that prints "up" once its handlers are in, then waits forever; `stubborn` ignores SIGTERM. */
async function child(mark: string | null, stubborn = false): Promise<{ pid: number; exited: Promise<unknown> }> {
  const code = `${stubborn ? "process.on('SIGTERM', () => {});" : ''} console.log('up'); setInterval(() => {}, 1 << 30);`;
  const env = { ...process.env };
  if (mark === null) delete env.EVIDEX_TEST_RUN; else env.EVIDEX_TEST_RUN = mark;
  const p = spawn(process.execPath, ['-e', code], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((r) => p.once('exit', r));
  await new Promise((r) => p.stdout!.once('data', r));
  return { pid: p.pid!, exited };
}

testUnless(lacks.proc())('a marked child left running is named and stopped; an unmarked one is not touched', async () => {
  const { marked, reap } = await load();
  const mark = `leftovers-test-${process.pid}`;
  const left = await child(mark);
  const stubborn = await child(mark, true);
  const other = await child(null);
  try {
    assert.equal(marked(mark).map((p) => p.pid).sort(), [left.pid, stubborn.pid].sort());
    const lines = await reap(mark, 500);
    assert.is(lines.length, 2);
    for (const l of lines) assert.match(l, /^left running by the file, stopped: pid \d+: .*setInterval/);
    await Promise.all([left.exited, stubborn.exited]);
    assert.equal(marked(mark), []);
    process.kill(other.pid, 0); // still there: throws if it was stopped
  } finally {
    process.kill(other.pid, 'SIGKILL');
  }
});

test('a file\'s temp folder is removed; what it left there is named, an empty one says nothing', async () => {
  const { tempFolder, sweep } = await load();
  const empty = tempFolder(`leftovers-test-${process.pid}`);
  assert.is((statSync(empty).mode & 0o7777).toString(8), '1777', 'open to every user, as the system temp folder is');
  assert.equal(sweep(empty), []);
  assert.not.ok(existsSync(empty));
  const full = tempFolder(`leftovers-test-${process.pid}`);
  for (const n of ['evidex-a-1', 'evidex-b-2', 'c', 'd', 'e\x1b[31m']) mkdirSync(join(full, n));
  writeFileSync(join(full, 'evidex-a-1', 'data.mdb'), 'x');
  const lines = sweep(full);
  assert.equal(lines, ['left in its temp folder, removed: 5 entries ("c", "d", "e\\u001b[31m", "evidex-a-1", ...)']);
  assert.not.ok(existsSync(full));
});

test.run();
