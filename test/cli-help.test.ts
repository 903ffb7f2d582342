// What `evidex help` and `--help` print, through the real CLI: a mistyped
// topic is said to be one (with the nearest command, exit 2), as a mistyped
// command is.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('help-home');
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

function evidex(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: home, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('help with a mistyped topic says so, with the nearest command, and exits 2; a far one gets no guess', () => {
  const near = evidex(['help', 'serch']);
  assert.equal(near, { code: 2, stdout: '', stderr: 'evidex: unknown help topic "serch"; did you mean `evidex help search`? (run `evidex --help`)\n' });
  const far = evidex(['help', 'nosuch']);
  assert.equal(far, { code: 2, stdout: '', stderr: 'evidex: unknown help topic "nosuch" (run `evidex --help`)\n' });
  // A known topic, and help alone, as before.
  const topic = evidex(['help', 'search']);
  assert.is(topic.code, 0);
  assert.is(topic.stdout, evidex(['search', '--help']).stdout);
  const all = evidex(['help']);
  assert.is(all.code, 0);
  assert.match(all.stdout, /^usage:$/m);
});

test('clean up', () => {
  cleanupTemp();
});

test.run();
