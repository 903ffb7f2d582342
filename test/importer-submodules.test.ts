// find_importers' note on a Python module's submodules (docs/tools.md,
// find_importers, Notes), through openIndex on a real tree: a statement
// imports `pkg` only when one of its targets is `pkg`, so the statements that
// import `pkg.exceptions` are not in `pkg`'s answer; the note counts them,
// each statement once, under path_prefix as the answer is, and follows each
// save. The same note from the LMDB rows (warm-up not done) as from memory.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTemp, write } from './helpers/fs.js';
import { importersIndexOf as indexOf } from './helpers/importers-index.js';

const FILES = {
  'pkg/__init__.py': 'def run():\n    pass\n',
  'pkg/exceptions.py': 'class A(Exception): pass\n',
  'pkg/routing.py': 'def route(): pass\n',
  // One statement in pkg's answer, one with three targets under pkg (counted once), one naming a submodule.
  'app/a.py': 'from pkg import run\nfrom pkg.exceptions import A, B\nimport pkg.routing\n',
  // Two submodules in one statement: counted once, under the first in key order.
  'app/b.py': 'from pkg.exceptions import C\nimport pkg.routing, pkg.exceptions\n',
  // `from pkg import exceptions` has the target pkg.exceptions, but pkg too: in the answer, not "more".
  'lib/c.py': 'from pkg.exceptions import D\nfrom pkg import exceptions\n',
  // A package not in the tree, imported only through its submodules.
  'lib/d.py': 'from werkzeug.exceptions import HTTPException\nfrom werkzeug.routing import Map\nimport werkzeug.utils\nfrom werkzeug.http import parse\nfrom werkzeug.http import dump\n',
};

const PKG_NOTE = '5 more statements import modules under pkg (pkg.exceptions 4, pkg.routing 1); a statement imports pkg only when it names it: find_importers pkg.exceptions lists those';

test("a package's answer says how many statements import its submodules, each once, and which", async () => {
  const { idx, call } = await indexOf(FILES);
  const r = await call({ module_name: 'pkg' });
  assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line}`), ['app/a.py:1', 'lib/c.py:2']);
  assert.equal(r.notes, [PKG_NOTE]);
  // The call it names, as a call, where the note writes it.
  assert.equal(r.note_calls, [{ note: 0, at: PKG_NOTE.indexOf('find_importers'), length: 'find_importers pkg.exceptions'.length, name: 'find_importers', arguments: { module_name: 'pkg.exceptions' } }]);
  // The count it gives for pkg.exceptions is that answer's, less the one statement pkg's answer already holds.
  assert.is((await call({ module_name: 'pkg.exceptions' })).total, 4 + 1);
  // Under a path_prefix, as the answer is, and the call it names keeps the prefix (without it, pkg.exceptions lists 5).
  const app = await call({ module_name: 'pkg', path_prefix: 'app/' });
  assert.is(app.total, 1);
  assert.equal(app.note_calls?.map((c) => c.arguments), [{ module_name: 'pkg.exceptions', path_prefix: 'app/' }]);
  assert.equal(app.notes, ['4 more statements import modules under pkg (pkg.exceptions 3, pkg.routing 1); a statement imports pkg only when it names it: find_importers pkg.exceptions path_prefix "app/" lists those']);
  assert.is((await call({ module_name: 'pkg.exceptions', path_prefix: 'app/' })).total, 3, 'that call lists the 3 counted');
  assert.equal((await call({ module_name: 'pkg', path_prefix: 'lib/' })).notes,
    ['1 more statement imports modules under pkg (pkg.exceptions 1); a statement imports pkg only when it names it: find_importers pkg.exceptions path_prefix "lib/" lists it']);
  // Nothing under it left out: no note (pkg.exceptions' own statements all name it), nor for a module asked by its file's path.
  assert.is((await call({ module_name: 'pkg.exceptions' })).notes, undefined);
  assert.is((await call({ module_name: 'pkg/__init__.py' })).notes, undefined);
  // A package not in the tree that no statement names: the top three submodules, the rest as "…", no "more" on an empty answer.
  const ext = await call({ module_name: 'werkzeug' });
  assert.is(ext.total, 0);
  assert.equal(ext.notes, ['5 statements import modules under werkzeug (werkzeug.http 2, werkzeug.exceptions 1, werkzeug.routing 1, …); a statement imports werkzeug only when it names it: find_importers werkzeug.http lists those']);
  assert.is((await call({ module_name: 'werkzeug', path_prefix: 'app/' })).notes, undefined);
  // The same notes from the LMDB rows, as while warm-up still reads the symbol index.
  idx.store.symbolsReady = false;
  assert.equal((await call({ module_name: 'pkg' })).notes, [PKG_NOTE]);
  assert.equal((await call({ module_name: 'pkg', path_prefix: 'app/' })).notes?.[0]?.slice(0, 44), '4 more statements import modules under pkg (');
  assert.equal((await call({ module_name: 'werkzeug' })).notes, ext.notes);
  await idx.close();
});

test('the note follows each save: a statement under the package added, then taken away', async () => {
  const { root, idx, call } = await indexOf(FILES);
  const before = await call({ module_name: 'pkg' });
  write(root, { 'app/e.py': 'from pkg.routing import route\nfrom pkg.signals import sent\n' });
  await idx.refresh();
  const added = await call({ module_name: 'pkg' });
  assert.ok(added.generation > before.generation);
  assert.equal(added.notes, ['7 more statements import modules under pkg (pkg.exceptions 4, pkg.routing 2, pkg.signals 1); a statement imports pkg only when it names it: find_importers pkg.exceptions lists those']);
  rmSync(join(root, 'app/e.py'));
  write(root, { 'app/b.py': 'from pkg import routing\n' });
  await idx.refresh();
  const removed = await call({ module_name: 'pkg' });
  assert.is(removed.total, 3);
  assert.equal(removed.notes, ['3 more statements import modules under pkg (pkg.exceptions 2, pkg.routing 1); a statement imports pkg only when it names it: find_importers pkg.exceptions lists those']);
  await idx.close();
});

test.after(cleanupTemp);
test.run();
