// find_importers' notes through openIndex on a real tree (docs/tools.md,
// find_importers): the repository's own package name, which its own files
// never import by that name, names its `main` file and how many statements
// import that file, the count being what find_importers of that file answers;
// mistyped, that name and the package names statements write are suggested.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, write } from './helpers/fs.js';
import { importersIndexOf as indexOf } from './helpers/importers-index.js';

test("the repository's own package name names its main file and that file's importers", async () => {
  const { root, idx, call } = await indexOf({
    'package.json': JSON.stringify({ name: 'tinyexp', main: 'lib/entry.js' }),
    'lib/entry.js': 'module.exports = function tiny() {};\n',
    'test/a.js': "const tiny = require('../lib/entry');\n",
    'test/b.js': "const tiny = require('../lib/entry.js');\nconst other = require('left-pad');\n",
  });
  const byFile = await call({ module_name: 'lib/entry.js' });
  assert.is(byFile.total, 2);
  const byName = await call({ module_name: 'tinyexp' });
  assert.is(byName.total, 0, 'matching stays by the specifier as written');
  assert.equal(byName.notes, [
    `no statement imports "tinyexp" by that name; it is this repository's own package "tinyexp": lib/entry.js, which 2 statements import: find_importers lib/entry.js`,
  ]);
  assert.is(byName.suggestions, undefined, 'the note says what the name is; no near misses');
  // A subpath of the package that names no file of it is said to be none; a near miss is still suggested beside it.
  const near = await call({ module_name: 'tinyexp/entyr' });
  assert.ok((near.notes ?? [])[0]?.startsWith('no statement imports "tinyexp/entyr", and no file of'), JSON.stringify(near.notes));
  assert.equal((await call({ module_name: 'tinyexp/nope' })).notes, [
    'no statement imports "tinyexp/nope", and no file of this repository\'s own package "tinyexp" is "nope" (as is or under src/, with a TypeScript or JavaScript extension or as a folder\'s index)',
  ]);
  // Mistyped, the repository's own package name is suggested, with its package.json; so is a package a statement writes.
  assert.equal((await call({ module_name: 'tinyexpp' })).suggestions, [{ name: 'tinyexp', why: 'edit', path: 'package.json' }]);
  assert.equal((await call({ module_name: 'left-pd' })).suggestions, [{ name: 'left-pad', why: 'edit' }]);
  // The package renamed on disk: the next answer knows it by its new name only (the packages are read again at a new generation).
  write(root, { 'package.json': JSON.stringify({ name: 'tinyexp-two', main: 'lib/entry.js' }) });
  await idx.refresh();
  assert.match((await call({ module_name: 'tinyexp-two' })).notes?.[0] ?? '', /^no statement imports "tinyexp-two" by that name; it is this repository's own package "tinyexp-two": lib\/entry\.js/);
  assert.is((await call({ module_name: 'tinyexp' })).notes, undefined);
  await idx.close();
});

test('a package name statements write but that resolves nowhere is not said to be imported by no statement', async () => {
  // A package nested below the root, which declares no workspaces: `require('nested-pkg')` reaches no file.
  const { idx, call } = await indexOf({
    'package.json': JSON.stringify({ name: 'outer' }),
    'sub/pkg/package.json': JSON.stringify({ name: 'nested-pkg', main: 'main.js' }),
    'sub/pkg/main.js': 'module.exports = 1;\n',
    'app.js': "const n = require('nested-pkg');\n",
  });
  const r = await call({ module_name: 'nested-pkg' });
  assert.is(r.total, 1, 'matched by the specifier as written');
  assert.equal(r.notes, [
    `the statements importing "nested-pkg" resolve to no file of the repository; it is package "nested-pkg" (sub/pkg): sub/pkg/main.js, which 0 statements import: find_importers sub/pkg/main.js`,
  ]);
  await idx.close();
});

test('a name some of whose statements resolve to a file and some nowhere says both', async () => {
  // a/ maps "@x/y" to lib/y.ts through paths; b/'s config does not, so there it is a package not in the tree.
  const { idx, call } = await indexOf({
    'a/tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@x/y': ['../lib/y.ts'] } } }),
    'a/main.ts': "import { y } from '@x/y';\n",
    'b/tsconfig.json': JSON.stringify({ compilerOptions: {} }),
    'b/main.ts': "import { y } from '@x/y';\nimport { z } from '@x/y';\n",
    'lib/y.ts': 'export const y = 1;\n',
  });
  const r = await call({ module_name: '@x/y' });
  assert.is(r.total, 3);
  assert.equal(r.notes, [
    '"@x/y" resolves to lib/y.ts, which 1 statement imports: find_importers lib/y.ts; 2 statements written "@x/y" resolve to no file of the repository',
  ]);
  await idx.close();
});

test('an external package has no note; a folder is refused as one', async () => {
  const { idx, call } = await indexOf({ 'package.json': JSON.stringify({ name: 'tinyexp' }), 'test/b.js': "const other = require('left-pad');\n" });
  assert.is((await call({ module_name: 'left-pad' })).notes, undefined);
  try {
    await idx.runTool('find_importers', { module_name: 'test' });
    assert.unreachable('a folder is refused');
  } catch (e) {
    assert.is((e as Error).message, '"test" is a folder, not a file; find_importers takes a file\'s path, a module or a package name');
  }
  await idx.close();
});

test.after(() => cleanupTemp());
test.run();
