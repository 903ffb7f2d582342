// The builder against real files and a real LMDB: incremental updates and
// catch-ups must leave exactly what a fresh build of the new tree holds, files
// whose content did not change are not parsed again, and a build killed with
// SIGKILL at any moment is finished by the next refresh.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { freshDump as freshDumpIn } from './helpers/fresh-index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';
import { stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';

// Child mode: build the index of argv[3] into state argv[4] and exit (the parent kills it midway).
if (process.argv[2] === '--build-child') {
  const idx = await openEvidexIndex(process.argv[3], { stateDir: process.argv[4] });
  await idx.refresh();
  await idx.close();
  process.stdout.write('built\n');
  process.exit(0);
}

const tmp = tempDir('build');
let n = 0;
const stateDir = (): string => join(tmp, `state-${n++}`);

const freshDump = (root: string): Promise<Record<string, unknown>> => freshDumpIn(root, stateDir());

async function assertSameAsFresh(idx: EvidexIndex, what: string): Promise<void> {
  const got = idx.store.dump();
  const want = await freshDump(idx.root);
  assert.equal(got, want, `index after ${what} differs from a fresh build`);
}

function makeRepo(): string {
  const root = tempDir('build-repo');
  write(root, {
    'pkg/__init__.py': 'from .a import helper\n',
    'pkg/a.py': 'import os\nfrom . import b as bee\n\n\ndef helper(x):\n    return os.path.join(x, "a")\n\n\nclass Thing:\n    size = 3\n\n    def run(self):\n        return helper(self)\n',
    'pkg/sub/b.py': 'from .. import a\nfrom ..a import Thing\nfrom . import c\nVALUE = 1\n',
    'pkg/sub/c.py': 'import pkg.a\n',
    'top.py': 'import pkg\nfrom pkg.sub import b\n\ndef main():\n    pass\n',
    'README.md': '# demo\nSome text with helper in it.\n',
    'data.bin': Buffer.from([1, 2, 0, 3, 4]),
    '.gitignore': 'build/\n*.log\n',
    'build/out.py': 'def ignored():\n    pass\n',
    'debug.log': 'helper log line\n',
    '.env': 'SECRET=helper\n',
  });
  return root;
}

test('incremental updates leave exactly what a fresh build holds; unchanged files are not re-parsed', async () => {
  const root = makeRepo();
  const idx = await openEvidexIndex(root, { stateDir: stateDir() });
  const first = await idx.refresh();
  assert.is(first.files, 7, 'indexed: pkg/__init__.py, pkg/a.py, pkg/sub/b.py, pkg/sub/c.py, top.py, README.md, .gitignore');
  assert.is(idx.builder.parsed, 7);
  await assertSameAsFresh(idx, 'first build');

  const step = async (what: string, paths: string[], expectParsed: number, mutate: () => void): Promise<void> => {
    mutate();
    const before = idx.builder.parsed;
    const gen = idx.status().generation;
    const r = await idx.update(paths);
    assert.is(idx.builder.parsed - before, expectParsed, `${what}: files parsed`);
    if (r.changed.length || r.removed.length) assert.ok(r.generation > gen, `${what}: generation rises`);
    await assertSameAsFresh(idx, what);
  };

  await step('edit', ['pkg/a.py'], 1, () => write(root, { 'pkg/a.py': 'import os\n\ndef helper(x):\n    return x\n\ndef extra():\n    pass\n' }));
  // Same content, new mtime: hashed, not parsed, nothing changes but the stat.
  await step('touch', ['pkg/a.py'], 0, () => utimesSync(join(root, 'pkg/a.py'), new Date(), new Date(Date.now() + 5000)));
  await step('create', ['new.py'], 1, () => write(root, { 'new.py': 'from pkg.sub.b import VALUE\n' }));
  await step('delete', ['top.py'], 0, () => rmSync(join(root, 'top.py')));
  // pkg/sub becomes a package: b.py and c.py change module names and relative targets without being parsed.
  await step('add __init__.py', ['pkg/sub/__init__.py'], 1, () => write(root, { 'pkg/sub/__init__.py': '' }));
  await step('remove __init__.py', ['pkg/__init__.py'], 0, () => rmSync(join(root, 'pkg/__init__.py')));
  // A stub package and stubs (docs/tools.md, Python rules): __init__.pyi makes pkg a package again; a folder stays one while either __init__ is there.
  await step('add __init__.pyi', ['pkg/__init__.pyi'], 1, () => write(root, { 'pkg/__init__.pyi': 'from .a import helper as helper\n' }));
  await step('add a stub beside a module', ['pkg/a.pyi'], 1, () => write(root, { 'pkg/a.pyi': 'def helper(x: str) -> str: ...\ndef extra() -> None: ...\n' }));
  await step('add __init__.py beside __init__.pyi', ['pkg/__init__.py'], 1, () => write(root, { 'pkg/__init__.py': 'from .a import helper\n' }));
  await step('remove __init__.pyi, __init__.py stays', ['pkg/__init__.pyi'], 0, () => rmSync(join(root, 'pkg/__init__.pyi')));
  await step('add __init__.pyi again', ['pkg/__init__.pyi'], 1, () => write(root, { 'pkg/__init__.pyi': '' }));
  await step('remove __init__.py, __init__.pyi stays', ['pkg/__init__.py'], 0, () => rmSync(join(root, 'pkg/__init__.py')));
  // sub/ loses its __init__.py: a namespace portion inside pkg, its files keep the pkg.sub names.
  await step('a package folder becomes a portion', ['pkg/sub/__init__.py'], 0, () => rmSync(join(root, 'pkg/sub/__init__.py')));
  assert.equal(idx.store.fileByPath('pkg/sub/b.py')?.mods, ['pkg.sub.b'], 'pkg/sub/ is a portion of pkg');
  await step('text becomes binary', ['README.md'], 0, () => write(root, { 'README.md': Buffer.from('# x\n\0\n') }));
  await step('binary becomes text', ['data.bin'], 1, () => write(root, { 'data.bin': 'now text\n' }));
  await step('secret and ignored paths', ['.env', 'debug.log', 'build/out.py'], 0, () => write(root, { 'debug.log': 'more\n' }));
  await step('folder deleted', ['pkg/sub'], 0, () => rmSync(join(root, 'pkg/sub'), { recursive: true }));
  await step('folder created', ['lib'], 2, () => write(root, { 'lib/x.py': 'X = 1\n', 'lib/y.txt': 'why\n' }));
  // A changed ignore file re-walks: *.md and lib/ now ignored, build/ visible.
  await step('.gitignore changed', ['.gitignore'], 2, () => write(root, { '.gitignore': '*.log\nlib/\n' }));

  const r = await idx.runTool('find_symbol', { name: 'ignored' });
  assert.is(r.total, 1, 'build/out.py is indexed once .gitignore stops excluding it');
  assertEvidenceChecks(root, r.evidence);
  await idx.close();
});

test('catch-up after changes made while closed re-parses only changed files; binaries are not re-read', async () => {
  const root = makeRepo();
  const sd = stateDir();
  let idx = await openEvidexIndex(root, { stateDir: sd });
  await idx.refresh();
  const gen = idx.status().generation;
  await idx.close();

  idx = await openEvidexIndex(root, { stateDir: sd });
  assert.is(idx.status().generation, gen, 'generation persists');
  const nothing = await idx.refresh();
  assert.is(nothing.parsed, 0);
  assert.is(nothing.unchanged, 7);
  assert.is(idx.status().generation, gen, 'an unchanged tree writes nothing');
  await idx.close();

  write(root, { 'top.py': 'def main():\n    return 2\n' });
  rmSync(join(root, 'pkg/sub/c.py'));
  write(root, { 'notes.txt': 'hello\n' });
  utimesSync(join(root, 'README.md'), new Date(), new Date(Date.now() + 9000)); // stat differs, content same
  idx = await openEvidexIndex(root, { stateDir: sd });
  const r = await idx.refresh();
  assert.is(r.parsed, 2, 'top.py and notes.txt');
  assert.is(r.removed, 1, 'pkg/sub/c.py');
  assert.is(idx.builder.parsed, 2);
  await assertSameAsFresh(idx, 'catch-up');
  await idx.close();
});

test('an index of another format version is discarded and rebuilt', async () => {
  const root = makeRepo();
  const sd = stateDir();
  let idx = await openEvidexIndex(root, { stateDir: sd });
  await idx.refresh();
  await idx.close();
  const { open } = await import('lmdb');
  const env = open({ path: join(sd, 'index'), maxDbs: 16 });
  const meta = env.openDB({ name: 'meta', encoding: 'msgpack' });
  await meta.put('formatVersion', 999);
  await env.close();
  idx = await openEvidexIndex(root, { stateDir: sd });
  assert.is(idx.status().state, 'empty');
  assert.is(idx.status().files, 0);
  const r = await idx.refresh();
  assert.is(r.parsed, 7);
  await assertSameAsFresh(idx, 'format rebuild');
  await idx.close();
});

/** Worker threads this process started while `run` ran: each new Worker takes the next thread id, so two probes bracket them. */
async function workersStartedBy(run: () => Promise<unknown>): Promise<number> {
  const probe = async (): Promise<number> => {
    const w = new Worker('', { eval: true });
    const id = w.threadId;
    await w.terminate();
    return id;
  };
  const before = await probe();
  await run();
  return (await probe()) - before - 1;
}

test('a build from nothing starts as many parse workers as its files keep busy: one for a tiny tree; a catch-up of a few files none', async () => {
  const tiny = makeRepo(); // 7 files to parse: one chunk
  const idx = await openEvidexIndex(tiny, { stateDir: stateDir(), workers: 2 });
  assert.is(await workersStartedBy(() => idx.refresh()), 1, 'a tiny tree from nothing: one worker');
  write(tiny, { 'top.py': 'def main():\n    return 3\n' });
  const parsedBefore = idx.builder.parsed;
  // A worker's start and its parsers' load took longer than the file (the start-up check after an offline edit).
  assert.is(await workersStartedBy(() => idx.refresh()), 0, 'a catch-up of one file: parsed on this thread, no worker');
  assert.is(idx.builder.parsed - parsedBefore, 1, 'and parsed it');
  assert.is((await idx.runTool('read_evidence', { path: 'top.py', start_line: 2 })).evidence[0]!.snippet, '    return 3');
  assert.is(await workersStartedBy(() => idx.refresh()), 0, 'nothing to parse: none');
  await idx.close();

  // 80 files: four chunks of at most 24, which keep two workers busy (two chunks in flight each).
  const many = tempDir('build-many');
  write(many, Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])));
  const dumps = [];
  for (const workers of [2, 1]) {
    const built = await openEvidexIndex(many, { stateDir: stateDir(), workers });
    assert.is(await workersStartedBy(() => built.refresh()), workers, `80 files with up to ${workers} workers`);
    assert.is(built.status().files, 80);
    dumps.push(built.store.dump());
    await built.close();
  }
  assert.equal(dumps[0], dumps[1], 'the same index whatever the workers');
});

/** A few real stdlib packages, copied so the test may build them freely. */
function stdlibSubset(): string {
  const stdlib = stdlibRoot();
  const root = tempDir('build-std');
  for (const name of ['email', 'json', 'asyncio', 'http', 'urllib', 'xml', 'logging', 'importlib', 'concurrent', 'argparse.py', 'typing.py', 'os.py']) {
    if (existsSync(join(stdlib, name))) cpSync(join(stdlib, name), join(root, name), { recursive: true, filter: (p) => !p.includes('__pycache__') });
  }
  return root;
}

testUnless(lacks.python3())('a build killed with SIGKILL at any moment is finished by the next refresh', async () => {
  const root = stdlibSubset();
  const want = await freshDump(root);
  const self = fileURLToPath(import.meta.url);
  for (const delay of [50, 400, 1000, 1500, 2000, 4000]) {
    const sd = stateDir();
    const child = spawn(process.execPath, [self, '--build-child', root, sd], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += String(d); });
    const timer = setTimeout(() => child.kill('SIGKILL'), delay);
    await new Promise((r) => child.on('exit', r));
    clearTimeout(timer);
    const idx = await openEvidexIndex(root, { stateDir: sd });
    const state = idx.status().state;
    const files = idx.status().files;
    const r = await idx.refresh();
    if (process.env.EVIDEX_TEST_VERBOSE) console.log(`killed after ${delay} ms: state ${state}, ${files} files held, ${r.parsed} parsed by the repair, ${out.includes('built') ? 'child had finished' : 'child killed'}`);
    assert.equal(idx.store.dump(), want, `killed after ${delay} ms (state ${state}, ${out.includes('built') ? 'finished' : 'killed'}): repaired index differs from a fresh build`);
    await idx.close();
  }
});

test.after(() => cleanupTemp());
test.run();
