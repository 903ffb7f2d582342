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
import { validateToolCall } from '../indexer/query/schemas.js';
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
  ix = await openIndex(root, { stateDir: state });
  await ix.refresh();
});

async function run(name: string, args: unknown) {
  const r = await ix.runTool(validateToolCall(name, args));
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

test('path_prefix: absolute and escaping prefixes are refused, not silently empty', async () => {
  for (const p of ['/etc', '../', 'pkg/../../x', '%2e%2e/']) {
    const e = await refusedWith('search_code', { query: 'MARK', path_prefix: p });
    assert.is(e.code, 'path_denied', p);
  }
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

test.after(async () => {
  await ix?.close();
  cleanupTemp();
});
test.run();
