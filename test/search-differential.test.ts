// search_code against a plain scan, over the machine's whole Python stdlib and
// the fixture repo: ~200 seeded queries (real substrings of random lines,
// mixed-case variants, 1-2 char queries, misses, path-like queries), with and
// without case_sensitive and path_prefix, limit 200, and pages further in
// (offset). Items (same order) and total must agree exactly. Also prints
// in-process latency (p50/p99).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { mulberry32 } from './helpers/random.js';
import { cleanupTemp, FIXTURE, tempDir } from './helpers/fs.js';
import { stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';

const tmp = tempDir('search');

/** The documented line rules, written out again here (not imported) so the oracle is independent. */
function fileLines(abs: string): string[] {
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(readFileSync(abs));
  const parts = text.split('\n');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

interface Corpus { root: string; paths: string[]; lines: string[][]; lower: string[][] }

interface Query { query: string; case_sensitive?: boolean; path_prefix?: string; limit: number; offset?: number }
interface Item { path: string; start_line: number; end_line: number; kind: string; name: string; snippet: string }

/** search_code by brute force: the definition, nothing clever. */
function plainSearch(c: Corpus, q: Query): { items: Item[]; total: number } {
  const cs = q.case_sensitive ?? false;
  const needle = cs ? q.query : q.query.toLowerCase();
  const pathItems: Item[] = [];
  const lineItems: Item[] = [];
  c.paths.forEach((path, i) => {
    if (q.path_prefix !== undefined && !path.startsWith(q.path_prefix)) return;
    if ((cs ? path : path.toLowerCase()).includes(needle)) {
      pathItems.push({ path, start_line: 1, end_line: 1, kind: 'path_match', name: path, snippet: c.lines[i][0] });
    }
    const hay = cs ? c.lines[i] : c.lower[i];
    for (let l = 0; l < hay.length; l++) {
      if (hay[l].includes(needle)) {
        lineItems.push({ path, start_line: l + 1, end_line: l + 1, kind: 'content_match', name: q.query, snippet: c.lines[i][l] });
      }
    }
  });
  const all = [...pathItems, ...lineItems];
  const from = q.offset ?? 0;
  return { items: all.slice(from, from + q.limit), total: all.length };
}

function loadCorpus(idx: EvidexIndex): Corpus {
  // The files the index says it holds, sorted by path as UTF-8 bytes (git's and ripgrep's order).
  const paths = idx.store.ordered().map((f) => f.path);
  const sorted = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  assert.equal(paths, sorted, 'index file order is UTF-8 byte order');
  const lines = paths.map((p) => fileLines(join(idx.root, p)));
  return { root: idx.root, paths, lines, lower: lines.map((ls) => ls.map((l) => l.toLowerCase())) };
}

function makeQueries(c: Corpus, count: number, seed: number): Query[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const withText = c.lines.map((ls, i) => i).filter((i) => c.lines[i].some((l) => l.length >= 3));
  const sample = (minLen: number, maxLen: number): string => {
    for (;;) {
      const ls = c.lines[pick(withText)];
      const line = pick(ls);
      if (line.length < minLen) continue;
      const len = minLen + Math.floor(rnd() * (Math.min(maxLen, line.length) - minLen + 1));
      const start = Math.floor(rnd() * (line.length - len + 1));
      return line.slice(start, start + len);
    }
  };
  const mixCase = (s: string): string => [...s].map((ch) => (rnd() < 0.5 ? ch.toUpperCase() : ch.toLowerCase())).join('');
  const prefixes = [...new Set(c.paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/') + 1) : p.slice(0, 2))))];
  const out: Query[] = [];
  const n = (share: number): number => Math.max(1, Math.round(count * share));
  for (let i = 0; i < n(0.45); i++) out.push({ query: sample(3, 20), limit: 200 });
  for (let i = 0; i < n(0.15); i++) out.push({ query: mixCase(sample(3, 20)), limit: 200 });
  for (let i = 0; i < n(0.1); i++) out.push({ query: sample(1, 2), limit: 200 });
  for (let i = 0; i < n(0.1); i++) out.push({ query: `zq${Math.floor(rnd() * 1e9).toString(36)}xj`, limit: 200 });
  for (let i = 0; i < n(0.1); i++) {
    const p = pick(c.paths);
    const len = 2 + Math.floor(rnd() * Math.min(12, p.length - 1));
    const s = Math.floor(rnd() * (p.length - len + 1));
    out.push({ query: p.slice(s, s + len), limit: 200 });
  }
  for (let i = 0; i < n(0.1); i++) out.push({ query: sample(3, 8), limit: 1 + Math.floor(rnd() * 30) });
  // Exactly three characters: `total` then comes from the per-trigram line counts, items from a scan that stops early.
  for (let i = 0; i < n(0.1); i++) out.push({ query: sample(3, 3), limit: 1 + Math.floor(rnd() * 30) });
  for (const q of out) {
    if (rnd() < 0.35) q.case_sensitive = rnd() < 0.5;
    if (rnd() < 0.25) q.path_prefix = pick(prefixes);
    // A later page: mostly near the start, sometimes deep, sometimes past the end.
    if (rnd() < 0.3) q.offset = Math.floor(rnd() * rnd() * (rnd() < 0.2 ? 100_000 : 2_000));
  }
  return out;
}

async function differential(idx: EvidexIndex, count: number, seed: number, extra: Query[] = []): Promise<number[]> {
  const corpus = loadCorpus(idx);
  const queries = [...extra, ...makeQueries(corpus, count, seed)];
  const times: number[] = [];
  let nonEmpty = 0;
  for (const q of queries) {
    const want = plainSearch(corpus, q);
    const args: Record<string, unknown> = { query: q.query, limit: q.limit };
    if (q.case_sensitive !== undefined) args.case_sensitive = q.case_sensitive;
    if (q.path_prefix !== undefined) args.path_prefix = q.path_prefix;
    if (q.offset !== undefined) args.offset = q.offset;
    const t0 = performance.now();
    const got = await idx.runTool('search_code', args as { query: string });
    times.push(performance.now() - t0);
    const label = JSON.stringify(args);
    assert.is(got.total, want.total, `total for ${label}`);
    assert.equal(got.evidence, want.items, `items for ${label}`);
    assertEvidenceChecks(idx.root, got.evidence);
    if (want.total > 0) nonEmpty++;
  }
  assert.ok(nonEmpty > queries.length / 2, `most queries should match something (${nonEmpty}/${queries.length})`);
  return times;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

testUnless(lacks.python3())('search_code equals a plain scan over the whole Python stdlib', async () => {
  const stdlib = stdlibRoot();
  const idx = await openEvidexIndex(stdlib, { stateDir: join(tmp, 'std'), extraIgnore: ['site-packages/', '__pycache__/'] });
  const t0 = performance.now();
  const r = await idx.refresh();
  const st = idx.status();
  console.log(`stdlib: ${r.files} files (${st.pythonFiles} .py), ${r.lines} lines, ${st.bytes} bytes indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  assert.ok(st.pythonFiles > 1000, 'the stdlib has well over 1000 .py files');
  const disk = statSync(join(tmp, 'std', 'index', 'data.mdb')).size;
  console.log(`index on disk: ${disk} bytes = ${(disk / st.bytes).toFixed(2)} x source bytes`);
  assert.ok(disk <= 1.5 * st.bytes, 'index size at most 1.5x the source bytes');
  await idx.close();

  // Warm start: reopen, catch up on the unchanged tree, serve.
  const t1 = performance.now();
  const again = await openEvidexIndex(stdlib, { stateDir: join(tmp, 'std'), extraIgnore: ['site-packages/', '__pycache__/'] });
  const warm = await again.refresh();
  console.log(`warm open + refresh: ${(performance.now() - t1).toFixed(0)} ms (${warm.parsed} parsed, ${warm.unchanged} unchanged)`);
  assert.is(warm.parsed, 0);
  await again.warm();
  const times = await differential(again, 150, 20240611);
  const long = times.slice(0, Math.round(times.length * 0.45)); // the 3-20 char real-substring queries come first
  console.log(`search_code over ${times.length} queries: p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms, max ${Math.max(...times).toFixed(1)} ms; ` +
    `3-20 char substrings only: p50 ${pct(long, 50).toFixed(2)} ms, p99 ${pct(long, 99).toFixed(2)} ms`);
  await again.close();
});

testUnless(lacks.fixture())('search_code equals a plain scan over the fixture repo', async () => {
  const idx = await openEvidexIndex(FIXTURE, { stateDir: join(tmp, 'fx') });
  await idx.refresh();
  await differential(idx, 120, 7);
  await idx.close();
});

testUnless(lacks.python3())('search_code equals a plain scan before warm-up, after it, and around a bulk update', async () => {
  // A small real tree: four stdlib packages, copied so they can be rewritten.
  const stdlib = stdlibRoot();
  const root = join(tmp, 'churn');
  for (const pkg of ['json', 'email', 'http', 'urllib']) cpSync(join(stdlib, pkg), join(root, pkg), { recursive: true, filter: (p) => !p.includes('__pycache__') });
  const stateDir = join(tmp, 'churn-state');
  const built = await openEvidexIndex(root, { stateDir });
  await built.refresh();
  await built.close();

  // Reopened without a refresh: nothing is in memory yet, so searches take the postings path and load files as they go.
  const idx = await openEvidexIndex(root, { stateDir });
  assert.not.ok(idx.store.textComplete, 'a reopened index starts with no search text in memory');
  await differential(idx, 60, 11);
  await idx.warm();
  assert.ok(idx.store.textComplete, 'warm-up loads every file');
  await differential(idx, 60, 12);

  // Rewrite 40 files at once (more than a small commit): some grow past their
  // block slots, some shrink, some change a line. The update leaves the new
  // versions unloaded and warms them in the background while queries run.
  const files = idx.store.ordered().filter((f) => f.py && f.size > 200).map((f) => f.path).slice(0, 40);
  assert.is(files.length, 40);
  files.forEach((p, i) => {
    const abs = join(root, p);
    const text = readFileSync(abs, 'utf8');
    if (i % 3 === 0) writeFileSync(abs, `${text}\n# grown\n${text}`);
    else if (i % 3 === 1) writeFileSync(abs, text.slice(0, Math.floor(text.length / 2)));
    else writeFileSync(abs, `# changed ${i} Self.AssertEqual ΣΑΣ\n${text}`);
  });
  const bulk = await idx.update(files);
  assert.is(bulk.changed.length, 40);
  assert.not.ok(idx.store.textComplete, 'a bulk update leaves its files for the warm-up');
  await differential(idx, 60, 13);
  await idx.warm();
  assert.ok(idx.store.textComplete);
  await differential(idx, 60, 14);

  // A small update loads its files at once: the index stays complete.
  for (const p of files.slice(0, 3)) writeFileSync(join(root, p), `x = 'evidex churn'\n${readFileSync(join(root, p), 'utf8')}`);
  await idx.update(files.slice(0, 3));
  assert.ok(idx.store.textComplete, 'a small update keeps every file in memory');
  // The cached path-order list was patched in place, not rebuilt: it must hold the new versions.
  for (const f of idx.store.ordered()) assert.ok(idx.store.fileByPath(f.path) === f, `ordered() holds the current row of ${f.path}`);
  await differential(idx, 60, 15);
  await idx.close();
});

test('search_code equals a plain scan where lowercasing changes lengths (İ in paths and lines)', async () => {
  // "İ" (U+0130) lowercases to two units ("i̇"): offsets in a path or line and in
  // its lowercased form differ after it, in paths, snippets and line ends alike.
  const root = join(tmp, 'dotted-i');
  const files: Record<string, string> = {
    'aİİİ.py': 'x = 1\nİx\nabc\nİİ abc İ\n',
    'b.txt': 'abc\nnothing\n',
    'c/x.md': '# İstanbul abc\nplain abc line\n',
    'c/İ/d.md': 'İİİİİİİİ\nabc after İ\n' + 'İ filler line abc\n'.repeat(40),
    'd/İ.py': 'def İf():\n    return "İ"\n',
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'dotted-i-state') });
  await idx.refresh();
  await idx.warm();
  const extra: Query[] = ['py', 'md', 'abc', 'İ', 'i̇', 'i', 'x', 'line', 'İİ', 'c/', 'İ/d', 'i̇/d', 'txt', 'after'].flatMap((q) => [
    { query: q, limit: 200 }, { query: q, limit: 200, case_sensitive: true }, { query: q, limit: 3 },
    { query: q, limit: 2, offset: 1 }, { query: q, limit: 5, offset: 4, case_sensitive: true },
  ]);
  await differential(idx, 60, 21, extra);
  await idx.close();
});

test.after(() => cleanupTemp());
test.run();
