// The root is an identity, not a path (issue 31 point 1; daemon/root-watch.ts):
// a running daemon, with a client connected the whole time as an MCP host or
// chat would be, while its root is deleted and cloned again, moved away with
// a new folder made in its place, deleted for good, or replaced by a link.
// Each time the index must end up holding exactly the tree now at the path —
// every file of it, nothing of the old one — and nothing may be answered from
// a tree that is no longer there. Real git clones of real code (parts of this
// machine's Python standard library).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { connect, RpcError, type Client } from '../client/connection.js';
import { formatStatus } from '../client/daemon-report.js';
import { Methods } from '../protocol/messages.js';
import { stdlibRoot } from './helpers/corpus.js';
import { isNotIndexed, logOf, startDaemon, stopDaemon, waitFor, type TestDaemon } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

/** A bare-enough origin to clone: these stdlib packages plus one marker file, committed. */
function origin(name: string, packages: string[], marker: string): string {
  const dir = join(tempDir(`origin-${name}`), name);
  for (const p of packages) cpSync(join(stdlibRoot(), p), join(dir, p), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  writeFileSync(join(dir, 'marker.py'), `${marker} = 1\n`);
  git(dir, ['init', '-q']); git(dir, ['add', '-A']); git(dir, ['commit', '-qm', name]);
  return dir;
}

/** Every file of a work tree (relative POSIX paths), .git/ left out. */
function treeFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      if (e.isDirectory()) walk(join(d, e.name)); else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

let A: string;
let B: string;
let root: string;
let d: TestDaemon;
let c: Client;

test.before(async () => {
  A = origin('a', ['json', 'logging'], 'TREE_A_MARK');
  B = origin('b', ['email', 'http'], 'TREE_B_MARK');
  root = join(realpathSync(tempDir('work')), 'repo');
  git(tempDir('clone-cwd'), ['clone', '-q', A, root]);
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitFor('the first build', async () => (await c.request(Methods.indexStatus)).daemon.startup === 'done', 60_000, 50);
});
test.after(async () => {
  await c?.close();
  if (d) assert.is((await stopDaemon(d)).code, 0, d.log());
  cleanupTemp();
});

const status = () => c.request(Methods.indexStatus);
/** waitFor, and when it times out, what the daemon logged: a failure seen only under load is read from it. */
const waitLogged = <T>(what: string, fn: () => T | Promise<T>, timeoutMs: number, everyMs?: number): Promise<NonNullable<T>> =>
  waitFor(what, fn, timeoutMs, everyMs).catch((e: Error) => { throw new Error(`${e.message}\n--- daemon log ---\n${logOf(d)}`); });
const search = (query: string) => c.request(Methods.toolsCall, { name: 'search_code', arguments: { query, case_sensitive: true } });

/** Waits until the index holds every file of the tree at the root (as many files, the marker found), then checks each file and the old tree's absence. */
async function holdsExactly(marker: string, gone: string[]): Promise<void> {
  const want = treeFiles(root);
  await waitLogged(`the index of the tree now at the root (${want.length} files)`, async () => {
    const s = await status();
    return s.daemon.rootState === 'present' && s.daemon.pendingUpdates === 0 && s.index.files === want.length && (await search(marker)).total === 1;
  }, 60_000, 50);
  // Every file: read back as it is on disk.
  for (const path of want) {
    const r = await c.request(Methods.toolsCall, { name: 'read_evidence', arguments: { path, start_line: 1, end_line: 3 } });
    assertEvidenceChecks(root, r.evidence);
  }
  for (const m of gone) assert.is((await search(m)).total, 0, `${m} (another tree's) is not found`);
  const s = await status();
  assert.is(s.index.state, 'ready');
  assert.is(s.daemon.rootNote, undefined);
}

test('rm -rf the root and git clone another tree into it: the same daemon and client serve the new tree, every file of it, nothing of the old', async () => {
  await holdsExactly('TREE_A_MARK', ['TREE_B_MARK']);
  rmSync(root, { recursive: true, force: true });
  git(tempDir('clone-cwd'), ['clone', '-q', B, root]);
  await holdsExactly('TREE_B_MARK', ['TREE_A_MARK']);
  const log = logOf(d);
  assert.match(log, /root: .*(is gone|was replaced|is at .* again)/);
  assert.match(log, /root: the folder at .* is indexed: \d+ files/);
  // The watcher watches the new tree: a save there is seen.
  writeFileSync(join(root, 'email', 'after_clone.py'), 'AFTER_CLONE_MARK = 2\n');
  await waitLogged('a save in the new tree', async () => (await search('AFTER_CLONE_MARK')).total === 1, 60_000);
});

test('mv the root away and make a new folder there: the new one is indexed; edits in the moved tree never reach the index', async () => {
  const moved = `${root}-moved`;
  renameSync(root, moved);
  mkdirSync(root);
  cpSync(join(A, 'json'), join(root, 'json'), { recursive: true });
  writeFileSync(join(root, 'marker.py'), 'TREE_C_MARK = 1\n');
  await holdsExactly('TREE_C_MARK', ['TREE_B_MARK', 'AFTER_CLONE_MARK']);
  // The moved tree is still on disk (its old watches would follow it): edit it, then make a change
  // at the root and wait for that, so the watcher has had every chance to pass the first one on.
  writeFileSync(join(moved, 'email', 'moved_edit.py'), 'MOVED_TREE_EDIT = 1\n');
  writeFileSync(join(root, 'json', 'later.py'), 'LATER_AT_ROOT = 1\n');
  await waitLogged('a save at the root', async () => (await search('LATER_AT_ROOT')).total === 1, 60_000);
  assert.is((await search('MOVED_TREE_EDIT')).total, 0);
  assert.is((await search('TREE_B_MARK')).total, 0);
});

test('the root deleted for good: every tool call is refused with the reason, status says so; a folder made there later is indexed', async () => {
  rmSync(root, { recursive: true, force: true });
  const refusal = await waitFor('a refusal', async () => {
    try { await search('TREE_C_MARK'); return null; } catch (e) { return e instanceof RpcError ? e : null; }
  }, 20_000);
  assert.is((refusal.data as { code: string }).code, 'index_unavailable');
  assert.match((refusal.data as { message: string }).message, new RegExp(`^nothing is answered from the index: ${root} is gone \\(deleted, or moved away\\) \\(since \\S+\\); evidex indexes the folder that comes back at that path$`));
  for (const [name, args] of [['find_symbol', { name: 'loads' }], ['read_evidence', { path: 'marker.py', start_line: 1 }], ['find_importers', { module_name: 'json' }]] as const) {
    const e = await c.request(Methods.toolsCall, { name, arguments: args }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RpcError && (e.data as { code: string }).code === 'index_unavailable', `${name} is refused too`);
  }
  const refresh = await c.request(Methods.indexRefresh).then(() => null, (x: unknown) => x);
  assert.ok(refresh instanceof RpcError && (refresh.data as { code: string }).code === 'index_unavailable', 'index/refresh is refused too');
  const s = await status();
  assert.is(s.daemon.rootState, 'gone');
  // What `evidex daemon status` prints of it (the CLI itself cannot name a root that no longer exists; `daemon list` shows it).
  const text = formatStatus({ running: true, root, stateDir: d.stateDir, pid: s.daemon.pid, url: s.daemon.url, files: s.index.files, symbols: s.index.symbols, generation: s.index.generation, lastUpdate: s.index.lastUpdate, watcher: s.daemon.watcher, state: s.index.state, status: s });
  assert.match(text.plain, new RegExp(`^root {9}${root} — GONE: ${root} is gone \\(deleted, or moved away\\) \\(since \\d\\d:\\d\\d:\\d\\d, \\d+ (s|min) ago\\)`, 'm'));
  git(tempDir('clone-cwd'), ['clone', '-q', A, root]);
  await holdsExactly('TREE_A_MARK', ['TREE_B_MARK', 'TREE_C_MARK', 'LATER_AT_ROOT']);
});

test('the root replaced by a symlink to another folder: not followed (it is another root), refused until a folder is back', async () => {
  const other = join(tempDir('other'), 'elsewhere');
  mkdirSync(other);
  writeFileSync(join(other, 'x.py'), 'LINKED_TREE_MARK = 1\n');
  const aside = `${root}-aside`;
  renameSync(root, aside);
  symlinkSync(other, root);
  await waitFor('the root seen gone', async () => (await status()).daemon.rootState === 'gone', 20_000);
  assert.ok(statSync(root).isDirectory(), 'the path leads to a folder, through the link');
  const e = await search('LINKED_TREE_MARK').then(() => null, (x: unknown) => x);
  assert.ok(e instanceof RpcError && (e.data as { code: string }).code === 'index_unavailable', 'refused, not answered from the link\'s target');
  rmSync(root);
  renameSync(aside, root);
  await holdsExactly('TREE_A_MARK', ['LINKED_TREE_MARK']);
  assert.is(readFileSync(join(root, 'marker.py'), 'utf8'), 'TREE_A_MARK = 1\n');
});

test('a folder above the root moved away, then back: gone meanwhile, indexed again once back', async () => {
  const above = join(root, '..');
  const away = join(tempDir('away'), 'moved-above');
  renameSync(above, away);
  try {
    await waitFor('the root seen gone', async () => (await status()).daemon.rootState === 'gone', 20_000);
    const e = await search('TREE_A_MARK').then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RpcError && (e.data as { code: string }).code === 'index_unavailable');
  } finally {
    renameSync(away, above);
  }
  await holdsExactly('TREE_A_MARK', ['LINKED_TREE_MARK']);
});

test.run();
