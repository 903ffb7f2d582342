// TypeScript resolution kept current: after every update — a save, a file
// created or deleted, a folder appearing, a tsconfig, package.json,
// pnpm-workspace.yaml edit — the index holds exactly what a fresh build of the
// new tree holds, and only the files whose resolution the change can affect
// are resolved again (counted). Then the same through the watcher: a saved
// .ts file and an edited tsconfig.json are answered from before the next query.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RepoRules } from '../indexer/discover/rules.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { RepoWatcher, type WatchApplied } from '../indexer/watch.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { freshDump as freshDumpIn } from './helpers/fresh-index.js';
import { cleanupTemp, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';

// Child mode: refresh the index of argv[3] into state argv[4], printing each progress report (the parent kills it on one).
if (process.argv[2] === '--build-child') {
  const idx = await openEvidexIndex(process.argv[3], { stateDir: process.argv[4] });
  await idx.refresh((p) => { process.stdout.write(`${p.phase} ${p.done}\n`); });
  await idx.close();
  process.stdout.write('built\n');
  process.exit(0);
}

const tmp = tempDir('ts-live');
let n = 0;
const stateDir = (): string => join(tmp, `state-${n++}`);
const json = (v: unknown): string => JSON.stringify(v, null, 2);

const freshDump = (root: string): Promise<Record<string, unknown>> => freshDumpIn(root, stateDir());

function makeRepo(): string {
  const root = tempDir('ts-live-repo');
  write(root, {
    'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'] }),
    'tsconfig.json': json({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', baseUrl: '.', paths: { '~/*': ['app/*'] } }, include: ['app', 'packages'] }),
    'packages/ui/package.json': json({ name: '@org/ui', version: '1.0.0', types: 'dist/index.d.ts' }),
    'packages/ui/src/index.ts': 'export * from "./button";\n',
    'packages/ui/src/button.ts': 'export const Button = 1;\n',
    'app/main.ts': 'import { Button } from "@org/ui";\nimport { later } from "./later";\nimport "~/util";\nimport { dir } from "./dir";\nimport "@org/tools";\n',
    'app/util.ts': 'export const util = 1;\n',
    'app/other.ts': 'import "./util";\n',
    'lib/plain.js': 'const u = require("../app/util");\n',
    'notes.md': '# notes\n',
  });
  return root;
}

test('every update leaves what a fresh build holds, resolving again only what the change can affect', async () => {
  const root = makeRepo();
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  await idx.refresh();
  assert.equal(idx.store.dump(), await freshDump(root), 'first build');
  const target = (path: string): string[] => {
    const f = idx.store.fileByPath(path)!;
    return idx.store.imports(f.fid).map((i) => i.targets.find((t) => t.startsWith('./'))?.slice(2) ?? i.why ?? '');
  };

  const step = async (what: string, paths: string[], resolved: number, mutate: () => void): Promise<void> => {
    mutate();
    const before = idx.builder.tsResolved;
    await idx.update(paths);
    assert.equal(idx.store.dump(), await freshDump(root), `after ${what}: differs from a fresh build`);
    assert.is(idx.builder.tsResolved - before, resolved, `${what}: files resolved`);
  };

  assert.equal(target('app/main.ts'), ['packages/ui/src/index.ts', 'missing', 'app/util.ts', 'missing', 'external']);
  await step('a save that changes no import', ['app/util.ts'], 1, () => write(root, { 'app/util.ts': 'export const util = 2;\n' }));
  await step('a file nothing looks for, created', ['app/unrelated.ts'], 1, () => write(root, { 'app/unrelated.ts': 'export {};\n' }));
  await step('a text file created', ['docs.md'], 0, () => write(root, { 'docs.md': 'text\n' }));
  await step('the file an import was missing, created', ['app/later.ts'], 2, () => write(root, { 'app/later.ts': 'export const later = 1;\n' }));
  assert.equal(target('app/main.ts')[1], 'app/later.ts');
  await step('a folder with an index file, created', ['app/dir'], 2, () => write(root, { 'app/dir/index.ts': 'export const dir = 1;\n' }));
  assert.equal(target('app/main.ts')[3], 'app/dir/index.ts');
  await step('an imported file, deleted', ['app/util.ts'], 3, () => rmSync(join(root, 'app/util.ts')));
  assert.equal(target('app/other.ts'), ['missing']);
  assert.equal(target('lib/plain.js'), ['missing']);
  await step('it comes back as .tsx', ['app/util.tsx'], 4, () => write(root, { 'app/util.tsx': 'export const util = 3;\n' }));
  assert.equal(target('app/other.ts'), ['app/util.tsx']);
  await step('a package.json field that decides nothing here', ['packages/ui/package.json'], 1,
    () => write(root, { 'packages/ui/package.json': json({ name: '@org/ui', version: '1.0.1', types: 'dist/index.d.ts' }) }));
  await step('a workspace package appears', ['packages/tools'], 2, () => write(root, {
    'packages/tools/package.json': json({ name: '@org/tools', main: 'src/index.ts' }), 'packages/tools/src/index.ts': 'export {};\n',
  }));
  assert.equal(target('app/main.ts')[4], 'packages/tools/src/index.ts');
  // Every TS file: those it governs (app/, packages/) and lib/plain.js, which it was consulted for and does not take in.
  await step('tsconfig paths changed', ['tsconfig.json'], 10, () => write(root, {
    'tsconfig.json': json({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', baseUrl: '.', paths: { '~/*': ['lib/*'] } }, include: ['app', 'packages'] }),
  }));
  assert.equal(target('app/main.ts')[2], 'missing');
  // The package map is the same: only main.ts, whose bare specifiers read the root package.json (its own name), again.
  await step('workspaces moved to pnpm-workspace.yaml', ['package.json', 'pnpm-workspace.yaml'], 1, () => write(root, {
    'package.json': json({ name: 'root', private: true }), 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
  }));
  assert.equal(target('app/main.ts')[0], 'packages/ui/src/index.ts');
  await step('a nearer tsconfig.json takes a folder over', ['app/tsconfig.json'], 6, () => write(root, {
    'app/tsconfig.json': json({ compilerOptions: { baseUrl: '.', paths: { '~/*': ['./*'] } } }),
  }));
  assert.equal(target('app/main.ts')[2], 'app/util.tsx');
  assert.is(idx.store.tsResolution(idx.store.fileByPath('app/main.ts')!.fid)!.cfg, 'app/tsconfig.json');
  await step('that config broken', ['app/tsconfig.json'], 6, () => write(root, { 'app/tsconfig.json': '{ "compilerOptions": { oops' }));
  assert.equal(target('app/main.ts')[1], 'app/later.ts', 'a broken config still governs');
  await step('a renamed folder', ['packages/ui', 'packages/ui2'], 3, () => renameSync(join(root, 'packages/ui'), join(root, 'packages/ui2')));
  assert.equal(target('app/main.ts')[0], 'packages/ui2/src/index.ts');
  await step('notes edited', ['notes.md'], 0, () => write(root, { 'notes.md': '# more\n' }));
  await idx.close();
});

/**
 * A built index of `root` with a watcher applying what changes, and
 * appliedFor(path): resolved once the watcher has applied a batch naming
 * `path` — any so far, or with `from: 'now'` only one applied after the call.
 */
async function watchedIndex(root: string): Promise<{
  idx: EvidexIndex; watcher: RepoWatcher; appliedFor: (path: string, opts?: { from: 'now' }) => Promise<void>;
}> {
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  await idx.refresh();
  const rules = await idx.rules();
  const applied: WatchApplied[] = [];
  const waiters: Array<() => void> = [];
  const watcher = await RepoWatcher.start({
    root, rules, index: idx, exclusive: (fn) => fn(), onApplied: (a) => { applied.push(a); waiters.splice(0).forEach((w) => w()); },
  });
  const appliedFor = (path: string, opts?: { from: 'now' }): Promise<void> => new Promise((resolve) => {
    const since = opts?.from === 'now' ? applied.length : 0;
    const check = (): void => { if (applied.slice(since).some((a) => a.paths.includes(path))) resolve(); else waiters.push(check); };
    check();
  });
  return { idx, watcher, appliedFor };
}

test('through the watcher: a saved .ts file and an edited tsconfig.json are answered before the next query', async () => {
  const root = makeRepo();
  const { idx, watcher, appliedFor } = await watchedIndex(root);
  const importers = async (m: string): Promise<string[]> => {
    const r = await idx.runTool('find_importers', { module_name: m, via_reexports: true });
    assertEvidenceChecks(root, r.evidence);
    return r.evidence.map((e) => `${e.path}:${e.start_line}${e.via ? ` via ${e.via.join(',')}` : ''}`);
  };
  try {
    assert.equal(await importers('packages/ui/src/button.ts'), ['app/main.ts:1 via packages/ui/src/index.ts', 'packages/ui/src/index.ts:1']);
    writeFileSync(join(root, 'app/other.ts'), 'import "./util";\nimport { Button } from "../packages/ui/src/button";\n');
    await appliedFor('app/other.ts');
    assert.equal(await importers('packages/ui/src/button.ts'),
      ['app/main.ts:1 via packages/ui/src/index.ts', 'app/other.ts:2', 'packages/ui/src/index.ts:1']);
    mkdirSync(join(root, 'lib'), { recursive: true });
    writeFileSync(join(root, 'tsconfig.json'), json({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', baseUrl: '.', paths: { '~/*': ['lib/*'] } } }));
    await appliedFor('tsconfig.json');
    const r = await idx.runTool('find_importers', { module_name: 'app/util.ts' });
    assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line}`), ['app/other.ts:1', 'lib/plain.js:1'], 'main.ts no longer reaches util through ~/');
  } finally {
    await watcher.close();
    await idx.close();
  }
});

test('a bundled package\'s source created after its importer was indexed is its target at the next answer, through the watcher', async () => {
  const root = tempDir('ts-live-bundled');
  write(root, {
    'package.json': json({ name: 'root', private: true, workspaces: ['packages/*', 'apps/*'] }),
    // tsup's layout: .mjs/.cjs and .d.mts/.d.cts all built from src/index.ts, which is not written yet.
    'packages/lib/package.json': json({ name: '@x/lib', exports: { '.': {
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' }, require: { types: './dist/index.d.cts', default: './dist/index.cjs' } } } }),
    'packages/lib/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' }, include: ['src'] }),
    'packages/lib/src/other.ts': 'export const other = 1;\n',
    'apps/a/package.json': json({ name: 'a', private: true }),
    'apps/a/src/main.ts': 'import { libFn } from "@x/lib";\nconst lib = require("@x/lib");\n',
  });
  const { idx, watcher, appliedFor } = await watchedIndex(root);
  const importers = async (m: string): Promise<string[]> => {
    const r = await idx.runTool('find_importers', { module_name: m });
    assertEvidenceChecks(root, r.evidence);
    return r.evidence.map((e) => `${e.path}:${e.start_line}`);
  };
  const save = async (path: string, text: string | null): Promise<void> => {
    const done = appliedFor(path, { from: 'now' });
    if (text === null) rmSync(join(root, path));
    else writeFileSync(join(root, path), text);
    await done;
    assert.equal(idx.store.dump(), await freshDump(root), `after ${path} ${text === null ? 'deleted' : 'saved'}: differs from a fresh build`);
  };
  try {
    const main = idx.store.fileByPath('apps/a/src/main.ts')!;
    assert.equal(idx.store.imports(main.fid).map((i) => i.why), ['missing', 'missing'], 'no source yet');
    await save('packages/lib/src/index.ts', 'export function libFn() {}\n');
    assert.equal(await importers('packages/lib/src/index.ts'), ['apps/a/src/main.ts:1', 'apps/a/src/main.ts:2']);
    // A JavaScript source in its place, then tsc's own counterpart of the ESM forms beside it: .mts wins for import, .js stays for require.
    await save('packages/lib/src/index.ts', null);
    await save('packages/lib/src/index.js', 'export function libFn() {}\n');
    assert.equal(await importers('packages/lib/src/index.js'), ['apps/a/src/main.ts:1', 'apps/a/src/main.ts:2']);
    await save('packages/lib/src/index.mts', 'export function libFn() {}\n');
    assert.equal(await importers('packages/lib/src/index.mts'), ['apps/a/src/main.ts:1']);
    assert.equal(await importers('packages/lib/src/index.js'), ['apps/a/src/main.ts:2']);
  } finally {
    await watcher.close();
    await idx.close();
  }
});

test('a file the compiler cannot parse (nested past the stack) is still indexed for search, in a build and in an update, and stops nothing else', async () => {
  const root = makeRepo();
  const hostile = `const deep = ${'['.repeat(20_000)}${']'.repeat(20_000)};\nexport const HOSTILE_MARK = 1;\n`;
  write(root, { 'app/deep.ts': hostile });
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  await idx.refresh();
  const found = async (q: string): Promise<string[]> =>
    (await idx.runTool('search_code', { query: q, case_sensitive: true })).evidence.map((e) => e.path);
  assert.equal(await found('HOSTILE_MARK'), ['app/deep.ts']);
  assert.is((await idx.runTool('find_symbol', { name: 'HOSTILE_MARK' })).total, 0, 'no definitions from a file the parser gave up on');
  // In one update with a good file: both land.
  write(root, { 'app/deep2.ts': hostile.replace('HOSTILE_MARK', 'HOSTILE_TWO'), 'app/util.ts': 'export const AFTER_HOSTILE = 1;\n' });
  await idx.update(['app/deep2.ts', 'app/util.ts']);
  assert.equal(await found('HOSTILE_TWO'), ['app/deep2.ts']);
  assert.equal((await idx.runTool('find_symbol', { name: 'AFTER_HOSTILE' })).evidence.map((e) => e.path), ['app/util.ts']);
  await idx.close();
});

test('a build killed at any report of its progress, first or catch-up, is finished by the next refresh', async () => {
  const root = tempDir('ts-live-kill');
  // zod's own sources as a workspace package (its build output left out: resolution maps it back to src/), and an app importing it.
  for (const part of ['package.json', 'src']) cpSync(join(PROJECT_ROOT, 'node_modules', 'zod', part), join(root, 'packages', 'zod', part), { recursive: true });
  write(root, {
    'package.json': json({ private: true, workspaces: ['packages/*'] }),
    'tsconfig.json': json({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true }, include: ['app'] }),
    'app/main.ts': 'import { z } from "zod";\nimport * as v4 from "zod/v4";\nimport { ZodError } from "../packages/zod/src/v4/classic/errors.js";\n',
  });
  const self = fileURLToPath(import.meta.url);
  /**
   * Runs a child build and kills it at the first progress report `kill`
   * accepts (its number, from 1, and its text), or lets it finish; returns the
   * last report it saw.
   */
  const interrupted = async (sd: string, kill: (n: number, report: string) => boolean): Promise<string> => {
    const child = spawn(process.execPath, [self, '--build-child', root, sd], { stdio: ['ignore', 'pipe', 'inherit'] });
    let reports = 0;
    let last = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      for (const line of String(d).split('\n').filter(Boolean)) {
        if (killed) continue;
        last = line;
        if (kill(++reports, line)) { killed = true; child.kill('SIGKILL'); }
      }
    });
    await new Promise((r) => child.on('exit', r));
    return last;
  };
  const repairs = async (what: string, sd: string): Promise<void> => {
    const idx = await openEvidexIndex(root, { stateDir: sd });
    await idx.refresh();
    assert.equal(idx.store.dump(), await freshDump(root), `${what}: repaired index differs from a fresh build`);
    await idx.close();
  };
  const killedAt: string[] = [];
  const midParse = (n: number, r: string): boolean => r.startsWith('parse') && n >= 6;
  for (const kill of [(n: number) => n === 2, midParse, (_n: number, r: string) => r.startsWith('write')]) {
    const sd = stateDir();
    const last = await interrupted(sd, kill);
    killedAt.push(`first build at "${last}"`);
    await repairs(`first build killed at "${last}"`, sd);
  }
  // A catch-up killed midway: the config changed and files came while no daemon ran.
  for (const [i, kill] of [(_n: number, r: string) => r.startsWith('parse'), (_n: number, r: string) => r.startsWith('write')].entries()) {
    const sd = stateDir();
    await interrupted(sd, () => false);
    write(root, {
      'tsconfig.json': json({ compilerOptions: { module: 'esnext', moduleResolution: i === 0 ? 'bundler' : 'nodenext' }, include: ['app'] }),
      [`app/extra${i}.ts`]: 'import "./main.js";\nimport "zod/v4/core";\n',
    });
    const last = await interrupted(sd, kill);
    killedAt.push(`catch-up at "${last}"`);
    await repairs(`catch-up killed at "${last}"`, sd);
  }
  console.log(`builds killed after the progress reports: ${killedAt.join(' / ')}; each repaired to a fresh build's index`);
});

test.after(() => cleanupTemp());
test.run();
