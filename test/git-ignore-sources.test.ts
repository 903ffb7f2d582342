// "What git ignores, evidex ignores": every source git reads, checked against
// git itself. Random rule sets go into the .gitignore files above and below the
// root, .git/info/exclude and the global excludes file (core.excludesFile, or
// its XDG default), with core.ignorecase on or off, some files tracked
// (force-added, so some are tracked AND matched by a rule), and the root at the
// top of the work tree or in a subfolder. The oracle is `git ls-files` run in
// the root; the walk and the single-path check (the watcher's) must both agree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RepoRules } from '../indexer/discover/rules.js';
import { checkPath, walkRepo } from '../indexer/discover/walk.js';
import { mulberry32 } from './helpers/random.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'evidex-gitsrc-')));
// The same user-level config for git the oracle and for the git evidex runs: both read the environment.
const home = join(base, 'home');
mkdirSync(join(home, '.config', 'git'), { recursive: true });
const globalConfig = join(home, 'gitconfig');
process.env.HOME = home;
delete process.env.XDG_CONFIG_HOME;
process.env.GIT_CONFIG_GLOBAL = globalConfig;
process.env.GIT_CONFIG_NOSYSTEM = '1';
test.after(() => rmSync(base, { recursive: true, force: true }));

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
}

/** A rule matches the path, tracked or not (check-ignore exits 0 when ignored, 1 when not). */
function matchedByRules(wt: string, rel: string): boolean {
  try { git(wt, ['check-ignore', '--no-index', '-q', '--', rel]); return true; } catch { return false; }
}

function write(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

// Names that differ in case from each other only across folders, so ignorecase has something to fold
// without two files colliding on a case-insensitive lookup.
const FILES = [
  'top.txt', 'Top.log', 'notes.MD', 'sub/a.txt', 'sub/B.TXT', 'sub/keep.log', 'sub/Data/x.csv', 'sub/data2/y.CSV',
  'sub/inner/deep.txt', 'sub/inner/Deep.md', 'sub/inner/z/last.txt', 'sub/Build/out.o', 'sub/build2/out.txt',
  'sub/private/creds.txt', 'sub/private/readme.md', 'other/a.txt', 'other/Build/x.txt',
];
const PATTERNS = [
  '*.txt', '*.TXT', '!*.txt', '!a.txt', '*.log', '!keep.log', '*.md', '*.MD', 'Build/', 'build*/', '/sub/Data/', 'data*/',
  '[a-c].txt', '[A-C].txt', '[!a]*.txt', '[[:upper:]]*', 'inner/', '!inner/', 'inner/*.txt', 'z/', '**/private/*.txt',
  'sub/', '/sub', '!sub/', 'sub/*', '!sub/inner/', 'deep*', 'DEEP*', 'private/', '*.csv', '*.CSV', 'out.*', 'other/',
  '?op.*', 'sub/inner/**', '!**/last.txt', 'notes.md', 'x.csv',
];

test('git ignore sources: random rules over every source, subfolder roots and ignorecase agree with git ls-files', async () => {
  const rand = mulberry32(160016);
  const pick = (): string => PATTERNS[Math.floor(rand() * PATTERNS.length)];
  const lines = (max: number): string => `${Array.from({ length: Math.floor(rand() * (max + 1)) }, pick).join('\n')}\n`;
  let kept = 0, excluded = 0, trackedIgnored = 0, subRoots = 0, folded = 0, ignoredRoots = 0;
  const ROUNDS = 60;
  for (let t = 0; t < ROUNDS; t++) {
    const wt = join(base, `wt${t}`);
    for (const f of FILES) write(wt, f, `${f}\n`);
    git(wt, ['init', '-q']);
    const ignoreCase = rand() < 0.5;
    git(wt, ['config', 'core.ignorecase', String(ignoreCase)]);
    write(wt, '.gitignore', lines(3));
    if (rand() < 0.7) write(wt, 'sub/.gitignore', lines(3));
    if (rand() < 0.5) write(wt, 'sub/inner/.gitignore', lines(2));
    write(wt, '.git/info/exclude', lines(2));
    // The global excludes file: named by core.excludesFile, or the XDG default when none is set.
    const useConfig = rand() < 0.5;
    const excludes = useConfig ? join(home, `excludes${t}`) : join(home, '.config', 'git', 'ignore');
    writeFileSync(globalConfig, useConfig ? `[core]\n\texcludesFile = ~/excludes${t}\n` : '');
    writeFileSync(excludes, lines(2));
    // Some files tracked, whatever the rules say (git never ignores a tracked file).
    const tracked = FILES.filter(() => rand() < 0.25);
    if (tracked.length) git(wt, ['add', '-f', '--', ...tracked]);
    const root = rand() < 0.5 ? wt : join(wt, 'sub');
    const fromGit = new Set(git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0').filter(Boolean));
    // What is on disk under the root, ignore files and .git aside: every path git could list.
    const onDisk = FILES.filter((f) => root === wt || f.startsWith('sub/')).map((f) => (root === wt ? f : f.slice(4)));
    for (const ign of ['.gitignore', 'sub/.gitignore', 'sub/inner/.gitignore']) fromGit.delete(root === wt ? ign : ign.slice(4));

    const rules = await RepoRules.load(root);
    const walked = new Set((await walkRepo(root, rules)).files.map((f) => f.path).filter((p) => !p.endsWith('.gitignore')));
    // A root git ignores as a whole is indexed by the ignore files under it alone (git's answer would be nothing).
    const rootIgnored = root !== wt && matchedByRules(wt, 'sub');
    if (rootIgnored) {
      const plain = await RepoRules.load(root, { git: false });
      assert.equal([...walked].sort(), (await walkRepo(root, plain)).files.map((f) => f.path).filter((p) => !p.endsWith('.gitignore')).sort());
      ignoredRoots++;
      rmSync(wt, { recursive: true, force: true });
      continue;
    }
    const expected = new Set(onDisk.filter((p) => fromGit.has(p)));
    const context = `round ${t} (root ${root === wt ? 'top' : 'sub'}, ignorecase ${ignoreCase}, tracked ${JSON.stringify(tracked)})`;
    assert.equal([...walked].sort(), [...expected].sort(), `${context}: walk`);
    for (const p of onDisk) {
      const single = await checkPath(root, rules, p);
      assert.is(single !== null && single !== 'gone', expected.has(p), `${context}: checkPath ${p}`);
    }
    kept += expected.size;
    excluded += onDisk.length - expected.size;
    trackedIgnored += tracked.filter((f) => matchedByRules(wt, f) && expected.has(root === wt ? f : f.slice(4))).length;
    if (root !== wt) subRoots++;
    if (ignoreCase) folded++;
    rmSync(wt, { recursive: true, force: true });
  }
  console.log(`  ${ROUNDS} rounds (${subRoots} subfolder roots compared with git, ${ignoredRoots} roots git ignores whole, ${folded} ignorecase): ${kept} kept, ${excluded} excluded, ${trackedIgnored} tracked-yet-matched files kept, all as git decides`);
  assert.ok(kept > 100 && excluded > 100, 'both decisions compared in bulk');
  assert.ok(subRoots > 10 && folded > 10 && trackedIgnored > 3, 'every source exercised');
});

test('each source on its own: info/exclude, the XDG default, core.excludesFile, a parent .gitignore, ignorecase, tracked', async () => {
  const wt = join(base, 'each');
  for (const f of ['a.txt', 'b.txt', 'c.txt', 'sub/d.txt', 'sub/E.txt', 'sub/f.txt', 'sub/tracked.txt']) write(wt, f, 'x\n');
  git(wt, ['init', '-q']);
  writeFileSync(globalConfig, '');
  write(wt, '.git/info/exclude', 'a.txt\n');
  writeFileSync(join(home, '.config', 'git', 'ignore'), 'b.txt\n');
  write(wt, '.gitignore', 'sub/d.txt\ne.txt\ntracked.txt\n');
  git(wt, ['add', '-f', 'sub/tracked.txt']);
  const kept = async (root: string): Promise<string[]> => (await walkRepo(root, await RepoRules.load(root))).files.map((f) => f.path);
  assert.equal(await kept(wt), ['.gitignore', 'c.txt', 'sub/E.txt', 'sub/f.txt', 'sub/tracked.txt']);
  assert.equal(await kept(join(wt, 'sub')), ['E.txt', 'f.txt', 'tracked.txt'], 'the parent .gitignore applies to a subfolder root');
  git(wt, ['config', 'core.ignorecase', 'true']);
  assert.equal(await kept(join(wt, 'sub')), ['f.txt', 'tracked.txt'], 'ignorecase: e.txt ignores E.txt');
  writeFileSync(globalConfig, `[core]\n\texcludesFile = ${join(home, 'mine')}\n`);
  writeFileSync(join(home, 'mine'), 'c.txt\n');
  assert.equal(await kept(wt), ['.gitignore', 'b.txt', 'sub/f.txt', 'sub/tracked.txt'], 'core.excludesFile replaces the XDG default');
  // Without git's sources (no git, or not a work tree): the .gitignore files under the root alone.
  const plain = (await walkRepo(wt, await RepoRules.load(wt, { git: false }))).files.map((f) => f.path);
  assert.equal(plain, ['.gitignore', 'a.txt', 'b.txt', 'c.txt', 'sub/E.txt', 'sub/f.txt']);
  writeFileSync(globalConfig, '');
});

test('without git on PATH: the .gitignore files under the root alone, no error', async () => {
  const wt = join(base, 'nogit');
  for (const f of ['a.txt', 'b.txt']) write(wt, f, 'x\n');
  git(wt, ['init', '-q']);
  write(wt, '.git/info/exclude', 'a.txt\n');
  write(wt, '.gitignore', 'b.txt\n');
  const path = process.env.PATH;
  process.env.PATH = join(base, 'no-such-bin');
  try {
    assert.equal((await walkRepo(wt, await RepoRules.load(wt))).files.map((f) => f.path), ['.gitignore', 'a.txt']);
  } finally {
    process.env.PATH = path;
  }
});

test.run();
