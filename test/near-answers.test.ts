// Empty answers and refusals that point the way (docs/tools.md, Notes and
// Suggestions), on a real index of a small tree shaped like hono and flask:
// a name written as an import statement writes it (`hono-base`, `./hono-base`,
// `.globals`), a path with a line glued on or in another case, a deleted file
// that statements still import, an export alias, a class beside interfaces
// of one name, and a read whose first line alone fills the snippet. Each
// answer keeps its matching (the totals are what they were); every item is
// checked against the file's lines, and nothing ignored is ever named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp } from './helpers/fs.js';
import { importersIndexOf } from './helpers/importers-index.js';

test.after(cleanupTemp);

const FILES = {
  '.gitignore': 'hidden/\n',
  'hidden/secretive.ts': 'export const hidden = 1;\n',
  'hidden/hono-extra.ts': 'export const extra = 1;\n',
  'src/hono-base.ts': 'class Hono {\n  get() { return 1 }\n}\nexport { Hono as HonoBase }\n',
  'src/hono.ts': "import { HonoBase } from './hono-base'\nimport { HTTPException } from './http-exception'\nexport const app = new HonoBase()\n",
  'src/http-exception.ts': 'export class HTTPException extends Error {}\n',
  'src/utils/url.ts': 'export const url = 1\n',
  'src/middleware/auth.ts': "import { url } from '../utils/url'\nimport { HTTPException } from '../http-exception.js'\n// not an alias: as HonoBase\n",
  'src/context.ts': 'export class Context {\n  json = () => 1\n}\n',
  'src/jsx/context.ts': 'export interface Context {\n  value: number\n}\n',
  'src/helper/accepts/accepts.ts': 'export const accepts = 1\n',
  'wide.txt': `${'x'.repeat(99_000)}\nline two\nline three\n`,
  'pkg/__init__.py': '',
  'pkg/globals.py': 'g = 1\n',
  'pkg/app.py': 'from .globals import g\n',
};

async function fixture() {
  const ix = await importersIndexOf(FILES);
  const run = async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const r = await ix.idx.runTool(tool, args) as ToolResult;
    assertEvidenceChecks(ix.root, r.evidence);
    return r;
  };
  const refusal = async (tool: string, args: Record<string, unknown>): Promise<string> => {
    try { await ix.idx.runTool(tool, args); } catch (e) { return `${(e as { code: string }).code}: ${(e as Error).message}`; }
    throw new Error(`${tool} ${JSON.stringify(args)} was answered`);
  };
  return { ...ix, run, refusal };
}

test('a name written as a statement writes a file, bare or relative, names the file it can be', async () => {
  const { idx, call, refusal } = await fixture();
  assert.is((await call({ module_name: 'src/hono-base.ts' })).total, 1, 'the file is imported once');
  const bare = await call({ module_name: 'hono-base' });
  assert.is(bare.total, 0, 'matching is unchanged: no statement writes the package "hono-base"');
  assert.equal(bare.notes, ['"hono-base" is matched as a package name, which no statement imports; an import of a file of the repository (`./hono-base`) is matched by the file\'s path: find_importers src/hono-base.ts']);
  assert.equal(bare.suggestions, [{ name: 'src/hono-base.ts', why: 'tail', path: 'src/hono-base.ts' }]);
  const url = await call({ module_name: 'utils/url' });
  assert.equal(url.notes, ['"utils/url" is matched as a package name, which no statement imports; an import of a file of the repository (`./url`) is matched by the file\'s path: find_importers src/utils/url.ts']);
  // Two files written `context`: both named, the shorter path first; an ignored file never is.
  assert.match((await call({ module_name: 'context' })).notes?.[0] ?? '', /: find_importers src\/context\.ts \(or src\/jsx\/context\.ts\)$/);
  assert.not.match(JSON.stringify(await call({ module_name: 'hono-extra' })), /hidden/);
  // Relative: refused in words about what was asked, with the file.
  assert.is(await refusal('find_importers', { module_name: './hono-base' }),
    'not_indexed: "./hono-base" names no indexed file from the repository root; read as an import statement\'s relative specifier, the file it names depends on the importing file, and find_importers takes that file\'s repository path; did you mean: file src/hono-base.ts');
  assert.match(await refusal('find_importers', { module_name: './zzqq' }), /takes that file's repository path \(such as src\/lib\/log\.ts\)$/);
  await idx.close();
});

test('a Python relative module says it depends on the importing file and names the absolute module', async () => {
  const { idx, call } = await fixture();
  assert.is((await call({ module_name: 'pkg.globals' })).total, 1);
  for (const m of ['.globals', '..globals']) {
    const r = await call({ module_name: m });
    assert.is(r.total, 0);
    assert.equal(r.notes, [`${JSON.stringify(m)} is a relative import: the module it names depends on the importing file's package, and statements are matched by the absolute module: find_importers pkg.globals`]);
    assert.equal(r.suggestions?.[0], { name: 'pkg.globals', why: 'tail', path: 'pkg/globals.py' });
  }
  await idx.close();
});

test('a deleted file that statements still import counts them, as the compiler would resolve them', async () => {
  const { idx, root, call } = await fixture();
  const before = await call({ module_name: 'src/http-exception.ts' });
  assert.is(before.total, 2);
  rmSync(join(root, 'src/http-exception.ts'));
  await idx.refresh();
  const after = await call({ module_name: 'src/http-exception.ts' });
  assert.is(after.total, 0, 'matching is unchanged');
  assert.equal(after.notes, ['no such file: src/http-exception.ts; no statement imports it; '
    + '2 statements that resolve to no file now would resolve to that path if a file were there: src/hono.ts:2 and src/middleware/auth.ts:2 (`evidex index --unresolved` lists every unresolved statement)']);
  // A path no statement names: as before.
  assert.equal((await call({ module_name: 'src/nope.ts' })).notes, ['no such file: src/nope.ts; no statement imports it']);
  assert.equal((await call({ module_name: 'nopkg/nope.ts' })).notes, ['no indexed file is at that path; read as a package subpath, it is imported by no statement']);
  await idx.close();
});

test('find_symbol: an export alias names its definition; a class beside interfaces of one name is named', async () => {
  const { idx, run } = await fixture();
  const alias = await run('find_symbol', { name: 'HonoBase' });
  assert.is(alias.total, 0, 'an export alias defines nothing');
  assert.equal(alias.notes, ['no definition is named "HonoBase" (an export alias defines nothing): HonoBase is an export alias of Hono (src/hono-base.ts:4); its definition: Hono (src/hono-base.ts:1)']);
  // The definition it names is what find_symbol answers for it.
  const hono = await run('find_symbol', { name: 'Hono' });
  assert.equal(hono.evidence.map((e) => `${e.path}:${e.start_line}`), ['src/hono-base.ts:1']);
  // A comment that writes `as HonoBase` is no alias; a name nothing writes gets no note.
  assert.is((await run('find_symbol', { name: 'NoSuchThing' })).notes, undefined);
  const member = await run('find_symbol', { name: 'Context.jsn' });
  assert.equal(member.notes, ['no definition is named "Context.jsn": Context is a class at src/context.ts:1 (whose members are definitions; none is named "jsn"), and an interface (src/jsx/context.ts:1), and the members of an interface or a type alias are not definitions: read them among its lines']);
  assert.equal(member.suggestions?.[0], { name: 'Context.json', why: 'edit', kind: 'variable', path: 'src/context.ts', line: 2 });
  await idx.close();
});

test('read_evidence: a path with a line glued on, in another case or without its folder is answered with the indexed path', async () => {
  const { idx, refusal } = await fixture();
  const generic = (p: string): string => `not_indexed: ${JSON.stringify(p)} is not in the index (missing, ignored, binary or too large)`;
  assert.is(await refusal('read_evidence', { path: 'src/hono.ts:10', start_line: 1 }), `${generic('src/hono.ts:10')}; did you mean path "src/hono.ts" with start_line 10?`);
  assert.is(await refusal('read_evidence', { path: 'src/hono.ts#L2-L3', start_line: 1 }), `${generic('src/hono.ts#L2-L3')}; did you mean path "src/hono.ts" with start_line 2?`);
  assert.is(await refusal('read_evidence', { path: 'SRC/hono.ts', start_line: 1 }), `${generic('SRC/hono.ts')}; did you mean path "src/hono.ts"?`);
  assert.is(await refusal('read_evidence', { path: 'src/Hono.ts', start_line: 1 }), `${generic('src/Hono.ts')}; did you mean path "src/hono.ts"?`);
  assert.is(await refusal('read_evidence', { path: 'accepts.ts', start_line: 1 }), `${generic('accepts.ts')}; did you mean path "src/helper/accepts/accepts.ts"?`);
  assert.is(await refusal('read_evidence', { path: 'context.ts', start_line: 1 }), `${generic('context.ts')}; did you mean one of the files of that name: "src/context.ts", "src/jsx/context.ts"?`);
  // An ignored file is never suggested, and a path near nothing gets the refusal as it was.
  assert.is(await refusal('read_evidence', { path: 'secretive.ts', start_line: 1 }), generic('secretive.ts'));
  assert.not.match(await refusal('read_evidence', { path: 'hidden/Secretive.ts', start_line: 1 }), /did you mean/);
  await idx.close();
});

test('read_evidence: a first line that fills the snippet says where to read on', async () => {
  const { idx, run } = await fixture();
  const cut = await run('read_evidence', { path: 'wide.txt', start_line: 1, end_line: 3 });
  assert.is(cut.evidence[0].truncated, true);
  assert.is(cut.evidence[0].next_start_line, undefined);
  assert.equal(cut.notes, ['line 1 alone is 99,000 characters: the snippet is its first 4,000 and holds none of lines 2-3; read on with start_line 2 (search_code shows the part of a long line around a match)']);
  // Where the note says, the lines are.
  const on = await run('read_evidence', { path: 'wide.txt', start_line: 2, end_line: 3 });
  assert.is(on.evidence[0].snippet, 'line two\nline three');
  assert.is(on.notes, undefined);
  // One line asked for, cut: nothing after it was asked, nothing to say.
  assert.is((await run('read_evidence', { path: 'wide.txt', start_line: 1 })).notes, undefined);
  await idx.close();
});

test.run();
