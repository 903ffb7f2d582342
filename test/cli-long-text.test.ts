// Text past the tools' caps (400 lines a call, a snippet cut at 4,000
// characters), through real `evidex` processes: `symbol --body` prints each
// definition whole (classes of the machine's own argparse.py, found longer
// than 400 lines by Python's ast), `read` prints every line asked for, a line
// longer than the cut is said to be cut, a search hit on such a line shows
// the match, and every `evidex read` hint printed works as typed (at most 400
// lines, never the command that printed it).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatEvidence } from '../client/commands/tool-command.js';
import { stdlibRoot } from './helpers/corpus.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('long-text-home');
const repo = tempDir('long-text-repo');
copyFileSync(join(stdlibRoot(), 'argparse.py'), join(repo, 'argparse.py'));
const LONG = 'd'.repeat(10_000) + 'END';
writeFileSync(join(repo, 'l10k.txt'), `a=1\n${LONG}\nlast\n`);
symlinkSync('l10k.txt', join(repo, 'long-link.txt'));
writeFileSync(join(repo, 'many.txt'), Array.from({ length: 450 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['commit', '-qm', 'init']);
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

interface Run { code: number | null; stdout: string; stderr: string }
function evidex(args: string[]): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const fileLines = (rel: string): string[] => readFileSync(join(repo, rel), 'utf8').replace(/\n$/, '').split('\n');
/** The `path:N: text` lines of an output. */
const sourceLines = (out: string) => out.split('\n').flatMap((l) => {
  const m = /^([^ :]+):(\d+): (.*)$/.exec(l);
  return m ? [{ path: m[1], line: Number(m[2]), text: m[3] }] : [];
});
/** Every `evidex read ...` a run printed. */
const hints = (r: Run) => [...`${r.stdout}${r.stderr}`.matchAll(/`evidex (read [^`]+)`/g)].map((m) => m[1]);

/** Runs each hint `r` printed: it works, asks for at most 400 lines, is not `asked` itself, and prints the file's own lines. */
function followHints(r: Run, asked: string): void {
  for (const h of hints(r)) {
    assert.is.not(h, asked, `a hint repeats the command that printed it: ${h}`);
    const range = /:(\d+)-(\d+)$/.exec(h);
    assert.ok(range && Number(range[2]) - Number(range[1]) + 1 <= 400, h);
    const next = evidex(h.split(' '));
    assert.is(next.code, 0, `${h}: ${next.stderr}`);
    for (const l of sourceLines(next.stdout)) assert.ok(fileLines(l.path)[l.line - 1].startsWith(l.text), `${h} → ${l.path}:${l.line}`);
  }
}

/** argparse.py's classes longer than 400 lines, by Python's ast. */
function longClasses(): Array<{ name: string; start: number; end: number }> {
  const out = execFileSync('python3', ['-c', `import ast,json,sys
t = ast.parse(open(sys.argv[1]).read())
print(json.dumps([{"name": n.name, "start": (n.decorator_list[0].lineno if n.decorator_list else n.lineno), "end": n.end_lineno} for n in t.body if isinstance(n, ast.ClassDef) and n.end_lineno - n.lineno >= 400]))`, join(repo, 'argparse.py')], { encoding: 'utf8' });
  return JSON.parse(out);
}

test('index', () => {
  const r = evidex(['index']);
  assert.is(r.code, 0, r.stderr);
});

test('symbol --body prints a definition of more than 400 lines whole, each line as in the file', () => {
  const classes = longClasses();
  assert.ok(classes.length > 0, 'argparse.py has a class longer than 400 lines');
  for (const c of classes) {
    const r = evidex(['symbol', `argparse.${c.name}`, '--body']);
    assert.is(r.code, 0, r.stderr);
    const lines = sourceLines(r.stdout);
    assert.equal(lines.map((l) => l.line), Array.from({ length: c.end - c.start + 1 }, (_, i) => c.start + i), c.name);
    for (const l of lines) assert.is(l.text, fileLines('argparse.py')[l.line - 1]);
    assert.not.match(r.stdout, /cut at/);
    followHints(r, `symbol argparse.${c.name} --body`);
  }
});

test('a cut snippet\'s hint reads on from the cut line, at most 400 lines, and works as typed', () => {
  const c = longClasses()[0];
  const j = JSON.parse(evidex(['symbol', `argparse.${c.name}`, '--json']).stdout);
  const item = j.evidence[0];
  assert.ok(item.truncated, 'the tool cuts the class at 4,000 characters');
  const text = formatEvidence([item], { body: true }).plain;
  const shownWhole = item.snippet.split('\n').length - 1;
  const h = hints({ code: 0, stdout: text, stderr: '' });
  assert.equal(h, [`read argparse.py:${item.start_line + shownWhole}-${item.start_line + shownWhole + 399}`]);
  followHints({ code: 0, stdout: text, stderr: '' }, '');
});

test('read prints every line of a file with a line past the cut, says that line is cut, and hints nothing it already showed', () => {
  for (const asked of ['read l10k.txt', 'read l10k.txt:2', 'read l10k.txt:1-3', 'read l10k.txt:2-3']) {
    const r = evidex(asked.split(' '));
    assert.is(r.code, 0, `${asked}: ${r.stderr}`);
    const lines = sourceLines(r.stdout);
    const want = asked === 'read l10k.txt:2' ? [2] : asked === 'read l10k.txt:2-3' ? [2, 3] : [1, 2, 3];
    assert.equal(lines.map((l) => l.line), want, asked);
    for (const l of lines) assert.is(l.text, l.line === 2 ? LONG.slice(0, 4000) : fileLines('l10k.txt')[l.line - 1]);
    assert.match(r.stdout, /^l10k\.txt: … \(line 2 cut at 4,000 characters, the most a tool returns of one line\)$/m);
    assert.equal(hints(r), [], `${asked} printed a hint: ${r.stdout}`);
    // The tool's note on a span cut in its first line says to read on; the text form has, so it must not say so.
    assert.not.match(r.stderr, /holds none of|read on with/, `${asked}: ${r.stderr}`);
  }
  // Through a link, the note that names the real path stays; the read-on note goes all the same.
  const r = evidex(['read', 'long-link.txt:2-3']);
  assert.is(r.code, 0, r.stderr);
  assert.equal(sourceLines(r.stdout).map((l) => `${l.path}:${l.line}`), ['l10k.txt:2', 'l10k.txt:3']);
  assert.match(r.stderr, '"long-link.txt" goes through a symbolic link to "l10k.txt"');
  assert.not.match(r.stderr, /holds none of|read on with/, r.stderr);
});

test('read past 400 lines prints the first 400 and a hint for the rest that works', () => {
  const r = evidex(['read', 'many.txt:1-450']);
  assert.is(r.code, 0, r.stderr);
  assert.equal(sourceLines(r.stdout).map((l) => l.line), Array.from({ length: 400 }, (_, i) => i + 1));
  assert.equal(hints(r), ['read many.txt:401-450']);
  followHints(r, 'read many.txt:1-450');
  const rest = evidex(['read', 'many.txt:401-450']);
  assert.equal(sourceLines(rest.stdout).map((l) => l.text), fileLines('many.txt').slice(400));
  // --json is the tool's answer, which refuses more than 400 lines.
  assert.is(evidex(['read', 'many.txt:1-450', '--json']).code, 2);
});

test('a search hit on a line longer than the cut shows the match, in the text and in --json', () => {
  const r = evidex(['search', 'END', '--case-sensitive', '--path-prefix', 'l10k.txt']);
  assert.is(r.code, 0, r.stderr);
  const [hit] = sourceLines(r.stdout);
  assert.is(hit.line, 2);
  assert.ok(hit.text.startsWith('…') && hit.text.endsWith('END'), hit.text);
  assert.ok(LONG.includes(hit.text.slice(1)));
  assert.match(r.stdout, /^l10k\.txt: … \(line 2 is longer than the 4,000 characters a tool returns: shown from character [\d,]+, around the match\)$/m);
  const j = JSON.parse(evidex(['search', 'end', '--path-prefix', 'l10k.txt', '--json']).stdout);
  const { excerpt, snippet, truncated } = j.evidence[0];
  assert.ok(truncated && snippet === LONG.slice(0, 4000));
  assert.is(LONG.slice(excerpt.column - 1, excerpt.column - 1 + excerpt.text.length), excerpt.text);
  assert.ok(excerpt.text.endsWith('END'), excerpt.text);
  // A hit within the cut needs no excerpt.
  const early = JSON.parse(evidex(['search', 'ddd', '--path-prefix', 'l10k.txt', '--json']).stdout);
  assert.is(early.evidence[0].excerpt, undefined);
  assertEvidenceChecks(repo, [...j.evidence, ...early.evidence]);
});

test('stop the daemon', () => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
