// Working from a subfolder (issue 26, docs/cli.md Paths and Scope), through
// real `evidex` processes over a git repository made of part of the
// machine's own Python standard library — code nobody here wrote. Every path
// search, symbol, importers, read's hint and diff print is fed back, as
// printed, from the folder it was printed in, and must work there; search from
// a subfolder is compared with `git grep -n -i -F -I` run there (the contract's
// case rule: case-insensitive unless --case-sensitive; -I: the index holds no
// binary file), lines and count; the "N more in the whole repository" line
// with git grep run at the top.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from './helpers/daemon.js';
import { stdlibRoot } from './helpers/corpus.js';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('subfolder-home');
const repo = tempDir('subfolder-repo');
// A few packages and modules of the standard library, under Lib/ as in CPython's tree (Lib holds no __init__.py).
const PARTS = ['json', 'email', 'http', 'logging', 'dataclasses.py', 'functools.py'];
for (const part of PARTS) {
  cpSync(join(stdlibRoot(), part), join(repo, 'Lib', part), { recursive: true, filter: (src) => !src.includes('__pycache__') });
}
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['commit', '-qm', 'stdlib part']);
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };
const FOLDERS = ['Lib/json', 'Lib/email', 'Lib/email/mime', 'Lib/http', 'Lib'];

interface Run { code: number | null; stdout: string; stderr: string }
function evidex(args: string[], cwd: string): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: join(repo, cwd), encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function ok(args: string[], cwd: string): Run {
  const r = evidex(args, cwd);
  assert.is(r.code, 0, `evidex ${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return r;
}
const outLines = (r: Run): string[] => r.stdout.replace(/\n$/, '').split('\n').filter((l) => l !== '');
/** The total in the footer line `N of M shown`. */
const totalOf = (r: Run): number => Number(/^\d+ of (\d+) shown/m.exec(r.stderr)?.[1] ?? NaN);
/** `git grep -n -i -F -I QUERY` in `cwd`: `path:line:text`, paths relative to `cwd` as git prints them. */
function gitGrep(query: string, cwd: string): Array<{ path: string; line: number; text: string }> {
  const r = spawnSync('git', ['grep', '-n', '-i', '-F', '-I', '--no-color', '-e', query], { cwd: join(repo, cwd), encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '').map((l) => {
    const m = /^(.+?):(\d+):(.*)$/.exec(l)!;
    return { path: m[1], line: Number(m[2]), text: m[3] };
  });
}
/** Every result of a search from `cwd`, paged through 200 at a time, as printed. */
function searchAll(query: string, cwd: string): { lines: string[]; total: number; stderr: string } {
  const lines: string[] = [];
  for (let offset = 0; ; offset += 200) {
    const r = ok(['search', query, '--limit', '200', '--offset', String(offset)], cwd);
    const got = outLines(r);
    lines.push(...got);
    if (got.length < 200) return { lines, total: totalOf(r), stderr: r.stderr };
  }
}
const fileLine = (cwd: string, path: string, n: number): string =>
  readFileSync(join(repo, cwd, path), 'utf8').split('\n')[n - 1].replace(/\r$/, '');
/** Reads `path:start-end` back through `evidex read` from `cwd`: it must work and print the file's lines under the same path. */
function readBack(path: string, start: number, end: number, cwd: string): void {
  const r = ok(['read', `${path}:${start}-${end}`], cwd);
  const got = outLines(r);
  assert.is(got.length, end - start + 1, `read ${path}:${start}-${end} in ${cwd}`);
  got.forEach((l, i) => assert.is(l, `${path}:${start + i}: ${fileLine(cwd, path, start + i)}`, `read back from ${cwd}`));
}

/** Three lines spread over `lines` (first, middle, last): each is read back through another CLI process. */
const sample = <T>(lines: readonly T[]): T[] => [...new Set([0, lines.length >> 1, lines.length - 1])].filter((i) => i >= 0 && i < lines.length).map((i) => lines[i]);

// Queries found in no path of the repository, so every search result is a content line (as git grep's are).
const QUERIES = ['def ', 'return none', 'self._', 'Raise ', 'utf-8', ' is not '];

test('the queries are found in no path (so search results are content lines only, as git grep prints)', () => {
  const paths = git(repo, ['ls-files']).toLowerCase();
  for (const q of QUERIES) assert.not.ok(paths.includes(q.toLowerCase()), q);
});

test('search from a subfolder prints what git grep -n -i -F prints there, line for line, with the same count; the note counts the rest', () => {
  const wholeCounts = new Map(QUERIES.map((q) => [q, gitGrep(q, '').length]));
  for (const cwd of FOLDERS) {
    for (const q of QUERIES) {
      const want = gitGrep(q, cwd);
      const got = searchAll(q, cwd);
      assert.is(got.total, want.length, `total of ${JSON.stringify(q)} in ${cwd}`);
      assert.equal(got.lines.map((l) => /^(.+?):(\d+): /.exec(l)?.slice(1, 3).join(':')), want.map((w) => `${w.path}:${w.line}`), `lines of ${JSON.stringify(q)} in ${cwd}`);
      // Text as printed is the file's line (a control character would be shown escaped; these folders' matched lines hold none).
      got.lines.forEach((l, i) => assert.is(l, `${want[i].path}:${want[i].line}: ${want[i].text.replace(/\r$/, '')}`));
      const more = wholeCounts.get(q)! - want.length;
      const note = /^(\d+) more in the whole repository: add --all \(or --path-prefix \/\) to see them$/m.exec(got.stderr);
      if (more > 0) assert.is(Number(note?.[1]), more, `${q} in ${cwd}: ${got.stderr}`);
      else assert.is(note, null, got.stderr);
    }
  }
});

test('--all and --path-prefix / search the whole repository from a subfolder, paths relative to where you stand; both at once is a usage error', () => {
  const q = 'return none';
  const whole = gitGrep(q, '');
  for (const how of [['--all'], ['--path-prefix', '/']]) {
    const r = ok(['search', q, ...how, '--limit', '200', '--json'], 'Lib/email');
    const body = JSON.parse(r.stdout) as { evidence: Array<{ path: string; start_line: number }>; total: number };
    assert.is(body.total, whole.length);
    assert.equal(body.evidence.map((e) => `${e.path}:${e.start_line}`), whole.slice(0, 200).map((w) => `${w.path}:${w.line}`), '--json keeps root-relative paths');
  }
  const printed = outLines(ok(['search', q, '--all', '--limit', '200'], 'Lib/email'));
  assert.ok(printed.some((l) => l.startsWith('../json/')), 'a path outside the current folder is printed from it');
  for (const l of sample(printed)) {
    const m = /^(.+?):(\d+): /.exec(l)!;
    readBack(m[1], Number(m[2]), Number(m[2]), 'Lib/email');
  }
  const both = evidex(['search', q, '--all', '--path-prefix', 'x'], 'Lib/email');
  assert.is(both.code, 2);
  assert.is(both.stderr, 'evidex: --all and --path-prefix cannot go together: --all is --path-prefix /\n');
});

test('every path symbol prints is read back from the same folder; the line shows the signature, not a decorator', () => {
  for (const cwd of FOLDERS) {
    for (const [name, scope] of [['__init__', []], ['Message', ['--all']], ['Handler.emit', ['--all']], ['dataclass', ['--all']]] as const) {
      const r = ok(['symbol', name, '--limit', '200', ...scope], cwd);
      const lines = outLines(r);
      for (const l of sample(lines)) {
        const m = /^(.+?):(\d+)-(\d+): (\w+) (\S+)  (.*)$/.exec(l);
        assert.ok(m, l);
        const [, path, start, end, , , head] = m!;
        assert.ok(!head.startsWith('@'), `a decorator in place of the signature: ${l}`);
        assert.ok(/^(async def|def|class) /.test(head), l);
        readBack(path, Number(start), Math.min(Number(end), Number(start) + 40), cwd);
      }
    }
  }
  // Decorated definitions of the library itself: the line shows the def, not `@property`.
  const decorated = outLines(ok(['symbol', 'email.headerregistry.Address.display_name', '--all'], 'Lib/json'));
  assert.is(decorated.length, 1, decorated.join('\n'));
  const m = /^(\.\.\/email\/headerregistry\.py):(\d+)-(\d+): method Address\.display_name  (.*)$/.exec(decorated[0]);
  assert.ok(m, decorated[0]);
  assert.is(fileLine('Lib/json', m![1], Number(m![2])).trim(), '@property', 'the span starts at the decorator');
  assert.is(m![4], fileLine('Lib/json', m![1], Number(m![2]) + 1).trim());
  const cached = outLines(ok(['symbol', 'cached_property.__set_name__', '--all'], 'Lib/json'));
  assert.is(cached.length, 1);
  assert.match(cached[0], /^\.\.\/functools\.py:\d+-\d+: method cached_property\.__set_name__  def __set_name__\(self, owner, name\):$/);
});

test('symbol in a subfolder looks there first and counts the rest; importers take a path from the current folder', () => {
  const here = ok(['symbol', '__init__', '--limit', '200', '--json'], 'Lib/email/mime');
  const all = ok(['symbol', '__init__', '--limit', '1', '--json', '--all'], 'Lib/email/mime');
  const hereBody = JSON.parse(here.stdout) as { evidence: Array<{ path: string }>; total: number };
  assert.ok(hereBody.total > 0 && hereBody.evidence.every((e) => e.path.startsWith('Lib/email/mime/')));
  const text = ok(['symbol', '__init__', '--limit', '200'], 'Lib/email/mime');
  assert.match(text.stderr, new RegExp(`^${JSON.parse(all.stdout).total - hereBody.total} more in the whole repository`, 'm'));

  // `importers parser.py` in Lib/email is the file Lib/email/parser.py, as `evidex call` names it from the root.
  const byPath = JSON.parse(ok(['importers', 'parser.py', '--all', '--json', '--limit', '200'], 'Lib/email').stdout);
  const byCall = JSON.parse(ok(['call', 'find_importers', '{"module_name": "Lib/email/parser.py", "limit": 200}'], 'Lib/email').stdout);
  const byName = JSON.parse(ok(['importers', 'email.parser', '--all', '--json', '--limit', '200'], 'Lib/email').stdout);
  assert.ok(byCall.total > 0);
  // The same statements (`name` is the module as asked).
  const at = (b: { evidence: Array<{ path: string; start_line: number }> }) => b.evidence.map((e) => `${e.path}:${e.start_line}`);
  assert.equal(at(byPath), at(byCall));
  assert.equal(at(byName), at(byCall));
  for (const cwd of FOLDERS) {
    for (const l of sample(outLines(ok(['importers', 'email.message', '--all', '--limit', '200'], cwd)).filter((x) => !x.startsWith('#')))) {
      const m = /^(.+?):(\d+): /.exec(l)!;
      readBack(m[1], Number(m[2]), Number(m[2]), cwd);
    }
  }
  // In Lib/email, the importers there only; the note counts those elsewhere (json, http, logging).
  const scoped = ok(['importers', 'email.message'], 'Lib/email');
  const scopedAll = JSON.parse(ok(['importers', 'email.message', '--all', '--json', '--limit', '200'], 'Lib/email').stdout);
  assert.ok(outLines(scoped).every((l) => !l.startsWith('../') && !l.startsWith('#')));
  const shown = totalOf(scoped);
  if (scopedAll.total > shown) assert.match(scoped.stderr, new RegExp(`^${scopedAll.total - shown} more in the whole repository`, 'm'));
});

test('a folder with nothing shows the whole repository\'s answer, said so; a folder with some keeps its own', () => {
  // Lib/email/mime defines no JSONDecoder and imports no json.decoder; the repository does both.
  for (const args of [['symbol', 'JSONDecoder'], ['importers', 'json.decoder'], ['search', 'class JSONDecoder']]) {
    const all = JSON.parse(ok([...args, '--all', '--json', '--limit', '200'], 'Lib/email/mime').stdout) as { total: number };
    assert.ok(all.total > 0, args.join(' '));
    const here = JSON.parse(ok([...args, '--json'], 'Lib/email/mime').stdout) as { total: number };
    assert.is(here.total, 0, `--json keeps the folder's answer: ${args.join(' ')}`);
    const r = ok(args, 'Lib/email/mime');
    assert.is(totalOf(r), all.total, r.stderr);
    assert.match(r.stderr, new RegExp(`^nothing under Lib/email/mime/; showing the whole repository's ${all.total} \\(as --all\\)$`, 'm'));
    assert.not.match(r.stderr, /more in the whole repository/);
    assert.equal(outLines(r), outLines(ok([...args, '--all', '--limit', '200'], 'Lib/email/mime')));
    for (const l of sample(outLines(r).filter((x) => !x.startsWith('#')))) {
      const m = /^(.+?):(\d+)(?:-\d+)?: /.exec(l)!;
      readBack(m[1], Number(m[2]), Number(m[2]), 'Lib/email/mime');
    }
  }
  // Nothing anywhere: the folder's empty answer, and no line about the repository.
  const none = ok(['symbol', 'NoSuchNameAnywhere'], 'Lib/email/mime');
  assert.is(totalOf(none), 0);
  assert.not.match(none.stderr, /nothing under|whole repository/);
  // Some here: today's answer, the folder's own.
  const some = ok(['symbol', '__init__', '--limit', '200'], 'Lib/email/mime');
  assert.not.match(some.stderr, /nothing under/);
  assert.ok(outLines(some).every((l) => !l.startsWith('../')));
});

test('read\'s hint works as printed, from where it was printed; a refusal names the file as typed there; a malformed range is said so', () => {
  for (const cwd of ['Lib/email', 'Lib/json', 'Lib']) {
    const file = cwd === 'Lib/email' ? '_header_value_parser.py' : cwd === 'Lib' ? 'email/_header_value_parser.py' : '../email/_header_value_parser.py';
    const r = ok(['read', file], cwd);
    assert.is(outLines(r).length, 400);
    const hint = /read on with `evidex (read \S+)`/.exec(r.stderr);
    assert.ok(hint, r.stderr);
    assert.is(hint![1], `read ${file}:401-800`);
    const next = ok(hint![1].split(' '), cwd);
    assert.is(outLines(next)[0], `${file}:401: ${fileLine(cwd, file, 401)}`);
  }
  // A refusal names the file as it was typed here, not from the root.
  const missing = evidex(['read', 'nope.py:1'], 'Lib/json');
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /^evidex: not_indexed: "nope\.py" is not in the index/);
  const past = evidex(['read', '../json/decoder.py:99999'], 'Lib/email');
  assert.match(past.stderr, /^evidex: out_of_range: line 99999 is past the end of \.\.\/json\/decoder\.py \(\d+ lines\)/);
  const atRoot = evidex(['read', 'Lib/json/nope.py'], '.');
  assert.match(atRoot.stderr, /"Lib\/json\/nope\.py" is not in the index/);
  // The current folder read as a file: the commands that look inside it do so as typed here, with no --path-prefix ".";
  // another folder gets its --path-prefix, from here.
  const dot = evidex(['read', '.'], 'Lib/json');
  assert.is(dot.stderr, 'evidex: not_indexed: "." is a folder, not a file; evidex search, evidex symbol and evidex importers look inside it as typed here (a command run in a folder looks in that folder)\n');
  assert.match(evidex(['read', '../email'], 'Lib/json').stderr, /look inside it with --path-prefix "\.\.\/email\/"\n$/);
  const bad = evidex(['read', 'decoder.py:abc'], 'Lib/json');
  assert.is(bad.code, 2);
  assert.is(bad.stderr, 'evidex: malformed line range "abc" in "decoder.py:abc": use PATH, PATH:START, PATH:START-END, PATH:START- or PATH:-END (START and END whole numbers)\n');
});

test('--repo naming a folder below the current one: paths printed from here, and typed from here or from the root; a root elsewhere keeps root-relative paths', () => {
  const repoArgs = ['--repo', 'Lib/email'];
  const found = ok(['search', 'class Message', ...repoArgs, '--limit', '200'], '');
  const here = outLines(ok(['search', 'class Message', '--repo', 'email', '--limit', '200'], 'Lib'));
  assert.ok(here.length > 0);
  assert.ok(here.every((l) => l.startsWith('email/')), here.join('\n'));
  assert.equal(outLines(found).map((l) => l.replace(/^Lib\/email\//, '')), here.map((l) => l.replace(/^email\//, '')), found.stdout);
  for (const l of sample(here)) {
    const m = /^(.+?):(\d+): /.exec(l)!;
    // As printed, from where it was printed.
    const again = ok(['read', `${m[1]}:${m[2]}`, '--repo', 'email'], 'Lib');
    assert.is(outLines(again)[0], `${m[1]}:${m[2]}: ${fileLine('Lib', m[1], Number(m[2]))}`);
    // From the root, as before: printed from here all the same.
    const fromRoot = ok(['read', `${m[1].replace(/^email\//, '')}:${m[2]}`, '--repo', 'email'], 'Lib');
    assert.is(outLines(fromRoot)[0], outLines(again)[0]);
  }
  const missing = evidex(['read', 'email/nope.py', '--repo', 'email'], 'Lib');
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /^evidex: not_indexed: "email\/nope\.py" is not in the index/);
  // The root beside the current folder, not below it: root-relative, as before.
  const beside = outLines(ok(['search', 'class Message', '--repo', '../email', '--limit', '200'], 'Lib/json'));
  assert.equal(beside, here.map((l) => l.replace(/^email\//, '')));
});

test('diff from a subfolder: every hunk\'s path, an untracked file\'s too, works as printed there', async () => {
  const edited = join(repo, 'Lib/email/charset.py');
  const before = readFileSync(edited, 'utf8');
  writeFileSync(edited, before.replace('# Flags for types of header encodings', '# Flags for types of header encodings (edited)'));
  writeFileSync(join(repo, 'Lib/email/nu_new.py'), 'NEW_NAME = 1\n\ndef fresh():\n    return NEW_NAME\n');
  try {
    // The untracked file shows once the daemon's watcher has indexed it.
    await waitFor('the untracked file in the diff', () => /^nu_new\.py:1-4: diff$/m.test(evidex(['diff'], 'Lib/email').stdout) || null, 30_000, 200);
    for (const cwd of FOLDERS) {
      const r = ok(['diff'], cwd);
      const heads = outLines(r).map((l) => /^(.+?):(\d+)-(\d+): diff$/.exec(l)).filter((m) => m !== null);
      assert.is(heads.length, 2, r.stdout);
      for (const m of heads) {
        readBack(m![1], Number(m![2]), Number(m![3]), cwd);
        const one = ok(['diff', m![1], '--json'], cwd);
        assert.is(JSON.parse(one.stdout).total, 1, `diff ${m![1]} in ${cwd}`);
      }
    }
    const tracked = JSON.parse(ok(['diff', '--tracked-only', '--json'], 'Lib').stdout);
    assert.equal(tracked.evidence.map((e: { path: string }) => e.path), ['Lib/email/charset.py']);
  } finally {
    writeFileSync(edited, before);
    spawnSync('rm', ['-f', join(repo, 'Lib/email/nu_new.py')]);
  }
});

test('a command resolves real paths once: the current folder, and the root only when --repo names it (no folder twice)', () => {
  // A preload that logs every realpath call of the CLI process (ESM named imports of node:fs follow syncBuiltinESMExports).
  const dir = tempDir('realpath');
  const log = join(dir, 'calls.txt');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(hook, `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const note = (tag, orig) => function (p, ...rest) { fs.appendFileSync(${JSON.stringify(log)}, tag + ' ' + String(p) + '\\n'); return orig.call(this, p, ...rest); };
const sync = fs.realpathSync, cb = fs.realpath, pr = fs.promises.realpath;
fs.realpathSync = note('realpathSync', sync); fs.realpathSync.native = note('realpathSync.native', sync.native);
fs.realpath = note('realpath', cb); fs.realpath.native = note('realpath.native', cb.native);
fs.promises.realpath = note('promises.realpath', pr);
syncBuiltinESMExports();
`);
  const calls = (args: string[]): string[] => {
    writeFileSync(log, '');
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, BIN, ...args], { cwd: join(repo, 'Lib/json'), encoding: 'utf8', env });
    assert.is(r.status, 0, r.stderr);
    // Some Node lines' module loader resolves each module it loads through fs.realpathSync too (22 does):
    // evidex's own files are not the folders this test is about.
    const own = PROJECT_ROOT.endsWith(sep) ? PROJECT_ROOT : `${PROJECT_ROOT}${sep}`;
    return readFileSync(log, 'utf8').split('\n').filter((l) => l !== '' && !l.slice(l.indexOf(' ') + 1).startsWith(own));
  };
  assert.equal(calls(['search', 'JSONDecoder']), [`realpathSync ${join(repo, 'Lib/json')}`], 'the root is found above the real current folder');
  assert.equal(calls(['read', 'decoder.py:1']), [`realpathSync ${join(repo, 'Lib/json')}`]);
  assert.equal(calls(['search', 'JSONDecoder', '--repo', '../..']), [`realpathSync ${join(repo, 'Lib/json')}`, `realpathSync ${repo}`]);
});

test.after(() => {
  evidex(['daemon', 'stop'], '');
  cleanupTemp();
});

test.run();
