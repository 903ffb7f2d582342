// Standing in a folder the index leaves out (docs/cli.md, Tool commands): through real
// `evidex` processes over a real git repository, a command typed in an ignored
// `.venv/`, below a folder a negated pattern cannot bring back, below a
// nested .gitignore's rule, in a folder .git/info/exclude ignores, in a work
// tree of the repository, in `.git/` itself, or through a symlink to such a
// folder, says why in one line — the rule as `git check-ignore -v` names it —
// and what to type to index the folder as a tree of its own; that command,
// typed there, finds what the first did not. --json keeps the tools' note,
// root-relative, and the same as fields (left_out_folder), which the command
// line reads, never the note's text. A hostile folder name never reaches the
// terminal raw.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, git, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('left-out-home');
const repo = tempDir('left-out-repo');
const EVIL = 'evil\x1b[31mred\u202e';
write(repo, {
  '.gitignore': '# what pip and the build make\n*.log\n.venv/\nbuild/\n!build/keep/\nevil*/\n',
  'src/app.py': 'def main():\n    pass\n',
  '.venv/lib/site-packages/req/sessions.py': 'class Session:\n    pass\n',
  'build/keep/kept.py': 'class Kept:\n    pass\n',
  'pkg/.gitignore': 'generated/\n',
  'pkg/mod.py': 'X = 1\n',
  '.evidexignore': '# not for the model\nvendor/\n',
  'vendor/lib/v.py': 'class Vendored:\n    pass\n',
  'pkg/generated/sub/gen.py': 'class Generated:\n    pass\n',
  [`${EVIL}/inside.py`]: 'class Inside:\n    pass\n',
});
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['commit', '-qm', 'init']);
git(repo, ['worktree', 'add', '-q', 'wt']);
// Untracked (git never ignores a tracked file), and left out by the repository's own exclude file.
write(repo, { '.git/info/exclude': 'scratch/\n', 'scratch/notes/scratch.py': 'class Scratch:\n    pass\n' });
const outside = tempDir('left-out-link');
symlinkSync(join(repo, '.venv', 'lib'), join(outside, 'lib'));
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

interface Run { code: number | null; stdout: string; stderr: string }
function evidex(args: string[], cwd: string, runEnv: NodeJS.ProcessEnv = env): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: runEnv });
  assert.is(r.status, 0, `evidex ${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** The `note:` lines of a run. */
const notes = (r: Run): string[] => r.stderr.split('\n').filter((l) => l.startsWith('note: '));
/** `git check-ignore -v` at the top: `FILE:LINE` and the pattern, for one path. */
function checkIgnore(path: string): { at: string; pattern: string } {
  const out = git(repo, ['check-ignore', '-v', '--no-index', path]);
  const m = /^(.*?):(\d+):(.*)\t/.exec(out)!;
  assert.ok(m, out);
  return { at: `${m[1]}:${m[2]}`, pattern: m[3] };
}

test('from an ignored .venv: the rule as git check-ignore -v names it, and the command that indexes the folder on its own finds the class', () => {
  const cwd = join(repo, '.venv/lib/site-packages');
  const r = evidex(['symbol', 'Session'], cwd);
  const rule = checkIgnore('.venv/lib/site-packages');
  assert.equal(rule, { at: '.gitignore:3', pattern: '.venv/' });
  assert.equal(notes(r), [`note: . (.venv/lib/site-packages) is not indexed: ${rule.at} ignores ".venv/"; to index it as a tree of its own: evidex symbol Session --repo .`]);
  const own = evidex(['symbol', 'Session', '--repo', '.'], cwd);
  assert.match(own.stdout, /^req\/sessions\.py:1/m);
  evidex(['daemon', 'stop', '--repo', '.'], cwd);
});

test('--path-prefix from the top, --all dropped from the command typed again, --json keeps the tools\' root-relative note and its fields', () => {
  const r = evidex(['search', 'Session', '--path-prefix', '.venv/lib'], repo);
  assert.equal(notes(r), ['note: .venv/lib is not indexed: .gitignore:3 ignores ".venv/"; to index it as a tree of its own: evidex search Session --repo .venv/lib']);
  const j = JSON.parse(evidex(['symbol', 'Session', '--json'], join(repo, '.venv/lib')).stdout) as { notes: string[]; left_out_folder: unknown };
  assert.equal(j.notes, ['path_prefix ".venv/lib/" is not indexed: .gitignore:3 ignores ".venv/"']);
  assert.equal(j.left_out_folder, { path_prefix: '.venv/lib/', reason: 'ignored', why: '.gitignore:3 ignores ".venv/"', note: 0 });
  const wt = JSON.parse(evidex(['importers', 'requests', '--json', '--path-prefix', 'wt/src'], repo).stdout) as { left_out_folder: unknown };
  assert.equal(wt.left_out_folder, { path_prefix: 'wt/src/', reason: 'worktree', why: '"wt/" is a work tree of this repository, left out as git status leaves it', note: 0 });
});

test('the command line reads the field, not the note\'s words: its line comes from left_out_folder, and a note worded alike without one is printed as a note', async () => {
  const { noteLines } = await import('../client/commands/tool-command.js');
  const place = { here: 'a/', root: { path: '/r' }, shown: (p: string) => (p.startsWith('a/') ? p.slice(2) || '.' : `../${p}`), namesFile: () => false };
  const plain = (s: { plain: string }) => s.plain;
  const out = { path_prefix: 'a/', reason: 'ignored' as const, why: 'x:1 ignores "a/"', note: 1 };
  const argv = ['symbol', 'S'];
  assert.equal((await noteLines({ notes: ['first', 'the model\'s words, whatever they are'], left_out_folder: out }, place, argv)).map(plain),
    ['note: first', 'note: . (a) is not indexed: x:1 ignores "a/"; to index it as a tree of its own: evidex symbol S --repo .']);
  assert.equal((await noteLines({ notes: ['path_prefix "a/" is not indexed: x:1 ignores "a/"'] }, place, argv)).map(plain), ['note: --path-prefix "a/" is not indexed: x:1 ignores "a/"']);
  assert.equal((await noteLines({ notes: ['n'], left_out_folder: { ...out, reason: 'gitDir', note: 0 } }, place, argv)).map(plain), ['note: . (a) is not indexed: x:1 ignores "a/"']);
});

test('index --unresolved with a --path-prefix that is a left-out folder: the same line, its command typed again', () => {
  const r = evidex(['index', '--unresolved', '--path-prefix', '.'], join(repo, '.venv/lib'));
  assert.equal(notes(r), ['note: . (.venv/lib) is not indexed: .gitignore:3 ignores ".venv/"; to index it as a tree of its own: evidex index --unresolved --repo .']);
});

test('evidex index typed in an ignored folder: indexes the repository around it, as it did, and says so with the command that indexes the folder itself (in-process and through a daemon)', () => {
  const cwd = join(repo, '.venv/lib/site-packages');
  const line = 'note: . (.venv/lib/site-packages) is not indexed: .gitignore:3 ignores ".venv/"; to index it as a tree of its own: evidex index --repo .';
  evidex(['daemon', 'stop', '--repo', repo], repo);
  const alone = evidex(['index'], cwd);
  assert.match(alone.stdout, new RegExp(`^indexed ${repo} \\(in-process\\)$`, 'm'));
  assert.equal(notes(alone), [line]);
  const json = JSON.parse(evidex(['index', '--json'], cwd).stdout) as { root: string; left_out_folder: unknown };
  assert.is(json.root, repo);
  assert.equal(json.left_out_folder, { path_prefix: '.venv/lib/site-packages/', reason: 'ignored', why: '.gitignore:3 ignores ".venv/"' });
  evidex(['daemon', 'start', '--repo', repo], repo);
  const served = evidex(['index'], cwd);
  assert.match(served.stdout, new RegExp(`^indexed ${repo} \\(daemon\\)$`, 'm'));
  assert.equal(notes(served), [line]);
  // The command it offers indexes the folder itself; a folder the index keeps, and a root named with --repo, get no note.
  const own = evidex(['index', '--repo', '.'], cwd);
  assert.match(own.stdout, new RegExp(`^indexed ${cwd} \\(in-process\\)\\n  files   1 `, 'm'));
  assert.equal(notes(own), []);
  assert.equal(notes(evidex(['index'], join(repo, 'src'))), []);
  assert.equal(notes(evidex(['index', '--repo', repo], cwd)), []);
});

test('read of a file in an ignored folder: refused with the rule that leaves the folder out, the path as typed here', () => {
  const r = spawnSync(process.execPath, [BIN, 'read', 'req/sessions.py'], { cwd: join(repo, '.venv/lib/site-packages'), encoding: 'utf8', timeout: 60_000, env });
  assert.is(r.status, 2, r.stderr);
  assert.is(r.stderr, 'evidex: not_indexed: "req/sessions.py" is in a folder the index leaves out: .gitignore:3 ignores ".venv/"\n');
});

test('a negated pattern under an ignored folder, a nested .gitignore, .git/info/exclude: each names the rule git names', () => {
  for (const [folder, shown, words] of [
    ['build/keep', 'build/keep', 'ignores "build/"'],
    ['pkg/generated/sub', 'pkg/generated/sub', 'ignores "pkg/generated/" (pattern "generated/")'],
    ['scratch/notes', 'scratch/notes', 'ignores "scratch/"'],
  ] as const) {
    const rule = checkIgnore(folder);
    const r = evidex(['symbol', 'Kept'], join(repo, folder));
    assert.equal(notes(r), [`note: . (${shown}) is not indexed: ${rule.at} ${words}; to index it as a tree of its own: evidex symbol Kept --repo .`], folder);
  }
  assert.equal(checkIgnore('build/keep').at, '.gitignore:4');
  assert.equal(checkIgnore('pkg/generated/sub').at, 'pkg/.gitignore:1');
  assert.equal(checkIgnore('scratch/notes').at, '.git/info/exclude:1');
});

test('ignore files outside the root are named from it: .git/info/exclude above a subfolder root or beside a work tree through ../, the global excludes file from ~/, no machine path', () => {
  const top = tempDir('left-out-top');
  const user = tempDir('left-out-user');
  write(top, { 'app/src/a.py': 'A = 1\n', 'app/scratch/s.py': 'class S:\n    pass\n', 'app/cache/c.py': 'class C:\n    pass\n' });
  git(top, ['init', '-q']);
  write(top, { '.git/info/exclude': '# mine\nscratch/\n' });
  write(user, { '.config/git/ignore': 'cache/\n' });
  const userEnv: NodeJS.ProcessEnv = { ...env, HOME: user };
  delete userEnv.XDG_CONFIG_HOME;
  const app = join(top, 'app');
  assert.is(git(top, ['check-ignore', '-v', '--no-index', 'app/cache/c.py'], { HOME: user, XDG_CONFIG_HOME: '' }).split('\t')[0], `${user}/.config/git/ignore:1:cache/`);
  const scratch = evidex(['symbol', 'S', '--repo', app], join(app, 'scratch'), userEnv);
  assert.equal(notes(scratch), ['note: . (scratch) is not indexed: ../.git/info/exclude:2 ignores "scratch/"; to index it as a tree of its own: evidex symbol S --repo .']);
  const cache = evidex(['symbol', 'C', '--repo', app], join(app, 'cache'), userEnv);
  assert.equal(notes(cache), ['note: . (cache) is not indexed: ~/.config/git/ignore:1 ignores "cache/"; to index it as a tree of its own: evidex symbol C --repo .']);
  evidex(['daemon', 'stop', '--repo', app], top, userEnv);
  // A work tree of the repository inside it is a root of its own, whose info/exclude is the common git folder's, beside it.
  write(repo, { 'wt/scratch/w.py': 'class W:\n    pass\n' });
  const inWorktree = evidex(['symbol', 'W'], join(repo, 'wt/scratch'));
  assert.equal(notes(inWorktree), ['note: . (scratch) is not indexed: ../.git/info/exclude:1 ignores "scratch/"; to index it as a tree of its own: evidex symbol W --repo .']);
  evidex(['daemon', 'stop'], join(repo, 'wt'));
});

test('an .evidexignore rule: its file and line (git knows nothing of it)', () => {
  const r = evidex(['symbol', 'Vendored'], join(repo, 'vendor/lib'));
  assert.equal(notes(r), ['note: . (vendor/lib) is not indexed: .evidexignore:2 ignores "vendor/"; to index it as a tree of its own: evidex symbol Vendored --repo .']);
});

test('a work tree of the repository, .git itself (no command to index it), a symlinked current folder', () => {
  // The work tree is a repository of its own from inside: --repo names the folder above it.
  const wt = evidex(['symbol', 'Session', '--path-prefix', 'wt/src'], repo);
  assert.equal(notes(wt), ['note: wt/src is not indexed: "wt/" is a work tree of this repository, left out as git status leaves it; to index it as a tree of its own: evidex symbol Session --repo wt/src']);
  const dotGit = evidex(['symbol', 'Session', '--repo', repo], join(repo, '.git/refs'));
  assert.equal(notes(dotGit), ['note: . (.git/refs) is not indexed: ".git/" is git\'s own folder, never indexed']);
  const linked = evidex(['symbol', 'Session', '--repo', repo], join(outside, 'lib'));
  assert.equal(notes(linked), ['note: . (.venv/lib) is not indexed: .gitignore:3 ignores ".venv/"; to index it as a tree of its own: evidex symbol Session --repo .']);
});

test('a hostile folder name is escaped, in the folder and in the command typed again', () => {
  const r = evidex(['symbol', 'Inside', '--path-prefix', `${EVIL}/`], repo);
  assert.not.match(r.stderr, /\x1b|\u202e/);
  assert.equal(notes(r), ['note: evil\\x1b[31mred\\u202e is not indexed: .gitignore:6 ignores "evil\\u001b[31mred\\u202e/" (pattern "evil*/"); to index it as a tree of its own: evidex symbol Inside --repo \'evil\\x1b[31mred\\u202e\'']);
});

test('a folder the rules keep that holds nothing indexed keeps the old note', () => {
  mkdirSync(join(repo, 'src', 'empty'));
  const r = evidex(['symbol', 'Session'], join(repo, 'src', 'empty'));
  assert.equal(notes(r), ['note: nothing in the index is under --path-prefix "."']);
});

test.after(() => {
  spawnSync(process.execPath, [BIN, 'daemon', 'stop', '--repo', repo], { env });
  cleanupTemp();
});

test.run();
