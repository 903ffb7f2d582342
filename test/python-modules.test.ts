// Module names and import targets (docs/tools.md, Python rules), with exact expected answers.
// The import cases are also written into a real temp repository and put
// before the ast oracle, which must agree — so the edge rules are pinned on
// both sides of the differential test.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { extractPython } from '../indexer/python/extract.js';
import { importTargets, moduleNamesOf, packageOf } from '../indexer/python/modules.js';
import { makeEvidence } from '../indexer/evidence.js';
import { decodeText, splitLines } from '../indexer/text.js';
import { runPyOracle } from './helpers/corpus.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { tempDir, write } from './helpers/fs.js';
import { lacks, testUnless } from './helpers/skip.js';

const pkgs = (...dirs: string[]) => (dir: string): boolean => dirs.includes(dir);

test('moduleNamesOf: package-based name first, then the dotted path from the root', () => {
  const cases: [string, string[], string[]][] = [
    ['src/flask/app.py', ['src/flask'], ['flask.app', 'src.flask.app']],
    ['src/flask/__init__.py', ['src/flask'], ['flask', 'src.flask']],
    ['pkg/__init__.py', ['pkg'], ['pkg']],
    ['pkg/mod.py', ['pkg'], ['pkg.mod']],
    ['src/rag_common.py', [], ['rag_common', 'src.rag_common']],
    ['main.py', [], ['main']],
    ['pkg/data/x.py', ['pkg'], ['pkg.data.x']], // data/ has no __init__.py: a namespace portion of pkg
    ['a/b/c/mod.py', ['a/b', 'a/b/c'], ['b.c.mod', 'a.b.c.mod']],
    ['a/b/c/mod.py', ['a', 'a/b/c'], ['a.b.c.mod']], // b is a portion inside the chain a..c
    ['a/b/c/mod.py', ['a'], ['a.b.c.mod']], // b and c are both portions of a
    ['a/b/c/mod.py', ['a/b'], ['b.c.mod', 'a.b.c.mod']], // a is above the topmost package: not in the chain
    ['src/flask/sansio/app.py', ['src/flask'], ['flask.sansio.app', 'src.flask.sansio.app']],
    ['src/flask/sansio/__init__.py', ['src/flask'], ['flask.sansio', 'src.flask.sansio']], // a stray __init__ name in a portion
    ['ns/x/mod.py', ['ns/x'], ['x.mod', 'ns.x.mod']], // ns/ is a top-level namespace package: only the root-dotted name has it
    ['my-file.py', [], ['my-file']],
    ['pkg/types.pyi', ['pkg'], ['pkg.types']], // a stub has the names of its .py
    ['pkg/__init__.pyi', ['pkg'], ['pkg']],
    ['stubs/six/moves/urllib.pyi', ['stubs/six', 'stubs/six/moves'], ['six.moves.urllib', 'stubs.six.moves.urllib']],
    ['README.pyx', [], []],
    ['README.md', [], []],
    ['__init__.py', [''], []], // the root never joins a chain; its __init__ has no name
  ];
  for (const [path, dirs, want] of cases) assert.equal(moduleNamesOf(path, pkgs(...dirs)), want, path);
});

test('packageOf: the package relative imports resolve against', () => {
  const cases: [string, string[], string][] = [
    ['pkg/__init__.py', ['pkg'], 'pkg'],
    ['pkg/mod.py', ['pkg'], 'pkg'],
    ['src/a/b/mod.py', ['src/a', 'src/a/b'], 'a.b'],
    ['src/a/b/__init__.py', ['src/a', 'src/a/b'], 'a.b'],
    ['src/x.py', [], 'src'],
    ['x.py', [], ''],
    ['pkg/data/x.py', ['pkg'], 'pkg.data'],
    ['src/flask/sansio/blueprints.py', ['src/flask'], 'flask.sansio'],
    ['a/b/c/mod.py', ['a', 'a/b/c'], 'a.b.c'],
    ['a/b/c/mod.pyi', ['a/b'], 'b.c'],
  ];
  for (const [path, dirs, want] of cases) assert.is(packageOf(path, pkgs(...dirs)), want, path);
});

// [file, import statement, expected targets]; the repository's packages are
// the folders below that get an __init__.py.
const PACKAGES = ['src/a', 'src/a/b', 'src/a/b/c', 'pkg', 'flask', 'stubs/typ'];
const IMPORT_CASES: [string, string, string[]][] = [
  // absolute
  ['top.py', 'import a.b.c as x, d', ['a.b.c', 'd']],
  ['top.py', 'import os, os.path, os', ['os', 'os.path']],
  ['top.py', 'from P import n1, n2 as m, n1', ['P', 'P.n1', 'P.n2']],
  ['top.py', 'from P.q import *', ['P.q']],
  // every level from a three-deep package (src/ itself is not a package)
  ['src/a/b/c/mod.py', 'from . import n', ['a.b.c', 'a.b.c.n']],
  ['src/a/b/c/mod.py', 'from .m import n', ['a.b.c.m', 'a.b.c.m.n']],
  ['src/a/b/c/mod.py', 'from .. import n', ['a.b', 'a.b.n']],
  ['src/a/b/c/mod.py', 'from ..m import n as k', ['a.b.m', 'a.b.m.n']],
  ['src/a/b/c/mod.py', 'from ...m import n', ['a.m', 'a.m.n']],
  ['src/a/b/c/mod.py', 'from .... import n', ['n']], // climbs exactly to the top: just the names
  ['src/a/b/c/mod.py', 'from ....m import n', ['m', 'm.n']],
  ['src/a/b/c/mod.py', 'from ..... import n', []], // climbs above it: unresolvable
  ['src/a/b/c/mod.py', 'from .. import *', ['a.b']],
  ['src/a/b/c/__init__.py', 'from . import sib', ['a.b.c', 'a.b.c.sib']],
  ['src/a/b/c/__init__.py', 'from .. import up', ['a.b', 'a.b.up']],
  ['pkg/__init__.py', 'from . import sub', ['pkg', 'pkg.sub']],
  ['pkg/__init__.py', 'from .sub import x', ['pkg.sub', 'pkg.sub.x']],
  ['pkg/__init__.py', 'from .. import x', ['x']],
  // outside any package: the folder's dotted path from the root
  ['src/x.py', 'from . import b', ['src', 'src.b']],
  ['src/x.py', 'from .util import f', ['src.util', 'src.util.f']],
  ['src/x.py', 'from .. import b', ['b']],
  ['src/x.py', 'from ... import b', []],
  ['root.py', 'from . import b', ['b']],
  ['root.py', 'from .m import b', ['m', 'm.b']],
  ['root.py', 'from . import *', []],
  ['root.py', 'from .. import b', []],
  // through a namespace portion (flask/sansio/ has no __init__.py, flask/ has one)
  ['flask/sansio/blueprints.py', 'from .app import App', ['flask.sansio.app', 'flask.sansio.app.App']],
  ['flask/sansio/blueprints.py', 'from .. import helpers', ['flask', 'flask.helpers']],
  ['flask/sansio/deep/x.py', 'from ...json import dumps', ['flask.json', 'flask.json.dumps']],
  // a stub package (stubs/typ/ holds only __init__.pyi) and a stub beside it
  ['stubs/typ/mod.pyi', 'from . import other', ['typ', 'typ.other']],
  ['stubs/typ/sub/deep.pyi', 'from ..mod import T', ['typ.mod', 'typ.mod.T']],
];

testUnless(lacks.python3())('importTargets: absolute, every relative level, packages, the decided edge rules; the oracle agrees', () => {
  const root = tempDir('pym');
  try {
    // One file per case path; the statements of a path go in order, one per line.
    const byFile = new Map<string, string[]>();
    for (const dir of PACKAGES) byFile.set(dir.startsWith('stubs/') ? `${dir}/__init__.pyi` : `${dir}/__init__.py`, []);
    for (const [file, stmt] of IMPORT_CASES) byFile.set(file, [...(byFile.get(file) ?? []), stmt]);
    write(root, Object.fromEntries([...byFile].map(([file, stmts]) => [file, stmts.map((s) => `${s}\n`).join('')])));
    const files = [...byFile.keys()].sort();
    const isPkg = (dir: string): boolean => PACKAGES.includes(dir);
    const oracle = new Map(runPyOracle(root, files).map((o) => [o.path, o]));
    for (const [file, stmts] of byFile) {
      const text = decodeText(readFileSync(join(root, file)));
      const got = extractPython(text);
      assert.is(got.imports.length, stmts.length, file);
      const wantTargets = IMPORT_CASES.filter(([f]) => f === file).map(([, , t]) => t);
      const o = oracle.get(file)!;
      assert.ok(o.ok, `ast parses ${file}`);
      got.imports.forEach((imp, i) => {
        const where = `${file}: ${stmts[i]}`;
        assert.is(imp.start, i + 1, where);
        assert.equal(importTargets(imp, file, isPkg), wantTargets[i], `evidex: ${where}`);
        assert.equal(o.imports[i], { start: i + 1, end: i + 1, targets: wantTargets[i] }, `oracle: ${where}`);
      });
      assert.equal(moduleNamesOf(file, isPkg), o.modules, `module names of ${file}`);
      const lines = splitLines(text);
      assertEvidenceChecks(root, got.imports.map((imp) => makeEvidence(file, lines, imp.start, imp.end, 'import', imp.module ?? imp.names[0])));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
