// Issue 16, on real files and a real daemon: what git ignores or what is a
// secret stays out however it is reached (a symlinked folder, a hard link, a
// symlink swapped in while the indexer reads), and requests that used to break
// the transport or the ask loop (an answer too large for one message, a
// 300-character path segment, 200k-deep arguments) get one-line refusals while
// the daemon keeps serving.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { linkSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import WebSocket from 'ws';
import { connect, RpcError, type Client } from '../client/connection.js';
import { parseOne } from '../indexer/build/parse-worker.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { MAX_ARG_DEPTH } from '../indexer/query/arg-bounds.js';
import { Daemon } from '../daemon/server.js';
import { MAX_ANSWER_BYTES, Methods } from '../protocol/messages.js';
import { FakeOllama } from './fake-ollama/server.js';
import { askFake, openFixtureIndex, tempStateDir } from './fake-ollama/harness.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { rawExchange, startDaemon, stopDaemon, waitFor, waitWatcherReady, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** The refusal code of a request that must be refused (the test fails if it is answered). */
async function refusalOf(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    const data = e.data as { code?: string; message?: string } | undefined;
    return { code: data?.code ?? String(e.code), message: data?.message ?? e.message };
  }
  throw new Error('expected a refusal, got an answer');
}

const call = (c: Client, name: string, args: unknown) => c.request(Methods.toolsCall, { name, arguments: args });

let d: TestDaemon | undefined;
let c: Client | undefined;
test.after.each(async () => {
  await c?.close(); c = undefined;
  if (d) await stopDaemon(d); d = undefined;
});
test.after(() => cleanupTemp());

test('item 1: a file reached through a symlinked folder is judged by its real path (ignore rules and secrets)', async () => {
  const root = realpathSync(tempDir('symdir'));
  write(root, {
    '.gitignore': 'private/*.txt\ndata/**\n',
    'private/creds.txt': 'TOP_SECRET_PRIVATE\n', 'private/readme.md': 'public words\n',
    'data/x.txt': 'TOP_SECRET_DATA\n', 'ok.txt': 'fine\n',
    'conf/creds.json': '{"TOP_SECRET_CONF": 1}\n',
  });
  git(root, ['init', '-q']);
  symlinkSync('private', join(root, 'pub'));
  symlinkSync('data', join(root, 'dlink'));
  symlinkSync('conf', join(root, 'alias'));
  // Secrets by a path pattern, reached through a folder link under another name.
  const walked = (await walkRepo(root, await RepoRules.load(root, { extraSecrets: ['conf/creds.json'] }))).files.map((f) => f.path);
  assert.equal(walked, ['.gitignore', 'ok.txt', 'private/readme.md'], 'each file once, under its real path');

  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const r = await call(c, 'search_code', { query: 'TOP_SECRET_', limit: 50 });
  assert.equal(r.evidence.filter((e) => e.path !== 'conf/creds.json' && e.path !== 'alias/creds.json').map((e) => e.path), [], 'no ignored text through a link');
  for (const p of ['pub/creds.txt', 'dlink/x.txt']) {
    assert.is((await refusalOf(call(c, 'read_evidence', { path: p, start_line: 1 }))).code, 'not_indexed', p);
  }
  const through = (await call(c, 'read_evidence', { path: 'pub/readme.md', start_line: 1 })).evidence[0];
  assert.equal([through.path, through.snippet], ['private/readme.md', 'public words'], 'followed to its real path');
  // A file created later through the link is judged the same way by the watcher.
  writeFileSync(join(root, 'pub', 'later.txt'), 'TOP_SECRET_LATER\n');
  writeFileSync(join(root, 'pub', 'later.md'), 'LATER_PUBLIC\n');
  await waitFor('later.md indexed', async () => (await call(c!, 'search_code', { query: 'LATER_PUBLIC' })).total >= 1, 15_000, 100);
  assert.equal((await call(c, 'search_code', { query: 'LATER_PUBLIC' })).evidence.map((e) => e.path), ['private/later.md']);
  assert.is((await call(c, 'search_code', { query: 'TOP_SECRET_LATER' })).total, 0);
});

test('item 2: a daemon on a subfolder root leaves out what git ignores from every source, and keeps tracked files', async () => {
  const wt = realpathSync(tempDir('gitsrc'));
  const home = realpathSync(tempDir('gitsrc-home'));
  write(home, { '.config/git/ignore': 'c.txt\n', gitconfig: '' });
  const env = { HOME: home, XDG_CONFIG_HOME: '', GIT_CONFIG_GLOBAL: join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  const files: Record<string, string> = { '.gitignore': 'a.txt\nd.txt\ne.txt\n' };
  for (const n of ['a', 'b', 'c', 'D', 'e', 'ok']) files[`sub/${n}.txt`] = `GITSRC_${n}\n`;
  write(wt, files);
  git(wt, ['init', '-q']);
  git(wt, ['config', 'core.ignorecase', 'true']);
  write(wt, { '.git/info/exclude': 'b.txt\n' });
  git(wt, ['add', '-f', 'sub/e.txt']);
  d = await startDaemon(join(wt, 'sub'), { env });
  c = await connect(join(wt, 'sub'), { env: d.env });
  await waitWatcherReady(c);
  const r = await call(c, 'search_code', { query: 'GITSRC_', limit: 50 });
  assert.equal(r.evidence.map((e) => e.path), ['e.txt', 'ok.txt'], 'parent .gitignore, info/exclude, XDG ignore and ignorecase all honoured; tracked e.txt kept');
  assertEvidenceChecks(join(wt, 'sub'), r.evidence);
  assert.is((await refusalOf(call(c, 'read_evidence', { path: 'b.txt', start_line: 1 }))).code, 'not_indexed');
  // The watcher decides with the same rules: a new file matched by the parent's .gitignore or info/exclude stays out.
  write(wt, { 'sub/x/a.txt': 'GITSRC_new_a\n', 'sub/x/B.txt': 'GITSRC_new_b\n' });
  writeFileSync(join(wt, 'sub', 'later.txt'), 'GITSRC_later\n');
  await waitFor('later.txt indexed', async () => (await call(c!, 'search_code', { query: 'GITSRC_later' })).total === 1, 15_000, 100);
  await waitFor('watcher idle', async () => (await c!.request(Methods.indexStatus)).daemon.pendingUpdates === 0, 15_000, 50);
  assert.is((await call(c, 'search_code', { query: 'GITSRC_new' })).total, 0);
});

test('item 3: a hard link to a secret is a secret, at start-up and when made later (also to a secret in an ignored folder)', async () => {
  const root = realpathSync(tempDir('hardlink'));
  write(root, { '.env': 'TOKEN=HARDLINK_SECRET_1\n', 'vendor/.env': 'TOKEN=HARDLINK_SECRET_2\n', '.gitignore': 'vendor/\n', 'ok.txt': 'fine\n' });
  git(root, ['init', '-q']);
  linkSync(join(root, '.env'), join(root, 'notes.txt'));
  git(root, ['add', 'notes.txt', 'ok.txt']);
  git(root, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a secret committed under an innocent name']);
  writeFileSync(join(root, '.env'), 'TOKEN=HARDLINK_SECRET_CHANGED\n'); // the same inode: notes.txt changes with it
  linkSync(join(root, 'vendor/.env'), join(root, 'vendored.txt'));
  symlinkSync('settings.txt', join(root, '.env.local'));        // a secret name for a plain-named file
  symlinkSync('.env', join(root, 'env-notes.txt'));            // a plain name for a secret
  write(root, { 'settings.txt': 'TOKEN=LINKED_SECRET_3\n' });
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  for (const q of ['HARDLINK_SECRET', 'LINKED_SECRET']) assert.is((await call(c, 'search_code', { query: q })).total, 0, q);
  for (const p of ['notes.txt', 'vendored.txt', 'settings.txt']) {
    assert.is((await refusalOf(call(c, 'read_evidence', { path: p, start_line: 1 }))).code, 'not_indexed', p);
  }
  // Neither link is followed to what it leads to: the secret name, or the secret it names, refuses it.
  for (const p of ['.env.local', 'env-notes.txt']) {
    assert.is((await refusalOf(call(c, 'read_evidence', { path: p, start_line: 1 }))).code, 'secret_denied', p);
  }
  assert.is((await call(c, 'read_evidence', { path: 'ok.txt', start_line: 1 })).evidence[0].snippet, 'fine');
  // The tracked hard link's change is not shown; of the untracked files (read_git_diff shows them as new files)
  // only .gitignore is: vendored.txt and settings.txt are links to secrets, which the index never holds.
  assert.equal((await call(c, 'read_git_diff', {})).evidence.map((e) => e.path), ['.gitignore'], 'the diff of a hard link to a secret is not shown');
  assert.equal((await call(c, 'read_git_diff', { untracked: false })).evidence, [], 'nor with tracked files only');
  linkSync(join(root, '.env'), join(root, 'later.txt'));
  write(root, { 'marker.txt': 'MARKER_AFTER_LINK\n' });
  await waitFor('marker indexed', async () => (await call(c!, 'search_code', { query: 'MARKER_AFTER_LINK' })).total >= 1, 15_000, 100);
  await waitFor('watcher idle', async () => (await c!.request(Methods.indexStatus)).daemon.pendingUpdates === 0, 15_000, 50);
  assert.is((await call(c, 'search_code', { query: 'HARDLINK_SECRET' })).total, 0, 'a hard link made while watching');
  assert.equal((await call(c, 'read_git_diff', {})).evidence.map((e) => e.path), ['.gitignore', 'marker.txt'], 'nor is it a new file of the diff');
});

test('item 9: a link under a secret name makes what it leads to a secret, while watching too, and a prefix through it names nothing', async () => {
  const root = realpathSync(tempDir('livelink'));
  write(root, {
    'settings.txt': 'LIVE_LINK_SECRET_1\n', 'other.txt': 'LIVE_LINK_SECRET_2\n', 'ok.txt': 'fine\n',
    'aws-profile/credentials': 'FOLDER_LINK_SECRET_1\n', 'kube/config': 'FOLDER_LINK_SECRET_2\n', 'dock/config.json': '{"FOLDER_LINK_SECRET_3": 1}\n',
  });
  git(root, ['init', '-q']);
  symlinkSync('aws-profile', join(root, '.aws')); // `.aws/credentials` is a secret pattern: aws-profile/credentials is that file
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const hits = async (q: string): Promise<number> => (await call(c!, 'search_code', { query: q })).total;
  const until = (what: string, q: string, n: number) => waitFor(what, async () => (await hits(q)) === n, 15_000, 20);
  const refused = async (p: string): Promise<void> => {
    const r = await refusalOf(call(c!, 'read_evidence', { path: p, start_line: 1 }));
    assert.ok(['not_indexed', 'secret_denied'].includes(r.code), `${p}: ${r.code}`);
  };
  assert.is(await hits('FOLDER_LINK_SECRET_1'), 0, 'a folder link under a secret folder name, at the walk');
  await refused('aws-profile/credentials');
  assert.is(await hits('LIVE_LINK_SECRET_1'), 1, 'a plain file while no secret name leads to it');
  assert.is(await hits('FOLDER_LINK_SECRET_2'), 1);

  symlinkSync('settings.txt', join(root, '.env'));
  await until('settings.txt leaves the index once .env leads to it', 'LIVE_LINK_SECRET_1', 0);
  await refused('settings.txt');
  write(root, { 'settings.new': 'LIVE_LINK_SECRET_1 saved anew\n' });
  renameSync(join(root, 'settings.new'), join(root, 'settings.txt')); // an editor's save: a new inode under the link's target
  write(root, { 'after-save.txt': 'MARKER_AFTER_SAVE\n' });
  await until('the save after it is indexed', 'MARKER_AFTER_SAVE', 1);
  await waitFor('watcher idle', async () => (await c!.request(Methods.indexStatus)).daemon.pendingUpdates === 0, 15_000, 20);
  assert.is(await hits('LIVE_LINK_SECRET_1'), 0, 'the target saved anew is still the secret');
  await refused('settings.txt');
  for (const prefix of ['.env', '.env/', '.aws/credentials']) {
    const r = await refusalOf(call(c, 'search_code', { query: 'SECRET', path_prefix: prefix }));
    assert.is(r.code, 'secret_denied', prefix);
    assert.not.match(r.message, /settings|aws-profile/, 'the refusal names nothing behind the link');
  }

  unlinkSync(join(root, '.env'));
  symlinkSync('other.txt', join(root, '.env'));
  await until('the new target leaves the index', 'LIVE_LINK_SECRET_2', 0);
  await until('the old target is a plain file again', 'LIVE_LINK_SECRET_1', 1);
  await refused('other.txt');
  unlinkSync(join(root, '.env'));
  await until('no secret name leads to other.txt any more', 'LIVE_LINK_SECRET_2', 1);

  symlinkSync('kube', join(root, '.kube'));
  symlinkSync('dock', join(root, '.docker'));
  await until('kube/config leaves the index once .kube leads to its folder', 'FOLDER_LINK_SECRET_2', 0);
  await until('dock/config.json leaves too', 'FOLDER_LINK_SECRET_3', 0);
  await refused('kube/config');
  await refused('dock/config.json');
  unlinkSync(join(root, '.aws')); // a link the start-up walk met, removed
  await until('aws-profile/credentials is a plain file again', 'FOLDER_LINK_SECRET_1', 1);
  assert.is((await call(c, 'read_evidence', { path: 'ok.txt', start_line: 1 })).evidence[0].snippet, 'fine');
});

test('item 4: the reader refuses a file swapped for a symlink after it was vetted (dev/ino on the open descriptor)', async () => {
  const root = realpathSync(tempDir('swap-unit'));
  const outside = realpathSync(tempDir('swap-out'));
  write(root, { 'a.txt': 'inside text\n' });
  write(outside, { 'secret.txt': 'OUTSIDE_SWAP_TEXT\n' });
  const st = lstatSync(join(root, 'a.txt'));
  linkSync(join(root, 'a.txt'), join(root, 'keep')); // the vetted inode stays allocated, so no new file can reuse its number
  const task = { path: 'a.txt', abs: join(root, 'a.txt'), dev: st.dev, ino: st.ino };
  assert.is(parseOne(task, 1 << 20).kind, 'file', 'the vetted file is read');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'tmp-link'));
  renameSync(join(root, 'tmp-link'), join(root, 'a.txt'));
  assert.is(parseOne(task, 1 << 20).kind, 'gone', 'a symlink renamed over it is not followed');
  // Made while the vetted inode still exists, so it cannot reuse its number.
  write(root, { 'other.txt': 'a new file\n' });
  renameSync(join(root, 'other.txt'), join(root, 'a.txt'));
  // Another regular file there (an atomic save) is not read either, but it is no absence: the
  // reader says so (replaced) and the caller vets the path again (indexer/build/settled-read.ts).
  const other = parseOne(task, 1 << 20);
  assert.equal(other, { path: 'a.txt', kind: 'replaced' }, 'another file at the same name is not the one vetted, and not read');
});

test('item 4: swapping a symlink to an outside file over an indexed file, 300 times, never makes outside text searchable', async () => {
  const root = realpathSync(tempDir('swap'));
  const outside = realpathSync(tempDir('swap-out'));
  write(root, { 'a.txt': 'inside text\n', 'b.txt': 'other\n' });
  write(outside, { 'secret.txt': 'OUTSIDE_SWAP_TEXT\n' });
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  let hits = 0;
  let queries = 0;
  for (let i = 0; i < 300; i++) {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'tmp-link'));
    renameSync(join(root, 'tmp-link'), join(root, 'a.txt'));
    if (i % 3 === 0) { hits += (await call(c, 'search_code', { query: 'OUTSIDE_SWAP' })).total; queries++; }
    writeFileSync(join(root, 'tmp-file'), `inside text ${i}\n`);
    renameSync(join(root, 'tmp-file'), join(root, 'a.txt'));
    if (i % 3 === 1) { hits += (await call(c, 'search_code', { query: 'OUTSIDE_SWAP' })).total; queries++; }
  }
  await waitFor('watcher idle', async () => (await c!.request(Methods.indexStatus)).daemon.pendingUpdates === 0, 20_000, 50);
  hits += (await call(c, 'search_code', { query: 'OUTSIDE_SWAP' })).total;
  console.log(`  300 swaps, ${queries} searches during them: ${hits} hits of outside text`);
  assert.is(hits, 0);
  const a = await waitFor('a.txt indexed again', async () => (await call(c!, 'search_code', { query: 'inside text 299' })).evidence[0], 15_000, 100);
  assertEvidenceChecks(root, [a]);
});

test('item 5: an answer larger than one message is refused with answer_too_large, the connection stays, for every method', async () => {
  // A real daemon with the default 4 MiB answer limit: 200 matching lines of 4,000 control characters (6 bytes each in JSON).
  assert.is(MAX_ANSWER_BYTES, 4 << 20);
  const root = realpathSync(tempDir('big'));
  const line = `BIGLINE ${'\u0001'.repeat(4000)}`;
  write(root, { 'big.txt': `${Array.from({ length: 200 }, () => line).join('\n')}\n`, 'ok.txt': 'fine\n', 'many.txt': 'same\n'.repeat(24_000) });
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
  // A working tree whose diff has 3,000 hunks (a changed line every 8, more than twice the context apart), about 7 MB as JSON.
  write(root, { 'many.txt': `${Array.from({ length: 24_000 }, (_, i) => (i % 8 ? 'same' : `changed ${i} ${'\u0002'.repeat(400)}`)).join('\n')}\n` });
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const r = await refusalOf(call(c, 'search_code', { query: 'BIGLINE', limit: 200 }));
  assert.is(r.code, 'answer_too_large');
  assert.match(r.message, /larger than the 4194304-byte limit for one answer; narrow the request/);
  assert.not.match(r.message, /\n/);
  // The same connection goes on serving.
  assert.is((await call(c, 'search_code', { query: 'BIGLINE', limit: 5 })).total, 200);
  // Paged, the 3,000-hunk diff is an answer: 20 hunks and the whole count; the largest page (200 hunks) fits too.
  const first = await call(c, 'read_git_diff', {});
  assert.is(first.total, 3000);
  assert.is(first.evidence.length, 20);
  const last = await call(c, 'read_git_diff', { offset: 2800, limit: 200 });
  assert.is(last.evidence.length, 200);
  console.log(`  read_git_diff over 3,000 hunks: total ${first.total}, pages of 20 and 200 answered; the connection stays`);
  assert.is((await call(c, 'read_evidence', { path: 'ok.txt', start_line: 1 })).evidence[0].snippet, 'fine');

  // Every method, through the transport's limit: an in-process daemon with a 512-byte answer limit.
  const home = tempDir('big-home');
  const small = await Daemon.start({ root, stateDir: join(home, 'state'), maxAnswerBytes: 512, watch: 'off', warmup: false });
  try {
    await small.idle();
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(small.info.url, { headers: { Authorization: `Bearer ${small.info.token}` } });
      s.once('open', () => resolve(s));
      s.once('error', reject);
    });
    let id = 0;
    for (const [method, params] of [['tools/list', {}], ['index/status', {}], ['tools/call', { name: 'search_code', arguments: { query: 'BIGLINE' } }]] as const) {
      const m = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
      assert.is(m.id, id, method);
      assert.is(m.error?.data?.code, 'answer_too_large', `${method}: ${JSON.stringify(m).slice(0, 200)}`);
    }
    const ok = await rawExchange(ws, JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'read_evidence', arguments: { path: 'ok.txt', start_line: 1 } } }));
    assert.is(ok.result?.evidence?.[0]?.snippet, 'fine', 'the connection still serves');
    ws.close();
  } finally {
    await small.shutdown('test over');
  }
});

test('item 6: a 300-character path segment is path_denied, not internal_error', async () => {
  const root = realpathSync(tempDir('long'));
  write(root, { 'ok.py': 'import os\n' });
  git(root, ['init', '-q']);
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const long = 'a'.repeat(300);
  const calls: Array<[string, unknown]> = [
    ['read_evidence', { path: `${long}/x.py`, start_line: 1 }],
    ['read_evidence', { path: long, start_line: 1 }],
    ['find_importers', { module_name: `${long}/x.py` }],
    ['search_code', { query: 'import', path_prefix: `${long}/` }],
    ['read_git_diff', { path: `${long}.py` }],
  ];
  for (const [name, args] of calls) {
    const r = await refusalOf(call(c, name, args));
    assert.is(r.code, 'path_denied', `${name}: ${r.code}: ${r.message}`);
    assert.not.match(r.message, /\n|ENAMETOOLONG|internal/);
  }
  assert.is((await call(c, 'read_evidence', { path: 'ok.py', start_line: 1 })).evidence[0].snippet, 'import os');
});

/** JSON text of `{"query": [[[...]]]}` nested `depth` deep, written without recursion. */
const deepArgs = (depth: number): string => `{"query":${'['.repeat(depth)}${']'.repeat(depth)}}`;

test('item 8: 200k-deep tool arguments over tools/call: one-line invalid_arguments, the daemon keeps serving', async () => {
  const root = realpathSync(tempDir('deep'));
  write(root, { 'ok.txt': 'fine\n' });
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const s = new WebSocket(d!.info.url, { headers: { Authorization: `Bearer ${d!.info.token}` } });
    s.once('open', () => resolve(s));
    s.once('error', reject);
  });
  for (const [id, args] of [[1, deepArgs(200_000)], [2, deepArgs(MAX_ARG_DEPTH + 1)], [3, `{"query":[${'"x",'.repeat(5000)}"x"]}`]] as const) {
    const m = await rawExchange(ws, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"search_code","arguments":${args}}}`);
    assert.is(m.error?.data?.code, 'invalid_arguments', JSON.stringify(m).slice(0, 300));
    assert.match(m.error.data.message, /refused before validation: the arguments (nest deeper than|hold more than)/);
  }
  ws.close();
  assert.is((await call(c, 'read_evidence', { path: 'ok.txt', start_line: 1 })).evidence[0].snippet, 'fine');
});

test('item 8: 200k-deep tool arguments from the model: refused, audited as refused, the question goes on', async () => {
  const ix = await openFixtureIndex();
  const f = await new FakeOllama().start();
  try {
    const stateDir = tempStateDir();
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    f.script(
      { chunks: [{ rawToolCalls: `[{"function":{"name":"search_code","arguments":{"query":${deep}}}}]` }] },
      { chunks: [{ rawToolCalls: `[{"function":{"name":${deep},"arguments":{}}}]` }] },
    );
    const run = await askFake(f, 'where is the collection named?', { runTool: ix.runTool, stateDir });
    assert.is(run.result.stopped, 'refused_twice', JSON.stringify(run.result).slice(0, 400));
    assert.equal(run.result.attempts.map((a) => [a.decision, a.code]), [['refused', 'invalid_arguments'], ['refused', 'unknown_tool']]);
    const audit = readFileSync(join(stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(audit.map((a) => [a.decision, a.code]), [['refused', 'invalid_arguments'], ['refused', 'unknown_tool']]);
    assert.equal(audit[0].arguments, { not_shown: `the arguments nest deeper than ${MAX_ARG_DEPTH} levels` });
    // The model's second turn got its own call back in a form it can read.
    const second = f.chats[1]?.body as { messages?: Array<{ role: string; tool_calls?: unknown[]; content?: string }> } | undefined;
    const echoed = second?.messages?.find((m) => m.role === 'assistant')?.tool_calls?.[0] as { function?: { arguments?: unknown } } | undefined;
    assert.equal(echoed?.function?.arguments, { not_shown: `the arguments nest deeper than ${MAX_ARG_DEPTH} levels` });
  } finally {
    await f.stop();
    await ix.close();
  }
});

test.run();
