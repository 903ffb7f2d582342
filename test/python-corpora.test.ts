// Differential test: extractPython + importTargets + moduleNamesOf against an
// independent oracle built on Python's own `ast` (test/oracle/py_oracle.py),
// over every .py file of the machine's standard library, a sample of its
// site-packages (namespace portions, .pyi stubs) and fixtures/. The
// hand-written cases for the tricky rules are python-extract.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPython } from '../indexer/python/extract.js';
import { importTargets, moduleNamesOf } from '../indexer/python/modules.js';
import { decodeText, splitLines } from '../indexer/text.js';
import { makeEvidence, type Evidence } from '../indexer/evidence.js';
import { listPyFiles, packageDirsAmong, sitePackagesRoot, startPyOracle, stdlibRoot } from './helpers/corpus.js';
import { firstReason, lacks, testUnless } from './helpers/skip.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { PROJECT_ROOT } from './helpers/fs.js';
import { missing } from './helpers/multiset.js';

/** Every test here compares with the ast oracle: without python3 they are skipped. */
const pyTest = testUnless(lacks.python3());

const defKey = (d: { kind: string; qualname: string; name: string; start: number; end: number }): string => `${d.kind} ${d.qualname} (${d.name}) ${d.start}-${d.end}`;
const impKey = (i: { start: number; end: number; targets: string[] }): string => `import ${i.start}-${i.end} -> [${i.targets.join(', ')}]`;

interface CorpusResult {
  compared: number; excluded: string[]; lines: number; extractMs: number; diffs: string[]; defs: number; variables: number; imports: number;
  /** Import targets compared, `.pyi` stubs among the files, files whose package chain runs through a namespace portion. */
  targets: number; stubs: number; portions: number;
}

/** Whether a folder between the file and the topmost package above it is no package itself (a PEP 420 portion in its chain). */
function inPortion(path: string, isPackageDir: (dir: string) => boolean): boolean {
  const dirs = path.split('/').slice(0, -1);
  const top = dirs.findIndex((_, i) => isPackageDir(dirs.slice(0, i + 1).join('/')));
  if (top < 0) return false;
  for (let i = top + 1; i <= dirs.length - 1; i++) if (!isPackageDir(dirs.slice(0, i + 1).join('/'))) return true;
  return false;
}

/**
 * Runs both sides over one corpus and collects every disagreement. The oracle
 * runs in its own process while this thread extracts, so the two overlap.
 */
async function compareCorpus(root: string, files: string[], checkEvidenceEvery: number): Promise<CorpusResult> {
  const pending = startPyOracle(root, files);
  const pkgDirs = packageDirsAmong(files);
  const isPackageDir = (dir: string): boolean => pkgDirs.has(dir);
  const res: CorpusResult = { compared: 0, excluded: [], lines: 0, extractMs: 0, diffs: [], defs: 0, variables: 0, imports: 0, targets: 0, stubs: 0, portions: 0 };
  const ours = files.map((path, i) => {
    const text = decodeText(readFileSync(join(root, path)));
    const lines = splitLines(text);
    const t0 = performance.now();
    const got = extractPython(text); // must never throw, parsable or not
    res.extractMs += performance.now() - t0;
    res.lines += lines.length;
    // Every span must be a valid evidence span (makeEvidence throws otherwise);
    // on a sample, also re-check snippets against the file from scratch.
    const items: Evidence[] = [
      ...got.defs.map((d) => makeEvidence(path, lines, d.start, d.end, d.kind, d.qualname)),
      ...got.imports.map((imp) => makeEvidence(path, lines, imp.start, imp.end, 'import', imp.module ?? imp.names.join(','))),
    ];
    if (i % checkEvidenceEvery === 0) assertEvidenceChecks(root, items);
    return {
      modules: moduleNamesOf(path, isPackageDir),
      keys: [
        ...got.defs.map(defKey),
        ...got.imports.map((imp) => impKey({ start: imp.start, end: imp.end, targets: importTargets(imp, path, isPackageDir) })),
      ],
    };
  });
  const oracle = await pending;
  files.forEach((path, i) => {
    const want = oracle[i];
    assert.is(want.path, path);
    const got = ours[i];
    if (got.modules.join(',') !== want.modules.join(',')) res.diffs.push(`${path}: module names expected [${want.modules}] got [${got.modules}]`);
    if (!want.ok) { res.excluded.push(path); return; }
    res.compared += 1;
    if (path.endsWith('.pyi')) res.stubs += 1;
    if (inPortion(path, isPackageDir)) res.portions += 1;
    for (const d of want.defs) { if (d.kind === 'variable') res.variables += 1; else res.defs += 1; }
    res.imports += want.imports.length;
    for (const imp of want.imports) res.targets += imp.targets.length;
    const expected = [...want.defs.map(defKey), ...want.imports.map(impKey)];
    for (const m of missing(expected, got.keys)) res.diffs.push(`${path}: expected ${m} — missing from extractPython`);
    for (const m of missing(got.keys, expected)) res.diffs.push(`${path}: got ${m} — not in the ast oracle`);
  });
  return res;
}

function report(label: string, r: CorpusResult): void {
  const agreeing = r.compared - new Set(r.diffs.map((d) => d.slice(0, d.indexOf(':')))).size;
  console.log(`[${label}] compared ${r.compared} files with the ast oracle, ${agreeing} agree `
    + `(${r.compared ? ((100 * agreeing) / r.compared).toFixed(2) : '100.00'}%) on ${r.defs} class/def, ${r.variables} variable and ${r.imports} import records `
    + `(${r.targets} import targets; ${r.stubs} .pyi stubs, ${r.portions} files inside namespace portions); excluded ${r.excluded.length} that ast cannot parse`
    + `${r.excluded.length ? ` (${r.excluded.slice(0, 8).join(', ')}${r.excluded.length > 8 ? ', ...' : ''})` : ''}; `
    + `extract ${r.lines} lines in ${r.extractMs.toFixed(0)} ms = ${Math.round(r.lines / (r.extractMs / 1000))} lines/s single-threaded`);
  if (r.diffs.length) {
    const byFile = new Map<string, number>();
    for (const d of r.diffs) { const f = d.slice(0, d.indexOf(':')); byFile.set(f, (byFile.get(f) ?? 0) + 1); }
    console.log(`[${label}] ${r.diffs.length} differences in ${byFile.size} files (${[...byFile].map(([f, n]) => `${f}: ${n}`).join(', ')}); first 20:\n  ${r.diffs.slice(0, 20).join('\n  ')}`);
  }
}

pyTest('stdlib: every def, variable and import agrees with Python ast', async () => {
  const root = stdlibRoot();
  const files = listPyFiles(root, { skipDirs: ['site-packages', '__pycache__'] });
  assert.ok(files.length > 1000, `expected a full stdlib, found ${files.length} .py files under ${root}`);
  const r = await compareCorpus(root, files, 25);
  report('stdlib', r);
  assert.ok(r.compared > 1000, 'most of the stdlib parses');
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

/**
 * site-packages holds ~17k Python files (4M lines; ~10 minutes on a loaded
 * 2-core machine), so by default the test takes the top-level folders where
 * stubs and namespace portions are densest (jedi's typeshed tree first), up
 * to SITE_PACKAGES_FILES files; EVIDEX_SITE_PACKAGES=all takes every file.
 */
const SITE_PACKAGES_FILES = 7000;

function pickSitePackages(files: string[]): { files: string[]; folders: string[] } {
  if (process.env.EVIDEX_SITE_PACKAGES === 'all') return { files, folders: ['(all)'] };
  const pkgDirs = packageDirsAmong(files);
  const groups = new Map<string, { files: string[]; rich: number }>();
  for (const f of files) {
    const top = f.includes('/') ? f.slice(0, f.indexOf('/')) : '';
    const g = groups.get(top) ?? groups.set(top, { files: [], rich: 0 }).get(top)!;
    g.files.push(f);
    if (f.endsWith('.pyi') || inPortion(f, (d) => pkgDirs.has(d))) g.rich++;
  }
  const ranked = [...groups].filter(([, g]) => g.rich > 0)
    .sort(([a, x], [b, y]) => y.rich / y.files.length - x.rich / x.files.length || x.files.length - y.files.length || (a < b ? -1 : 1));
  const picked: string[] = [];
  const out: string[] = [];
  for (const [top, g] of ranked) {
    if (out.length + g.files.length > SITE_PACKAGES_FILES && out.length > 0) continue;
    picked.push(top);
    out.push(...g.files);
  }
  return { files: out.sort(), folders: picked };
}

/** The site-packages sample, or why there is none: decided as the file loads, so a missing corpus is a skip. */
const sitePackages = ((): { root: string; files: string[]; folders: string[] } | string => {
  const why = lacks.python3();
  if (why !== null) return why;
  const root = sitePackagesRoot();
  if (root === null) return 'python3 has no site-packages folder';
  const { files, folders } = pickSitePackages(listPyFiles(root, { skipDirs: ['__pycache__'] }));
  return files.length ? { root, files, folders } : `no stubs or namespace portions under ${root}`;
})();

testUnless(typeof sitePackages === 'string' ? sitePackages : null)('site-packages (namespace portions, .pyi stub trees): every def, variable, import and module name agrees with Python ast', async () => {
  if (typeof sitePackages === 'string') return;
  const { root, files, folders } = sitePackages;
  console.log(`[site-packages] ${files.length} files from ${folders.join(', ')} (EVIDEX_SITE_PACKAGES=all for every file)`);
  const r = await compareCorpus(root, files, 100);
  report('site-packages', r);
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

const fixturesRoot = join(PROJECT_ROOT, 'fixtures');
const fixtureFiles = existsSync(fixturesRoot) ? listPyFiles(fixturesRoot, { skipDirs: ['__pycache__', '.git'] }) : [];

testUnless(firstReason(lacks.python3(), fixtureFiles.length ? null : 'no .py files under fixtures/'))('fixtures/: every def, variable and import agrees with Python ast', async () => {
  const root = fixturesRoot;
  const files = fixtureFiles;
  const r = await compareCorpus(root, files, 1);
  report('fixtures', r);
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

test.run();
