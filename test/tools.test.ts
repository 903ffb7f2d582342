// The five tools through openIndex on real trees: the fixture repo's pinned
// answers, every refusal, and a store round trip over real stdlib packages —
// every definition extractPython finds is what find_symbol answers, and every
// import statement is found by find_importers for each of its targets.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../indexer/errors.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { extractPython } from '../indexer/python/extract.js';
import { importTargets, moduleNamesOf } from '../indexer/python/modules.js';
import { decodeText } from '../indexer/text.js';
import type { Evidence } from '../indexer/evidence.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';
import { packageDirsAmong, stdlibRoot } from './helpers/corpus.js';
import { mulberry32 } from './helpers/random.js';
import { lacks, testUnless } from './helpers/skip.js';

const tmp = tempDir('tools');
// A copy outside any work tree: in place, the evidex repository tracks the fixture's ignored
// files (cache/, *.log), and git never ignores a tracked file.
const fixture = join(tmp, 'mobileai-local-rag');
if (lacks.fixture() === null) cpSync(FIXTURE, fixture, { recursive: true, verbatimSymlinks: true });
/** The tests on the fixture's pinned answers; without the fixture they are skipped. */
const fixtureTest = testUnless(lacks.fixture());

/**
 * Every call here goes through the index's runTool, the daemon's path. The
 * four index tools must answer as a value, not a promise, once the rules are
 * loaded: the daemon sends such answers in the same turn of the event loop.
 */
async function call(idx: EvidexIndex, name: string, args: Record<string, unknown>): Promise<{ evidence: Evidence[]; total: number; generation: number }> {
  const answer = idx.runTool(name, args);
  if (idx.builder.loadedRules) assert.is(answer instanceof Promise, name === 'read_git_diff', `${name} answers ${answer instanceof Promise ? 'with a promise' : 'as a value'}`);
  const r = await answer;
  assertEvidenceChecks(idx.root, r.evidence);
  assert.is(r.generation, idx.status().generation);
  return r;
}

async function refused(idx: EvidexIndex, name: string, args: Record<string, unknown>, code: string, msg?: RegExp): Promise<void> {
  const what = `${name} ${JSON.stringify(args)}`;
  try {
    await idx.runTool(name, args);
  } catch (err) {
    assert.instance(err, ToolError, what);
    assert.is((err as ToolError).code, code, `${what}: ${(err as Error).message}`);
    assert.not.match((err as Error).message, /\n/);
    if (msg) assert.match((err as Error).message, msg);
    return;
  }
  assert.unreachable(`${what} should be refused with ${code}`);
}

const where = (e: Evidence): string => `${e.path}:${e.start_line}-${e.end_line}`;

let fx: EvidexIndex | null = null;
async function fixtureIndex(): Promise<EvidexIndex> {
  if (!fx) { fx = await openEvidexIndex(fixture, { stateDir: join(tmp, 'fx') }); await fx.refresh(); }
  return fx;
}

test('before the first build, index tools answer index_unavailable', async () => {
  const root = tempDir('tools-empty');
  writeFileSync(join(root, 'a.py'), 'x = 1\n');
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'empty-state') });
  await refused(idx, 'search_code', { query: 'x' }, 'index_unavailable');
  await idx.refresh();
  assert.is((await call(idx, 'search_code', { query: 'x = 1' })).total, 1);
  await idx.close();
});

test('during the first build a call waits for it, a bad call is refused at once, and a failed first build refuses every call', async () => {
  const root = tempDir('tools-first');
  writeFileSync(join(root, 'a.py'), 'def first_build_fn():\n    pass\n');
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'first-state') });
  const build = idx.refresh();
  const waiting = idx.runTool('find_symbol', { name: 'first_build_fn' });
  assert.ok(waiting instanceof Promise, 'a call during the first build waits for it');
  // The check comes before the wait: bad input is refused now, as a throw, not after the build.
  assert.throws(() => idx.runTool('find_symbol', { name: 'x', extra: 1 }), (e: unknown) => e instanceof ToolError && e.code === 'invalid_arguments');
  assert.throws(() => idx.runTool('shell', {}), (e: unknown) => e instanceof ToolError && e.code === 'unknown_tool');
  const r = await waiting;
  assert.is(r.total, 1, 'the waiting call is answered from the finished build');
  await build;
  assert.not.ok(idx.runTool('find_symbol', { name: 'first_build_fn' }) instanceof Promise, 'after the build, answers come at once');
  await idx.close();

  // A first build that fails (the root is gone): every call is refused with its reason, even read_git_diff.
  const gone = tempDir('tools-gone');
  const broken = await openEvidexIndex(gone, { stateDir: join(tmp, 'gone-state') });
  rmSync(gone, { recursive: true });
  const failing = broken.refresh();
  const pending = broken.runTool('search_code', { query: 'x' });
  assert.ok(pending instanceof Promise, 'a call during the first build waits for it');
  await failing.then(() => assert.unreachable('the build of a deleted root succeeded'), () => undefined);
  for (const [name, args] of [['search_code', { query: 'x' }], ['read_git_diff', {}]] as const) {
    await refused(broken, name, args, 'index_unavailable', /^the index could not be built: repository root .* cannot be opened: ENOENT$/);
  }
  await pending.then(() => assert.unreachable('a call waiting on a failed build was answered'), (e: unknown) => {
    assert.instance(e, ToolError);
    assert.match((e as ToolError).message, /^the index could not be built: /);
  });
  await broken.close();
});

fixtureTest('search_code on the fixture: pinned line, path matches first, limit vs total, prefix, never secrets or binaries', async () => {
  const idx = await fixtureIndex();
  const r = await call(idx, 'search_code', { query: 'COLLECTION_NAME' });
  assert.ok(r.evidence.some((e) => e.path === 'src/rag_common.py' && e.start_line === 12 && e.snippet === 'COLLECTION_NAME = "mobileai_docs"'));
  for (const e of r.evidence) {
    assert.is(e.kind, 'content_match');
    assert.is(e.name, 'COLLECTION_NAME');
    assert.ok(!['.env', 'assets/logo.png', 'debug.log', 'config/server.pem', 'cache/embeddings.json'].includes(e.path), e.path);
  }
  const paths = await call(idx, 'search_code', { query: 'RAG' });
  const kinds = paths.evidence.map((e) => e.kind);
  const firstContent = kinds.indexOf('content_match');
  assert.ok(kinds.indexOf('path_match') === 0 && firstContent > 0 && kinds.lastIndexOf('path_match') < firstContent, 'path matches come first');
  for (const e of paths.evidence.filter((x) => x.kind === 'path_match')) { assert.is(e.name, e.path); assert.is(e.start_line, 1); }
  const sensitive = await call(idx, 'search_code', { query: 'RAG', case_sensitive: true });
  assert.ok(sensitive.total < paths.total, 'case-sensitive finds fewer');
  const cut = await call(idx, 'search_code', { query: 'import', limit: 3 });
  assert.is(cut.evidence.length, 3);
  assert.ok(cut.total > 3);
  const pre = await call(idx, 'search_code', { query: 'import', path_prefix: 'src/mobileai_rag/', limit: 200 });
  assert.ok(pre.total > 0 && pre.evidence.every((e) => e.path.startsWith('src/mobileai_rag/')));
  assert.is((await call(idx, 'search_code', { query: 'line one\nline two' })).total, 0);
});

fixtureTest('find_symbol, read_evidence and find_importers on the fixture', async () => {
  const idx = await fixtureIndex();
  const retry = await call(idx, 'find_symbol', { name: 'Settings.Defaults.Retry' });
  assert.is(retry.total, 1);
  assert.is(retry.evidence[0].kind, 'class');
  assert.is(retry.evidence[0].name, 'Settings.Defaults.Retry');
  const byKind = await call(idx, 'find_symbol', { name: 'COLLECTION_NAME', kind: 'variable' });
  assert.equal(byKind.evidence.map(where), ['src/rag_common.py:12-12']);
  assert.is((await call(idx, 'find_symbol', { name: 'COLLECTION_NAME', kind: 'class' })).total, 0);
  // Module-qualified names, under every module name of the file (docs/tools.md); a stub's definitions count.
  for (const name of ['rag_common.COLLECTION_NAME', 'src.rag_common.COLLECTION_NAME']) {
    assert.equal((await call(idx, 'find_symbol', { name })).evidence.map(where), ['src/rag_common.py:12-12'], name);
  }
  const rerank = await call(idx, 'find_symbol', { name: 'mobileai_rag.retrieval.scoring.rerank' });
  assert.equal(rerank.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`), [
    'src/mobileai_rag/retrieval/scoring.py:26-31 function rerank', 'src/mobileai_rag/retrieval/scoring.pyi:11-11 function rerank',
  ], 'the module-level rerank of scoring.py and its stub, not the methods named rerank');
  assert.is((await call(idx, 'find_symbol', { name: 'rerank' })).total, 4, 'by simple name: the two functions and two methods');
  assert.equal((await call(idx, 'find_symbol', { name: 'mobileai_rag.adapters.ollama_adapter.OllamaAdapter.rerank' })).evidence.map((e) => `${where(e)} ${e.kind}`),
    ['src/mobileai_rag/adapters/ollama_adapter.py:9-10 method']);
  assert.equal((await call(idx, 'find_symbol', { name: 'mobileai_rag.__version__' })).evidence.map(where), ['src/mobileai_rag/__init__.py:5-5'], 'pkg.name for pkg/__init__.py');
  assert.equal((await call(idx, 'find_symbol', { name: 'src.mobileai_rag.config.Settings.Defaults.Retry' })).evidence.map(where),
    (await call(idx, 'find_symbol', { name: 'Settings.Defaults.Retry' })).evidence.map(where));
  assert.is((await call(idx, 'find_symbol', { name: 'mobileai_rag.rerank' })).total, 0, 'a name is not found through a module it is not defined in');
  const paged = await call(idx, 'find_symbol', { name: 'rerank', limit: 1, offset: 2, path_prefix: 'src/mobileai_rag/' });
  assert.equal(paged.evidence.map(where), ['src/mobileai_rag/retrieval/scoring.py:26-31']);
  assert.is(paged.total, 4);

  const read = await call(idx, 'read_evidence', { path: 'src/rag_common.py', start_line: 12 });
  assert.equal(read.evidence.map((e) => [where(e), e.kind, e.name, e.snippet]), [['src/rag_common.py:12-12', 'source', 'src/rag_common.py', 'COLLECTION_NAME = "mobileai_docs"']]);
  const widened = await call(idx, 'read_evidence', { path: './src/rag_common.py', start_line: 2, end_line: 3, context: 50 });
  assert.is(widened.evidence[0].start_line, 1);
  assert.is(widened.evidence[0].end_line, readFileSync(join(fixture, 'src/rag_common.py'), 'utf8').split('\n').length - 1);
  await refused(idx, 'read_evidence', { path: '.env', start_line: 1 }, 'secret_denied');
  await refused(idx, 'read_evidence', { path: 'debug.log', start_line: 1 }, 'not_indexed');
  await refused(idx, 'read_evidence', { path: 'assets/logo.png', start_line: 1 }, 'not_indexed');
  await refused(idx, 'read_evidence', { path: '../outside.py', start_line: 1 }, 'path_denied');
  await refused(idx, 'read_evidence', { path: '/etc/passwd', start_line: 1 }, 'path_denied');
  await refused(idx, 'read_evidence', { path: 'src/rag_common.py', start_line: 10_000 }, 'out_of_range');
  // Named by its tool, as the schema's own refusals are: an MCP host or a model sees it beside other tools' errors.
  await refused(idx, 'read_evidence', { path: 'src/rag_common.py', start_line: 5, end_line: 4 }, 'invalid_arguments', /^read_evidence: end_line 4 is before start_line 5$/);

  const importers = await call(idx, 'find_importers', { module_name: 'rag_common' });
  assert.equal(importers.evidence.map((e) => `${e.path}:${e.start_line}`),
    ['src/build_index.py:4', 'src/chat_reranker.py:6', 'src/chat_reranker_guarded.py:6', 'src/rag_chat.py:10']);
  assert.ok(importers.evidence[3].end_line > 10, 'the multi-line import spans its lines');
  assert.ok(importers.evidence.every((e) => e.kind === 'import' && e.name === 'rag_common'));
  assert.is(importers.total, 4);
  const byPath = await call(idx, 'find_importers', { module_name: 'src/rag_common.py' });
  assert.equal(byPath.evidence.map(where), importers.evidence.map(where));
  assert.ok(byPath.evidence.every((e) => e.name === 'src/rag_common.py'));
  const rel = await call(idx, 'find_importers', { module_name: 'mobileai_rag.config' });
  assert.ok(rel.evidence.some((e) => e.path === 'src/mobileai_rag/retrieval/scoring.py'), 'relative `from ..config import` resolves');
  // adapters/ has no __init__.py inside the package mobileai_rag: a namespace portion (docs/tools.md, Python rules).
  const portion = await call(idx, 'find_importers', { module_name: 'mobileai_rag.adapters.base' });
  assert.equal(portion.evidence.map(where), ['src/mobileai_rag/adapters/ollama_adapter.py:2-2'], '`from .base import Adapter` inside the portion');
  assert.equal((await call(idx, 'find_importers', { module_name: 'src/mobileai_rag/adapters/base.py' })).evidence.map(where), portion.evidence.map(where));
  const config = await call(idx, 'find_importers', { module_name: 'mobileai_rag.config' });
  assert.ok(config.evidence.some((e) => where(e) === 'src/mobileai_rag/adapters/base.py:4-4'), '`from ..config` climbs out of the portion');
  assert.ok(config.evidence.some((e) => where(e) === 'src/mobileai_rag/retrieval/scoring.pyi:5-5'), 'a stub\'s imports count');
  await refused(idx, 'find_importers', { module_name: 'docs/README.md' }, 'not_indexed');
  await refused(idx, 'find_importers', { module_name: 'src/missing.py' }, 'not_indexed');
  assert.is((await call(idx, 'find_importers', { module_name: 'no.such.module' })).total, 0);
});

test('read_evidence caps a widened span at 400 lines', async () => {
  const root = tempDir('tools-long');
  writeFileSync(join(root, 'long.txt'), Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'long-state') });
  await idx.refresh();
  const ok = await call(idx, 'read_evidence', { path: 'long.txt', start_line: 51, end_line: 350, context: 50 });
  assert.is(ok.evidence[0].end_line - ok.evidence[0].start_line + 1, 400);
  await refused(idx, 'read_evidence', { path: 'long.txt', start_line: 60, end_line: 360, context: 50 }, 'invalid_arguments', /400/);
  const tail = await call(idx, 'read_evidence', { path: 'long.txt', start_line: 999, end_line: 5000 });
  assert.is(tail.evidence[0].end_line, 1000, 'end clamped to the file');
  await idx.close();
});

test('read_evidence cut at 4,000 characters says where to read on, and reading on from there skips no line', async () => {
  const root = tempDir('tools-cut');
  // 400 lines of 30 characters: the snippet of 1-400 holds ~133 of them.
  writeFileSync(join(root, 'wide.txt'), Array.from({ length: 400 }, (_, i) => `line ${String(i + 1).padStart(4, '0')} ${'x'.repeat(20)}`).join('\n') + '\n');
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'cut-state') });
  await idx.refresh();
  const first = (await call(idx, 'read_evidence', { path: 'wide.txt', start_line: 1, end_line: 400 })).evidence[0];
  assert.is(first.truncated, true);
  assert.is(first.end_line, 400, 'the item still claims the lines asked for');
  const whole = first.snippet.split('\n').length - 1;
  assert.is(first.next_start_line, 1 + whole, 'goes on at the line the cut fell in');
  // Follow next_start_line to the end: every line is seen, in order, once.
  const seen: string[] = [];
  let item = first;
  for (;;) {
    const got = item.snippet.split('\n');
    if (item.next_start_line !== undefined) got.length = item.next_start_line - item.start_line;
    seen.push(...got);
    if (item.next_start_line === undefined) break;
    item = (await call(idx, 'read_evidence', { path: 'wide.txt', start_line: item.next_start_line, end_line: 400 })).evidence[0];
  }
  assert.equal(seen, readFileSync(join(root, 'wide.txt'), 'utf8').split('\n').slice(0, 400));
  // A snippet under the cut, and one cut inside its only line, say nothing more.
  writeFileSync(join(root, 'one.txt'), 'y'.repeat(5000) + '\nshort\n');
  await idx.refresh();
  assert.is((await call(idx, 'read_evidence', { path: 'wide.txt', start_line: 1, end_line: 10 })).evidence[0].next_start_line, undefined);
  const oneLine = (await call(idx, 'read_evidence', { path: 'one.txt', start_line: 1, end_line: 2 })).evidence[0];
  assert.is(oneLine.truncated, true);
  assert.is(oneLine.next_start_line, undefined, 'a cut inside the first line has nowhere to go on');
  await idx.close();
});

type Args = Record<string, unknown>;

/** The whole answer, read page after page of `size` items: every page has the same total and is full but the last. */
async function allPages(idx: EvidexIndex, name: string, args: Args, size = 200): Promise<{ evidence: Evidence[]; total: number }> {
  const evidence: Evidence[] = [];
  let total = -1;
  for (let offset = 0; total < 0 || offset < total; offset += size) {
    const r = await idx.runTool(name, { ...args, limit: size, offset });
    if (total >= 0) assert.is(r.total, total, `${name} ${JSON.stringify(args)}: total changed between pages`);
    total = r.total;
    assert.is(r.evidence.length, Math.max(0, Math.min(size, total - offset)), `${name} ${JSON.stringify(args)} page at ${offset}`);
    evidence.push(...r.evidence);
  }
  return { evidence, total };
}

/** Answer order of `path:start-end kind name` keys: path in UTF-8 byte order, start line, then name (a qualname). */
function byPathThenLine(a: string, b: string): number {
  const parse = (k: string) => ({ path: k.slice(0, k.indexOf(':')), start: parseInt(k.slice(k.indexOf(':') + 1), 10), name: k.slice(k.lastIndexOf(' ') + 1) });
  const x = parse(a), y = parse(b);
  return Buffer.compare(Buffer.from(x.path), Buffer.from(y.path)) || x.start - y.start || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
}

/**
 * Paging and path_prefix against a full answer known independently (docs/tools.md,
 * Paging): for seeded windows and prefixes, the page is exactly the slice of the
 * full answer filtered by the prefix, and `total` its length.
 */
async function checkPages(idx: EvidexIndex, name: string, args: Args, full: string[], rnd: () => number): Promise<number> {
  const prefixes = [undefined, ...new Set(full.flatMap((k) => {
    const p = k.slice(0, k.indexOf(':'));
    const cut = p.indexOf('/') + 1;
    return cut > 0 ? [p.slice(0, cut), p.slice(0, cut + Math.floor(rnd() * (p.length - cut)))] : [p];
  }))].slice(0, 4);
  let pages = 0;
  for (const prefix of prefixes) {
    const want = prefix === undefined ? full : full.filter((k) => k.startsWith(prefix));
    for (let i = 0; i < 3; i++) {
      const limit = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 5 : 200));
      const offset = i === 0 ? 0 : Math.floor(rnd() * (want.length + 3));
      const a: Args = { ...args, limit, offset, ...(prefix === undefined ? {} : { path_prefix: prefix }) };
      const r = await call(idx, name, a);
      assert.equal(r.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`), want.slice(offset, offset + limit).map((k) => k), `${name} ${JSON.stringify(a)}`);
      assert.is(r.total, want.length, `total of ${name} ${JSON.stringify(a)}`);
      pages++;
    }
  }
  return pages;
}

testUnless(lacks.python3())('store round trip over the stdlib: find_symbol (plain, qualified, module-qualified) and find_importers agree with extractPython/importTargets, page by page, warm and cold', async () => {
  const root = stdlibRoot();
  const stateDir = join(tmp, 'std-state');
  const open = () => openEvidexIndex(root, { stateDir, extraIgnore: ['site-packages/', '__pycache__/'] });
  // The whole stdlib read in place (nothing is written there), minus installed packages.
  let idx = await open();
  await idx.refresh();
  await idx.warm();
  const files = idx.store.ordered().filter((f) => f.py).map((f) => f.path);
  assert.ok(files.length > 1000, `${files.length} Python files`);
  const pkgDirs = packageDirsAmong(files);
  const isPkg = (d: string): boolean => pkgDirs.has(d);

  interface Def { item: string; name: string; qualname: string; path: string }
  const defs: Def[] = [];
  const defsByKey = new Map<string, string[]>();
  const stmtsByTarget = new Map<string, Set<string>>();
  const modsOf = new Map<string, string[]>();
  for (const path of files) {
    const ex = extractPython(decodeText(readFileSync(join(root, path))));
    for (const d of ex.defs) {
      const item = `${path}:${d.start}-${d.end} ${d.kind} ${d.qualname}`;
      defs.push({ item, name: d.name, qualname: d.qualname, path });
      for (const k of new Set([d.name, d.qualname])) (defsByKey.get(k) ?? defsByKey.set(k, []).get(k)!).push(item);
    }
    for (const imp of ex.imports) {
      for (const t of importTargets(imp, path, isPkg)) (stmtsByTarget.get(t) ?? stmtsByTarget.set(t, new Set()).get(t)!).add(`${path}:${imp.start}-${imp.end}`);
    }
    modsOf.set(path, moduleNamesOf(path, isPkg));
  }
  const filesByModule = new Map<string, string[]>();
  for (const [p, mods] of modsOf) for (const m of mods) (filesByModule.get(m) ?? filesByModule.set(m, []).get(m)!).push(p);
  /** find_symbol's answer by the words of docs/tools.md: simple name or qualname equal, or `M.Q` with M a module name of the file and Q the qualname. */
  const symbolAnswer = (name: string): string[] => {
    const out = new Set(defsByKey.get(name) ?? []);
    for (let i = name.indexOf('.'); i > 0; i = name.indexOf('.', i + 1)) {
      const inFiles = new Set(filesByModule.get(name.slice(0, i)) ?? []);
      const qual = name.slice(i + 1);
      if (inFiles.size) for (const d of defs) if (d.qualname === qual && inFiles.has(d.path)) out.add(d.item);
    }
    return [...out].sort(byPathThenLine);
  };
  const importersAnswer = (target: string): string[] => {
    const names = new Set([target]);
    for (const p of filesByModule.get(target) ?? []) for (const m of modsOf.get(p)!) names.add(m);
    const want = new Set<string>();
    for (const n of names) for (const st of stmtsByTarget.get(n) ?? []) want.add(st);
    return [...want].sort(byPathThenLine).map((k) => `${k} import ${target}`);
  };

  // Every key: exactly the definitions extraction found, in (path, line, qualname) order, read page by page.
  let checked = 0;
  for (const [key] of defsByKey) {
    const r = await allPages(idx, 'find_symbol', { name: key });
    assert.equal(r.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`), symbolAnswer(key), `find_symbol ${key}`);
    if (checked++ % 50 === 0) assertEvidenceChecks(root, r.evidence);
  }
  // Module-qualified names: every module name of every 5th file, with each of its definitions' qualnames.
  const qualified: string[] = [];
  files.forEach((p, i) => {
    if (i % 5 !== 0) return;
    for (const m of modsOf.get(p)!) for (const d of defs) if (d.path === p && qualified.length < 4000) qualified.push(`${m}.${d.qualname}`);
  });
  const qualifiedSet = [...new Set(qualified)];
  for (const name of qualifiedSet) {
    const r = await allPages(idx, 'find_symbol', { name });
    const want = symbolAnswer(name);
    assert.ok(want.length > 0);
    assert.equal(r.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`), want, `find_symbol ${name}`);
  }
  // Every import target: the statements naming it, plus those naming another module name of the same files.
  for (const target of stmtsByTarget.keys()) {
    const r = await allPages(idx, 'find_importers', { module_name: target });
    assert.equal(r.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`), importersAnswer(target), `find_importers ${target}`);
  }

  // Windows and prefixes over the largest answers and a seeded sample, first warm (the symbol index), then cold (LMDB rows).
  const rnd = mulberry32(18);
  const bigSymbols = [...defsByKey].sort((a, b) => b[1].length - a[1].length).slice(0, 8).map(([k]) => k);
  const bigTargets = [...stmtsByTarget].sort((a, b) => b[1].size - a[1].size).slice(0, 8).map(([k]) => k);
  const sampleOf = <T>(xs: T[], n: number): T[] => Array.from({ length: n }, () => xs[Math.floor(rnd() * xs.length)]);
  const symbolQueries = [...bigSymbols, ...sampleOf([...defsByKey.keys()], 20), ...sampleOf(qualifiedSet, 20), 'json.JSONDecoder', 'json.decoder.JSONDecoder.decode'];
  const importQueries = [...bigTargets, ...sampleOf([...stmtsByTarget.keys()], 20), 'json/__init__.py', 'email/mime/text.py'];
  let pages = 0;
  for (const state of ['warm', 'cold'] as const) {
    if (state === 'cold') {
      await idx.close();
      idx = await open();
      await idx.rules(); // loaded, so the index tools answer as values (call() checks)
      assert.not.ok(idx.store.symbolsReady, 'a reopened index answers from the LMDB rows until warm-up');
    }
    for (const name of symbolQueries) pages += await checkPages(idx, 'find_symbol', { name }, symbolAnswer(name), rnd);
    for (const m of importQueries) {
      const target = m.endsWith('.py') ? moduleNamesOf(m, isPkg)[0] : m;
      const want = importersAnswer(target).map((k) => k.replace(/ import .*$/, ` import ${m}`));
      pages += await checkPages(idx, 'find_importers', { module_name: m }, want, rnd);
    }
    assert.not.ok(state === 'cold' && idx.store.symbolsReady, 'the cold checks ran on the LMDB rows');
  }
  console.log(`round trip: ${files.length} files, ${defs.length} definitions under ${defsByKey.size} names, ${qualifiedSet.length} module-qualified names, ` +
    `${stmtsByTarget.size} import targets; ${pages} pages/prefixes checked against the full answers, warm and cold`);
  await idx.close();
});

test.after(async () => { await fx?.close(); cleanupTemp(); });
test.run();
