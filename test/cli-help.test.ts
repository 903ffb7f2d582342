// What `evidex help` and `--help` print, through the real CLI: a mistyped
// topic is said to be one (with the nearest command, exit 2), as a mistyped
// command is; every command's help has examples whose options the command
// takes, and its prose is laid out once (no line broken where the next word
// would have fit: texts written with their own line breaks were broken twice).
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
  // `help help` asks what the topics are: the list `evidex --help` prints, exit 0.
  const helpHelp = evidex(['help', 'help']);
  assert.equal(helpHelp, { code: 0, stdout: evidex(['--help']).stdout, stderr: '' });
  assert.match(helpHelp.stdout, /\bsearch\b/);
  // A known topic, and help alone, as before.
  const topic = evidex(['help', 'search']);
  assert.is(topic.code, 0);
  assert.is(topic.stdout, evidex(['search', '--help']).stdout);
  const all = evidex(['help']);
  assert.is(all.code, 0);
  assert.match(all.stdout, /^usage:$/m);
});

const COMMANDS = ['index', 'daemon', 'call', 'search', 'symbol', 'read', 'importers', 'diff', 'ask', 'chat', 'eval', 'mcp', 'tools'];

/** A command line split as a POSIX shell splits it (single and double quotes; no expansion), less a trailing "(comment)". */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.replace(/\s{2,}\(.*\)$/, '').matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

test('every command\'s help has examples, each a command line the command parses', () => {
  for (const cmd of COMMANDS) {
    const h = evidex([cmd, '--help']);
    const block = /^examples:\n((?:  .*\n)+)/m.exec(h.stdout);
    assert.ok(block, `${cmd} --help has examples:\n${h.stdout}`);
    for (const example of block![1].trimEnd().split('\n').map((l) => l.trim())) {
      assert.ok(example.startsWith('evidex '), `an example on one line: ${example}`);
      const [evidexWord, name, ...rest] = words(example);
      assert.equal([evidexWord, name], ['evidex', cmd], example);
      // --help right after the command: every option of the example is parsed (an unknown one or a bad value is a usage error), nothing runs.
      const parsed = evidex([name, '--help', ...rest]);
      assert.equal({ code: parsed.code, stderr: parsed.stderr }, { code: 0, stderr: '' }, example);
      assert.is(parsed.stdout, h.stdout, example);
    }
  }
});

test('help prose is broken only where the next word does not fit', () => {
  for (const cmd of COMMANDS) {
    const lines = evidex([cmd, '--help']).stdout.split('\n');
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1], lines[i]];
      // Two lines of prose (at the margin; a usage line is its own).
      if (a === '' || b === '' || /^\s/.test(a) || /^\s/.test(b) || a.startsWith('usage:') || a.endsWith(':')) continue;
      const next = b.split(' ')[0];
      assert.ok([...a].length + 1 + [...next].length > 80, `${cmd} --help breaks early:\n${a}\n${b}`);
    }
  }
});

test('clean up', () => {
  cleanupTemp();
});

test.run();
