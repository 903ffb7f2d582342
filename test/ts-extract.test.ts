// TypeScript/JavaScript definitions and import statements (extractTs) on
// hand-written sources with exact expected answers, one rule each
// (docs/tools.md, TypeScript rules), then over every .ts/.js file of this
// project's own node_modules: it never throws, and every span lies in its file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { extractTs } from '../indexer/typescript/extract.js';
import { isTsJsPath, scriptKindOf } from '../indexer/typescript/paths.js';
import { decodeText, splitLines } from '../indexer/text.js';
import { PROJECT_ROOT } from './helpers/fs.js';
import { extractTsJs } from './oracle/ts-extract.js';

/** `kind qualname start-end`, one per definition, in the order found. */
function defs(src: string, path = 'a.ts'): string[] {
  return extractTs(src, path).defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`);
}

/** `form spec start-end [mode] [reexport]`, one per statement. */
function imports(src: string, path = 'a.ts'): string[] {
  return extractTs(src, path).imports.map((i) => [i.form, i.spec, `${i.start}-${i.end}`, i.mode, i.reexport ? 'reexport' : undefined].filter(Boolean).join(' '));
}

test('which files are TypeScript or JavaScript, and how each is parsed', () => {
  for (const p of ['a.ts', 'a.tsx', 'a.mts', 'a.cts', 'a.d.ts', 'a.d.mts', 'a.d.cts', 'a.js', 'a.jsx', 'a.mjs', 'a.cjs', 'dir.x/a.ts']) assert.ok(isTsJsPath(p), p);
  for (const p of ['a.py', 'a.json', 'ts', 'a.ts/b', 'a.tsx.bak', 'dir.ts/readme']) assert.not.ok(isTsJsPath(p), p);
  assert.equal(['a.tsx', 'a.jsx', 'a.js', 'a.mjs', 'a.cjs', 'a.ts', 'a.d.ts', 'a.mts'].map(scriptKindOf), ['tsx', 'jsx', 'js', 'js', 'js', 'ts', 'ts', 'ts']);
});

test('classes, members, constructors and parameter properties', () => {
  const src = [
    '/** doc */',                                        // 1
    '@decorate()',                                       // 2
    'export abstract class Server<T> extends Base {',    // 3
    '  #secret = 1;',                                    // 4
    '  static count: number;',                           // 5
    '  constructor(a: string);',                         // 6
    '  constructor(private readonly a: string, b = 1) {',// 7
    '    super();',                                      // 8
    '  }',                                               // 9
    '  run(): void;',                                    // 10
    '  run(x?: number): void {}',                        // 11
    '  get v() { return 1; }',                           // 12
    '  set v(x) {}',                                     // 13
    '  [Symbol.iterator]() {}',                          // 14
    '  "quoted-name"() {}',                              // 15
    '  static run() {}',                                 // 16
    '}',                                                 // 17
    'export default class {}',                           // 18
  ].join('\n');
  assert.equal(defs(src), [
    'class Server 2-17', 'variable Server.#secret 4-4', 'variable Server.count 5-5',
    'method Server.constructor 6-9', 'variable Server.a 7-7',
    'method Server.run 10-11', 'method Server.v 12-12', 'method Server.v 13-13',
    'method Server.[Symbol.iterator] 14-14', 'method Server.quoted-name 15-15', 'method Server.run 16-16',
    'class default 18-18',
  ]);
});

test('a computed member name is its expression\'s text in brackets: a comment or spaces just inside the brackets are no part of it, against the oracle', () => {
  const src = [
    'export class Bar extends /*#__PURE__*/ mixin(A) {', // 1
    '  [/*#__PURE__*/ getField()] = 12;',                // 2: webpack's inner-graph test case
    '  [ Symbol.iterator ]() {}',                        // 3
    '  [a /* kept */ .b]() {}',                          // 4: a comment inside the expression is its text
    '}',
  ].join('\n');
  const want = ['class Bar 1-5', 'variable Bar.[getField()] 2-2', 'method Bar.[Symbol.iterator] 3-3', 'method Bar.[a /* kept */ .b] 4-4'];
  assert.equal(defs(src), want);
  assert.equal(extractTsJs('a.ts', src).defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`), want, 'the oracle agrees');
});

test('functions: overloads are one item, unnamed defaults are `default`, nesting qualifies', () => {
  const src = [
    'function over(a: string): void;',      // 1
    'function over(a: number): void;',      // 2
    'function over(a: any) {',              // 3
    '  function inner() {}',                // 4
    '  class Local { m() {} }',             // 5
    '}',                                    // 6
    'function over(): void {}',             // 7: a second implementation is its own item
    'export default function () {}',        // 8
    'if (x) { function inBlock() {} }',     // 9
    'declare function d(a: 1): void;',      // 10
    'declare function d(a: 2): void;',      // 11
  ].join('\n');
  assert.equal(defs(src), [
    'function over 1-6', 'function over.inner 4-4', 'class over.Local 5-5', 'method over.Local.m 5-5',
    'function over 7-7', 'function default 8-8', 'function inBlock 9-9', 'function d 10-11',
  ]);
});

test('variables at module and namespace scope: kinds through wrappers, destructuring, class expressions', () => {
  const src = [
    'export const f = (() => 1) as any, g = function () {}, h = (<any>(async () => {}))!;', // 1
    'const s = (() => {}) satisfies Function;',                                          // 2
    'export const C = class Named { m() { function deep() {} } };',                      // 3
    'export const { p, q: [r, ...rest] } = obj, [, second] = arr;',                      // 4
    'let l = 1; var v;',                                                                 // 5
    'declare const amb: number;',                                                        // 6
    'function fn() { const local = 1; }',                                                // 7
    'for (const loop of xs) {}',                                                         // 8
    'const handler = () => { function inner() {} };',                                    // 9
    'export const Plugin = { install() { function register() {} } };',                  // 10: a plain variable qualifies nothing
  ].join('\n');
  assert.equal(defs(src), [
    'function f 1-1', 'function g 1-1', 'function h 1-1', 'function s 2-2',
    'class C 3-3', 'method C.m 3-3', 'function C.m.deep 3-3',
    'variable p 4-4', 'variable r 4-4', 'variable rest 4-4', 'variable second 4-4',
    'variable l 5-5', 'variable v 5-5', 'variable amb 6-6', 'function fn 7-7', 'function handler 9-9', 'function handler.inner 9-9',
    'variable Plugin 10-10', 'function register 10-10',
  ]);
});

test('`using` binds no variable; names the parser invents in a syntax error are no definitions (what they hold is the enclosing scope\'s)', () => {
  const src = [
    'using a = res(), b = res();',              // 1: not const, let or var
    'await using c = res();',                   // 2
    'export class { m() {} }',                  // 3: no name, not the default export: the compiler binds a missing name
    'export function () { function inner() {} }', // 4: the parser's empty identifier
    'function 1() {}',                          // 5
    'enum { A }',                               // 6
    'namespace "n" { export const y = 1; }',    // 7: a namespace's name must be an identifier (the rest parses as a block)
    'export default class { m() {} }',          // 8: the default export is `default`
  ].join('\n');
  assert.equal(defs(src), ['function inner 4-4', 'class default 8-8', 'method default.m 8-8']);
  assert.equal(defs(src), extractTsJs('a.ts', src).defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`), 'the oracle agrees');
});

test('interfaces, type aliases, enums, namespaces, ambient modules and declare global', () => {
  const src = [
    'interface I { a: string }',                                  // 1
    'type Alias<T> = T[];',                                       // 2
    'const enum E { A }',                                         // 3
    'namespace A.B.C { export const z = 1; interface J {} }',     // 4
    'module M { export function f() {} }',                        // 5
    'declare module "lodash.debounce" { function debounce(): void; }', // 6
    'declare module "*.svg";',                                    // 7
    'declare global { interface Window { x: number } }',          // 8
    'namespace global {}',                                        // 9: a namespace that is named global
  ].join('\n');
  assert.equal(defs(src, 'a.d.ts'), [
    'interface I 1-1', 'type Alias 2-2', 'enum E 3-3',
    'namespace A 4-4', 'namespace A.B 4-4', 'namespace A.B.C 4-4', 'variable A.B.C.z 4-4', 'interface A.B.C.J 4-4',
    'namespace M 5-5', 'function M.f 5-5',
    'namespace lodash.debounce 6-6', 'function lodash.debounce.debounce 6-6', 'namespace *.svg 7-7',
    'interface Window 8-8', 'namespace global 9-9',
  ]);
});

test('spans run from the first modifier or decorator to the last line, without leading comments', () => {
  const src = ['// c', '/* block */ export', '  declare function f(', '): void', '', 'export const x =', '  1;',
    'declare', 'function g() {}'].join('\n');
  // `declare` at the end of a line is no modifier (the compiler reads it as an expression): g starts at `function`.
  assert.equal(defs(src), ['function f 2-4', 'variable x 6-7', 'function g 9-9']);
});

test('lines are split at \\n only: \\r, U+2028 and U+2029 do not start a line; a BOM is text', () => {
  // The compiler's own line map counts \r, U+2028 and U+2029 as line breaks; evidex's lines do not.
  const src = '\ufeffconst a = "x\u2028y";\rfunction b() {}\r\nclass C {\u2029}\nconst d = 1;\n';
  assert.equal(defs(src), ['variable a 1-1', 'function b 1-1', 'class C 2-2', 'variable d 3-3']);
  const lines = splitLines(decodeText(Buffer.from(src)));
  assert.is(lines.length, 3);
});

test('JSX: .tsx and .jsx parse with JSX, and .js files allow it as the compiler does', () => {
  const jsx = 'export const App = () => <div>{"text"}</div>;\nexport function Item() { return <b>{require("./x")}</b>; }\nconst late = 1;\n';
  for (const p of ['a.tsx', 'a.jsx', 'a.js']) {
    assert.equal(defs(jsx, p), ['function App 1-1', 'function Item 2-2', 'variable late 3-3'], p);
    assert.equal(imports(jsx, p), ['require ./x 2-2'], p);
  }
  // In a .ts file `<b>` is a type assertion, and the call inside the markup is lost to the parser's recovery.
  assert.equal(imports(jsx, 'a.ts'), []);
});

test('import statements of every form, anywhere in the file, with their spans', () => {
  const src = [
    'import a, { b } from "./a.js";',                                       // 1
    'import type { T } from "./t" with { "resolution-mode": "require" };',  // 2
    'import { type U } from "./u" with { "resolution-mode": "require" };',  // 3: not type-only: the attribute is ignored
    'import "./side";',                                                     // 4
    'export * from "./c";',                                                 // 5
    'export * as ns from "./d";',                                           // 6
    'export { e } from "e-pkg/sub";',                                       // 7
    'export type { F } from "./f";',                                        // 8
    'import x = require("./x");',                                           // 9
    'export {',                                                             // 10
    '  g,',                                                                 // 11
    '} from "./g";',                                                        // 12
    'function load() {',                                                    // 13
    '  const r = require("./r");',                                          // 14
    '  return import(`./lazy`);',                                           // 15
    '}',                                                                    // 16
    'type L = typeof import("./tl");',                                      // 17
    'type M = import("./m", { with: { "resolution-mode": "import" } }).M;', // 18
    'require("./two", 2); require(name); import(name); require(`./${x}`);',  // 19: none of these
    'export { local };',                                                    // 20: defines and imports nothing
    'class K extends require("./base") {}',                                 // 21
  ].join('\n');
  assert.equal(imports(src), [
    'import ./a.js 1-1', 'import ./t 2-2 require', 'import ./u 3-3', 'import ./side 4-4',
    'export ./c 5-5 reexport', 'export ./d 6-6 reexport', 'export e-pkg/sub 7-7 reexport', 'export ./f 8-8 reexport',
    'equals ./x 9-9', 'export ./g 10-12 reexport',
    'require ./r 14-14', 'call ./lazy 15-15', 'type ./tl 17-17', 'type ./m 18-18 import', 'require ./base 21-21',
  ]);
  assert.equal(extractTs(src, 'a.ts').defs.map((d) => d.qualname), ['load', 'L', 'M', 'K']);
});

test('what the walk skips (subtrees without a keyword) hides nothing: deep definitions and statements, escaped keywords, against the oracle', () => {
  const sources: Array<[string, string]> = [
    ['deep.ts', [
      'export const run = (x: number) => [1, 2].map((y) => { function inner() { return require("./deep-r"); } return inner; });',
      'const cfg = { a: { b: () => { class Local { m() {} } interface I {} type T = 1; enum E { A } } } };',
      'function outer() { if (x) { for (;;) { while (y) { const l = import("./deep-c"); } } } }',
      'const z = cond ? f(g(h(() => { function hidden() {} }))) : 0;',
      'function noop() { return a + b * c; }',
    ].join('\n')],
    // A keyword, or `require`, written with a Unicode escape is the same token to the compiler.
    ['escaped.ts', [
      'function f() { return requir\\u0065("./esc-r"); }',
      'function g() { const h = () => { \\u0066unction esc() {} }; }',
      'function k() { return \\u{72}equire("./esc-braces"); }',
    ].join('\n')],
    ['blocks.js', 'function f() { { export * from "./nested-export"; import x from "./nested-import"; } }\nif (a) { class InIf {} }'],
    ['types.d.ts', 'declare function f(a: { b: { c: typeof import("./deep-type") } }): void;\nexport type U = { x: { y: import("./t2").Z } };'],
  ];
  for (const [path, text] of sources) {
    const got = extractTs(text, path);
    const want = extractTsJs(path, text);
    assert.equal(got.defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`), want.defs.map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}`), `${path}: definitions`);
    assert.equal(got.imports.map((i) => `${i.spec} ${i.start}-${i.end}`), want.statements.map((s) => `${s.spec} ${s.start}-${s.end}`), `${path}: statements`);
  }
  assert.equal(extractTs(sources[1][1], 'escaped.ts').imports.map((i) => i.spec), ['./esc-r', './esc-braces'], 'escaped require calls are found');
  assert.ok(extractTs(sources[0][1], 'deep.ts').defs.some((d) => d.qualname === 'run.inner'), 'a function deep in a callback is found');
});

test('every .ts and .js file of the project\'s node_modules: no throw, every span inside its file', () => {
  const roots = ['zod', 'typescript/lib', '@modelcontextprotocol/sdk/dist', 'ollama', 'ws', 'chokidar'].map((r) => join(PROJECT_ROOT, 'node_modules', r));
  let files = 0, definitions = 0, statements = 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) { walk(p); continue; }
      if (!isTsJsPath(name) || st.size > 2 << 20) continue;
      const text = decodeText(readFileSync(p));
      const lines = splitLines(text).length;
      const r = extractTs(text, p);
      files++; definitions += r.defs.length; statements += r.imports.length;
      for (const d of [...r.defs, ...r.imports]) {
        assert.ok(d.start >= 1 && d.start <= d.end && d.end <= lines, `${p}: ${JSON.stringify(d)} outside 1-${lines}`);
      }
    }
  };
  for (const r of roots) walk(r);
  console.log(`node_modules: ${files} files, ${definitions} definitions, ${statements} import statements`);
  assert.ok(files > 500 && definitions > 10_000 && statements > 1_000);
});

test.run();
