// The five tools through openIndex on real trees: the fixture repo's pinned
// answers, every refusal, and a store round trip over real stdlib packages —
// every definition extractPython finds is what find_symbol answers, and every
// import statement is found by find_importers for each of its targets.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../indexer/errors.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { extractPython } from '../indexer/python/extract.js';
import { importTargets, moduleNamesOf } from '../indexer/python/modules.js';
import { decodeText } from '../indexer/text.js';
import type { ToolCall } from '../indexer/query/schemas.js';
import type { Evidence } from '../indexer/evidence.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';
import { stdlibRoot } from './helpers/corpus.js';

const tmp = tempDir('tools');
// A copy outside any work tree: in place, the evidex repository tracks the fixture's ignored
// files (cache/, *.log), and git never ignores a tracked file.
const fixture = join(tmp, 'mobileai-local-rag');
if (existsSync(FIXTURE)) cpSync(FIXTURE, fixture, { recursive: true, verbatimSymlinks: true });

/**
 * Every call here is asked both ways: runTool, and runToolNow (the daemon's
 * synchronous path), which must give the same answer (null only for
 * read_git_diff, which asks git) and the same refusals.
 */
async function call(idx: EvidexIndex, name: string, args: Record<string, unknown>): Promise<{ evidence: Evidence[]; total: number; generation: number }> {
  const now = idx.runToolNow({ name, args } as ToolCall);
  const r = await idx.runTool({ name, args } as ToolCall);
  if (name === 'read_git_diff') assert.is(now, null);
  else assert.equal(now, r, `runToolNow and runTool differ on ${name} ${JSON.stringify(args)}`);
  assertEvidenceChecks(idx.root, r.evidence);
  assert.is(r.generation, idx.status().generation);
  return r;
}

async function refused(idx: EvidexIndex, name: string, args: Record<string, unknown>, code: string, msg?: RegExp): Promise<void> {
  const how = [['runTool', () => idx.runTool({ name, args } as ToolCall)], ['runToolNow', () => idx.runToolNow({ name, args } as ToolCall)]] as const;
  for (const [way, run] of how) {
    const what = `${way} ${name} ${JSON.stringify(args)}`;
    try {
      const r = await run();
      // Null: runToolNow cannot answer this one (read_git_diff), so runTool's refusal is the one that counts.
      if (way === 'runToolNow' && r === null && name === 'read_git_diff') continue;
    } catch (err) {
      assert.instance(err, ToolError, what);
      assert.is((err as ToolError).code, code, `${what}: ${(err as Error).message}`);
      assert.not.match((err as Error).message, /\n/);
      if (msg) assert.match((err as Error).message, msg);
      continue;
    }
    assert.unreachable(`${what} should be refused with ${code}`);
  }
}

const where = (e: Evidence): string => `${e.path}:${e.start_line}-${e.end_line}`;

let fx: EvidexIndex | null = null;
async function fixtureIndex(): Promise<EvidexIndex | null> {
  if (!existsSync(fixture)) return null;
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

test('search_code on the fixture: pinned line, path matches first, limit vs total, prefix, never secrets or binaries', async () => {
  const idx = await fixtureIndex();
  if (!idx) { console.log('fixture absent: skipped'); return; }
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

test('find_symbol, read_evidence and find_importers on the fixture', async () => {
  const idx = await fixtureIndex();
  if (!idx) return;
  const retry = await call(idx, 'find_symbol', { name: 'Settings.Defaults.Retry' });
  assert.is(retry.total, 1);
  assert.is(retry.evidence[0].kind, 'class');
  assert.is(retry.evidence[0].name, 'Settings.Defaults.Retry');
  const byKind = await call(idx, 'find_symbol', { name: 'COLLECTION_NAME', kind: 'variable' });
  assert.equal(byKind.evidence.map(where), ['src/rag_common.py:12-12']);
  assert.is((await call(idx, 'find_symbol', { name: 'COLLECTION_NAME', kind: 'class' })).total, 0);

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
  await refused(idx, 'read_evidence', { path: 'src/rag_common.py', start_line: 5, end_line: 4 }, 'invalid_arguments');

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

test('store round trip over the stdlib: find_symbol and find_importers agree with extractPython/importTargets', async () => {
  const root = stdlibRoot();
  // The whole stdlib read in place (nothing is written there), minus installed packages.
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'std-state'), extraIgnore: ['site-packages/', '__pycache__/'] });
  await idx.refresh();
  const files = idx.store.ordered().filter((f) => f.py).map((f) => f.path);
  assert.ok(files.length > 1000, `${files.length} .py files`);
  const pkgDirs = new Set(files.filter((p) => p.endsWith('/__init__.py')).map((p) => p.slice(0, -'/__init__.py'.length)));
  const isPkg = (d: string): boolean => pkgDirs.has(d);

  const defsByKey = new Map<string, string[]>();
  const stmtsByTarget = new Map<string, Set<string>>();
  const modsOf = new Map<string, string[]>();
  let defCount = 0;
  for (const path of files) {
    const ex = extractPython(decodeText(readFileSync(join(root, path))));
    for (const d of ex.defs) {
      const item = `${path}:${d.start}-${d.end} ${d.kind} ${d.qualname}`;
      for (const k of new Set([d.name, d.qualname])) (defsByKey.get(k) ?? defsByKey.set(k, []).get(k)!).push(item);
      defCount++;
    }
    for (const imp of ex.imports) {
      for (const t of importTargets(imp, path, isPkg)) (stmtsByTarget.get(t) ?? stmtsByTarget.set(t, new Set()).get(t)!).add(`${path}:${imp.start}-${imp.end}`);
    }
    modsOf.set(path, moduleNamesOf(path, isPkg));
  }
  // Every key: exactly the definitions extraction found, in (path, line, qualname) order.
  let checked = 0;
  for (const [key, items] of defsByKey) {
    const r = await idx.runTool({ name: 'find_symbol', args: { name: key, limit: 1_000_000 } });
    const got = r.evidence.map((e) => `${where(e)} ${e.kind} ${e.name}`);
    assert.equal([...got].sort(), [...items].sort(), `find_symbol ${key}`);
    assert.is(r.total, items.length);
    if (checked++ % 50 === 0) assertEvidenceChecks(root, r.evidence);
  }
  // Every import target: the statements naming it, plus those naming another module name of the same files.
  for (const target of stmtsByTarget.keys()) {
    const names = new Set([target]);
    for (const [p, mods] of modsOf) if (mods.includes(target)) for (const m of moduleNamesOf(p, isPkg)) names.add(m);
    const want = new Set<string>();
    for (const n of names) for (const s of stmtsByTarget.get(n) ?? []) want.add(s);
    const r = await idx.runTool({ name: 'find_importers', args: { module_name: target } });
    assert.equal(r.evidence.map(where), [...want].sort((a, b) => {
      const [pa, la] = a.split(':'); const [pb, lb] = b.split(':');
      return pa < pb ? -1 : pa > pb ? 1 : parseInt(la, 10) - parseInt(lb, 10);
    }), `find_importers ${target}`);
  }
  console.log(`round trip: ${files.length} files, ${defCount} definitions under ${defsByKey.size} names, ${stmtsByTarget.size} import targets`);
  await idx.close();
});

test.after(async () => { await fx?.close(); cleanupTemp(); });
test.run();
