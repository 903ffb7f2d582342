// The TypeScript comparison's own rules (test/helpers/ts-compare.ts and what it
// asks with), on hand-made oracle statements: which package names a specifier
// is asked by, and which statements, how many, a re-exported module is imported by.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reexportChains } from './helpers/ts-reexports.js';
import { packageNamesOf } from './oracle/ts-resolve.js';
import type { OracleStatementAnswer } from './oracle/ts-oracle.js';

type Statement = OracleStatementAnswer & { path: string };
const stmt = (path: string, line: number, spec: string, target: string | null, reexport = false): Statement => ({
  path, start: line, end: line, spec, target, reexport, form: reexport ? 'export-from' : 'require', mode: 'require',
  unresolved: target === null ? 'package' : null,
});

test('two statements on the same line are two items (webpack: `expect(require("fs")).toBe(require("fs"))`), each with its chain', () => {
  const all = [
    stmt('lib/fs.js', 1, 'fs', null, true),               // export * from "fs"
    stmt('a.js', 20, 'fs', null), stmt('a.js', 20, 'fs', null),
    stmt('b.js', 3, './lib/fs.js', 'lib/fs.js'), stmt('b.js', 3, './lib/fs.js', 'lib/fs.js'),
  ];
  const fs = reexportChains(all).find((q) => q.module === 'fs');
  assert.ok(fs, 'a re-export reaches fs');
  assert.equal(fs.statements, ['lib/fs.js:1-1', 'a.js:20-20', 'a.js:20-20', 'b.js:3-3', 'b.js:3-3']);
  assert.equal([...fs.items], [['lib/fs.js:1-1', []], ['a.js:20-20', []], ['b.js:3-3', ['lib/fs.js']]]);
});

test('a specifier is asked by its package name and each longer subpath, up to a part holding a NUL byte (a name every tool refuses)', () => {
  assert.equal(packageNamesOf('@org/ui/button/x'), ['@org/ui', '@org/ui/button', '@org/ui/button/x']);
  assert.equal(packageNamesOf('es5-ext/array/\0#/e-index-of#fragment'), ['es5-ext', 'es5-ext/array']);
});

test.run();
