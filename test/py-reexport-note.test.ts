// find_symbol's note on a Python name a package only re-exports
// (docs/tools.md, find_symbol, Notes), on a real index of a small package:
// a star import, `from P import N`, an alias (`import K as N`), a chain of
// packages, a statement over several lines, and a name from outside the
// index. Every line a note cites is the file's line; the call it names
// answers with the definition it names.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexOnce } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

const tmp = tempDir('py-reexport');
const repo = join(tmp, 'repo');

write(repo, {
  'pkg/__init__.py': 'from .sub import Thing\nfrom .sub import helper as assist\nfrom ._impl import *\nfrom outside import External\n',
  'pkg/sub/__init__.py': 'from .mod import Widget as Thing\nfrom .mod import (\n    Other,\n    helper,  # the public one\n)\n',
  'pkg/sub/mod.py': 'class Widget:\n    def run(self):\n        pass\n\n\nclass Other:\n    pass\n\n\n@staticmethod\ndef helper():\n    pass\n',
  'pkg/_impl.py': 'def star_made():\n    pass\n',
});

const { index, close } = indexOnce(repo, join(tmp, 'state'));

/** The file's line `n` (1-based), trimmed as a note quotes it. */
const lineOf = (path: string, n: number): string => readFileSync(join(repo, path), 'utf8').split('\n')[n - 1].trim();

/** Each `path:N (`text`)` a note quotes is line N of path. */
function assertQuotes(note: string): number {
  let n = 0;
  for (const m of note.matchAll(/([\w/.]+\.py):(\d+) \(`([^`]*)`\)/g)) { assert.is(lineOf(m[1], Number(m[2])), m[3]); n++; }
  return n;
}

async function noteOf(name: string): Promise<{ note: string; calls: Array<{ at: number; length: number; name: string; arguments: Record<string, unknown> }> }> {
  const r = await (await index()).runTool('find_symbol', { name });
  assert.is(r.total, 0);
  assert.is(r.notes?.length, 1, `one note for ${name}`);
  return { note: r.notes![0], calls: (r.note_calls ?? []) as never };
}

test('find_symbol: a star import names the statement and the definition, with the call that answers it', async () => {
  const { note, calls } = await noteOf('pkg.star_made');
  assert.is(note, 'no definition is named "pkg.star_made" (a re-export defines nothing): pkg.star_made is re-exported by pkg/__init__.py:3 (`from ._impl import *`); its definition: pkg._impl.star_made (pkg/_impl.py:1), which find_symbol pkg._impl.star_made answers');
  assert.is(assertQuotes(note), 1);
  assert.is(calls.length, 1);
  const c = calls[0];
  assert.equal({ name: c.name, arguments: c.arguments }, { name: 'find_symbol', arguments: { name: 'pkg._impl.star_made' } });
  assert.is(note.slice(c.at, c.at + c.length), 'find_symbol pkg._impl.star_made');
  const answered = await (await index()).runTool('find_symbol', c.arguments as { name: string });
  assert.equal(answered.evidence.map((e) => `${e.path}:${e.start_line}`), ['pkg/_impl.py:1']);
});

test('find_symbol: an alias through a chain of packages names each hop, as the file writes it', async () => {
  const { note, calls } = await noteOf('pkg.Thing');
  assert.is(note, 'no definition is named "pkg.Thing" (a re-export defines nothing): pkg.Thing is re-exported by pkg/__init__.py:1 (`from .sub import Thing`), pkg.sub.Thing by pkg/sub/__init__.py:1 (`from .mod import Widget as Thing`); its definition: pkg.sub.mod.Widget (pkg/sub/mod.py:1), which find_symbol pkg.sub.mod.Widget answers');
  assert.is(assertQuotes(note), 2);
  assert.equal(calls.map((c) => c.arguments), [{ name: 'pkg.sub.mod.Widget' }]);
  // A member of the re-exported class, and an alias whose next hop is a statement over several lines (the line naming it is cited).
  assert.match((await noteOf('pkg.Thing.run')).note, /its definition: pkg\.sub\.mod\.Widget\.run \(pkg\/sub\/mod\.py:2\)/);
  const assist = (await noteOf('pkg.assist')).note;
  assert.is(assertQuotes(assist), 2);
  assert.match(assist, /pkg\.assist is re-exported by pkg\/__init__\.py:2 \(`from \.sub import helper as assist`\), pkg\.sub\.helper by pkg\/sub\/__init__\.py:4 \(`helper,  # the public one`\); its definition: pkg\.sub\.mod\.helper \(pkg\/sub\/mod\.py:10\)/);
});

test('find_symbol: a name from outside the index is said to be; no re-export, or a definition found, gets no note', async () => {
  const { note, calls } = await noteOf('pkg.External');
  assert.is(note, 'no definition is named "pkg.External" (a re-export defines nothing): pkg.External is re-exported by pkg/__init__.py:4 (`from outside import External`); outside.External is not in the index (a package outside the repository, or a file left out)');
  assert.is(calls.length, 0);
  const i = await index();
  assert.is((await i.runTool('find_symbol', { name: 'pkg.nothing' })).notes, undefined);
  const found = await i.runTool('find_symbol', { name: 'pkg.sub.mod.Widget' });
  assert.is(found.total, 1);
  assert.is(found.notes, undefined);
  // The suggestions follow the alias too.
  assert.equal((await i.runTool('find_symbol', { name: 'pkg.Thing' })).suggestions?.[0]?.name, 'pkg.sub.mod.Widget');
});

test.after(async () => { await close(); cleanupTemp(); });

test.run();
