// The TypeScript oracle itself (test/oracle/ts-*.ts), checked before anything
// is compared with it: exact hand-written answers for the rules' hard cases
// (docs/tools.md, TypeScript and JavaScript), its line rule against the
// compiler's own line map where the two must agree, its statements against
// `ts.preProcessFile`, and pinned answers on fixtures/ts-monorepo. None of this
// runs evidex; test/ts-differential.test.ts compares evidex with the oracle.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { extractTsJs, isTsJsPath, NewlineLines } from './oracle/ts-extract.js';
import { decodeFile, runTsOracle, type OracleFileAnswer } from './oracle/ts-oracle.js';
import { cleanupTemp, git, tempDir, write } from './helpers/fs.js';
import { fixtureRepo, indexedFiles, nodeModulesRepo } from './helpers/ts-corpus.js';

test.after(cleanupTemp);

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
const defs = (path: string, text: string): string[] => extractTsJs(path, text).defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`);

test('definitions: kinds, qualified names and spans by the rules', () => {
  assert.equal(defs('m.ts', lines(
    '/** doc: not part of the span */', //                 1
    '@dec()',
    'export abstract class A<T> extends B {',
    '  #secret = 1;',
    '  static count: number;', //                          5
    '  constructor(a: string);',
    '  constructor(a: any, private readonly pp?: number) { super(); }',
    '  get v() { return 1; }',
    '  set v(x) {}',
    '  @log m(): void;', //                                10
    '  @log m(x?: number) {',
    '    function helper() {}',
    '  }',
    '  #p() {}',
    '  [Symbol.iterator]() {}', //                         15
    "  'quoted-name' = 2;",
    '  abstract run(): void;',
    '}',
    'export default function () {}',
    'function f(a: string): void;', //                    20
    'function f(a: number): void;',
    'function f(a: any) {}',
    'function dup() {}',
    'function dup() {}',
    'export const g = (() => 1), h = function () {}, k = class { m() {} };', // 25
    'let { a, b: [c, , d = 1], ...e } = obj;',
    'var x = (() => 1) as unknown as F, w = y as unknown as () => void, z = (<F>(() => 0))!, s = (() => 1) satisfies F;',
    'if (x) { var notModuleScope = 1; }',
    'namespace N.M { export const inside = 1; function deep() { const local = 1; } }',
    'module Old {}', //                                    30
    'declare module "ext/sub" { export interface I {} }',
    'declare global { var g2: string; }',
    'interface I {} type T = 1; enum E { A } const enum CE { B }',
    'export const outer = () => { function inner() {} class C2 { q() {} } };',
    'foo(function () { function anonScoped() {} });', //  35
  )), [
    'class A 2-18', 'variable A.#secret 4-4', 'variable A.count 5-5', 'method A.constructor 6-7', 'variable A.pp 7-7', 'method A.v 8-8', 'method A.v 9-9',
    'method A.m 10-13', 'function A.m.helper 12-12', 'method A.#p 14-14', 'method A.[Symbol.iterator] 15-15', 'variable A.quoted-name 16-16',
    'method A.run 17-17', 'function default 19-19', 'function f 20-22', 'function dup 23-23', 'function dup 24-24',
    'function g 25-25', 'function h 25-25', 'class k 25-25', 'method k.m 25-25',
    'variable a 26-26', 'variable c 26-26', 'variable d 26-26', 'variable e 26-26',
    'function x 27-27', 'variable w 27-27', 'function z 27-27', 'function s 27-27',
    'namespace N 29-29', 'namespace N.M 29-29', 'variable N.M.inside 29-29', 'function N.M.deep 29-29',
    'namespace Old 30-30', 'namespace ext/sub 31-31', 'interface ext/sub.I 31-31', 'variable g2 32-32',
    'interface I 33-33', 'type T 33-33', 'enum E 33-33', 'enum CE 33-33',
    'function outer 34-34', 'function outer.inner 34-34', 'class outer.C2 34-34', 'method outer.C2.q 34-34',
    'function anonScoped 35-35',
  ]);
});

test('definitions: computed member names — a literal in brackets by its value, anything else by the expression\'s source text in brackets', () => {
  assert.equal(defs('c.ts', "class C { ['lit']() {} [0x10]: number; [`tpl`] = 1; [Symbol.iterator]() {} [key]: string; }\n"),
    ['class C 1-1', 'method C.lit 1-1', 'variable C.16 1-1', 'variable C.tpl 1-1', 'method C.[Symbol.iterator] 1-1', 'variable C.[key] 1-1']);
});

test('lines: split at \\n only (the compiler also breaks at \\r, U+2028, U+2029); a BOM changes nothing', () => {
  const text = 'const a = 1;\r\nconst b = "\u2028";\n/*\r*/ const c = "\u2029";\nfunction d() {\r\n}\n';
  assert.equal(defs('m.ts', text), ['variable a 1-1', 'variable b 2-2', 'variable c 3-3', 'function d 4-5']);
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.Latest, true);
  const compilerLine = (name: string): number => {
    const node = sf.statements.find((s) => ts.isFunctionDeclaration(s) && s.name?.text === name)!;
    return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  };
  assert.is(compilerLine('d'), 7, 'the compiler counts the U+2028, the lone \\r and the U+2029 as line breaks');
  assert.equal(defs('m.ts', decodeFile(Buffer.from(`\ufeff${text}`, 'utf8'))), defs('m.ts', text));
});

test('statements: every form, spans of declarations and of calls/types, what is not a statement', () => {
  const ex = extractTsJs('m.ts', lines(
    "import a from 'a';", //                               1
    "import type { B } from 'b';",
    "import 'side-effect';",
    "export * from 'star';",
    "export * as ns from 'ns';", //                        5
    "export { x as y } from 'named';",
    "export type { T } from 'types';",
    "import fs = require('fs');",
    "export import util = require('util');",
    "const r = require('req'), r2 = require(`tpl`);", //  10
    'async function f() {',
    "  await import('dyn');",
    "  await import('dyn2', { with: { type: 'json' } });",
    '}',
    "let t: typeof import('typeimp').X;", //              15
    "let u: import('multi',",
    "  { with: { 'resolution-mode': 'require' } }).Y;",
    'require(`x${1}`); require(name); require("a", "b"); import(name);',
    "require.resolve('not-a-require'); other('nope'); export { local };",
    "namespace N { import z = require('in-ns'); }", //    20
    "declare module 'amb' { import q from 'in-ambient'; }",
  ));
  assert.equal(ex.statements.map((s) => `${s.start}-${s.end} ${s.form}${s.reexport ? ' re-export' : ''} ${s.spec}`), [
    '1-1 import a', '2-2 import b', '3-3 import side-effect', '4-4 export-from re-export star', '5-5 export-from re-export ns',
    '6-6 export-from re-export named', '7-7 export-from re-export types', '8-8 import-equals fs', '9-9 import-equals util',
    '10-10 require req', '10-10 require tpl', '12-12 import-call dyn', '13-13 import-call dyn2', '15-15 import-type typeimp',
    '16-17 import-type multi', '20-20 import-equals in-ns', '21-21 import in-ambient',
  ]);
});

/** A small repository of `files`, as a git work tree, with the oracle's answer for it by path. */
function oracleOn(files: Record<string, string>): Map<string, OracleFileAnswer> {
  const root = tempDir('tsorc');
  write(root, files);
  git(root, ['init', '-q']);
  return new Map(runTsOracle(root, indexedFiles(root)).files.map((f) => [f.path, f]));
}
const targets = (f: OracleFileAnswer | undefined): string[] => (f?.statements ?? []).map((s) => `${s.start} ${s.spec} [${s.mode}] -> ${s.target ?? `(${s.unresolved})`}`);

test('resolution: modes under NodeNext, a .js specifier naming a .ts file, index files, paths and their config', () => {
  const o = oracleOn({
    'package.json': '{"name": "root", "type": "module"}',
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', paths: { '~/*': ['./src/*'] } }, include: ['src'] }),
    'src/a.ts': lines("import { b } from './b.js';", "import dir from './dir/index.js';", "import x from '~/b.js';", "import nope from './b';"),
    'src/b.ts': 'export const b = 1;\n',
    'src/dir/index.ts': 'export default 1;\n',
    'src/c.cts': lines("import b = require('./b.js');", "const d = require('./dir/index.js');", "const e = import('./b.js');"),
    'other/free.js': lines("import { b } from '../src/b';", "const r = require('../src/b');"),
  });
  assert.equal(targets(o.get('src/a.ts')), ['1 ./b.js [import] -> src/b.ts', '2 ./dir/index.js [import] -> src/dir/index.ts', '3 ~/b.js [import] -> src/b.ts', '4 ./b [import] -> (missing)']);
  assert.equal(targets(o.get('src/c.cts')), ['1 ./b.js [require] -> src/b.ts', '2 ./dir/index.js [require] -> src/dir/index.ts', '3 ./b.js [import] -> src/b.ts']);
  assert.is(o.get('src/a.ts')?.config, 'tsconfig.json');
  // other/ is outside the config's include: the defaults (bundler) resolve extensionless specifiers.
  assert.is(o.get('other/free.js')?.config, null);
  assert.equal(targets(o.get('other/free.js')), ['1 ../src/b [import] -> src/b.ts', '2 ../src/b [require] -> src/b.ts']);
});

test('resolution: workspace packages through a linked node_modules; missing build output maps to source, build output in the tree is the target', () => {
  const pkg = (name: string, extra: object): string => JSON.stringify({ name, ...extra });
  const o = oracleOn({
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }),
    '.gitignore': 'dist/\n',
    'packages/ui/package.json': pkg('@org/ui', { exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './button': './dist/button.js' } }),
    'packages/ui/tsconfig.json': JSON.stringify({ compilerOptions: { outDir: 'out-not-dist', rootDir: 'source' } }),
    'packages/ui/source/index.ts': 'export const ui = 1;\n',
    'packages/ui/source/button.tsx': 'export const button = 1;\n',
    'packages/plain/package.json': pkg('plain', { main: 'lib/main.js' }),
    'packages/plain/src/main.ts': 'export const plain = 1;\n',
    'packages/built/package.json': pkg('built', { main: 'dist/index.js' }),
    'packages/built/build/index.js': 'exports.built = 1;\n',
    'packages/built/src/index.ts': 'export const built = 1;\n',
    'packages/shipped/package.json': pkg('shipped', { types: 'types/index.d.ts' }),
    'packages/shipped/types/index.d.ts': 'export declare const shipped: number;\n',
    'packages/shipped/src/index.ts': 'export const shipped = 1;\n',
    'app/main.ts': lines("import '@org/ui';", "import '@org/ui/button';", "import 'plain';", "import 'built';", "import 'shipped';", "import 'react';", "import '@org/none';"),
    'packages/selfref/package.json': pkg('selfref', { exports: { '.': './dist/index.js', './sub': './dist/sub/index.js' } }),
    'packages/selfref/src/index.ts': 'export const self = 1;\n',
    'packages/selfref/src/sub/index.ts': 'export const sub = 1;\n',
    'packages/selfref/src/use.ts': lines("import 'selfref';", "import 'selfref/sub';", "import '../dist/index.js';"),
  });
  // A package importing itself by name (the compiler's self-name lookup) reaches the same source; a relative path into dist/ is no package lookup.
  assert.equal(targets(o.get('packages/selfref/src/use.ts')), [
    '1 selfref [import] -> packages/selfref/src/index.ts', '2 selfref/sub [import] -> packages/selfref/src/sub/index.ts', '3 ../dist/index.js [import] -> (missing)',
  ]);
  assert.equal(targets(o.get('app/main.ts')), [
    // @org/ui's tsconfig says outDir out-not-dist: dist/ is no out folder of it, so nothing maps (the compiler finds no file).
    '1 @org/ui [import] -> (package)', '2 @org/ui/button [import] -> (package)',
    // plain has no tsconfig: lib/ (named by main, not in the tree) stands for src/.
    '3 plain [import] -> packages/plain/src/main.ts',
    // dist/ of built is not in the tree (.gitignore) but named: src/index.ts.
    '4 built [import] -> packages/built/src/index.ts',
    // shipped's types/ is in the tree: the compiler's own answer stands.
    '5 shipped [import] -> packages/shipped/types/index.d.ts',
    '6 react [import] -> (package)', '7 @org/none [import] -> (package)',
  ]);
});

test('resolution: a rootDir above the package maps output to sources outside its folder; a node_modules folder the tree holds is never a target', () => {
  const o = oracleOn({
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }),
    // excalidraw's layout: outDir dist/types from rootDir ../, so dist/types/<folder>/… is packages/<folder>/….
    'packages/xl/package.json': JSON.stringify({ name: '@x/xl', exports: { '.': { types: './dist/types/xl/index.d.ts' }, './other/*': { types: './dist/types/other/src/*.d.ts' } } }),
    'packages/xl/tsconfig.json': JSON.stringify({ compilerOptions: { outDir: './dist/types', rootDir: '../' } }),
    'packages/xl/index.tsx': 'export const xl = 1;\n',
    'packages/other/src/thing.ts': 'export const thing = 1;\n',
    // Redux Toolkit's layout: the tsconfig type-checks the whole package (rootDir .) while a bundler builds dist/ from src/.
    'packages/rtk/package.json': JSON.stringify({ name: '@x/rtk', exports: {
      '.': { types: './dist/index.d.mts' }, './query': { types: './dist/query/index.d.mts' }, './extra': { types: './dist/extra.d.ts' } } }),
    'packages/rtk/tsconfig.json': JSON.stringify({ compilerOptions: { outDir: './dist', rootDir: './' } }),
    'packages/rtk/src/index.ts': 'export const rtk = 1;\n',
    'packages/rtk/src/query/index.ts': 'export const query = 1;\n',
    'packages/rtk/extra.ts': 'export const extra = 1;\n',
    'packages/rtk/src/extra.ts': 'export const extra = 2;\n',
    // npm's bundled dependencies: a node_modules folder committed to the tree.
    'node_modules/dep/package.json': JSON.stringify({ name: 'dep', main: 'index.js' }),
    'node_modules/dep/index.js': "module.exports = require('./lib');\n",
    'node_modules/dep/lib.js': 'module.exports = 1;\n',
    'app/main.js': lines("import '@x/xl';", "import '@x/xl/other/thing';", "const dep = require('dep');", "const lib = require('../node_modules/dep/lib');",
      "import '@x/rtk';", "import '@x/rtk/query';", "import '@x/rtk/extra';"),
  });
  assert.equal(targets(o.get('app/main.js')), [
    '1 @x/xl [import] -> packages/xl/index.tsx', '2 @x/xl/other/thing [import] -> packages/other/src/thing.ts',
    '3 dep [require] -> (package)', '4 ../node_modules/dep/lib [require] -> (missing)',
    // The rootDir's places first (extra.ts), then src's.
    '5 @x/rtk [import] -> packages/rtk/src/index.ts', '6 @x/rtk/query [import] -> packages/rtk/src/query/index.ts', '7 @x/rtk/extra [import] -> packages/rtk/extra.ts',
  ]);
  assert.equal(o.get('app/main.js')?.statements.map((s) => s.inNodeModules ?? null), [null, null, 'node_modules/dep/index.js', 'node_modules/dep/lib.js', null, null, null]);
  assert.equal(targets(o.get('node_modules/dep/index.js')), ['1 ./lib [require] -> (missing)']);
});

test('resolution: referenced projects (of a solution-style config or any other), jsconfig defaults, the next config further up', () => {
  const o = oracleOn({
    'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@root/*': ['lib/*'] } }, include: ['lib', 'app'] }),
    'lib/x.ts': 'export const x = 1;\n',
    'app/tsconfig.json': JSON.stringify({ files: [], references: [{ path: './tsconfig.web.json' }] }),
    'app/tsconfig.web.json': JSON.stringify({ compilerOptions: { paths: { '@web/*': ['./web/*'] } }, include: ['web'] }),
    'app/web/w.ts': lines("import '@web/y';", "import '@root/x';"),
    'app/web/y.ts': 'export {};\n',
    'app/tools/t.ts': lines("import '@root/x';", "import '@web/y';"),
    'app/inc/tsconfig.json': JSON.stringify({ include: [], references: [{ path: './tsconfig.inc.json' }] }),
    'app/inc/tsconfig.inc.json': JSON.stringify({ compilerOptions: { paths: { '@inc': ['./target.ts'] } }, include: ['./i.ts'] }),
    'app/inc/i.ts': "import '@inc';\n",
    'app/inc/target.ts': 'export {};\n',
    'tool/tsconfig.json': JSON.stringify({ include: ['src'], references: [{ path: './tsconfig.test.json' }] }),
    'tool/tsconfig.test.json': JSON.stringify({ compilerOptions: { paths: { '@t': ['./src/t.ts'] } }, include: ['test'] }),
    'tool/src/t.ts': 'export {};\n',
    'tool/test/t.test.ts': "import '@t';\n",
    'js/jsconfig.json': JSON.stringify({ compilerOptions: { module: 'commonjs' } }),
    'js/a.js': lines("const b = require('./b');", "import('./b');"),
    'js/b.js': 'module.exports = 1;\n',
  });
  assert.is(o.get('app/web/w.ts')?.config, 'app/tsconfig.web.json');
  assert.equal(targets(o.get('app/web/w.ts')), ['1 @web/y [none] -> app/web/y.ts', '2 @root/x [none] -> (package)']);
  // app/tools is in no referenced project: the root config, further up, takes it in.
  assert.is(o.get('app/tools/t.ts')?.config, 'tsconfig.json');
  assert.equal(targets(o.get('app/tools/t.ts')), ['1 @root/x [none] -> lib/x.ts', '2 @web/y [none] -> (package)']);
  // `"include": []` with references is solution-style too, as the compiler judges it (isSolutionConfig: no files, a references key).
  assert.is(o.get('app/inc/i.ts')?.config, 'app/inc/tsconfig.inc.json');
  assert.equal(targets(o.get('app/inc/i.ts')), ['1 @inc [none] -> app/inc/target.ts']);
  // A config with files of its own hands a file it does not take to its references too (tsserver 5.x).
  assert.is(o.get('tool/test/t.test.ts')?.config, 'tool/tsconfig.test.json');
  assert.equal(targets(o.get('tool/test/t.test.ts')), ['1 @t [none] -> tool/src/t.ts']);
  // A jsconfig.json takes its .js files in (allowJs is a jsconfig default).
  assert.is(o.get('js/a.js')?.config, 'js/jsconfig.json');
  assert.equal(targets(o.get('js/a.js')), ['1 ./b [none] -> js/b.js', '2 ./b [none] -> js/b.js']);
});

test('symbolic links: a link to a file or folder inside the root adds no name to the index; the compiler resolves through it to the real file', () => {
  const root = tempDir('tssym');
  write(root, { 'src/index.js': 'export function sayHi() {}\n', 'real/x.ts': 'export const x = 1;\n', 'a.ts': lines("import './linked.js';", "import './link/x';", "import './out.js';") });
  symlinkSync('./src/index.js', join(root, 'linked.js'));
  symlinkSync('real', join(root, 'link'));
  symlinkSync('/etc/hostname', join(root, 'out.js'));
  git(root, ['init', '-q']);
  const files = indexedFiles(root);
  assert.equal(files, ['a.ts', 'real/x.ts', 'src/index.js'], 'each file under its real path; a link out of the root is not indexed');
  const o = new Map(runTsOracle(root, files).files.map((f) => [f.path, f]));
  assert.equal(targets(o.get('a.ts')), ['1 ./linked.js [import] -> src/index.js', '2 ./link/x [import] -> real/x.ts', '3 ./out.js [import] -> (missing)']);
  assert.equal(o.get('src/index.js')?.defs.map((d) => d.qualname), ['sayHi']);
});

test('symbolic links: a link committed in a node_modules folder is not followed, though it leads out of node_modules (vitest\'s project-references test)', () => {
  const root = tempDir('tssymnm');
  write(root, {
    'packages/a/package.json': JSON.stringify({ name: 'a', exports: './src/index.ts' }),
    'packages/a/src/index.ts': 'export const a = 1;\n',
    'packages/b/src/b.ts': lines("import 'a';", "import '../node_modules/a/src/index.ts';"),
  });
  mkdirSync(join(root, 'packages/b/node_modules'));
  symlinkSync('../../a', join(root, 'packages/b/node_modules/a'), 'dir');
  git(root, ['init', '-q']);
  const files = indexedFiles(root);
  const o = new Map(runTsOracle(root, files).files.map((f) => [f.path, f]));
  // The compiler finds packages/a/src/index.ts through the link; the rules read no node_modules folder.
  assert.equal(targets(o.get('packages/b/src/b.ts')), ['1 a [import] -> (package)', '2 ../node_modules/a/src/index.ts [import] -> (missing)']);
  assert.equal(o.get('packages/b/src/b.ts')?.statements.map((s) => s.inNodeModules ?? null), ['packages/a/src/index.ts', 'packages/a/src/index.ts']);
});

test('fixtures/ts-monorepo: pinned answers of the oracle', () => {
  const root = fixtureRepo();
  const files = indexedFiles(root);
  assert.ok(!files.some((f) => f.includes('node_modules') || f.split('/').includes('dist')), 'no node_modules or dist in the fixture');
  const o = new Map(runTsOracle(root, files).files.map((f) => [f.path, f]));
  const defsOf = (p: string): string[] => o.get(p)!.defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`);
  assert.equal(defsOf('packages/core/src/server.ts'), [
    'function logged 5-8', 'function sealed 10-12', 'class Server 14-52', 'variable Server.#connections 16-16', 'variable Server.instances 17-17',
    'variable Server.port 18-18', 'variable Server.config 19-19', 'method Server.constructor 21-26', 'method Server.connections 28-30',
    'method Server.connections 32-34', 'method Server.listen 36-41', 'method Server.#reset 43-45', 'method Server.configure 47-51',
    'class Handler 54-56', 'method Handler.handle 55-55',
  ]);
  assert.equal(defsOf('packages/shared/src/strings.ts'), ['variable sep 2-2', 'variable para 3-3', 'function pad 5-7', 'class Words 10-14', 'method Words.split 11-13']);
  assert.equal(defsOf('packages/core/src/util/format.ts'), [
    'type Formatter 1-1', 'function format 3-7', 'function upper 9-9', 'function lower 10-10', 'function trim 11-11', 'function maybe 12-12',
    'variable left 14-18', 'variable first 14-18', 'variable second 14-18', 'variable rest 14-18',
  ]);
  assert.equal(targets(o.get('apps/web/src/main.tsx')), [
    '1 react [import] -> (package)', '2 react-dom/client [import] -> (package)', '3 @acme/ui [import] -> packages/ui/src/index.ts',
    '4 @acme/ui/button [import] -> packages/ui/src/button/index.ts', '5 @acme/core [import] -> packages/core/src/index.ts',
    '6 @acme/shared [import] -> packages/shared/src/index.ts', '7 lodash/fp/map [import] -> (package)', '8 ./App [import] -> apps/web/src/App.tsx',
    '9 @/components/Header [import] -> apps/web/src/components/Header.jsx', '10 ./styles.css [import] -> (missing)', '11 ./does-not-exist [import] -> (missing)',
  ]);
  // customConditions ["browser"] in apps/web, not under the root config.
  assert.ok(targets(o.get('apps/web/src/App.tsx')).includes('5 @acme/core/env [import] -> packages/core/src/env-browser.ts'));
  assert.ok(targets(o.get('libs/geometry.ts')).includes('6 @acme/core/env [import] -> packages/core/src/env-node.ts'));
  assert.equal(targets(o.get('libs/geometry.ts')).slice(0, 5), [
    '1 @lib/enums [import] -> libs/enums.ts', '2 @shared/math [import] -> packages/shared/src/math.ts', '3 libs/enums [import] -> libs/enums.ts',
    '4 ../packages/shared/src/crlf [import] -> packages/shared/src/crlf.ts', '5 ./globals [import] -> types/globals.d.ts',
  ]);
  assert.equal(targets(o.get('packages/core/src/legacy.cts')), [
    '2 node:fs [require] -> (package)', '3 ./util/format.js [require] -> packages/core/src/util/format.ts', '4 node:path [require] -> (package)',
  ]);
  assert.equal(targets(o.get('packages/core/src/index.ts')).slice(0, 2), ['1 #internal/log [import] -> packages/core/src/internal/log.ts', '2 #env [import] -> packages/core/src/env-node.ts']);
  assert.is(o.get('apps/web/vite.config.ts')?.config, 'apps/web/tsconfig.node.json');
  assert.is(o.get('apps/legacy/src/view.js')?.config, 'apps/legacy/jsconfig.json');
  assert.is(o.get('scripts/build.mjs')?.config, null);
  // Under the defaults an import and a require() of one package take its "import" and "require" conditions.
  assert.equal(targets(o.get('scripts/release.ts')), ['3 @acme/core [import] -> packages/core/src/index.ts', '5 @acme/core [require] -> packages/core/src/legacy.cts']);
  // A package tsdown builds (.mjs/.cjs/.d.mts/.d.cts, all from src/*.ts): both conditions, typed or not, reach the source.
  assert.equal(targets(o.get('apps/web/src/api.ts')), ['1 @acme/sdk [import] -> packages/sdk/src/index.ts', '2 @acme/sdk/links [import] -> packages/sdk/src/links.ts']);
  assert.equal(targets(o.get('scripts/sdk-check.cjs')), ['2 @acme/sdk [require] -> packages/sdk/src/index.ts']);
  for (const f of o.values()) assert.is(f.parseErrors, 0, f.path);
});

/** The oracle's statements against ts.preProcessFile's, and its line rule against the compiler's line map, over one tree. */
function crossCheck(root: string, files: string[]): { files: number; statements: number; positions: number } {
  let statements = 0, positions = 0, n = 0;
  for (const path of files.filter(isTsJsPath)) {
    const text = decodeFile(readFileSync(join(root, path)));
    const ex = extractTsJs(path, text);
    // preProcessFile scans tokens for the same forms, all but `export * as ns from`, which its
    // scanner does not take; it also lists a module file's `declare module "x"` (an augmentation), which is no statement.
    const augmentations = new Set<number>();
    const findAugmentations = (n: ts.Node): void => {
      if (ts.isModuleDeclaration(n) && ts.isStringLiteral(n.name)) augmentations.add(n.name.getStart(ex.sourceFile));
      ts.forEachChild(n, findAugmentations);
    };
    findAugmentations(ex.sourceFile);
    const pre = ts.preProcessFile(text, true, true).importedFiles.filter((f) => !augmentations.has(f.pos)).map((f) => f.fileName).sort();
    const namespaceExport = (s: (typeof ex.statements)[number]): boolean =>
      ts.isExportDeclaration(s.literal.parent) && s.literal.parent.exportClause !== undefined && ts.isNamespaceExport(s.literal.parent.exportClause);
    // It does not read JSDoc, so `@import` tags and `import()` types there (which the compiler's program lists) are not in its answer.
    const ours = ex.statements.filter((s) => !namespaceExport(s) && !s.inJsDoc).map((s) => s.spec).sort();
    assert.equal(ours, pre, `${path}: statements against ts.preProcessFile`);
    statements += ours.length;
    n++;
    // Where "\n" is the text's only line break, the compiler's line map must give the oracle's lines.
    if (/[\r\u2028\u2029]/.test(text)) continue;
    const nl = new NewlineLines(text);
    for (let pos = 0; pos <= text.length; pos += 61) {
      assert.is(nl.lineOf(pos), ex.sourceFile.getLineAndCharacterOfPosition(pos).line + 1, `${path}@${pos}`);
      positions++;
    }
  }
  return { files: n, statements, positions };
}

test('cross-checks on the fixture and this project\'s node_modules: statements against ts.preProcessFile, lines against the compiler\'s line map', () => {
  const fx = fixtureRepo();
  const a = crossCheck(fx, indexedFiles(fx));
  const nm = nodeModulesRepo([['zod', 'zod'], ['@modelcontextprotocol/sdk', 'mcp-sdk'], ['ollama', 'ollama'], ['ws', 'ws'], ['chokidar', 'chokidar']]);
  const b = crossCheck(nm.root, indexedFiles(nm.root));
  console.log(`[oracle] statements agree with ts.preProcessFile and lines with the compiler's line map: fixture ${a.files} files, ${a.statements} statements, ${a.positions} positions; `
    + `node_modules ${b.files} files, ${b.statements} statements, ${b.positions} positions`);
});

test.run();
