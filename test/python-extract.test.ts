// extractPython and importTargets on hand-written cases with exact expected
// answers for the tricky rules (docs/tools.md), each also put before the
// independent oracle built on Python's own `ast` (test/oracle/py_oracle.py),
// which must agree. The same comparison over whole corpora (the standard
// library, site-packages, fixtures/) is python-corpora.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { extractPython } from '../indexer/python/extract.js';
import { blankStatements } from '../indexer/python/prelex.js';
import { importTargets } from '../indexer/python/modules.js';
import { decodeText, splitLines } from '../indexer/text.js';
import { makeEvidence } from '../indexer/evidence.js';
import type { PyExtract, PyImport } from '../indexer/model.js';
import { listPyFiles, runPyOracle, stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { tempDir, write } from './helpers/fs.js';

/** Every test here compares with the ast oracle: without python3 they are skipped. */
const pyTest = testUnless(lacks.python3());

// ---------------------------------------------------------------------------
// Hand-written cases: exact answers, written from docs/tools.md. Each file is
// also put before the oracle, which must give the same answer, so these double
// as tests of the oracle itself.

type D = [kind: string, qualname: string, start: number, end: number];
const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;

/** Writes files into a fresh temp folder, runs fn, removes the folder. */
function withRepo(files: Record<string, string | Buffer>, fn: (root: string) => void): void {
  const root = tempDir('pyx');
  try {
    write(root, files);
    fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const asD = (d: { kind: string; qualname: string; start: number; end: number }): string => `${d.kind} ${d.qualname} ${d.start}-${d.end}`;

/** Asserts extractPython's defs (and the oracle's) equal `want`, and that they are valid evidence spans. */
function checkDefs(source: string | Buffer, want: D[], opts: { oracleOk?: boolean } = {}): PyExtract {
  let got: PyExtract = { defs: [], imports: [] };
  withRepo({ 'm.py': source }, (root) => {
    const text = decodeText(readFileSync(join(root, 'm.py')));
    got = extractPython(text);
    const expected = want.map(([kind, qualname, start, end]) => `${kind} ${qualname} ${start}-${end}`).sort();
    assert.equal(got.defs.map(asD).sort(), expected, 'extractPython');
    for (const d of got.defs) assert.is(d.name, d.qualname.split('.').pop(), `simple name of ${d.qualname}`);
    const ls = splitLines(text);
    assertEvidenceChecks(root, got.defs.map((d) => makeEvidence('m.py', ls, d.start, d.end, d.kind, d.qualname)));
    const [oracle] = runPyOracle(root, ['m.py']);
    assert.is(oracle.ok, opts.oracleOk ?? true, 'ast.parse verdict');
    if (oracle.ok) assert.equal(oracle.defs.map(asD).sort(), expected, 'oracle');
  });
  return got;
}

pyTest('definitions: decorators, async def, nesting, methods inside if/try in a class body, trailing comments', () => {
  const got = checkDefs(lines(
    'import os', //                                   1
    '',
    '@decorator', //                                  3
    '@other(',
    '    arg)',
    'async def handler(x):', //                       6
    '    def inner():',
    '        class Local:',
    '            def m(self):',
    '                return 1', //                    10
    '        return Local',
    '    # a comment inside the body',
    '    return inner', //                            13
    '    # trailing comment, not part of the span',
    '',
    '# module comment',
    'class Server:', //                               17
    '    port: int = 80',
    '    host: str',
    '    if True:', //                                20
    '        def run(self):',
    '            pass',
    '    else:',
    '        timeout = 3',
    '    try:', //                                    25
    '        import json',
    '    except ImportError:',
    '        json = None',
    '    @dataclass',
    '    class Inner:', //                            30
    '        a = b = 1',
    '        @staticmethod',
    '        def sm():',
    '            local = 1',
    '    count += 1', //                              35
    '    def __init__(self):',
    '        self.y = 2',
    '        z = 3',
  ), [
    ['function', 'handler', 3, 13], ['function', 'handler.inner', 7, 11],
    ['class', 'handler.inner.Local', 8, 10], ['method', 'handler.inner.Local.m', 9, 10],
    ['class', 'Server', 17, 38], ['variable', 'Server.port', 18, 18], ['variable', 'Server.host', 19, 19],
    ['method', 'Server.run', 21, 22], ['variable', 'Server.timeout', 24, 24], ['variable', 'Server.json', 28, 28],
    ['class', 'Server.Inner', 29, 34], ['variable', 'Server.Inner.a', 31, 31], ['variable', 'Server.Inner.b', 31, 31],
    ['method', 'Server.Inner.sm', 32, 34], ['variable', 'Server.count', 35, 35], ['method', 'Server.__init__', 36, 38],
  ]);
  assert.equal(got.imports, [
    { start: 1, end: 1, isFrom: false, level: 0, module: null, names: ['os'] },
    { start: 26, end: 26, isFrom: false, level: 0, module: null, names: ['json'] },
  ]);
});

pyTest('variables: unpacking, chained and augmented assignment, scopes, what is not a variable', () => {
  checkDefs(lines(
    'a, (b, *c) = [d, e] = range(5)', //              1
    'x[0] = 1',
    'obj.attr = 2',
    'for i in range(3):',
    '    inside_for = i', //                          5
    'else:',
    '    after_for = 0',
    'with open(__file__) as fh:',
    '    in_with = fh',
    'if (w := 5):', //                                10
    '    pass',
    'global g',
    'z = 1; z += 2',
    'q = q = 1',
    'data = {', //                                    15
    "    'k': 1,",
    '}  # comment',
    'while False:',
    '    in_while = 1',
    'match z:', //                                    20
    '    case 1:',
    '        in_case = 1',
    '    case _:',
    '        pass',
    'def f():', //                                    25
    '    local = 1',
    '    class C:',
    '        x = 1',
    '        def g(self):',
    '            y = 2', //                           30
    '    return C',
    '(p) = 1',
    '[r] = [1]',
    't: int',
    'u.v: int = 3', //                                35
    'try:',
    '    pass',
    'except* ValueError:',
    '    in_except_star = 1',
    'finally:', //                                    40
    '    in_finally = 1',
  ), [
    ['variable', 'a', 1, 1], ['variable', 'b', 1, 1], ['variable', 'c', 1, 1], ['variable', 'd', 1, 1], ['variable', 'e', 1, 1],
    ['variable', 'inside_for', 5, 5], ['variable', 'after_for', 7, 7], ['variable', 'in_with', 9, 9],
    ['variable', 'z', 13, 13], ['variable', 'z', 13, 13], ['variable', 'q', 14, 14], ['variable', 'data', 15, 17],
    ['variable', 'in_while', 19, 19], ['variable', 'in_case', 22, 22],
    ['function', 'f', 25, 31], ['class', 'f.C', 27, 30], ['variable', 'f.C.x', 28, 28], ['method', 'f.C.g', 29, 30],
    ['variable', 'p', 32, 32], ['variable', 'r', 33, 33], ['variable', 't', 34, 34],
    ['variable', 'in_except_star', 39, 39], ['variable', 'in_finally', 41, 41],
  ]);
});

pyTest('spans: CRLF, BOM, no final newline, multi-line strings, NFKC names', () => {
  checkDefs(Buffer.from('\ufeffimport os\r\nclass \u00c4:\r\n    \ufb01le = 1\r\n    def m(self):\r\n        """doc\r\n        more"""', 'utf8'), [
    ['class', '\u00c4', 2, 6], ['variable', '\u00c4.file', 3, 3], ['method', '\u00c4.m', 4, 6],
  ]);
});

pyTest('a line break inside brackets followed by a dedented line (tree-sitter scanner gap) keeps the body whole', () => {
  checkDefs(lines(
    'def f():',
    '    (bar.',
    '  baz)',
    '    x = (1 +  # comment',
    '0)',
    "    s = 'it''s' \"\"\"(\"\"\"",
    '    return x',
    'y = 2',
  ), [['function', 'f', 1, 7], ['variable', 'y', 8, 8]]);
  // The same with CRLF line ends and an explicit continuation already inside the brackets.
  checkDefs(['def f():', '    (bar. \\', '  baz.', '  qux)', '    return 1', 'y = 2', ''].join('\r\n'),
    [['function', 'f', 1, 5], ['variable', 'y', 6, 6]]);
});

pyTest('bracket groups parsed as blanks keep every target, import name and span', () => {
  // extractPython parses a copy with the inside of outermost bracket groups
  // blanked; these are the groups it must keep, and spans that end in one.
  checkDefs(lines(
    '(a, b) = f(1,', //                               1
    '          2)',
    '[c, *d] = g[',
    '    0]',
    '(e): int = 1', //                                5
    '(h) += 1',
    '(i, j) \\',
    '    = 3, 4',
    'k = (',
    '    1 +', //                                     10
    '  2)',
    'def m(x=(1,',
    '        2), *, y={}) -> dict[str, int]:',
    '    return {',
    "        'n': [o for o in x]}", //               15
    '@dec(arg=[1,',
    '  2])',
    'class P(Base, metaclass=M):',
    '    q = r[',
    '      1:2]', //                                  20
    "    s = f'{t(1)}' if u(2) else (v)",
    'w, (z) = 1, 2',
  ), [
    ['variable', 'a', 1, 2], ['variable', 'b', 1, 2], ['variable', 'c', 3, 4], ['variable', 'd', 3, 4],
    ['variable', 'e', 5, 5], ['variable', 'h', 6, 6], ['variable', 'i', 7, 8], ['variable', 'j', 7, 8],
    ['variable', 'k', 9, 11], ['function', 'm', 12, 15], ['class', 'P', 16, 21], ['variable', 'P.q', 19, 20],
    ['variable', 'P.s', 21, 21], ['variable', 'w', 22, 22], ['variable', 'z', 22, 22],
  ]);
  const got = checkDefs(lines(
    'from a import (b,',
    '    c as d)',
    'if True: from e import (f)',
    'import g; from h import (i); j = k(1)',
  ), [['variable', 'j', 4, 4]]);
  assert.equal(got.imports.map((i) => `${i.start}-${i.end} ${i.module} ${i.names.join(',')}`),
    ['1-2 a b,c', '3-3 e f', '4-4 null g', '4-4 h i']);
});

pyTest('statement lines that hold nothing countable are removed before parsing; every target, import and span is kept', () => {
  // extractPython also parses with simple statements removed (line breaks kept)
  // when they are not their block's last statement and, outside function
  // bodies, have no `=` or `:` outside brackets and strings; comment lines go too.
  const src = [
    '"""Module docstring: x = 1, y: int', //          1
    'def not_a_def(): pass',
    '"""',
    'import os  # an import',
    '# a comment line', //                            5
    'print(f"{os.sep!r:>{10}} {\'a\' + \'b\'}")',
    'value = f"{\'=\' if os else \':\'}"',
    'total = 1 + \\',
    '    2',
    'run(lambda a: a,', //                            10
    '    key=1)',
    '(walrus := 5)',
    'annotated: dict[',
    '    str, int] = {}',
    'bare: int', //                                   15
    '@decorate(option=[1,',
    '          2], flag=True)',
    'def f(a: int,',
    '      b: str = \'x\') -> None:',
    '    """Docstring with \'quotes\' and "more" and a # hash.', // 20
    '    x = 1',
    '    """',
    '    # comment in a body',
    '    local = compute(a)',
    '    if (n := len(b)) > 1: return n', //          25
    '    other = \\',
    '        3',
    '    raise ValueError(f\'{a!r} "{b}"\')',
    '    def inner():',
    '        return 1', //                            30
    '    assert inner, \'msg\'',
    '    return local',
    'class C:',
    '    "class doc"',
    '    attr = 1', //                                35
    '    note: str = \'x\'; print(2)',
    '    helper(1)',
    '    def m(self):',
    '        self.x = 1',
    '        async def g(): pass', //                 40
    '        return self.x',
    '    match = 3',
    '    final()',
    'tail = 2',
    'call()', //                                      45
  ];
  const want: D[] = [
    ['variable', 'value', 7, 7], ['variable', 'total', 8, 9], ['variable', 'annotated', 13, 14], ['variable', 'bare', 15, 15],
    ['function', 'f', 16, 32], ['function', 'f.inner', 29, 30], ['class', 'C', 33, 43], ['variable', 'C.attr', 35, 35],
    ['variable', 'C.note', 36, 36], ['method', 'C.m', 38, 41], ['function', 'C.m.g', 40, 40], ['variable', 'C.match', 42, 42],
    ['variable', 'tail', 44, 44],
  ];
  const removedRows = [1, 2, 3, 5, 6, 10, 11, 12, 20, 21, 22, 23, 24, 26, 27, 28, 31, 34, 37, 39];
  for (const eol of ['\n', '\r\n']) {
    const text = src.join(eol) + eol;
    // The rule itself: exactly these rows are emptied, none added or lost.
    const out = blankStatements(text);
    assert.ok(out !== null, 'something is removed');
    const before = splitLines(text);
    const after = splitLines(out!);
    assert.is(after.length, before.length, 'rows unchanged');
    const emptied = before.flatMap((l, i) => (l.trim() !== '' && after[i] === '' ? [i + 1] : []));
    assert.equal(emptied, removedRows, `removed rows (${JSON.stringify(eol)})`);
    before.forEach((l, i) => { if (after[i] !== '') assert.is(after[i], l, `row ${i + 1} kept as it was`); });
    // What extractPython reports from it: exact answers, agreed by the oracle.
    const got = checkDefs(text, want);
    assert.equal(got.imports.map((i) => `${i.start}-${i.end} ${i.module ?? ''} ${i.names.join(',')}`), ['4-4  os']);
  }
  // Layouts it does not risk: tab indentation, an unterminated string, unbalanced brackets.
  assert.is(blankStatements('def f():\n\tx = 1\n\treturn x\n'), null, 'tabs');
  assert.is(blankStatements('def f():\n    x = "abc\n    return x\n'), null, 'unterminated string');
  assert.is(blankStatements('def f():\n    x = (1,\n    return x\n'), null, 'unclosed bracket');
  assert.is(blankStatements('def f():\n    x = 1)\n    return x\n'), null, 'stray closer');
  // A block's last statement always stays, so every end line is kept.
  assert.is(blankStatements('def f():\n    g()\nclass C:\n    h()\n'), null, 'only last statements');
});

pyTest('syntax errors: extraction never throws and keeps what tree-sitter recovers', () => {
  checkDefs(lines(
    'def ok():',
    '    return 1',
    '',
    'def broken(:',
    '    pass',
    '',
    'class After:',
    '    x = 1',
  ), [['function', 'ok', 1, 2], ['function', 'broken', 4, 5], ['class', 'After', 7, 8], ['variable', 'After.x', 8, 8]], { oracleOk: false });
  for (const junk of ['', '((((', 'def', '\u0000\u0001\ufffd def', 'class :\n  x =', 'from . import (', '@\n', ')))\n\tdef f(:']) {
    const r = extractPython(junk);
    assert.ok(Array.isArray(r.defs) && Array.isArray(r.imports), JSON.stringify(junk));
    for (const d of [...r.defs, ...r.imports]) assert.ok(d.start >= 1 && d.end >= d.start, `span of ${JSON.stringify(d)}`);
  }
});

pyTest('imports: shapes, relative levels, multi-line, nested anywhere; targets agree with the oracle', () => {
  const src = lines(
    'from __future__ import annotations', //          1
    'import a.b as c, d',
    'from ..p import x as y',
    'from . import *',
    'from .mod import (', //                          5
    '    one,',
    '    two as deux,',
    ')',
    'import os.path',
    'def f():', //                                    10
    '    import json',
    'try:',
    '    from typing import TYPE_CHECKING',
    'except ImportError:',
    '    pass', //                                    15
    'if TYPE_CHECKING:',
    '    from collections import abc',
    'class K:',
    '    import re',
    'from ... import z', //                           20
    'from . . q import w',
    'from __future__ import *',
  );
  const imp = (start: number, end: number, isFrom: boolean, level: number, module: string | null, names: string[]): PyImport =>
    ({ start, end, isFrom, level, module, names });
  const want: [PyImport, string[]][] = [
    [imp(1, 1, true, 0, '__future__', ['annotations']), ['__future__', '__future__.annotations']],
    [imp(2, 2, false, 0, null, ['a.b', 'd']), ['a.b', 'd']],
    [imp(3, 3, true, 2, 'p', ['x']), ['pkg.p', 'pkg.p.x']],
    [imp(4, 4, true, 1, null, ['*']), ['pkg.sub']],
    [imp(5, 8, true, 1, 'mod', ['one', 'two']), ['pkg.sub.mod', 'pkg.sub.mod.one', 'pkg.sub.mod.two']],
    [imp(9, 9, false, 0, null, ['os.path']), ['os.path']],
    [imp(11, 11, false, 0, null, ['json']), ['json']],
    [imp(13, 13, true, 0, 'typing', ['TYPE_CHECKING']), ['typing', 'typing.TYPE_CHECKING']],
    [imp(17, 17, true, 0, 'collections', ['abc']), ['collections', 'collections.abc']],
    [imp(19, 19, false, 0, null, ['re']), ['re']],
    [imp(20, 20, true, 3, null, ['z']), ['z']], // climbs exactly to the root: just the name
    [imp(21, 21, true, 2, 'q', ['w']), ['pkg.q', 'pkg.q.w']],
    [imp(22, 22, true, 0, '__future__', ['*']), ['__future__']],
  ];
  const files = { 'pkg/__init__.py': '', 'pkg/sub/__init__.py': '', 'pkg/sub/imports.py': src };
  withRepo(files, (root) => {
    const rel = 'pkg/sub/imports.py';
    const got = extractPython(decodeText(readFileSync(join(root, rel))));
    assert.equal(got.imports, want.map(([i]) => i));
    assert.equal(got.defs.map(asD), ['function f 10-11', 'class K 18-19']);
    const isPkg = (dir: string): boolean => Object.hasOwn(files, `${dir}/__init__.py`);
    assert.equal(got.imports.map((i) => importTargets(i, rel, isPkg)), want.map(([, t]) => t));
    const ls = splitLines(src);
    assertEvidenceChecks(root, got.imports.map((i) => makeEvidence(rel, ls, i.start, i.end, 'import', i.module ?? i.names[0])));
    const oracle = runPyOracle(root, Object.keys(files)).find((o) => o.path === rel)!;
    assert.ok(oracle.ok);
    assert.equal(oracle.imports, want.map(([i, targets]) => ({ start: i.start, end: i.end, targets })));
  });
});

// Lone-CR line ends (issue 30, point 7): Python reads "\r" alone as a line end, so the
// definitions are the ones its parser sees; evidex's lines still split at "\n" only.
pyTest('lone-CR line ends: the structure Python sees, on evidex lines', () => {
  checkDefs('class CRBar:\r    def m(self): pass\r', [['class', 'CRBar', 1, 1], ['method', 'CRBar.m', 1, 1]]);
  checkDefs('import os\nclass A:\r    x = 1\r    def f(self):\r\n        return 2\rdef g():\n    pass\n', [
    ['class', 'A', 2, 3], ['variable', 'A.x', 2, 2], ['method', 'A.f', 2, 3], ['function', 'g', 3, 4],
  ]);
});

pyTest('lone-CR line ends on real code: standard-library modules with every "\\n" made "\\r" agree with ast', () => {
  const lib = stdlibRoot();
  const picked = listPyFiles(lib).filter((_, i) => i % 40 === 0).slice(0, 40);
  const root = tempDir('pycr');
  try {
    const files: Record<string, Buffer> = {};
    picked.forEach((f, i) => { files[`f${i}.py`] = Buffer.from(readFileSync(join(lib, f), 'latin1').replace(/\r?\n/g, '\r'), 'latin1'); });
    write(root, files);
    const names = Object.keys(files);
    const oracle = runPyOracle(root, names);
    let compared = 0;
    oracle.forEach((o, i) => {
      if (!o.ok) return;
      const got = extractPython(decodeText(readFileSync(join(root, names[i])))).defs.map(asD).sort();
      assert.equal(got, o.defs.map(asD).sort(), `${picked[i]} with lone CRs`);
      compared++;
    });
    assert.ok(compared >= 20, `${compared} modules compared`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
