// A first build stopped part way (an AbortSignal, Ctrl-C on `evidex index`)
// keeps every file it parsed: the next build parses only the rest, and ends
// with the index a build from nothing makes. The stops wait on the build's
// progress (a count of files parsed), never on a clock; the tree is far
// larger than what is parsed by then, whatever the machine's speed.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEvidexIndex } from '../indexer/index.js';
import { stateDirFor } from '../local/state.js';
import { evidex, BIN } from './helpers/cli.js';
import { CHUNK_FILES, IN_FLIGHT_PER_WORKER } from '../indexer/build/pool.js';
import { freshDump } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';

/** Files per parse chunk and chunks a worker holds at once, as the pool has them. */
const IN_FLIGHT = IN_FLIGHT_PER_WORKER;
const WORKERS = 2;

/** A tree of `n` small Python and TypeScript files that import one another (every file is indexed: none binary). */
function tree(n: number): string {
  const root = join(tempDir('interrupt'), 'repo');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  writeFileSync(join(root, 'pkg', '__init__.py'), '');
  for (let i = 1; i < n; i++) {
    if (i % 2) writeFileSync(join(root, 'pkg', `m${i}.py`), `import os\nfrom pkg import m${Math.max(1, i - 2)}\n\ndef f${i}(x):\n    return os.path.join(x, "${i}")\n`);
    else writeFileSync(join(root, `t${i}.ts`), `import { g${Math.max(2, i - 2)} } from './t${Math.max(2, i - 2)}';\nexport function g${i}(x: number): number { return x + ${i}; }\nexport const use${i} = g${Math.max(2, i - 2)};\n`);
  }
  return root;
}

test('a build stopped after two chunks commits every file it handed over, and the next parses only the rest', async () => {
  const root = tree(2000);
  const sd = tempDir('interrupt-state');
  const stop = new AbortController();
  let atStop = 0;
  let last = 0;
  const first = await openEvidexIndex(root, { stateDir: sd, workers: WORKERS });
  try {
    const r = await first.refresh((p) => {
      if (p.phase !== 'parse') return;
      last = p.done;
      if (!stop.signal.aborted && p.done >= 2 * CHUNK_FILES) { atStop = p.done; stop.abort(new Error('stopped by the test')); }
    }, stop.signal).then(() => 'finished', (e: Error) => e.message);
    assert.is(r, 'stopped by the test');
    // No chunk went out after the stop: at most what the workers held then came back.
    assert.ok(last - atStop <= WORKERS * IN_FLIGHT * CHUNK_FILES, `${last - atStop} files came back after the stop`);
    assert.is(first.store.fileCount, last, 'every file the build took is in the index');
    assert.is(first.status().state, 'building');
  } finally {
    await first.close();
  }
  const kept = last;
  const again = await openEvidexIndex(root, { stateDir: sd, workers: WORKERS });
  try {
    const r = await again.refresh();
    assert.equal({ parsed: r.parsed, unchanged: r.unchanged }, { parsed: 2000 - kept, unchanged: kept });
    assert.equal(again.store.dump(), await freshDump(root, tempDir('interrupt-fresh')), 'stopped, then resumed: what a build from nothing holds');
  } finally {
    await again.close();
  }
});

// Ctrl-C typed on a terminal: `script` gives `evidex index` a pseudo-terminal, so it draws its progress line at every
// chunk, and a ^C written to it reaches the process as a person's would (the terminal sends SIGINT).
testUnless(lacks.script(), test)('Ctrl-C on a terminal during a first `evidex index`: the files parsed are kept, the rerun parses only the rest', async () => {
  const root = tree(3000);
  const home = tempDir('interrupt-home');
  const env = { ...process.env, EVIDEX_HOME: home, EVIDEX_IDLE_TIMEOUT: '', EVIDEX_PORT: '', EVIDEX_NODE_WARNING: '0' };
  const command = [process.execPath, BIN, 'index', '--repo', root].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  try {
    let screen = '';
    let shown = 0;
    let typed = false;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        screen += d.toString();
        // The last count drawn before the interrupted line: every file counted there was taken by the build.
        const before = screen.split('evidex: interrupted')[0]!;
        shown = Number([...before.matchAll(/parse (\d+)\/3000 files/g)].pop()?.[1] ?? 0);
        if (shown >= 2 * CHUNK_FILES && !typed) { typed = true; child.stdin.write('\x03'); resolve(); }
      });
      child.on('exit', () => reject(new Error(`ended before a Ctrl-C: ${screen}`)));
    });
    assert.is(await exited, 130, screen);
    const said = /evidex: interrupted; the files parsed so far are kept \(the index holds (\d+) now\), and `evidex index` parses only the rest\r?\n$/.exec(screen);
    assert.ok(said, screen);
    const kept = Number(said![1]);
    assert.ok(kept >= shown && kept < 3000, `kept ${kept}, drawn ${shown}`);
    const again = await evidex(['index', '--repo', root, '--json'], { cwd: root, home });
    assert.is(again.code, 0, again.stderr);
    const summary = JSON.parse(again.stdout) as { files: number; parsed: number; unchanged: number };
    assert.equal({ files: summary.files, parsed: summary.parsed, unchanged: summary.unchanged }, { files: 3000, parsed: 3000 - kept, unchanged: kept });
    const idx = await openEvidexIndex(root, { stateDir: stateDirFor(root, env) });
    try {
      assert.equal(idx.store.dump(), await freshDump(root, tempDir('interrupt-fresh')), 'interrupted, then resumed: what a build from nothing holds');
    } finally {
      await idx.close();
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
});

test.after(() => cleanupTemp());
test.run();
