// An update gives way (issue 31): Builder.update's resolution of TypeScript
// files and its parsing of a walked folder run in slices that yield, yet the
// update is still one transaction. No time is asserted: slices are set to
// 0 ms (slices.ts), so every unit of work yields on any machine.
//  - A folder of TypeScript files appears, which files already indexed
//    import: the event loop runs while the update is part-way through
//    resolving (a count of files resolved seen strictly between its start
//    and its end, which a resolution in one synchronous call never shows), a
//    search asked then is answered from the index before the update (none of
//    the new files), and after it the index is what a fresh build holds.
//  - The TypeScript warm-up (TsImports.warm) running in slices alongside
//    such an update waits while it resolves: with the wait taken out, its
//    slices swap the shared resolver's view under the update, which then
//    stores the new files' importers as still missing.
//  - A folder of many files (parsed in the worker pool) with one of them also
//    named alone in the same batch: the index is what a fresh build holds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { slicing } from '../indexer/build/slices.js';
import { POOL_FILES } from '../indexer/build/parse-walked.js';
import { openEvidexIndex } from '../indexer/index.js';
import { freshDump } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());
slicing.ms = 0;

const tmp = tempDir('update-yields');
let n = 0;
const stateDir = (): string => join(tmp, `state-${n++}`);
const TOKEN = 'ZQXNEWFEATURE';

test('a folder of TypeScript files: the update yields while resolving, a query meanwhile sees none of it, then all of it', async () => {
  const root = tempDir('update-yields-ts');
  const importers: Record<string, string> = { 'lib/shared.ts': 'export const shared = 1;\n' };
  for (let i = 0; i < 20; i++) importers[`app/a${i}.ts`] = `import { f${i} } from "../feature/f${i}";\nimport { shared } from "../lib/shared";\n`;
  write(root, importers);
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  await idx.refresh();
  const feature: Record<string, string> = {};
  for (let i = 0; i < 40; i++) feature[`feature/f${i}.ts`] = `import { shared } from "../lib/shared";\nexport const f${i} = "${TOKEN}";\n`;
  write(root, feature);

  const before = idx.builder.tsResolved;
  let done = false;
  const update = idx.update(['feature']).finally(() => { done = true; });
  const seen: number[] = [];
  let during: Promise<number> | null = null;
  while (!done) {
    await new Promise((r) => setImmediate(r));
    const k = idx.builder.tsResolved - before;
    seen.push(k);
    if (k > 0 && !done && during === null) during = Promise.resolve(idx.runTool('search_code', { query: TOKEN })).then((r) => r.total as number);
  }
  const summary = await update;
  const total = idx.builder.tsResolved - before;
  assert.is(summary.changed.length, 40, 'the new files written');
  assert.ok(total >= 60, `the new files and their importers resolved (${total})`);
  assert.ok(seen.some((k) => k > 0 && k < total), `the event loop ran part-way through resolution (counts seen: ${[...new Set(seen)].join(' ')} of ${total})`);
  assert.ok(during !== null, 'a search was asked during the update');
  assert.is(await during, 0, 'a search asked mid-update sees the index before it, whole');
  assert.is((await idx.runTool('search_code', { query: TOKEN })).total, 40, 'after it, all of it');
  assert.equal(idx.store.dump(), await freshDump(root, stateDir()), 'the update left what a fresh build holds');
  await idx.close();
});

test('the TypeScript warm-up running alongside an update does not change what the update resolves', async () => {
  const root = tempDir('update-yields-warm');
  const files: Record<string, string> = { 'lib/shared.ts': 'export const shared = 1;\n' };
  for (let i = 0; i < 30; i++) files[`app/a${i}.ts`] = `import { f${i} } from "../feature/f${i}";\nimport { shared } from "../lib/shared";\n`;
  write(root, files);
  const state = stateDir();
  const first = await openEvidexIndex(root, { stateDir: state });
  await first.refresh();
  await first.close();
  // Opened again on a complete index: its warm-up has not run in this process.
  const idx = await openEvidexIndex(root, { stateDir: state });
  const feature: Record<string, string> = {};
  for (let i = 0; i < 30; i++) feature[`feature/f${i}.ts`] = `import { shared } from "../lib/shared";\nexport const f${i} = ${i};\n`;
  write(root, feature);
  let done = false;
  // Slices of a microsecond: about one file each, so the warm-up's slices fall between the update's.
  const warm = idx.builder.ts.warm(() => done, Number.MAX_SAFE_INTEGER, 0.001);
  await idx.update(['feature']);
  done = true;
  await warm;
  assert.equal(idx.store.dump(), await freshDump(root, stateDir()), 'the update left what a fresh build holds');
  await idx.close();
});

test('a folder of many files is parsed in the pool; a file of it also named alone keeps its result', async () => {
  const root = tempDir('update-yields-many');
  write(root, { 'keep.md': '# keep\n' });
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  await idx.refresh();
  const many: Record<string, string> = {};
  for (let i = 0; i < POOL_FILES + 50; i++) {
    const ext = ['ts', 'py', 'md'][i % 3];
    many[`many/m${i}.${ext}`] = ext === 'ts' ? `import "./m${i + 3}";\nexport const m${i} = ${i};\n` : ext === 'py' ? `from . import m${i + 3}\ndef m${i}(): pass\n` : `# m${i}\n`;
  }
  write(root, { ...many, 'many/__init__.py': '' });
  const parsed = idx.builder.parsed;
  const summary = await idx.update(['many', 'many/m1.py']);
  assert.is(summary.changed.length, POOL_FILES + 51, 'every file of the folder written once');
  assert.is(idx.builder.parsed - parsed, POOL_FILES + 51, 'each parsed once');
  assert.equal(idx.store.dump(), await freshDump(root, stateDir()), 'the update left what a fresh build holds');
  await idx.close();
});

test.run();
