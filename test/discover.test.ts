// Discovery against the real thing: temp trees on disk, real symlinks, fifos and
// sockets, and git itself as the oracle for ignore rules. Every differential
// asserts some sentinel paths on both sides, so "both lists empty" cannot pass.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_SECRET_PATTERNS, RepoRules, type DiscoverOptions } from '../indexer/discover/rules.js';
import { checkLink, checkPath, walkRepo, type WalkResult } from '../indexer/discover/walk.js';
import { RepoLinks } from '../indexer/discover/links.js';
import { isBinary } from '../indexer/discover/content.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';
import { mulberry32 } from './helpers/random.js';
import { stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';

/** What git would add: untracked, not ignored (nothing is committed in these repos). */
function gitListed(root: string): Set<string> {
  git(root, ['init', '-q']);
  const out = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  return new Set(out.split('\0').filter(Boolean));
}

function diffSets(ours: Set<string>, theirs: Set<string>): string {
  const onlyOurs = [...ours].filter((p) => !theirs.has(p)).sort();
  const onlyGit = [...theirs].filter((p) => !ours.has(p)).sort();
  return `only evidex: ${JSON.stringify(onlyOurs.slice(0, 20))} (${onlyOurs.length}); only git: ${JSON.stringify(onlyGit.slice(0, 20))} (${onlyGit.length})`;
}

async function walkSet(root: string, opts: DiscoverOptions = {}): Promise<{ set: Set<string>; rules: RepoRules; r: WalkResult }> {
  const rules = await RepoRules.load(root, opts);
  const r = await walkRepo(root, rules);
  return { set: new Set(r.files.map((f) => f.path)), rules, r };
}

const NASTY_ROOT_GITIGNORE = [
  '# a comment line',
  '',
  '*.log',
  '!keep.log',
  'build/',
  '/anchored.txt',
  '**/deep/gen',
  'docs/**/*.tmp',
  '\\#hash.txt',
  'trailing.txt   ',
  'esc\\ space\\ ',
  'ignored_dir/',
  '!ignored_dir/negated.txt',
  'a/*',
  '!a/b/',
  'Case.TXT',
  'out',
  '!out/keep.txt',
  '[Tt]emp*',
  '?.q',
  'foo/**',
  '!foo/bar/',
  'x/y/',
  '\\!bang.txt',
  'only_dir_pat/',
  'mid/*/leaf.txt',
  'star*/inner.txt',
  'dot.*',
  'ign2/',
].join('\n');

function buildNastyTree(root: string): void {
  write(root, {
    '.gitignore': NASTY_ROOT_GITIGNORE,
    'app.log': 'x', 'keep.log': 'x', 'src/keep.log': 'x', 'src/other.log': 'x',
    'build/out.js': 'x', 'src/build/gen.js': 'x',
    'anchored.txt': 'x', 'src/anchored.txt': 'x',
    'deep/gen': 'x', 'q/deep/gen': 'x', 'q/deep/gen2': 'x', 'r/deep/gen/inside.txt': 'x',
    'docs/a.tmp': 'x', 'docs/x/y/b.tmp': 'x', 'docs/c.md': 'x', 'other/d.tmp': 'x',
    '#hash.txt': 'x', 'hash.txt': 'x',
    'trailing.txt': 'x', 'trailing.txt2': 'x',
    'esc space ': 'x', 'esc space': 'x',
    'ignored_dir/negated.txt': 'x', 'ignored_dir/other.txt': 'x',
    'a/file.txt': 'x', 'a/b/kept.txt': 'x', 'a/c/gone.txt': 'x',
    'Case.TXT': 'x', 'case.txt': 'x', 'CASE.TXT': 'x',
    'out/keep.txt': 'x', 'src/out': 'x', 'outer.txt': 'x',
    'temp1.txt': 'x', 'Temp2.txt': 'x', 'tEmp3.txt': 'x',
    'a.q': 'x', 'ab.q': 'x',
    'foo/bar/x.txt': 'x', 'foo/top.txt': 'x',
    'x/y/z.txt': 'x', 'x/y2.txt': 'x', 'x/.gitignore': '!y/\n',
    '!bang.txt': 'x', 'bang.txt': 'x',
    'only_dir_pat': 'a file, not a folder: a dir-only pattern must not match it',
    'mid/one/leaf.txt': 'x', 'mid/one/two/leaf.txt': 'x', 'mid/leaf.txt': 'x',
    'star1/inner.txt': 'x', 'star/inner.txt': 'x', 'nostar/inner.txt': 'x',
    'dot.cfg': 'x', 'dotcfg': 'x',
    'ünïcode name.py': 'x', 'spaces in/dir name/f.py': 'x',
    // nested rules: override the root's, are overridden deeper, anchor to their own folder
    'sub/.gitignore': '*.txt\n!important.txt\n/local_only\nnested/\n!*.log\n',
    'sub/a.txt': 'x', 'sub/important.txt': 'x', 'sub/local_only': 'x', 'sub/deeper/local_only': 'x',
    'sub/nested/n.py': 'x', 'sub/x.log': 'x', 'sub/code.py': 'x',
    'sub/deeper/.gitignore': '!notes.txt\n*.py\n',
    'sub/deeper/notes.txt': 'x', 'sub/deeper/other.txt': 'x', 'sub/deeper/code.py': 'x', 'sub/deeper/readme.md': 'x',
    // a negation inside an ignored folder cannot bring a file back
    'ign2/.gitignore': '!*.py\n', 'ign2/x.py': 'x',
  });
}

test('differential vs git: nested .gitignore, negation, dir-only, anchored, **, escapes, trailing spaces', async () => {
  const root = tempDir('nasty');
  buildNastyTree(root);
  const fromGit = gitListed(root);
  const { set, rules } = await walkSet(root);
  assert.equal([...set].sort(), [...fromGit].sort(), diffSets(set, fromGit));
  // Sentinels on both sides: each rule above really did something.
  for (const kept of ['keep.log', 'src/keep.log', 'a/b/kept.txt', 'hash.txt', 'trailing.txt2', 'esc space', 'case.txt', 'CASE.TXT',
    'tEmp3.txt', 'ab.q', 'x/y/z.txt', 'bang.txt', 'only_dir_pat', 'mid/leaf.txt', 'mid/one/two/leaf.txt', 'nostar/inner.txt', 'dotcfg',
    'sub/important.txt', 'sub/x.log', 'sub/deeper/notes.txt', 'sub/deeper/local_only', 'ünïcode name.py', 'spaces in/dir name/f.py',
    '.gitignore', 'sub/.gitignore']) {
    assert.ok(fromGit.has(kept), `git keeps ${kept}`);
  }
  for (const gone of ['app.log', 'src/other.log', 'build/out.js', 'src/build/gen.js', 'anchored.txt', 'q/deep/gen', 'r/deep/gen/inside.txt',
    'docs/x/y/b.tmp', '#hash.txt', 'trailing.txt', 'esc space ', 'ignored_dir/negated.txt', 'a/c/gone.txt', 'Case.TXT', 'out/keep.txt',
    'src/out', 'temp1.txt', 'Temp2.txt', 'a.q', 'foo/bar/x.txt', '!bang.txt', 'mid/one/leaf.txt', 'star1/inner.txt', 'dot.cfg',
    'sub/a.txt', 'sub/local_only', 'sub/nested/n.py', 'sub/deeper/other.txt', 'sub/deeper/code.py', 'ign2/x.py']) {
    assert.not.ok(fromGit.has(gone), `git drops ${gone}`);
  }
  assert.ok(!set.has('.git') && ![...set].some((p) => p.startsWith('.git/')), '.git never listed');
  console.log(`  nasty .gitignore tree: ${set.size} files kept of ${listAll(root).filter((p) => !p.startsWith('.git/')).length}, identical to git ls-files`);
  // isIgnored (the watcher's question) agrees with the walk for every file on disk.
  for (const p of listAll(root)) {
    if (p.startsWith('.git/')) { assert.ok(rules.isIgnored(p, false), p); continue; }
    assert.is(!rules.isIgnored(p, false), set.has(p), `isIgnored(${p})`);
  }
});

/** Every regular file under root (no symlink following), POSIX relative. */
function listAll(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listAll(root, p));
    else if (d.isFile()) out.push(p);
  }
  return out;
}

testUnless(lacks.python3())('differential vs git over real stdlib subtrees with varied rules', async () => {
  const stdlib = stdlibRoot();
  const root = tempDir('stdlib');
  const picks = ['json', 'email', 'asyncio', 'unittest', 'http', 'xml', 'importlib', 'logging', 'sqlite3', 'test/test_json', 'test/test_email',
    'concurrent', 'multiprocessing', 'urllib', 'idlelib', 'lib2to3', 'ctypes'];
  for (const p of picks) if (existsSync(join(stdlib, p))) cpSync(join(stdlib, p), join(root, p), { recursive: true });
  write(root, {
    '.gitignore': [
      '__pycache__/', '*.pyc', '!json/__pycache__/', 'idlelib/idle_test/test_*.py', '!test_[a-m]*.py', 'test/**/test_*.py', '!test/test_json/test_*.py',
      '/email/mime/', '**/_*.py', '!__init__.py', '!**/__main__.py', 'xml/**/handler.py', '*.txt', 'logging/',
      '!logging/config.py', 'unittest/test/', 'sqlite3/dump.py', 'importlib/metadata', 'http/*.py', '!http/server.py',
    ].join('\n'),
    'asyncio/.gitignore': 'windows_*.py\n!windows_utils.py\n/base_*.py\n',
    'test/test_email/.gitignore': 'data/msg_0*.txt\n!data/\n!*.txt\n',
  });
  const { set, rules, r } = await walkSet(root);
  const fromGit = new Set([...gitListed(root)].filter((p) => !rules.isSecret(p)));
  const secretsOnDisk = [...gitListed(root)].filter((p) => rules.isSecret(p)).length;
  assert.equal([...set].sort(), [...fromGit].sort(), diffSets(set, fromGit));
  assert.is(r.skipped.secret, secretsOnDisk, 'secrets are the only other difference');
  assert.ok(set.size > 300, `a real tree was walked (${set.size} files)`);
  assert.ok(set.has('http/server.py') && !set.has('http/client.py'), 'http rules applied');
  assert.ok(set.has('asyncio/windows_utils.py') && !set.has('asyncio/windows_events.py') && !set.has('asyncio/base_events.py'));
  assert.ok(![...set].some((p) => p.startsWith('logging/')), 'an ignored folder stays out despite a negated file in it');
  console.log(`  stdlib subtrees: ${set.size} files, identical to git ls-files`);
});

// Random combinations of awkward patterns (root and nested file), git as the
// oracle. Seeded, so a failure names a reproducible case.
const FUZZ_FILES = ['a/b', 'a/x/b', 'a/x/y/b/c', 'foo/bar', 'foo/baz/q', 'x/foo/z', 'keep', 'dir/keep', 'b/c/d.txt', 'lit]x', 'a]', 'ab',
  'ac', 'ba', 'x.txt', 'y.TXT', 'z.txt/inner', 'deep/a/b/c/d', 'sp ace', 'back\\slash', 'q*', 'qq', 'n!x', 'hash#', '-dash', 'e/f/g/h.py',
  'e/f.py', 'üb.txt', 'é1', 'xyz/abc', '#keep', ' lead'];
const FUZZ_PATTERNS = ['a/**/b', '**', '/*', '!/keep', '*/', 'foo/**/', '**/foo/**', '[!a]*', '[a-b]c', '[]]x', 'lit]x', '***', 'a]', 'z.txt',
  '*.TXT', '*.[tT][xX][tT]', 'deep/**/c', 'sp\\ ace', 'back\\\\slash', 'q\\*', 'n\\!x', 'hash#', '\\-dash', 'e/**', '!e/f/', 'e/*.py', '!*.py',
  'b/', '/b/c/', 'c/', '**/b/**', 'a/x/', '!a/x/y/', 'x.txt/', '**/*.txt', 'e/f', '!e/f/g/', 'x/', 'b', '!b', '!a/b', '/a/b', 'a/b/', '*',
  '!*/', '!x/', 'x', '?', '??', 'a?', '[[:alpha:]]*', '[[:digit:]x]*', '[a-]*', '[[:foo]x', '[z-a]*', '[ab', 'foo\\', 'e/**/h.py',
  'e**/h.py', 'x**/z', '**/', '/', '!', ' ', 'keep  ', 'keep\\ ', '#keep', '\\#keep', 'ba\r', '\uFEFFkeep', 'deep/a/**', '**/c/d',
  'a/**/**/b', 'é*', '?b', '[!x]/*', '[ü]*', 'sp?ace', 'hash\\#', 'e/f/g/*.py', 'f.py', '/e/f.py', '*.py/', 'ü?.txt', 'y.T?T', '\\ lead', ' lead'];

test('differential vs git: 250 seeded random pattern sets (root + nested .gitignore)', async () => {
  const root = tempDir('fuzz');
  write(root, Object.fromEntries(FUZZ_FILES.map((f) => [f, 'x'])));
  git(root, ['init', '-q']);
  const rnd = mulberry32(20240611);
  const rand = (n: number): number => Math.floor(rnd() * n);
  const pick = (): string => FUZZ_PATTERNS[rand(FUZZ_PATTERNS.length)];
  let compared = 0, excludedSeen = 0;
  for (let t = 0; t < 250; t++) {
    const rootLines = Array.from({ length: 1 + rand(4) }, pick);
    const nested = t % 2 === 0 ? [pick(), pick()] : null;
    writeFileSync(join(root, '.gitignore'), `${rootLines.join('\n')}\n`);
    if (nested) writeFileSync(join(root, 'a/.gitignore'), nested.join('\n')); else rmSync(join(root, 'a/.gitignore'), { force: true });
    const fromGit = new Set(git(root, ['ls-files', '-z', '--others', '--exclude-standard']).split('\0').filter(Boolean));
    const { set } = await walkSet(root);
    assert.equal([...set].sort(), [...fromGit].sort(), `case ${t}: root ${JSON.stringify(rootLines)} a/ ${JSON.stringify(nested)}: ${diffSets(set, fromGit)}`);
    compared += fromGit.size;
    excludedSeen += FUZZ_FILES.length + 1 + (nested ? 1 : 0) - fromGit.size;
  }
  assert.ok(compared > 2000 && excludedSeen > 800, `both kept (${compared}) and excluded (${excludedSeen}) paths were compared`);
  console.log(`  fuzz: 250 pattern sets, ${compared} kept and ${excludedSeen} excluded path decisions identical to git`);
});

testUnless(lacks.python3())('walk of the installed Python stdlib (site-packages skipped): counts, sorted, its time printed (speed is the bench\'s)', async () => {
  const stdlib = stdlibRoot();
  const times: number[] = [];
  let files = 0, py = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const rules = await RepoRules.load(stdlib, { extraIgnore: ['/site-packages/', '/dist-packages/'] });
    const r = await walkRepo(stdlib, rules);
    times.push(performance.now() - t0);
    files = r.files.length;
    py = r.files.filter((f) => f.path.endsWith('.py')).length;
    assert.ok(!r.files.some((f) => f.path.startsWith('site-packages/')), 'extraIgnore honoured');
    for (let k = 1; k < r.files.length; k++) assert.ok(r.files[k - 1].path < r.files[k].path, 'sorted, no duplicates');
  }
  console.log(`  stdlib walk: ${files} files (${py} .py), ${times.map((t) => `${t.toFixed(0)} ms`).join(', ')}`);
  assert.ok(py > 1000, `found the stdlib's Python files (${py})`);
});

test('secrets: every default pattern at any depth, case-insensitive, plus extras from options', async () => {
  const root = tempDir('secrets');
  const secretNames = ['.env', '.env.local', '.env.production', 'server.pem', 'private.key', 'cert.p12', 'cert.pfx',
    'id_rsa', 'id_rsa.pub', 'id_ed25519', 'id_ed25519.pub', '.netrc', '.npmrc', '.pypirc', 'SERVER.PEM', '.ENV'];
  const files: Record<string, string> = { 'keep.py': 'x', 'envfile.py': 'x', 'env': 'x', 'x.env': 'x', 'pem.txt': 'x', 'keys.py': 'x',
    'my.secret': 'x', 'conf/creds.json': 'x', 'conf/other.json': 'x' };
  for (const n of secretNames) { files[n] = 's'; files[`deep/er/${n}`] = 's'; }
  write(root, files);
  assert.ok(DEFAULT_SECRET_PATTERNS.length >= 11, 'the list holds at least the first eleven');
  const rules = await RepoRules.load(root, { extraSecrets: ['*.secret', 'conf/creds.json'] });
  const r = await walkRepo(root, rules);
  const got = r.files.map((f) => f.path);
  assert.equal(got, ['conf/other.json', 'env', 'envfile.py', 'keep.py', 'keys.py', 'pem.txt', 'x.env']);
  assert.is(r.skipped.secret, secretNames.length * 2 + 2);
  for (const n of secretNames) assert.ok(rules.isSecret(n) && rules.isSecret(`a/b/${n}`), n);
  assert.ok(rules.isSecret('my.secret') && rules.isSecret('conf/creds.json') && !rules.isSecret('other/conf/creds.json'));
  const plain = await RepoRules.load(root);
  assert.not.ok(plain.isSecret('my.secret'), 'extras only when configured');
});

test('isBinary: NUL within the first 8 KiB only', () => {
  const at = (i: number, len = 20000): Uint8Array => { const b = new Uint8Array(len).fill(0x61); b[i] = 0; return b; };
  assert.ok(isBinary(at(0)));
  assert.ok(isBinary(at(8191)));
  assert.not.ok(isBinary(at(8192)));
  assert.not.ok(isBinary(at(8193)));
  assert.not.ok(isBinary(new Uint8Array(0)));
  assert.not.ok(isBinary(new TextEncoder().encode('héllo\r\n\uFFFD')));
  assert.ok(isBinary(at(3, 4)));
});

test('size limit: exactly max is kept, max + 1 is skipped; default is 2 MiB', async () => {
  const root = tempDir('size');
  write(root, { 'exact.txt': Buffer.alloc(100, 0x61), 'over.txt': Buffer.alloc(101, 0x61), 'empty.txt': '' });
  const rules = await RepoRules.load(root, { maxFileBytes: 100 });
  const r = await walkRepo(root, rules);
  assert.equal(r.files.map((f) => [f.path, f.size]), [['empty.txt', 0], ['exact.txt', 100]]);
  assert.is(r.skipped.tooLarge, 1);
  assert.is(await checkPath(root, rules, 'over.txt'), null);
  assert.is((await checkPath(root, rules, 'exact.txt') as { size: number }).size, 100);
  // walk option overrides the rules' limit
  assert.is((await walkRepo(root, rules, { maxFileBytes: 101 })).files.length, 3);
  assert.is(DEFAULT_MAX_FILE_BYTES, 2 * 1024 * 1024);
  const big = tempDir('size2');
  write(big, { 'max.txt': Buffer.alloc(DEFAULT_MAX_FILE_BYTES, 0x61), 'max1.txt': Buffer.alloc(DEFAULT_MAX_FILE_BYTES + 1, 0x61) });
  const rb = await walkRepo(big, await RepoRules.load(big));
  assert.equal(rb.files.map((f) => f.path), ['max.txt']);
});

test('symlinks: inside listed once under the real path, outside skipped, loops never entered, secrets and ignored targets stay out', async () => {
  const outside = tempDir('outside');
  write(outside, { 'secret.py': 'outside', 'dir/o.py': 'outside' });
  const root = tempDir('links');
  write(root, { 'src/a.py': 'a', 'src/pkg/b.py': 'b', '.env': 'TOKEN=1', 'build/gen.py': 'g', '.gitignore': 'build/\n', 'x/keep.py': 'x', 'y/keep.py': 'y' });
  symlinkSync('src/a.py', join(root, 'link_a.py'));            // file inside → src/a.py is listed, the link adds no name
  symlinkSync(join(outside, 'secret.py'), join(root, 'out.py')); // file outside → skipped
  symlinkSync(join(outside, 'dir'), join(root, 'outdir'));       // folder outside → skipped
  symlinkSync('src', join(root, 'alias'));                        // folder inside → not entered: src/ is walked
  symlinkSync('.', join(root, 'src/pkg/loop'));                   // loop to itself
  symlinkSync('../..', join(root, 'src/pkg/up'));                 // loop to the root
  symlinkSync('../y', join(root, 'x/to_y'));                      // x/to_y → y, y/to_x → x: mutual
  symlinkSync('../x', join(root, 'y/to_x'));
  symlinkSync('.env', join(root, 'notes.txt'));                   // innocent name, secret content
  symlinkSync('build/gen.py', join(root, 'gen_link.py'));         // ignored target
  symlinkSync('nowhere.py', join(root, 'dangling.py'));
  symlinkSync('.git/config', join(root, 'gitcfg'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git/config'), '[core]\n');
  const rules = await RepoRules.load(root);
  // No link is entered, so no loop is walked (a walk that followed them would never finish: the runner's time limit fails it).
  const r = await walkRepo(root, rules);
  const paths = r.files.map((f) => f.path);
  assert.equal(paths, ['.gitignore', 'src/a.py', 'src/pkg/b.py', 'x/keep.py', 'y/keep.py']);
  for (const f of r.files) assert.is(f.abs, join(root, f.path), 'each file is read where its path is');
  assert.is(r.skipped.symlinkOutside, 2);
  assert.is(r.skipped.brokenLink, 1);
  // link_a.py, alias, loop, up, to_y, to_x: each leads to a file or folder listed under its own name
  assert.is(r.skipped.linked, 6);
  assert.is(r.skipped.secret, 2, '.env and notes.txt → .env');
  // checkPath makes the same decisions one path at a time
  assert.is(await checkPath(root, rules, 'out.py'), null);
  assert.is(await checkPath(root, rules, 'outdir/o.py'), null);
  assert.is(await checkPath(root, rules, 'notes.txt'), null);
  assert.is(await checkPath(root, rules, 'gen_link.py'), null);
  assert.is(await checkPath(root, rules, 'gitcfg'), null);
  assert.is(await checkPath(root, rules, 'dangling.py'), null);
  assert.is(await checkPath(root, rules, 'missing.py'), 'gone');
  assert.is(await checkPath(root, rules, 'src'), null, 'a folder is not a file entry');
  // A link's name, or a path through a linked folder, is no entry: the file is listed under its real path.
  assert.is(await checkPath(root, rules, 'alias/pkg/b.py'), null);
  assert.is(await checkPath(root, rules, 'link_a.py'), null);
  assert.is((await checkPath(root, rules, 'src/pkg/b.py') as { abs: string }).abs, join(root, 'src/pkg/b.py'));
  // A sub-walk of a linked folder (the watcher's, for a new `alias -> src`) lists nothing either.
  assert.equal((await walkRepo(root, rules, { under: 'alias' })).files, []);
  assert.equal((await walkRepo(root, rules, { under: 'alias/pkg' })).files, []);
  assert.equal((await walkRepo(root, rules, { under: 'src/pkg/up/src' })).files, []);
  // The links the walk counts, with where they lead: what resolution follows (links.ts); checkLink decides one as the walk does.
  assert.equal(r.links.map((l) => `${l.path} ${l.target}`).sort(), ['alias src', 'dangling.py nowhere.py', 'link_a.py src/a.py', 'src/pkg/loop src/pkg', 'src/pkg/up ', 'x/to_y y', 'y/to_x x']); // a dangling link is recorded with where it would lead
  for (const l of r.links) assert.is(await checkLink(rules, l.path), l.target, l.path);
  for (const p of ['out.py', 'notes.txt', 'gen_link.py', 'gitcfg', 'src/a.py', 'alias/pkg/loop', 'missing']) assert.is(await checkLink(rules, p), null, p);
  const links = new RepoLinks();
  links.replace(r.links);
  assert.equal(['alias/pkg/b.py', 'link_a.py', 'src/pkg/up/alias/a.py', 'x/to_y/to_x/keep.py', 'src/a.py', 'nowhere/x'].map((p) => links.follow(p)),
    ['src/pkg/b.py', 'src/a.py', 'src/a.py', 'x/keep.py', 'src/a.py', 'nowhere/x']);
  assert.is(links.follow('src/pkg/loop/loop/b.py'), 'src/pkg/b.py');
  assert.equal(links.takeChanged().sort(), r.links.map((l) => l.path).sort(), 'a first walk: every link is new');
  links.replace(r.links.filter((l) => l.path !== 'alias'));
  assert.equal(links.takeChanged(), ['alias'], 'one link gone');
  await links.recheck(rules, 'src/pkg', true);
  assert.equal(links.takeChanged().sort(), ['src/pkg/loop', 'src/pkg/up'], 'a folder gone takes its links along');
});

test('fifos and sockets are skipped as special files', async () => {
  const root = tempDir('special');
  write(root, { 'a.py': 'x' });
  execFileSync('mkfifo', [join(root, 'pipe')]);
  const server = createServer();
  await new Promise<void>((res) => server.listen(join(root, 'sock'), res));
  try {
    const rules = await RepoRules.load(root);
    const r = await walkRepo(root, rules);
    assert.equal(r.files.map((f) => f.path), ['a.py']);
    assert.is(r.skipped.special, 2);
    assert.is(await checkPath(root, rules, 'pipe'), null);
    assert.is(await checkPath(root, rules, 'sock'), null);
  } finally {
    await new Promise((res) => server.close(res));
  }
});

test('.evidexignore: root and nested, own negations, cannot un-ignore what .gitignore hides', async () => {
  const root = tempDir('evx');
  write(root, {
    '.gitignore': '*.gen\n',
    '.evidexignore': 'vendor/\n*.min.js\n!keep.min.js\n!x.gen\n',
    'vendor/lib.py': 'x', 'app.min.js': 'x', 'keep.min.js': 'x', 'x.gen': 'x', 'app.py': 'x',
    'sub/.evidexignore': 'fixtures/\n!app.min.js\n', 'sub/fixtures/f.py': 'x', 'sub/app.min.js': 'x', 'sub/m.py': 'x',
  });
  const { set, rules } = await walkSet(root);
  assert.equal([...set].sort(), ['.evidexignore', '.gitignore', 'app.py', 'keep.min.js', 'sub/.evidexignore', 'sub/app.min.js', 'sub/m.py']);
  assert.ok(rules.isIgnored('vendor/lib.py', false) && rules.isIgnored('vendor', true));
  assert.ok(rules.isIgnoreFile('sub/.evidexignore') && rules.isIgnoreFile('.gitignore') && !rules.isIgnoreFile('gitignore'));
  // extraIgnore behaves as the top of the root .evidexignore
  const withExtra = await walkSet(root, { extraIgnore: ['*.py'] });
  assert.not.ok(withExtra.set.has('app.py'));
  assert.ok(withExtra.set.has('keep.min.js'));
});

test('reloadIgnoreFile: a changed, created or deleted ignore file changes decisions', async () => {
  const root = tempDir('reload');
  write(root, { '.gitignore': '*.tmp\n', 'a.tmp': 'x', 'b.py': 'x', 'sub/c.py': 'x' });
  const rules = await RepoRules.load(root);
  assert.ok(rules.isIgnored('a.tmp', false));
  assert.not.ok(rules.isIgnored('sub/c.py', false));
  writeFileSync(join(root, '.gitignore'), '*.py\n');
  assert.ok(rules.isIgnored('a.tmp', false), 'unchanged until reloaded');
  await rules.reloadIgnoreFile('.gitignore');
  assert.not.ok(rules.isIgnored('a.tmp', false));
  assert.ok(rules.isIgnored('b.py', false) && rules.isIgnored('sub/c.py', false));
  write(root, { 'sub/.gitignore': '!c.py\n' });
  await rules.reloadIgnoreFile('sub/.gitignore');
  assert.not.ok(rules.isIgnored('sub/c.py', false), 'nested negation after creation');
  rmSync(join(root, 'sub/.gitignore'));
  await rules.reloadIgnoreFile('sub/.gitignore');
  assert.ok(rules.isIgnored('sub/c.py', false), 'after deletion');
  assert.equal((await walkRepo(root, rules)).files.map((f) => f.path), ['.gitignore', 'a.tmp']);
  let threw = false;
  try { await rules.reloadIgnoreFile('b.py'); } catch { threw = true; }
  assert.ok(threw, 'only ignore files can be reloaded');
});

test('walk under a folder, and .git (folder or file) never listed at any depth', async () => {
  const root = tempDir('under');
  write(root, { 'a/b/c.py': 'x', 'a/b/d.log': 'x', 'a/.gitignore': '*.log\n', 'a/.git': 'gitdir: elsewhere\n', 'e.py': 'x',
    'nested/.git/HEAD': 'ref', 'nested/n.py': 'x' });
  const rules = await RepoRules.load(root);
  const all = (await walkRepo(root, rules)).files.map((f) => f.path);
  assert.equal(all, ['a/.gitignore', 'a/b/c.py', 'e.py', 'nested/n.py']);
  const under = await walkRepo(root, rules, { under: 'a/b' });
  assert.equal(under.files.map((f) => f.path), ['a/b/c.py'], 'parent folder rules apply to a sub-walk');
  assert.is((await walkRepo(root, rules, { under: 'missing' })).files.length, 0);
  assert.ok(rules.isIgnored('nested/.git/HEAD', false) && rules.isIgnored('.git', true));
  assert.is(await checkPath(root, rules, 'nested/.git/HEAD'), null);
});

test('bad input: missing root, bad maxFileBytes, unclean checkPath path', async () => {
  let msg = '';
  try { await RepoRules.load(join(tmpdir(), 'evidex-does-not-exist-xyz')); } catch (e) { msg = (e as Error).message; }
  assert.match(msg, /cannot be opened: ENOENT/);
  const root = tempDir('bad');
  try { await RepoRules.load(root, { maxFileBytes: -1 }); msg = ''; } catch (e) { msg = (e as Error).message; }
  assert.match(msg, /maxFileBytes must be a non-negative integer/);
  const rules = await RepoRules.load(root);
  for (const bad of ['../x', '/etc/passwd', 'a//b', './a', '']) {
    let threw = false;
    try { await checkPath(root, rules, bad); } catch { threw = true; }
    assert.ok(threw, `checkPath refuses ${JSON.stringify(bad)}`);
  }
  assert.ok(lstatSync(root).isDirectory());
});

test.after(() => cleanupTemp());
test.run();
