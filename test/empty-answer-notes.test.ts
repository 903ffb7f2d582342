// Notes on answers the rules leave empty (docs/tools.md, Notes), on a real
// index of a small tree shaped like express and pydantic: a name JavaScript
// only assigns a function to, a suggestion whose definitions differ in kind,
// and a Python module of the tree's own package whose file is gone. Each
// place a note quotes is the file's line; each item is checkable evidence.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatSuggestions } from '../client/suggestions.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { indexOnce } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

const tmp = tempDir('empty-notes');
const repo = join(tmp, 'repo');

write(repo, {
  'lib/response.js': [
    "'use strict';", 'var res = Object.create(null);', '',
    'res.send = function send(body) {', '  return body;', '};', '',
    'res.json = (obj) => res.send(obj);', '',
    '// res.status = function status(code) {} is only a comment here', 'res.sendStatus = 1;',
    'module.exports = res;', '',
  ].join('\n'),
  'lib/request.js': ['var req = Object.create(null);', 'req.get = req.header = function header(name) {', '  return name;', '};', 'module.exports = req;', ''].join('\n'),
  'lib/view.js': ['module.exports = View;', '', 'function View(name) {', '  this.name = name;', '}', '', 'View.prototype.lookup = function lookup(name) {', '  return name;', '};', ''].join('\n'),
  'lib/application.js': ["var View = require('./view');", 'exports.View = View;', ''].join('\n'),
  'lib/other.js': ['function View() {}', 'function View2() {}', 'exports.View = View;', ''].join('\n'),
  'pydantic/__init__.py': 'from .main import BaseModel\nfrom .root_model import RootModel\nfrom .main import *\n',
  'lib/express.js': 'exports.app = 1;\n',
  'index.js': "'use strict';\n\nmodule.exports = require('./lib/express');\n",
  'examples/hello.js': "var express = require('../lib/express');\n",
  'web/a.ts': 'export const a = 1;\n',
  'web/index.ts': "export * from './a';\n",
  'web/use.ts': "import { a } from './index';\n",
  'pydantic/main.py': 'class BaseModel:\n    pass\n',
  'pydantic/root_model.py': 'from .main import BaseModel\n\n\nclass RootModel(BaseModel):\n    pass\n',
  'tests/test_root.py': 'import pydantic.root_model\nimport requests.adapters\n',
});

const { index, close } = indexOnce(repo, join(tmp, 'state'));

/** The file's line `n` (1-based). */
const lineOf = (path: string, n: number): string => readFileSync(join(repo, path), 'utf8').split('\n')[n - 1];

test('find_symbol: a name only assigned a function is said to be, where, with the search that lists such lines', async () => {
  const i = await index();
  const send = await i.runTool('find_symbol', { name: 'res.send' });
  assert.is(send.total, 0);
  assert.equal(send.notes, [`res.send is assigned at lib/response.js:4 (\`${lineOf('lib/response.js', 4)}\`), which is not a definition (docs/tools.md): search_code "res.send =" lists such lines`]);
  assert.is(lineOf('lib/response.js', 4), 'res.send = function send(body) {');
  // An arrow function, a prototype method asked as A.b, and one of two targets assigned on one line.
  assert.match((await i.runTool('find_symbol', { name: 'res.json' })).notes?.[0] ?? '', /^res\.json is assigned at lib\/response\.js:8 \(`res\.json = \(obj\) => res\.send\(obj\);`\)/);
  assert.match((await i.runTool('find_symbol', { name: 'View.lookup' })).notes?.[0] ?? '', /^View\.lookup is assigned at lib\/view\.js:7 \(`View\.prototype\.lookup = function lookup\(name\) \{`\)/);
  assert.match((await i.runTool('find_symbol', { name: 'req.get' })).notes?.[0] ?? '', /^req\.get is assigned at lib\/request\.js:2 /);
  // A simple name: every `X.header =` line; the search named is `.header =`.
  assert.equal((await i.runTool('find_symbol', { name: 'header' })).notes,
    [`header is assigned at lib/request.js:2 (\`${lineOf('lib/request.js', 2)}\`), which is not a definition (docs/tools.md): search_code ".header =" lists such lines`]);
  // Not a function (a number), a comment, a name nothing assigns: no note.
  assert.is((await i.runTool('find_symbol', { name: 'res.sendStatus' })).notes, undefined);
  assert.is((await i.runTool('find_symbol', { name: 'res.status' })).notes, undefined);
  assert.is((await i.runTool('find_symbol', { name: 'res.nothing' })).notes, undefined);
  // A name that finds a definition gets no note.
  const view = await i.runTool('find_symbol', { name: 'View' });
  assert.ok(view.total > 0);
  assert.is(view.notes, undefined);
  assertEvidenceChecks(repo, view.evidence);
});

test('find_symbol: a suggestion whose definitions differ in kind carries the count of each, and the CLI line says them', async () => {
  const r = await (await index()).runTool('find_symbol', { name: 'View', kind: 'class' });
  assert.is(r.total, 0);
  const s = r.suggestions?.[0];
  assert.equal({ ...s }, { name: 'View', why: 'filtered_out', kind: 'variable', path: 'lib/application.js', line: 1, count: 3, kinds: { variable: 1, function: 2 } });
  assert.is(lineOf('lib/application.js', 1), "var View = require('./view');");
  assert.is(formatSuggestions(r, (p) => p, { kind: 'class', outside: 'outside --path-prefix' })?.plain,
    'did you mean: View (a variable and 2 functions, not a class, lib/application.js:1), View2 (spelt alike, lib/other.js:2)');
  // One kind: no kinds, worded as before.
  const one = await (await index()).runTool('find_symbol', { name: 'View2', kind: 'class' });
  assert.equal({ ...one.suggestions?.[0] }, { name: 'View2', why: 'filtered_out', kind: 'function', path: 'lib/other.js', line: 2 });
  assert.match(formatSuggestions(one, (p) => p, { kind: 'class', outside: 'outside --path-prefix' })?.plain ?? '', /^did you mean: View2 \(a function, not a class, lib\/other\.js:2\)/);
});

test('find_importers: a module of the tree\'s own package that no file is any more is said to be; a third-party one is not', async () => {
  const i = await index();
  rmSync(join(repo, 'pydantic/root_model.py'));
  await i.update(['pydantic/root_model.py']);
  const r = await i.runTool('find_importers', { module_name: 'pydantic.root_model' });
  assert.is(r.total, 2);
  assert.equal(r.notes, ['no indexed file is module pydantic.root_model (the statements below import a module the tree does not hold)']);
  assertEvidenceChecks(repo, r.evidence);
  assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line} ${e.snippet}`), ['pydantic/__init__.py:2 from .root_model import RootModel', 'tests/test_root.py:1 import pydantic.root_model']);
  const third = await i.runTool('find_importers', { module_name: 'requests.adapters' });
  assert.is(third.total, 1);
  assert.is(third.notes, undefined);
  assert.is((await i.runTool('find_importers', { module_name: 'pydantic.main' })).notes, undefined);
});

test('find_importers --via-reexports that followed no chain says what the rules follow, and names the file passing the module on in a form they do not', async () => {
  const i = await index();
  const js = await i.runTool('find_importers', { module_name: 'lib/express.js', via_reexports: true });
  assert.equal(js.evidence.map((e) => `${e.path}:${e.start_line} ${e.snippet}`), ["examples/hello.js:1 var express = require('../lib/express');", "index.js:3 module.exports = require('./lib/express');"]);
  assertEvidenceChecks(repo, js.evidence);
  assert.equal(js.notes, ['via_reexports follows only `export … from` in TypeScript and JavaScript, and no statement here came through one; this file passes the module on in a form it does not follow (a Python star import, `module.exports = require(…)`): index.js:3, whose importers find_importers index.js finds']);
  const py = await i.runTool('find_importers', { module_name: 'pydantic.main', via_reexports: true });
  assertEvidenceChecks(repo, py.evidence);
  assert.is(lineOf('pydantic/__init__.py', 3), 'from .main import *');
  assert.match(py.notes?.join('\n') ?? '', /this file passes the module on in a form it does not follow \(a Python star import, `module\.exports = require\(…\)`\): pydantic\/__init__\.py:3, whose importers find_importers pydantic finds/);
  // Nothing passes it on: the rule alone; a chain followed: no note; the flag not given: no note.
  assert.equal((await i.runTool('find_importers', { module_name: 'web/use.ts', via_reexports: true })).notes, ['via_reexports follows only `export … from` in TypeScript and JavaScript, and no statement here came through one']);
  const ts = await i.runTool('find_importers', { module_name: 'web/a.ts', via_reexports: true });
  assert.equal(ts.evidence.map((e) => `${e.path}:${e.start_line} ${(e.via ?? []).join(',')}`), ['web/index.ts:1 ', 'web/use.ts:1 web/index.ts']);
  assert.is(ts.notes, undefined);
  assert.is((await i.runTool('find_importers', { module_name: 'lib/express.js' })).notes, undefined);
});

test.after(async () => { await close(); cleanupTemp(); });

test.run();
