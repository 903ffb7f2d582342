// JSDoc `@import` tags as import statements (docs/tools.md, Import statements):
// which tags count — exactly those the compiler's program lists among a
// JavaScript file's imports, read here from the compiler itself
// (test/oracle/ts-jsdoc-imports.ts) — with their spans and resolution modes;
// then a real index of a small tree (a package.json `imports` alias, an
// `exports` map whose `import` and `require` conditions differ) against the
// compiler oracle, find_importers by path and by alias, and via_reexports,
// which no tag passes through.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import ts from 'typescript';
import { extractTs } from '../indexer/typescript/extract.js';
import { openEvidexIndex } from '../indexer/index.js';
import type { Evidence } from '../indexer/evidence.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';
import { compareTree, reportComparison } from './helpers/ts-compare.js';
import { compilerImportTags } from './oracle/ts-jsdoc-imports.js';
import { scriptKindOf } from './oracle/ts-extract.js';

test.after(cleanupTemp);

/** `spec start-end [mode]` of each `@import` statement evidex finds. */
function tags(src: string, path: string): string[] {
  return extractTs(src, path).imports.filter((i) => i.form === 'jsdoc').map((i) => [i.spec, `${i.start}-${i.end}`, i.mode].filter(Boolean).join(' '));
}

/** The specifiers of the tags the compiler's program lists for the file, each tag once, in order. */
function compilerTags(src: string, path: string): string[] {
  return compilerImportTags(path, src, scriptKindOf(path)).map((t) => t.literal.text);
}

const COUNTED = [
  "/** @import { A } from 'top-a' */",                              // 1
  "/** @import * as ns from 'top-ns' */",                           // 2
  "/** @import B, { C } from 'default-and-named' */",               // 3
  '/**',                                                            // 4
  " * @import { D } from 'one-of-two'",                             // 5
  " * @import { E } from 'two-of-two'",                             // 6
  ' */',                                                            // 7
  '/**',                                                            // 8
  ' * @import {',                                                   // 9
  ' *   F,',                                                        // 10
  ' *   G',                                                         // 11
  " * } from 'multi-line' with { \"resolution-mode\": \"import\" }", // 12
  ' */',                                                            // 13
  "/** @import { type H } from 'type-modifier' */",                 // 14
  'function f() {',                                                 // 15
  "  /** @import { I } from 'in-function' */",                      // 16: attached to the statement below
  '  return 1;',                                                    // 17
  '}',                                                              // 18
  "/** some text, then @import { J } from 'after-text' */",         // 19
  "/** @param {string} a\n * @import { K } from 'after-param' */",  // 20-21
  'class C {',                                                      // 22
  "  /** @import { L } from 'on-member' */",                        // 23
  '  m() {}',                                                       // 24
  '}',                                                              // 25
  'const o = {',                                                    // 26
  "  /** @import { M } from 'on-property' */",                      // 27
  '  p: 1,',                                                        // 28
  '};',                                                             // 29
  "/** @import { N } from 'mentions-import-twice' import require */", // 30: listed three times by the compiler, once here
  "/** @import { O } from 'at-end-of-file' */",                     // 31: attached to the end-of-file token
].join('\n');

const NOT_COUNTED = [
  'function f() {',
  "  /** @import { A } from 'end-of-block' */",                     // attached to no node
  '}',
  "call(/** @import { B } from 'between-arguments' */ 1);",         // attached to no node
  "class K { /** @import { B2 } from 'line-of-the-brace' */ m() {} }", // on the line of the token before it: that token's trailing comment
  "/** @import type { C } from 'type-keyword' */",                  // not a tag the compiler parses as an import
  "/** @import{D}from'no-space' */",                                // the clause holds the position after `import`
  "/** @import 'no-clause' */",                                     // likewise the specifier
  "/** @import { E } from '' */",                                   // an empty specifier
  "/* @import { F } from 'plain-block-comment' */",
  "// @import { G } from 'line-comment'",
  "/** @\\u0069mport { H } from 'escaped-name' */",
  "/** @importX { I } from 'other-tag' */",
  "/** @typedef {import('typedef-type').T} T */",                  // an import type in JSDoc: not an @import tag
  'const x = 1;',
].join('\n');

test('the tags the compiler lists for a .js file, each once, from the @import line to the specifier\'s; the ones it does not list', () => {
  assert.equal(tags(COUNTED, 'a.js'), [
    'top-a 1-1', 'top-ns 2-2', 'default-and-named 3-3', 'one-of-two 5-5', 'two-of-two 6-6', 'multi-line 9-12 import',
    'type-modifier 14-14', 'in-function 16-16', 'after-text 19-19', 'after-param 21-21', 'on-member 23-23', 'on-property 27-27',
    'mentions-import-twice 30-30', 'at-end-of-file 31-31',
  ]);
  assert.equal(tags(COUNTED, 'a.js').map((t) => t.split(' ')[0]), compilerTags(COUNTED, 'a.js'), 'the compiler lists the same tags');
  assert.equal(tags(NOT_COUNTED, 'a.js'), []);
  assert.equal(compilerTags(NOT_COUNTED, 'a.js'), [], 'the compiler lists none of them');
  // `@import{D}from'm'` is reached through a later `import` or `require` in the tag's own text, as the compiler reaches it.
  const later = "/** @import{D}from'no-space' (see import) */\nconst x = 1;";
  assert.equal(tags(later, 'a.js'), ['no-space 1-1']);
  assert.equal(compilerTags(later, 'a.js'), ['no-space']);
});

test('every JavaScript extension counts the tags, no TypeScript one does; the other statements keep their place', () => {
  for (const path of ['a.jsx', 'a.mjs', 'a.cjs']) {
    assert.equal(tags(COUNTED, path).length, 14, path);
    assert.equal(compilerTags(COUNTED, path).length, 14, `${path}: the compiler`);
  }
  for (const path of ['a.ts', 'a.tsx', 'a.mts', 'a.cts', 'a.d.ts', 'a.d.mts']) {
    assert.equal(tags(COUNTED, path), [], path);
    assert.equal(compilerTags(COUNTED, path), [], `${path}: the compiler`);
  }
  const mixed = ['import a from "./a.js";', "/** @import { T } from './t.js' */", 'const b = require("./b.js");', "/** @import { U } from './u.js' */", 'export * from "./c.js";'].join('\n');
  assert.equal(extractTs(mixed, 'm.js').imports.map((i) => `${i.form} ${i.spec} ${i.start}`),
    ['import ./a.js 1', 'jsdoc ./t.js 2', 'require ./b.js 3', 'jsdoc ./u.js 4', 'export ./c.js 5']);
  assert.not.ok(extractTs(mixed, 'm.js').imports.some((i) => i.form === 'jsdoc' && i.reexport), 'a tag re-exports nothing');
});

test('a tag\'s resolution mode is the compiler\'s: the file\'s format, or its resolution-mode attribute', () => {
  const src = "/** @import { A } from 'm' */\n/** @import { B } from 'm' with { \"resolution-mode\": \"require\" } */\n/** @import { C } from 'm' with { \"resolution-mode\": \"import\" } */\nx;";
  for (const path of ['a.mjs', 'a.cjs']) {
    assert.equal(tags(src, path), ['m 1-1', 'm 2-2 require', 'm 3-3 import'], path);
    const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: true };
    const format = path.endsWith('.mjs') ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
    const sf = ts.createSourceFile(path, src, { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: format }, true, ts.ScriptKind.JS);
    const modes = compilerImportTags(path, src, ts.ScriptKind.JS).map((t) => ts.getModeForUsageLocation(sf, t.literal, options));
    assert.equal(modes, [format, ts.ModuleKind.CommonJS, ts.ModuleKind.ESNext], `${path}: the compiler's modes`);
  }
});

const tmp = tempDir('ts-jsdoc');
const root = join(tmp, 'repo');
write(root, {
  'package.json': JSON.stringify({ name: 'app', type: 'module', imports: { '#client': './src/client/types.d.ts' }, workspaces: ['packages/*'] }),
  'packages/dual/package.json': JSON.stringify({ name: '@x/dual', exports: { '.': { import: './esm.d.ts', require: './cjs.d.ts' } } }),
  'packages/dual/esm.d.ts': 'export type E = 1;\n',
  'packages/dual/cjs.d.ts': 'export type C = 1;\n',
  'src/client/types.d.ts': 'export interface Effect { f(): void }\n',
  'src/client/barrel.js': "export * from './types.js';\n/** @import { Effect } from '#client' */\n",
  'src/runtime.js': [
    '/** @import { Effect } from \'#client\' */',                                        // 1
    '/**',                                                                               // 2
    ' * @import { E } from \'@x/dual\'',                                                 // 3
    ' * @import { C } from \'@x/dual\' with { "resolution-mode": "require" }',           // 4
    ' */',                                                                               // 5
    'import { helper } from \'./helper.js\';',                                           // 6
    '/** @param {Effect} e */',                                                          // 7
    'export function run(e) { return helper(e); }',                                      // 8
    '/** @import { Effect as E2 } from \'./client/types.js\' */',                        // 9
  ].join('\n') + '\n',
  'src/helper.js': "/** @import * as barrel from './client/barrel.js' */\nexport const helper = (e) => e;\n",
  'src/typed.ts': "/** @import { Effect } from '#client' */\nexport const t = 1;\n",
});
git(root, ['init', '-q']);

async function importers(idx: Awaited<ReturnType<typeof openEvidexIndex>>, args: Record<string, unknown>): Promise<string[]> {
  const r = await idx.runTool('find_importers', args);
  assertEvidenceChecks(root, r.evidence);
  return r.evidence.map((e: Evidence) => `${e.path}:${e.start_line}-${e.end_line}${e.via ? ` via ${e.via.join(' > ')}` : ''}`);
}

test('a real tree: every statement agrees with the compiler oracle; find_importers by path and by alias; a tag passes no re-export on', async () => {
  const r = await compareTree('jsdoc-tree', root, { accepted: [], evidenceEvery: 1 });
  reportComparison(r);
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
  assert.is(r.statements, 8, 'the oracle reads the 6 tags of the .js files, an import and an export, not the .ts file\'s tag');

  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'state') });
  try {
    const summary = await idx.refresh();
    assert.equal({ resolved: summary.tsImports.resolved, ...summary.tsImports.unresolved }, { resolved: 8, external: 0, missing: 0, config: 0 });
    assert.equal(await importers(idx, { module_name: 'src/client/types.d.ts' }), [
      'src/client/barrel.js:1-1', 'src/client/barrel.js:2-2', 'src/runtime.js:1-1', 'src/runtime.js:9-9',
    ]);
    // By name, a `#` specifier is matched as written, as a package name is (docs/tools.md, find_importers).
    assert.equal(await importers(idx, { module_name: '#client' }), ['src/client/barrel.js:2-2', 'src/runtime.js:1-1']);
    // The import condition, and the require one where the attribute asks for it (the file is an ES module).
    assert.equal(await importers(idx, { module_name: 'packages/dual/esm.d.ts' }), ['src/runtime.js:3-3']);
    assert.equal(await importers(idx, { module_name: 'packages/dual/cjs.d.ts' }), ['src/runtime.js:4-4']);
    // helper.js imports the barrel by a tag only, and a tag re-exports nothing: runtime.js's import of helper.js
    // reaches types.d.ts through no chain; the barrel's own `export *` does pass it on to the tag of helper.js.
    assert.equal(await importers(idx, { module_name: 'src/client/types.d.ts', via_reexports: true }), [
      'src/client/barrel.js:1-1', 'src/client/barrel.js:2-2', 'src/helper.js:1-1 via src/client/barrel.js', 'src/runtime.js:1-1', 'src/runtime.js:9-9',
    ]);
  } finally {
    await idx.close();
  }
});

test.run();
