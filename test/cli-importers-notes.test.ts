// What `evidex importers` says beyond its matching, through real `evidex`
// processes on a git copy of fixtures/ts-monorepo: a folder is said to be one,
// with the workspace package it is and its entry; a package subpath names the
// file the compiler resolves it to and that file's own importer count, which
// the command it gives confirms; a mistyped package name gets the package
// names statements write; a --path-prefix that nothing is under says so.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTemp, git, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { reachedBy } from '../client/commands/specifier-file.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('importers-notes-home');
const repo = join(tempDir('importers-notes'), 'ts-monorepo');
cpSync(join(PROJECT_ROOT, 'fixtures', 'ts-monorepo'), repo, { recursive: true });
// A statement over several lines that imports Button.tsx only through two barrels (@acme/ui's index, then button/index).
writeFileSync(join(repo, 'apps/web/src/panel.tsx'), "import {\n  Button,\n  Card,\n} from '@acme/ui';\n\nexport const panel = [Button, Card];\n");
// A package subpath ending in "/index": a name of the same file name as any `…/index` path asked for.
writeFileSync(join(repo, 'apps/web/src/pad.ts'), "import pad from 'left-pad/index';\n\nexport const padded = pad('x', 3);\n");
// A folder inside a package named like a scoped package (tRPC keeps its subpath entries in src/@trpc/server/).
mkdirSync(join(repo, 'packages/sdk/src/@acme/ui'), { recursive: true });
writeFileSync(join(repo, 'packages/sdk/src/@acme/ui/entry.ts'), 'export const entry = 1;\n');
// Python statements that import a package's submodules, in a folder of their own (the submodule note from there).
writeFileSync(join(repo, 'apps/web/src/pad.py'), 'from pkg import run\nfrom pkg.exceptions import A\nimport pkg.exceptions\nfrom pkg.routing import r\n');
// Paths that an import statement could mean two files by (libs/form.ts and .js; libs/shape.ts, libs/shape/index.ts), and a Python package imported by its dotted name.
writeFileSync(join(repo, 'libs/shape.ts'), 'export const shape = 1;\n');
writeFileSync(join(repo, 'libs/form.ts'), 'export const form = 1;\n');
writeFileSync(join(repo, 'libs/form.js'), 'export const form = 1;\n');
mkdirSync(join(repo, 'libs/shape'));
writeFileSync(join(repo, 'libs/shape/index.ts'), 'export const shapeIndex = 1;\n');
mkdirSync(join(repo, 'tools/pyk'), { recursive: true });
writeFileSync(join(repo, 'tools/pyk/__init__.py'), 'PYK = 1\n');
writeFileSync(join(repo, 'tools/use.py'), 'import tools.pyk\n');
git(repo, ['init', '-q']);
git(repo, ['add', '-A']);
git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' };

function evidex(args: string[], cwd = '.'): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: join(repo, cwd), encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^started evidex daemon .*\n/, '') };
}

/** How many statements `evidex importers ARG` finds in the whole repository. */
function importerTotal(arg: string): number {
  const r = evidex(['importers', arg, '--json', '--limit', '200']);
  assert.is(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { total: number }).total;
}

test('importers of a workspace package folder says it is a folder, which package, and its entry file', () => {
  const r = evidex(['importers', 'packages/shared']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'evidex: not_indexed: "packages/shared" is a folder, not a file; evidex importers takes a file\'s path, a module or a package name; '
    + 'it is the folder of package "@acme/shared" (packages/shared): evidex importers @acme/shared, or its entry file packages/shared/src/index.ts\n');
  const inside = evidex(['importers', 'packages/shared/src/']);
  assert.is(inside.code, 2);
  assert.match(inside.stderr, /^evidex: not_indexed: "packages\/shared\/src" is a folder, not a file; .* it is inside package "@acme\/shared" \(packages\/shared\): evidex importers @acme\/shared, or its entry file packages\/shared\/src\/index\.ts\n$/);
  // A folder that is no package's: only that it is a folder.
  assert.is(evidex(['importers', 'scripts/']).stderr, 'evidex: not_indexed: "scripts" is a folder, not a file; evidex importers takes a file\'s path, a module or a package name\n');
  // The entry it names is the file `@acme/shared` resolves to: what imports one imports the other.
  assert.ok(importerTotal('packages/shared/src/index.ts') >= importerTotal('@acme/shared'));
});

test('a scoped package name is a name where a folder of that name is beside the user; with a trailing slash it is the folder', () => {
  const asName = evidex(['importers', '@acme/ui', '--all', '--json', '--limit', '200'], 'packages/sdk/src');
  assert.is(asName.code, 0, asName.stderr);
  assert.is((JSON.parse(asName.stdout) as { total: number }).total, importerTotal('@acme/ui'));
  assert.ok(importerTotal('@acme/ui') > 0);
  const asFolder = evidex(['importers', '@acme/ui/'], 'packages/sdk/src');
  assert.is(asFolder.code, 2);
  assert.match(asFolder.stderr, /^evidex: not_indexed: "@acme\/ui" is a folder, not a file; /);
});

test('a package subpath names the file it resolves to and how many statements import that file; the count is what that command finds', () => {
  const r = evidex(['importers', '@acme/sdk/links']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, "apps/web/src/api.ts:2: import { httpBatchLink } from '@acme/sdk/links';\n");
  const n = importerTotal('packages/sdk/src/links.ts');
  assert.ok(n > 1, `links.ts has ${n} importers`);
  assert.match(r.stderr, `\nnote: "@acme/sdk/links" resolves to packages/sdk/src/links.ts, which ${n} statements import: evidex importers packages/sdk/src/links.ts\n`);
  // A subpath no statement writes: the file of the package's folder it names, said as that.
  const math = evidex(['importers', '@acme/shared/math']);
  assert.is(math.stdout, '');
  assert.match(math.stderr, /^0 of 0 shown/);
  assert.match(math.stderr, `\nnote: no statement imports "@acme/shared/math" by that name; it is in package "@acme/shared" (packages/shared): `
    + `packages/shared/src/math.ts, which ${importerTotal('packages/shared/src/math.ts')} statements import: evidex importers packages/shared/src/math.ts\n`);
  // A name whose one file is imported by exactly its own statements adds nothing.
  assert.not.match(evidex(['importers', '@acme/shared']).stderr, /note:/);
});

test('a mistyped package name gets the package names statements write', () => {
  for (const [typed, meant] of [['reactt', 'react'], ['@acme/sharedd', '@acme/shared'], ['@acme/cor/env', '@acme/core/env']]) {
    const r = evidex(['importers', typed]);
    assert.is(r.code, 0, r.stderr);
    // Labelled: a package name, not a path.
    assert.match(r.stderr, new RegExp(`\\ndid you mean: package names? ${meant.replace(/[/.]/g, '\\$&')} \\(`), typed);
  }
});

test('a name shaped like a file\'s path that is no indexed file and finds nothing says so; other names, and names that find something, do not', () => {
  const note = (as: string): string => `0 of 0 shown · index generation G\nnote: no indexed file is at that path; read as ${as}, it is imported by no statement\n`;
  const shown = (args: string[], cwd = '.'): string => {
    const r = evidex(['importers', ...args], cwd);
    assert.is(r.code, 0, r.stderr);
    return r.stderr.replace(/generation \d+/, 'generation G');
  };
  // A path in an indexed folder is a path, typed so or from the root: no such file, named from here, and the near file offered.
  const noFile = (named: string): string => `0 of 0 shown · index generation G\nnote: no such file: ${named}; no statement imports it\n`;
  assert.is(shown(['packages/ui/src/nosuch.ts']), noFile('packages/ui/src/nosuch.ts'));
  assert.is(shown(['./packages/ui/src/nosuch.ts']), noFile('packages/ui/src/nosuch.ts'));
  assert.is(shown(['../../packages/ui/src/nosuch.ts'], 'apps/web'), noFile('../../packages/ui/src/nosuch.ts'));
  assert.is(shown(['./src/panle.tsx'], 'apps/web'), `${noFile('src/panle.tsx')}did you mean: file src/panel.tsx (spelt alike)\n`);
  assert.is(shown(['nosuch.ts']), note('a module or package name'));
  assert.is(shown(['nosuchpkg/nosuch.json']), note('a package subpath'));
  const json = JSON.parse(evidex(['importers', 'nosuch.ts', '--json']).stdout) as { notes: string[] };
  assert.equal(json.notes, ['no indexed file is at that path; read as a module or package name, it is imported by no statement']);
  // Not shaped like a file, or finding something: no such note.
  assert.not.match(shown(['nosuchpkg/sub']), /note:/);
  assert.not.match(shown(['left-pad/index']), /note:/);
  assert.not.match(shown(['packages/ui/src/button/Button.tsx']), /note:/);
});

test('a --path-prefix nothing is under says so, and the nearest folder', () => {
  const s = evidex(['search', 'center', '--path-prefix', 'packges/shared']);
  assert.is(s.code, 0, s.stderr);
  assert.match(s.stderr, /\nnote: nothing in the index is under --path-prefix "packges\/shared"; did you mean "packages\/shared\/"\?\n/);
  const i = evidex(['importers', 'react', '--path-prefix', 'nosuch']);
  assert.match(i.stderr, /\nnote: nothing in the index is under --path-prefix "nosuch"\n/);
  // A prefix with files under it but no match says nothing of the kind.
  assert.not.match(evidex(['search', 'no such text anywhere', '--path-prefix', 'packages']).stderr, /note:/);
});

test('when nothing is under --path-prefix, that is the reason given, for every tool that takes it: no near miss reads the name as wrong', () => {
  // A name statements write, one no statement writes, a subpath of a package that is not there, a path mistyped:
  // each gets the prefix note alone (without the prefix, each of the last three gets a near miss or a note of its own).
  for (const name of ['react', 'reactt', '@acme/ui/nope', 'packages/ui/src/button/Buton.tsx']) {
    const r = evidex(['importers', name, '--path-prefix', 'nosuch']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^0 of 0 shown · index generation \d+\nnote: nothing in the index is under --path-prefix "nosuch"\n$/, name);
  }
  assert.match(evidex(['importers', 'reactt']).stderr, /\ndid you mean: package names? react \(/);
  // search_code: a query written as a regular expression gets its note only where files are to search.
  const regex = evidex(['search', 'use[A-Z]\\w+', '--path-prefix', 'nosuch']);
  assert.match(regex.stderr, /^0 of 0 shown · index generation \d+\nnote: nothing in the index is under --path-prefix "nosuch"\n$/);
  assert.match(evidex(['search', 'use[A-Z]\\w+', '--path-prefix', 'packages']).stderr, '\nnote: evidex search matches literal text, not regular expressions');
  // find_symbol says so too; a name mistyped gets no edits, a name that is there is said to be outside the prefix, and where.
  const typo = evidex(['symbol', 'useThem', '--path-prefix', 'nosuch']);
  assert.is(typo.code, 0, typo.stderr);
  assert.match(typo.stderr, /^0 of 0 shown · index generation \d+\nnote: nothing in the index is under --path-prefix "nosuch"\n$/);
  assert.match(evidex(['symbol', 'useThem']).stderr, '\ndid you mean: useTheme (');
  const there = evidex(['symbol', 'useTheme', '--path-prefix', 'packges/ui']);
  assert.match(there.stderr, /\nnote: nothing in the index is under --path-prefix "packges\/ui"; did you mean "packages\/ui\/"\?\ndid you mean: useTheme \(outside --path-prefix, packages\/ui\/src\/theme\.tsx?:\d+\)\n$/);
  // A prefix with files under it keeps the near misses: the name is then what is wrong.
  assert.match(evidex(['symbol', 'useThem', '--path-prefix', 'packages']).stderr, '\ndid you mean: useTheme (');
});

test('from a subfolder, the paths notes, near misses (of a bare file name too) and a folder refusal name are from there, and the commands they give work as typed there; --json keeps the tools\' own', () => {
  const web = 'apps/web';
  const links = evidex(['importers', '@acme/sdk/links'], web);
  assert.is(links.code, 0, links.stderr);
  const n = importerTotal('packages/sdk/src/links.ts');
  // The count is the whole repository's, so the command carries --all: typed here without it, it would list apps/web's part only.
  assert.match(links.stderr, `\nnote: "@acme/sdk/links" resolves to ../../packages/sdk/src/links.ts, which ${n} statements import: evidex importers ../../packages/sdk/src/links.ts --all\n`);
  // The command as printed, run where it was printed, finds those n.
  const command = /evidex (importers \S+ --all)\n/.exec(links.stderr)![1].split(' ');
  assert.is((JSON.parse(evidex([...command, '--json', '--limit', '200'], web).stdout) as { total: number }).total, n);
  // At the root a command is of the whole repository already: no --all.
  assert.match(evidex(['importers', '@acme/sdk/links']).stderr, / statements import: evidex importers packages\/sdk\/src\/links\.ts\n/);
  const json = evidex(['importers', '@acme/sdk/links', '--json'], web);
  assert.equal((JSON.parse(json.stdout) as { notes: string[] }).notes, [`"@acme/sdk/links" resolves to packages/sdk/src/links.ts, which ${n} statements import: find_importers packages/sdk/src/links.ts`]);

  const math = evidex(['importers', '@acme/shared/math'], web);
  assert.match(math.stderr, `\nnote: no statement imports "@acme/shared/math" by that name; it is in package "@acme/shared" (../../packages/shared): `
    + `../../packages/shared/src/math.ts, which ${importerTotal('packages/shared/src/math.ts')} statements import: evidex importers ../../packages/shared/src/math.ts --all\n`);
  assert.match(evidex(['importers', '@acme/ui/nope'], web).stderr, '\nnote: no statement imports "@acme/ui/nope", and no file of package "@acme/ui" (../../packages/ui) is "nope" ');
  assert.match(evidex(['importers', 'react', '--path-prefix', '../../packges/shared'], web).stderr,
    '\nnote: nothing in the index is under --path-prefix "../../packges/shared"; did you mean "../../packages/shared/"?\n');
  // A path typed from here with a typo: looked up as that path from the root, its near miss a path from here.
  const typo = evidex(['importers', '../../packages/ui/src/button/Buton.tsx'], web);
  assert.is(typo.code, 0, typo.stderr);
  assert.match(typo.stderr, '\ndid you mean: file ../../packages/ui/src/button/Button.tsx (spelt alike)\n');
  // A bare file name mistyped where the file is (Button.ts for Button.tsx): the near miss as a path from here, as ./Button.ts gets it.
  for (const typed of ['Button.ts', './Button.ts']) {
    const bare = evidex(['importers', typed], 'packages/ui/src/button');
    assert.is(bare.code, 0, bare.stderr);
    // Sent as a name (Button.ts) or as the path from the root (./Button.ts, a path in an indexed folder: no such file): the note says which it was read as.
    const note = typed.startsWith('./') ? 'no such file: Button.ts; no statement imports it' : 'no indexed file is at that path; read as a module or package name, it is imported by no statement';
    assert.is(bare.stderr.replace(/generation \d+/, 'generation G'), `0 of 0 shown · index generation G\nnote: ${note}\ndid you mean: file Button.tsx (spelt alike)\n`, typed);
  }
  const folder = evidex(['importers', '../../packages/shared'], web);
  assert.is(folder.code, 2);
  assert.is(folder.stderr, 'evidex: not_indexed: "../../packages/shared" is a folder, not a file; evidex importers takes a file\'s path, a module or a package name; '
    + 'it is the folder of package "@acme/shared" (../../packages/shared): evidex importers @acme/shared --all, or its entry file ../../packages/shared/src/index.ts\n');
});

/** The total of `evidex ARGS --json` run in `cwd`. */
function totalIn(cwd: string, args: string[]): number {
  const r = evidex([...args, '--json', '--limit', '200'], cwd);
  assert.is(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { total: number }).total;
}

test('from a subfolder, the commands a refusal names carry --all, and as printed there find what they would at the root', () => {
  // A folder with an index file inside a package: the index file's command and the package's.
  // Written with its "/" (without, it is the path an import statement writes: the index file is answered for, below).
  const folder = evidex(['importers', '../../packages/ui/src/button/'], 'apps/web');
  assert.is(folder.code, 2);
  assert.match(folder.stderr, '; an import of the folder reaches its index file: evidex importers ../../packages/ui/src/button/index.ts --all; '
    + 'it is inside package "@acme/ui" (../../packages/ui): evidex importers @acme/ui --all, or its entry file ');
  for (const [command, whole] of [[['importers', '../../packages/ui/src/button/index.ts', '--all'], 'packages/ui/src/button/index.ts'], [['importers', '@acme/ui', '--all'], '@acme/ui']] as const) {
    assert.match(folder.stderr, command.join(' '));
    const n = importerTotal(whole);
    assert.is(totalIn('apps/web', [...command]), n, whole);
  }
  // Typed there without --all, the index file's command would count only apps/web's: what the refusal must not send the reader to.
  assert.ok(totalIn('apps/web', ['importers', '../../packages/ui/src/button/index.ts']) < importerTotal('packages/ui/src/button/index.ts'));
  // A stylesheet is refused with the search that finds where it is imported: of the whole repository, from packages/ui too.
  const css = evidex(['importers', '../../apps/web/src/styles.css'], 'packages/ui');
  assert.is(css.code, 2);
  assert.is(css.stderr, 'evidex: not_indexed: "../../apps/web/src/styles.css" is not a Python, TypeScript, JavaScript or JSON file: evidex importers answers only for those, '
    + 'as Python and the TypeScript compiler resolve imports; to find where it is imported (a bundler\'s import of a stylesheet, say), search for its name: evidex search styles.css --all\n');
  assert.ok(totalIn('packages/ui', ['search', 'styles.css', '--all']) > 0);
  assert.is(totalIn('packages/ui', ['search', 'styles.css']), 0);
  // At the root the same refusal names the command alone.
  assert.match(evidex(['importers', 'apps/web/src/styles.css']).stderr, /search for its name: evidex search styles\.css\n$/);
});

test('the submodule note\'s command from a subfolder: no --path-prefix naming the folder it is run in (the command means that there), one naming another folder from there', () => {
  const here = evidex(['importers', 'pkg'], 'apps/web/src');
  assert.is(here.code, 0, here.stderr);
  const tail = 'a statement imports pkg only when it names it: evidex importers pkg.exceptions';
  assert.ok(here.stderr.endsWith(`\nnote: 3 more statements import modules under pkg (pkg.exceptions 2, pkg.routing 1); ${tail} lists those\n`), here.stderr);
  // That command, as printed, run there, lists the 2 it counts.
  assert.is((JSON.parse(evidex(['importers', 'pkg.exceptions', '--json'], 'apps/web/src').stdout) as { total: number }).total, 2);
  // The same scope named from a folder above: kept, from there; and the tool's own words keep the root's.
  assert.match(evidex(['importers', 'pkg', '--path-prefix', 'src'], 'apps/web').stderr, `; ${tail} --path-prefix src/ lists those\n`);
  assert.match(evidex(['importers', 'pkg', '--path-prefix', '.'], 'apps/web/src').stderr, `; ${tail} lists those\n`);
  // Counted over the whole repository (--all), the command that lists them is of the whole repository too.
  const whole = evidex(['importers', 'pkg', '--all'], 'apps/web/src');
  assert.match(whole.stderr, `; ${tail} --all lists those\n`);
  assert.is(totalIn('apps/web/src', ['importers', 'pkg.exceptions', '--all']), 2);
  const json = JSON.parse(evidex(['importers', 'pkg', '--json'], 'apps/web/src').stdout) as { notes: string[]; note_calls: unknown[] };
  assert.match(json.notes[0], /: find_importers pkg\.exceptions path_prefix "apps\/web\/src\/" lists those$/);
  // The call as a call, where the note writes it: what a host calls, and what the command line printed above.
  const at = json.notes[0].indexOf('find_importers');
  assert.equal(json.note_calls, [{ note: 0, at, length: json.notes[0].indexOf(' lists those') - at, name: 'find_importers', arguments: { module_name: 'pkg.exceptions', path_prefix: 'apps/web/src/' } }]);
});

test('a statement over several lines found through barrels is headed by what it imports itself, from where the command runs; --json keeps the module asked for and the chain', () => {
  const button = '../../packages/ui/src/button/Button.tsx';
  const r = evidex(['importers', button, '--via-reexports', '--all'], 'apps/web');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, [
    '# via ../../packages/ui/src/index.ts → ../../packages/ui/src/button/index.ts',
    '# import ../../packages/ui/src/index.ts at src/panel.tsx:1-4',
    'src/panel.tsx:1: import {',
    'src/panel.tsx:2:   Button,',
    'src/panel.tsx:3:   Card,',
    "src/panel.tsx:4: } from '@acme/ui';",
    '',
  ].join('\n'));
  const json = evidex(['importers', button, '--via-reexports', '--all', '--json', '--limit', '200'], 'apps/web');
  const items = (JSON.parse(json.stdout) as { evidence: Array<{ path: string; name: string; via?: string[] }> }).evidence;
  const panel = items.find((e) => e.path === 'apps/web/src/panel.tsx');
  assert.equal(panel, { ...panel, name: 'packages/ui/src/button/Button.tsx', via: ['packages/ui/src/index.ts', 'packages/ui/src/button/index.ts'] });
  // Asked for directly by its path, the file the statement imports heads it, as a path from here too.
  assert.match(evidex(['importers', '../../packages/ui/src/index.ts', '--all'], 'apps/web').stdout, '\n# import ../../packages/ui/src/index.ts at src/panel.tsx:1-4\nsrc/panel.tsx:1: import {\n');
  assert.match(evidex(['importers', '@acme/ui']).stdout, '\n# import @acme/ui at apps/web/src/panel.tsx:1-4\n');
});

test('a folder with an index file, and a path written as an import statement writes it (no extension, or .js for .ts), lead to that file, from a subfolder too', () => {
  const index = 'packages/ui/src/button/index.ts';
  // Written as a folder, with its "/": refused as one, with the index file's command.
  assert.is(evidex(['importers', 'packages/ui/src/button/']).stderr, 'evidex: not_indexed: "packages/ui/src/button" is a folder, not a file; evidex importers takes a file\'s path, a module or a package name; '
    + `an import of the folder reaches its index file: evidex importers ${index}; it is inside package "@acme/ui" (packages/ui): evidex importers @acme/ui, or its entry file packages/ui/src/index.ts\n`);
  // Written as an import statement writes it, the folder is its index file, and the note says so.
  const asImport = evidex(['importers', 'packages/ui/src/button']);
  assert.is(asImport.code, 0, asImport.stderr);
  assert.is(asImport.stdout, evidex(['importers', index]).stdout);
  assert.match(asImport.stderr, /^\d+ of \d+ shown · index generation \d+\nnote: packages\/ui\/src\/button means packages\/ui\/src\/button\/index\.ts\n$/);
  // A package's own folder is reached through its package.json, not an index file: still refused, and no index file is named.
  const pkg = evidex(['importers', 'packages/legacy-utils']);
  assert.is(pkg.code, 2);
  assert.not.match(pkg.stderr, /index file|means/);
  // Without its extension, the one file it names is answered for.
  const bare = evidex(['importers', 'packages/ui/src/button/index']);
  assert.is(bare.code, 0, bare.stderr);
  assert.is(bare.stdout, asImport.stdout);
  assert.match(bare.stderr, `\nnote: packages/ui/src/button/index means ${index}\n`);
  assert.not.match(bare.stderr, /did you mean/);
  // The raw tool refuses the same path written as a path, and its one line labels them too.
  const raw = evidex(['call', 'find_importers', JSON.stringify({ module_name: './packages/ui/src/button/index' })]);
  assert.is(raw.code, 2, raw.stderr);
  assert.match(JSON.parse(raw.stdout).error.message, `; did you mean: file ${index}; package name left-pad/index`);
  // A package subpath that statements import is that package's, whatever file shares its name.
  const subpath = evidex(['importers', 'left-pad/index']);
  assert.match(subpath.stdout, /^apps\/web\/src\/pad\.ts:1: import pad from 'left-pad\/index';$/m);
  assert.not.match(subpath.stderr, /means/);
  const src = 'packages/ui/src';
  // From a subfolder: typed from there, the note names both from there.
  for (const typed of ['./button', 'button/index', './button/index']) {
    const r = evidex(['importers', typed, '--all'], src);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, `\nnote: ${typed} means button/index.ts\n`, typed);
    assert.is(r.stdout, evidex(['importers', 'button/index.ts', '--all'], src).stdout, typed);
  }
  // With its extension mistyped it is no path written as an import: the near miss, as before.
  const js = evidex(['importers', 'button/index.js'], src);
  assert.is(js.code, 0, js.stderr);
  assert.match(js.stderr, /\ndid you mean: files? button\/index\.ts \(spelt alike\)/);
  // The files a command names from here are the ones it then finds.
  assert.is(importerTotal(index), (JSON.parse(evidex(['importers', 'button/index.ts', '--all', '--json'], src).stdout) as { total: number }).total);
});

test('the files a path without its extension reaches: its name with a source extension, a folder\'s index file or __init__.py, nothing deeper or longer', () => {
  const reached = ['src/x.ts', 'src/x.tsx', 'src/x.d.ts', 'src/x.d.mts', 'src/x.mjs', 'src/x.cjs', 'src/x.py', 'src/x.pyi', 'src/x/index.ts', 'src/x/index.d.ts', 'src/x/index.jsx', 'src/x/__init__.py', 'src/x/__init__.pyi'];
  const not = ['src/x.test.ts', 'src/x.d.py', 'src/x.css', 'src/x.json', 'src/xy.ts', 'src/x/y.ts', 'src/x/index.test.ts', 'src/x/sub/index.ts', 'src/x/sub/__init__.py', 'src/x/index.py', 'src/x/__init__.ts'];
  assert.equal(reached.filter((p) => !reachedBy('src/x', p)), []);
  assert.equal(not.filter((p) => reachedBy('src/x', p)), []);
});

test('a path without its extension that reaches several files is answered with them as suggestions; a Python package folder is its __init__.py; --json says it in notes from the root', () => {
  // Two files, neither in a folder of that name: the answer as typed, its suggestions naming both.
  const several = evidex(['importers', 'libs/form']);
  assert.is(several.code, 0, several.stderr);
  assert.is(several.stdout, '');
  assert.match(several.stderr, /^0 of 0 shown · index generation \d+\n/);
  assert.match(several.stderr, /\ndid you mean: files libs\/form\.js \(prefix\), libs\/form\.ts \(prefix\)\n/);
  assert.not.match(several.stderr, /means/);
  // A file and a folder of that name: the folder's refusal, which names its index file, names both.
  const folder = evidex(['importers', './shape'], 'libs');
  assert.is(folder.code, 2);
  assert.match(folder.stderr, /^evidex: not_indexed: "shape" is a folder, not a file; .*; written as an import statement writes it, "\.\/shape" reaches 2 files: shape\.ts, shape\/index\.ts\n$/);
  // A bare name is a package's, as in an import statement: not looked for as a path.
  assert.not.match(evidex(['importers', 'shape'], 'libs').stderr, /reaches|means/);
  const py = evidex(['importers', 'tools/pyk']);
  assert.is(py.code, 0, py.stderr);
  assert.is(py.stdout, 'tools/use.py:1: import tools.pyk\n');
  assert.match(py.stderr, /\nnote: tools\/pyk means tools\/pyk\/__init__\.py\n$/);
  const json = JSON.parse(evidex(['importers', './pyk', '--json'], 'tools').stdout) as { total: number; notes: string[]; evidence: Array<{ name: string }> };
  assert.is(json.total, 1);
  assert.equal(json.evidence.map((e) => e.name), ['tools/pyk/__init__.py']);
  assert.equal(json.notes.at(-1), 'tools/pyk means tools/pyk/__init__.py');
});

test('stop the daemon', () => {
  evidex(['daemon', 'stop']);
  cleanupTemp();
});

test.run();
