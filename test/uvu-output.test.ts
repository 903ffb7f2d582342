// What the runner (test/run.mjs) prints under a file is what the file printed
// itself (test/uvu-output.mjs): a real uvu file with named suites, run as the
// runner runs it (colours off), leaves its figure lines and no bare suite
// names ("ollama", "openai" used to stand alone under the ask-* files).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

type Output = { figures(out: string): string[] };
const load = (): Promise<Output> => import(pathToFileURL(join(PROJECT_ROOT, 'test', 'uvu-output.mjs')).href) as Promise<Output>;

test('suite names, marks and counters are dropped; what the tests printed is kept', async () => {
  const uvu = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'uvu', 'dist', 'index.mjs')).href;
  const file = join(tempDir('uvu-output'), 'named.test.mjs');
  writeFileSync(file, [
    `import { suite, test } from ${JSON.stringify(uvu)};`,
    "const a = suite('ollama'); a('one', () => {}); a('two', () => {}); a.run();",
    "const b = suite(\"parsing and Ollama's error bodies\"); b('x', () => {}); b.run();",
    "test.before(() => { console.log('agreement: 5 of 5 files'); });",
    "test('plain', () => {}); test.run();",
  ].join('\n'));
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  assert.is(r.status, 0, r.stderr);
  // The names are in what uvu wrote: the runner is what leaves them out.
  assert.match(r.stdout, /^ ollama {2}• • +\(2 \/ 2\)$/m);
  const { figures } = await load();
  assert.equal(figures(r.stdout + r.stderr), ['agreement: 5 of 5 files']);
});

test.after(() => cleanupTemp());
test.run();
