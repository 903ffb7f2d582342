// The indexer's layers, read from its sources: every import inside indexer/
// points down or sideways, never up, so a module can be read knowing only
// what lies below it; and lmdb is imported by the tables module alone, so
// the on-disk layout lives in one place (indexer/store/FORMAT.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from './helpers/fs.js';

/**
 * Layer of each indexer module, lowest first (a path ending in "/" is a
 * folder). paths.ts sits with discover/: it checks callers' paths against the
 * discover rules.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['model.ts', 'text.ts', 'errors.ts', 'evidence.ts'],
  ['discover/', 'python/', 'paths.ts'],
  ['store/'],
  ['build/', 'query/'],
  ['index.ts', 'api.ts'],
  ['watch.ts'],
];

/** Within store/: the modules the façade composes, each below the ones that use it. */
const STORE_LAYERS: readonly (readonly string[])[] = [
  ['path-order.ts', 'trigrams.ts', 'search-text.ts', 'block-signatures.ts', 'line-counts.ts', 'postings.ts', 'symbols.ts', 'tables.ts'],
  ['file-table.ts'],
  ['memory.ts'],
  ['plan.ts'],
  ['store.ts'],
];

const INDEXER = join(PROJECT_ROOT, 'indexer');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The modules a source imports or re-exports (type-only ones too: they are dependencies all the same), as written. */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

function layerOf(layers: readonly (readonly string[])[], rel: string): number {
  const i = layers.findIndex((l) => l.some((m) => (m.endsWith('/') ? rel.startsWith(m) : rel === m)));
  if (i < 0) throw new Error(`${rel} has no layer: add it to the table in this test`);
  return i;
}

/** Every import between two indexer modules, as [from, to] paths relative to indexer/ (the .js of an import named as its .ts). */
function edges(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const file of sources(INDEXER)) {
    const from = relative(INDEXER, file).split('\\').join('/');
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, '.ts');
      if (!to.startsWith('../')) out.push([from, to]);
    }
  }
  return out;
}

test('indexer imports point down: no module imports one of a higher layer (api.ts sits above store/, build/ and query/)', () => {
  const all = edges();
  assert.ok(all.length > 50, `imports were read (${all.length})`);
  const up = all.filter(([from, to]) => layerOf(LAYERS, to) > layerOf(LAYERS, from)).map(([from, to]) => `${from} -> ${to}`);
  assert.equal(up, [], 'imports pointing up');
});

test('inside store/: tables, then the file table, the in-memory structures, the planner, the façade', () => {
  const inStore = edges().filter(([from, to]) => from.startsWith('store/') && to.startsWith('store/'))
    .map(([from, to]): [string, string] => [from.slice('store/'.length), to.slice('store/'.length)]);
  assert.ok(inStore.length > 10, `imports were read (${inStore.length})`);
  const up = inStore.filter(([from, to]) => layerOf(STORE_LAYERS, to) > layerOf(STORE_LAYERS, from)).map(([from, to]) => `${from} -> ${to}`);
  assert.equal(up, [], 'imports pointing up');
  // Every store module is in the table, so a new one is placed on purpose.
  for (const file of readdirSync(join(INDEXER, 'store')).filter((f) => f.endsWith('.ts'))) layerOf(STORE_LAYERS, file);
});

test('lmdb is imported by indexer/store/tables.ts alone, in the whole project', () => {
  const roots = ['indexer', 'protocol', 'daemon', 'client'].map((d) => join(PROJECT_ROOT, d));
  const importers = roots.flatMap(sources).filter((f) => importsOf(f).some((m) => m === 'lmdb' || m.startsWith('lmdb/')))
    .map((f) => relative(PROJECT_ROOT, f).split('\\').join('/'));
  assert.equal(importers, ['indexer/store/tables.ts']);
});

test.run();
