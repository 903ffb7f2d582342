// `import("m")` types inside the JSDoc of a JavaScript file as import
// statements (docs/tools.md, Import statements): which count — exactly those
// the compiler's program lists among the file's imports, read here from the
// compiler itself (test/oracle/ts-jsdoc-imports.ts) — with their spans and
// resolution modes; then a real index of a small tree against the compiler
// oracle, and find_importers by path and by package name.
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
import { compilerJsDocImports } from './oracle/ts-jsdoc-imports.js';
import { scriptKindOf } from './oracle/ts-extract.js';

test.after(cleanupTemp);

/** A specifier as the lists below show it: the empty one as `''`. */
const shown = (spec: string): string => spec || "''";

/** `spec start-end [mode]` of each import type evidex finds. */
function types(src: string, path: string): string[] {
  return extractTs(src, path).imports.filter((i) => i.form === 'type').map((i) => [shown(i.spec), `${i.start}-${i.end}`, i.mode].filter(Boolean).join(' '));
}

/** The specifiers of the statements inside JSDoc the compiler's program lists for the file, each once, in order. */
function compilerTypes(src: string, path: string): string[] {
  return compilerJsDocImports(path, src, scriptKindOf(path)).map((t) => shown(t.literal.text));
}

const COUNTED = [
  "/** @type {import('top').T} */",                                 // 1
  'let a;',                                                         // 2
  "/** @param {import('param').P} p @returns {import('ret').R} */", // 3: two in one comment
  'function f(p) {',                                                // 4
  "  /** @type {import('in-function').T} */",                       // 5
  '  const x = p;',                                                 // 6
  '  return x;',                                                    // 7
  '}',                                                              // 8
  "/** @typedef {import('typedef').T} T */",                        // 9: a comment of its own, attached to the next statement
  "/** @typedef {{ a: import('in-object').A }} O */",               // 10
  "/** @type {import('outer').T<import('inner').U>} */",            // 11: two in one type
  'let b;',                                                         // 12
  '/** @type {import',                                              // 13
  " * ('multi-line').T} */",                                        // 14: the type over two lines
  'let c;',                                                         // 15
  "/** @type {typeof import('typeof')} */",                         // 16
  'let d;',                                                         // 17
  'class C {',                                                      // 18
  "  /** @type {import('on-property').T} */",                       // 19
  '  p = 1;',                                                       // 20
  "  /** @param {import('on-method').T} x */",                      // 21
  '  m(x) {}',                                                      // 22
  '}',                                                              // 23
  'const o = {',                                                    // 24
  "  /** @type {import('on-object-property').T} */",                // 25
  '  q: 1,',                                                        // 26
  '};',                                                             // 27
  "const e = /** @type {import('cast').T} */ (o);",                 // 28
  "const g = (p) => { return /** @type {import('in-arrow').T} */ (p); };", // 29: a cast, attached whatever the line
  "/** @template {import('template').T} T @satisfies {import('satisfies').S} */", // 30
  'const s = {};',                                                  // 31
  "/** @type {import('').T} */",                                    // 32: an empty specifier, which the compiler takes in a type
  'let h;',                                                         // 33
  "/** @type {import('d').require.T} */",                           // 34: `require` in the qualifier stops on no import type
  'let k;',                                                         // 35
  "/** @type {import('at-end-of-file').T} */",                      // 36: attached to the end-of-file token
].join('\n');

const NOT_COUNTED = [
  'function f() {',
  "  /** @type {import('end-of-block').T} */",                      // attached to no node
  '}',
  "call(a /** @type {import('between-arguments').T} */, b);",       // attached to no node (no cast follows)
  "class K { /** @type {import('line-of-the-brace').T} */ m() {} }", // the trailing comment of the token before it
  "const g = () => { /** @type {import('in-arrow-line-of-the-brace').T} */ const y = 1; return y; };", // likewise
  "/* @type {import('plain-block-comment').T} */",
  "// @type {import('line-comment').T}",
  "/** {@link import('link')} @see import('see') */",
  "/** @param {T} [a=require('param-default')] @param {T} [b=import('param-default-call')] */",
  "/** @type {\\u0069mport('escaped-keyword').T} */",
  "/** @type {import(`template`).T} */",                            // not a string literal
  'const x = 1;',
].join('\n');

test('the import types inside JSDoc the compiler lists for a .js file, each once, spanning the type; the ones it does not list', () => {
  assert.equal(types(COUNTED, 'a.js'), [
    'top 1-1', 'param 3-3', 'ret 3-3', 'in-function 5-5', 'typedef 9-9', 'in-object 10-10', 'outer 11-11', 'inner 11-11',
    'multi-line 13-14', 'typeof 16-16', 'on-property 19-19', 'on-method 21-21', 'on-object-property 25-25', 'cast 28-28',
    'in-arrow 29-29', 'template 30-30', 'satisfies 30-30', "'' 32-32", 'd 34-34', 'at-end-of-file 36-36',
  ]);
  assert.equal(types(COUNTED, 'a.js').map((t) => t.slice(0, t.lastIndexOf(' '))), compilerTypes(COUNTED, 'a.js'), 'the compiler lists the same');
  assert.equal(extractTs(NOT_COUNTED, 'a.js').imports, []);
  assert.equal(compilerTypes(NOT_COUNTED, 'a.js'), [], 'the compiler lists none of them');
});

test('every JavaScript extension counts them, no TypeScript one does; a file holding a \\u escape; the other statements keep their place', () => {
  for (const path of ['a.jsx', 'a.mjs', 'a.cjs']) {
    assert.equal(types(COUNTED, path).length, 20, path);
    assert.equal(compilerTypes(COUNTED, path).length, 20, `${path}: the compiler`);
  }
  for (const path of ['a.ts', 'a.tsx', 'a.mts', 'a.cts', 'a.d.ts', 'a.d.mts']) {
    assert.equal(types(COUNTED, path), [], path);
    assert.equal(compilerTypes(COUNTED, path), [], `${path}: the compiler`);
  }
  // A `\u` escape anywhere makes the walk enter every subtree (extract.ts, RECORDED_WORDS); JSDoc is read all the same.
  const escaped = `${COUNTED}\nconst \\u0061b = '\\u0041';`;
  assert.equal(types(escaped, 'a.js'), types(COUNTED, 'a.js'));
  assert.equal(compilerTypes(escaped, 'a.js'), compilerTypes(COUNTED, 'a.js'), 'the compiler: the same');
  // A function body whose only `import` is in a comment, with nothing else the walk records, still gives its type.
  const body = "const run = (v) => {\n  /** @type {import('only-in-comment').T} */\n  const w = v;\n  return w;\n};\n";
  assert.equal(types(body, 'a.js'), ['only-in-comment 2-2']);
  assert.equal(compilerTypes(body, 'a.js'), ['only-in-comment']);
  const mixed = [
    'import a from "./a.js";', "/** @type {import('./t.js').T} */", 'const b = require("./b.js");',
    "/** @import { U } from './u.js' */", "/** @param {import('./p.js').P} p */", 'export function f(p) { return import("./c.js"); }',
  ].join('\n');
  assert.equal(extractTs(mixed, 'm.js').imports.map((i) => `${i.form} ${i.spec} ${i.start}`),
    ['import ./a.js 1', 'type ./t.js 2', 'require ./b.js 3', 'jsdoc ./u.js 4', 'type ./p.js 5', 'call ./c.js 6']);
  assert.equal(compilerTypes(mixed, 'm.js'), ['./t.js', './u.js', './p.js'], 'the compiler: the JSDoc ones');
  assert.not.ok(extractTs(mixed, 'm.js').imports.some((i) => i.reexport), 'an import type re-exports nothing');
});

test('an import type\'s resolution mode inside JSDoc is the compiler\'s: the file\'s format, or its resolution-mode attribute', () => {
  const src = [
    "/** @type {import('m').A} */", 'let a;',
    "/** @type {import('m', { with: { 'resolution-mode': 'require' } }).B} */", 'let b;',
    "/** @type {import('m', { with: { 'resolution-mode': 'import' } }).C} */", 'let c;',
  ].join('\n');
  for (const path of ['a.mjs', 'a.cjs']) {
    assert.equal(types(src, path), ['m 1-1', 'm 3-3 require', 'm 5-5 import'], path);
    const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: true };
    const format = path.endsWith('.mjs') ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
    const sf = ts.createSourceFile(path, src, { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: format }, true, ts.ScriptKind.JS);
    const modes = compilerJsDocImports(path, src, ts.ScriptKind.JS).map((t) => ts.getModeForUsageLocation(sf, t.literal, options));
    assert.equal(modes, [format, ts.ModuleKind.CommonJS, ts.ModuleKind.ESNext], `${path}: the compiler's modes`);
  }
});

const tmp = tempDir('ts-jsdoc-types');
const root = join(tmp, 'repo');
write(root, {
  'package.json': JSON.stringify({ name: 'app', type: 'module', workspaces: ['packages/*'] }),
  'packages/dual/package.json': JSON.stringify({ name: '@x/dual', exports: { '.': { import: './esm.d.ts', require: './cjs.d.ts' } } }),
  'packages/dual/esm.d.ts': 'export type E = 1;\n',
  'packages/dual/cjs.d.ts': 'export type C = 1;\n',
  'src/types.d.ts': 'export interface Effect { f(): void }\n',
  'src/runtime.js': [
    "/** @typedef {import('./types.js').Effect} Effect */",                              // 1
    'import { helper } from \'./helper.js\';',                                           // 2
    '/**',                                                                               // 3
    " * @param {import('./types.js').Effect} e",                                         // 4
    " * @returns {import('@x/dual').E}",                                                 // 5
    ' */',                                                                               // 6
    'export function run(e) {',                                                          // 7
    "  /** @type {import('@x/dual', { with: { 'resolution-mode': 'require' } }).C} */", // 8
    '  const c = helper(e);',                                                            // 9
    '  return c;',                                                                       // 10
    '}',                                                                                 // 11
  ].join('\n') + '\n',
  'src/helper.js': "export const helper = (/** @type {import('./types.js').Effect} */ e) => e;\n",
  'src/typed.ts': "/** @type {import('./types.js').Effect} */\nexport const t = 1;\n",
});
git(root, ['init', '-q']);

async function importers(idx: Awaited<ReturnType<typeof openEvidexIndex>>, args: Record<string, unknown>): Promise<string[]> {
  const r = await idx.runTool('find_importers', args);
  assertEvidenceChecks(root, r.evidence);
  return r.evidence.map((e: Evidence) => `${e.path}:${e.start_line}-${e.end_line}`);
}

test('a real tree: every statement agrees with the compiler oracle; find_importers by path and by package name', async () => {
  const r = await compareTree('jsdoc-types-tree', root, { accepted: [], evidenceEvery: 1 });
  reportComparison(r);
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
  assert.is(r.statements, 6, 'the oracle reads the 5 import types of the .js files and an import, not the .ts file\'s type');

  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'state') });
  try {
    const summary = await idx.refresh();
    assert.equal({ resolved: summary.tsImports.resolved, ...summary.tsImports.unresolved }, { resolved: 6, external: 0, missing: 0, config: 0 });
    assert.equal(await importers(idx, { module_name: 'src/types.d.ts' }), ['src/helper.js:1-1', 'src/runtime.js:1-1', 'src/runtime.js:4-4']);
    // The import condition, and the require one where the attribute asks for it (the file is an ES module).
    assert.equal(await importers(idx, { module_name: 'packages/dual/esm.d.ts' }), ['src/runtime.js:5-5']);
    assert.equal(await importers(idx, { module_name: 'packages/dual/cjs.d.ts' }), ['src/runtime.js:8-8']);
    assert.equal(await importers(idx, { module_name: '@x/dual' }), ['src/runtime.js:5-5', 'src/runtime.js:8-8']);
  } finally {
    await idx.close();
  }
});

test.run();
