// Argument forms that are easy to handle loosely: path_prefix is a caller's
// path (refused when absolute or escaping, normalised otherwise), and a
// module_name like "pkg.py" is a dotted name unless the index holds that file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IndexHandle } from '../indexer/api.js';
import { ToolError } from '../indexer/errors.js';
import { openIndex } from '../indexer/index.js';
import { validateToolCall, type PlacedCall } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

const root = tempDir('args');
const state = tempDir('args-state');
let ix: IndexHandle;

test.before(async () => {
  mkdirSync(join(root, 'pkg'));
  mkdirSync(join(root, 'pkg2'));
  writeFileSync(join(root, 'pkg/__init__.py'), '');
  writeFileSync(join(root, 'pkg/py.py'), 'MARK = 1\n');
  writeFileSync(join(root, 'pkg2/x.py'), 'MARK = 2\n');
  writeFileSync(join(root, 'main.py'), 'import pkg.py\nimport tool\n');
  writeFileSync(join(root, 'tool.py'), 'MARK = 3\n');
  writeFileSync(join(root, 'long.py'), Array.from({ length: 445 }, (_, i) => `L${i + 1} = ${i + 1}\n`).join(''));
  ix = await openIndex(root, { stateDir: state });
  await ix.refresh();
});

async function run(name: string, args: unknown) {
  const r = await ix.runTool(name, args);
  assertEvidenceChecks(root, r.evidence);
  return r;
}
async function refusedWith(name: string, args: unknown): Promise<ToolError> {
  try {
    await run(name, args);
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error(`${name} ${JSON.stringify(args)} was not refused`);
}
const where = (r: { evidence: { path: string; start_line: number }[] }) => r.evidence.map((e) => `${e.path}:${e.start_line}`);

test('path_prefix: absolute and escaping prefixes are refused, not silently empty, by every tool that takes one', async () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['search_code', { query: 'MARK' }], ['find_symbol', { name: 'MARK' }], ['find_importers', { module_name: 'tool' }],
  ];
  for (const [name, args] of calls) {
    for (const p of ['/etc', '../', 'pkg/../../x', '%2e%2e/']) {
      const e = await refusedWith(name, { ...args, path_prefix: p });
      assert.is(e.code, 'path_denied', `${name} ${p}`);
    }
  }
});

test('paging arguments: strict types and ranges on every list tool; read_evidence takes none', () => {
  const lists: Array<[string, Record<string, unknown>]> = [
    ['search_code', { query: 'MARK' }], ['find_symbol', { name: 'MARK' }], ['find_importers', { module_name: 'tool' }], ['read_git_diff', {}],
  ];
  for (const [name, args] of lists) {
    for (const ok of [{ limit: 1 }, { limit: 200 }, { offset: 0 }, { offset: 100_000 }, { limit: 7, offset: 3 }]) {
      assert.equal(validateToolCall(name, { ...args, ...ok }).args, { ...args, ...ok }, `${name} ${JSON.stringify(ok)}`);
    }
    for (const bad of [{ limit: 0 }, { limit: 201 }, { limit: '5' }, { limit: 1.5 }, { offset: -1 }, { offset: 100_001 }, { offset: '20' }, { offset: null }]) {
      assert.throws(() => validateToolCall(name, { ...args, ...bad }), (e: unknown) => e instanceof ToolError && e.code === 'invalid_arguments' && !e.message.includes('\n'), `${name} ${JSON.stringify(bad)}`);
    }
  }
  assert.throws(() => validateToolCall('read_evidence', { path: 'main.py', start_line: 1, offset: 1 }), (e: unknown) => e instanceof ToolError && e.code === 'invalid_arguments');
  assert.throws(() => validateToolCall('read_git_diff', { path_prefix: 'pkg/' }), (e: unknown) => e instanceof ToolError && e.code === 'invalid_arguments', 'read_git_diff filters by path, not path_prefix');
});

test('path_prefix on find_symbol and find_importers: only items under it, total counts those', async () => {
  assert.equal(where(await run('find_symbol', { name: 'MARK' })), ['pkg/py.py:1', 'pkg2/x.py:1', 'tool.py:1']);
  assert.equal(where(await run('find_symbol', { name: 'MARK', path_prefix: 'pkg' })), ['pkg/py.py:1', 'pkg2/x.py:1']);
  const folder = await run('find_symbol', { name: 'MARK', path_prefix: './pkg//' });
  assert.equal([where(folder), folder.total], [['pkg/py.py:1'], 1]);
  assert.equal(where(await run('find_importers', { module_name: 'tool', path_prefix: 'main.py' })), ['main.py:2']);
  assert.is((await run('find_importers', { module_name: 'tool', path_prefix: 'pkg/' })).total, 0);
});

test('path_prefix: normalised forms select the same files; a trailing slash means the folder', async () => {
  const folder = where(await run('search_code', { query: 'MARK', path_prefix: 'pkg/' }));
  assert.equal(folder, ['pkg/py.py:1']);
  assert.equal(where(await run('search_code', { query: 'MARK', path_prefix: './pkg//' })), folder);
  assert.equal(where(await run('search_code', { query: 'MARK', path_prefix: 'pkg' })), ['pkg/py.py:1', 'pkg2/x.py:1']);
  assert.is((await run('search_code', { query: 'MARK', path_prefix: '.' })).total, 3);
});

test('find_importers: "pkg.py" is module py of pkg unless the index holds a root file of that name', async () => {
  assert.equal(where(await run('find_importers', { module_name: 'pkg.py' })), ['main.py:1']);
  assert.equal(where(await run('find_importers', { module_name: 'tool.py' })), ['main.py:2'], 'tool.py is a file: its module names count');
  assert.equal(where(await run('find_importers', { module_name: 'pkg/py.py' })), ['main.py:1']);
  assert.is((await refusedWith('find_importers', { module_name: 'nope/x.py' })).code, 'not_indexed');
});

test('a refused argument is said in plain words: required, wrong type, unknown key, too long, out of range, not one of', () => {
  const words = (name: string, args: unknown): string => {
    try { validateToolCall(name, args); } catch (e) { if (e instanceof ToolError && e.code === 'invalid_arguments') return e.message; throw e; }
    throw new Error(`${name} ${JSON.stringify(args)} was not refused`);
  };
  assert.is(words('find_symbol', {}), 'find_symbol: name is required');
  assert.is(words('find_symbol', { name: 5 }), 'find_symbol: name must be a string, got number');
  assert.is(words('find_symbol', { name: 'x', bogus: 1 }), 'find_symbol: unknown key "bogus"; the keys are name, kind, limit, offset, path_prefix');
  assert.is(words('find_symbol', { name: 'x'.repeat(501) }), 'find_symbol: name is too long: 501 characters, at most 500');
  assert.is(words('find_symbol', { name: '' }), 'find_symbol: name must not be empty');
  assert.is(words('search_code', { query: 'x', limit: 201 }), 'search_code: limit must be at most 200, got 201');
  assert.is(words('search_code', { query: 'x', limit: 0 }), 'search_code: limit must be at least 1, got 0');
  assert.is(words('search_code', { query: 'x', limit: 1.5 }), 'search_code: limit must be a whole number, got 1.5');
  assert.is(words('find_symbol', { name: 'x', kind: 'klass' }).startsWith('find_symbol: kind must be one of "'), true);
  assert.is(words('read_evidence', 'main.py'), 'read_evidence: arguments must be an object, got string');
  // A message the schema wrote itself is kept.
  assert.match(words('search_code', { query: 'x'.repeat(201) }), /^search_code: query: 201 characters, over the 200 a query may hold/);
});

test('read_evidence over 400 lines is refused with the reads that cover the same lines, as calls', async () => {
  const e = await refusedWith('read_evidence', { path: 'long.py', start_line: 1, end_line: 900 });
  assert.is(e.code, 'invalid_arguments');
  const calls = e.calls as PlacedCall[];
  const pages = [{ path: 'long.py', start_line: 1, end_line: 400 }, { path: 'long.py', start_line: 401, end_line: 445 }];
  assert.equal(calls.map(({ at: _at, length: _length, ...c }) => c), pages.map((a) => ({ name: 'read_evidence', arguments: a })));
  assert.is(e.message, 'read_evidence returns at most 400 lines; lines 1-445 are 445: read_evidence long.py start_line 1 end_line 400, then read_evidence long.py start_line 401 end_line 445');
  for (const c of calls) assert.is(e.message.slice(c.at, c.at + c.length), `read_evidence long.py start_line ${(c.arguments as { start_line: number }).start_line} end_line ${(c.arguments as { end_line: number }).end_line}`);
  // Each call as given reads its lines; together they are the lines asked for.
  const read = await Promise.all(pages.map((a) => run('read_evidence', a)));
  assert.equal(read.map((r) => [r.evidence[0].start_line, r.evidence[0].end_line]), [[1, 400], [401, 445]]);
  const wide = await refusedWith('read_evidence', { path: 'long.py', start_line: 10, end_line: 420, context: 5 });
  assert.equal((wide.calls as PlacedCall[]).map((c) => c.arguments), [{ path: 'long.py', start_line: 5, end_line: 404 }, { path: 'long.py', start_line: 405, end_line: 425 }]);
});

test.after(async () => {
  await ix?.close();
  cleanupTemp();
});
test.run();
