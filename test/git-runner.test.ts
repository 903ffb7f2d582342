// local/git.ts, the one git runner, against real git: each
// outcome a caller maps (exit status with output, git missing, output over the
// cap, no end in time) and the environment it builds; and read_git_diff's
// refusal when git is missing (the other mappings are in git-diff and
// git-ignore-sources).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { RepoRules } from '../indexer/discover/rules.js';
import { ToolError } from '../indexer/errors.js';
import { gitEnv, runGit, type GitRunOptions } from '../local/git.js';
import { readGitDiff } from '../indexer/query/git-diff.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

const opts = (over: Partial<GitRunOptions> = {}): GitRunOptions => ({
  globalArgs: ['--no-pager'], env: gitEnv({ set: { LC_ALL: 'C' } }), timeoutMs: 30_000, maxBuffer: 1 << 20, ...over,
});

function repo(): string {
  const root = tempDir('gitrun');
  git(root, ['init', '-q']);
  write(root, { 'a.py': 'x = 1\n' });
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'one']);
  return root;
}

test('exit status and output: 0 with stdout in a work tree, 128 with git\'s message outside one', async () => {
  const root = repo();
  const ok = await runGit(root, ['rev-parse', '--is-inside-work-tree'], opts());
  assert.is(ok.kind, 'exited');
  if (ok.kind !== 'exited') return;
  assert.is(ok.code, 0);
  assert.is(ok.stdout.toString('utf8'), 'true\n');
  const outside = tempDir('nogit');
  const bad = await runGit(outside, ['rev-parse', '--is-inside-work-tree'], opts({ env: gitEnv({ set: { LC_ALL: 'C', GIT_CEILING_DIRECTORIES: outside } }) }));
  assert.is(bad.kind, 'exited');
  if (bad.kind !== 'exited') return;
  assert.is(bad.code, 128);
  assert.match(bad.stderr.toString('utf8'), /not a git repository/);
});

test('git not on PATH is "missing"; output over maxBuffer is "too_large"; no end within timeoutMs is "timed_out"', async () => {
  const root = repo();
  const noGit = { ...gitEnv({ set: { LC_ALL: 'C' } }), PATH: join(root, 'no-such-bin') };
  assert.equal(await runGit(root, ['--version'], opts({ env: noGit })), { kind: 'missing' });
  assert.equal(await runGit(root, ['--version'], opts({ maxBuffer: 4 })), { kind: 'too_large' });
  // hash-object --stdin waits for its input, which never ends.
  const t0 = Date.now();
  assert.equal(await runGit(root, ['hash-object', '--stdin'], opts({ timeoutMs: 200 })), { kind: 'timed_out' });
  assert.ok(Date.now() - t0 < 10_000, 'killed at the time limit');
});

test('gitEnv: the caller\'s GIT_* variables go except those kept, `drop` removes others, `set` wins', () => {
  const saved = { ...process.env };
  Object.assign(process.env, { GIT_DIR: '/elsewhere/.git', GIT_CONFIG_GLOBAL: '/g', PAGER: 'less', LANG: 'de_DE.UTF-8', EVIDEX_TEST_VAR: 'kept' });
  try {
    const env = gitEnv({ keep: ['GIT_CONFIG_GLOBAL'], drop: (k) => k === 'PAGER', set: { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' } });
    assert.is(env.GIT_DIR, undefined);
    assert.is(env.GIT_CONFIG_GLOBAL, '/g');
    assert.is(env.PAGER, undefined);
    assert.is(env.LANG, 'de_DE.UTF-8');
    assert.is(env.EVIDEX_TEST_VAR, 'kept');
    assert.is(env.LC_ALL, 'C');
    assert.is(env.GIT_TERMINAL_PROMPT, '0');
    assert.is(gitEnv({ set: {} }).GIT_CONFIG_GLOBAL, undefined, 'nothing kept unless named');
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

test('read_git_diff with no git on PATH is refused with git_failed, "git is not installed"', async () => {
  const root = repo();
  const rules = await RepoRules.load(root);
  const path = process.env.PATH;
  process.env.PATH = join(root, 'no-such-bin');
  try {
    await readGitDiff(root, {}, rules);
    assert.unreachable('read_git_diff answered without git');
  } catch (e) {
    assert.instance(e, ToolError);
    assert.is((e as ToolError).code, 'git_failed');
    assert.is((e as ToolError).message, 'git is not installed or not on PATH');
  } finally {
    process.env.PATH = path;
  }
});

test.run();
