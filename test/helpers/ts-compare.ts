// evidex against the TypeScript oracle (test/oracle/ts-oracle.ts) on one tree,
// through evidex's public face only: an index opened over the tree
// (openEvidexIndex), every call checked and answered as the daemon has it
// done (IndexHandle.runTool). Definitions are compared item
// by item (path, lines, kind, qualified name) by asking find_symbol for every
// name either side knows; import statements by asking find_importers for every
// file a statement resolves to, every package name a bare specifier names,
// and, with via_reexports, every file or package a re-export reaches.
import type { Evidence } from '../../indexer/evidence.js';
import { openEvidexIndex, type EvidexIndex } from '../../indexer/index.js';
import { isTsJsPath } from '../oracle/ts-extract.js';
import { runTsOracle, type OracleAnswer, type OracleStatementAnswer } from '../oracle/ts-oracle.js';
import { isBareSpecifier, isPackageName, matchesPackage, packageNamesOf } from '../oracle/ts-resolve.js';
import { assertEvidenceChecks } from './evidence.js';
import { tempDir } from './fs.js';
import { missing } from './multiset.js';
import { indexedFiles } from './ts-corpus.js';
import { reexportChains, viaProblem } from './ts-reexports.js';

/** One disagreement, charged to the file it is about ("(query)" when a whole call was refused), and the comparison it comes from. */
export interface Diff { file: string; what: string; category: string }
/** A disagreement the tests accept, with the reason it is not evidex's fault. */
export interface Accepted { reason: string; test: (d: Diff) => boolean }

export interface TsComparison {
  label: string;
  files: number; agree: number; parseErrorFiles: number;
  defs: number; statements: number; resolved: number; toPackages: number; nowhere: number;
  /** Statements the compiler resolves into a node_modules folder of the tree, which the rules never read (counted among toPackages and nowhere). */
  inNodeModules: number;
  packageNames: number; viaQueries: number; viaItems: number;
  diffs: Diff[]; accepted: Array<Diff & { reason: string }>;
  ms: { oracle: number; index: number; queries: number };
  /** The order `via` lists came in: "importer-first" (the statement's own target first) or "module-first". */
  viaOrders: Set<string>;
  /** What index/status said of the TypeScript statements, as it said it (null when it says nothing). */
  status: string | null;
}

const PAGE = 200;
type Call = { name: string; args: Record<string, unknown> };

/** Every item of a list tool's answer, page by page; a refusal comes back as its one-line message. */
async function allItems(idx: EvidexIndex, call: Call): Promise<Evidence[] | string> {
  const out: Evidence[] = [];
  for (let offset = 0; ; offset += PAGE) {
    let r;
    try {
      r = await idx.runTool(call.name, { ...call.args, limit: PAGE, offset });
    } catch (e) {
      return `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`;
    }
    out.push(...r.evidence);
    if (r.evidence.length === 0 || offset + PAGE >= r.total) return out;
  }
}

const defKey = (path: string, start: number, end: number, kind: string, name: string): string => `${path}:${start}-${end} ${kind} ${name}`;
const stmtKey = (path: string, start: number, end: number): string => `${path}:${start}-${end}`;
const fileOf = (key: string): string => key.slice(0, key.indexOf(':'));
/** The names a package.json `imports` specifier answers to by name: itself and each leading part up to a `/`, up to a part holding a NUL byte. */
const importsNamesOf = (spec: string): string[] => {
  const parts = spec.split('/');
  const out: string[] = [];
  for (let n = 1; n <= parts.length && !parts[n - 1].includes('\0'); n++) out.push(parts.slice(0, n).join('/'));
  return out;
};

type CompareOptions = { accepted?: Accepted[]; evidenceEvery?: number };

/**
 * Builds an index of `root` (a git work tree), runs the oracle on the same
 * files, compares. `evidenceEvery`: re-check every Nth item's snippet against
 * the file from scratch (1 = all).
 */
export async function compareTree(label: string, root: string, opts: CompareOptions = {}): Promise<TsComparison> {
  const idx = await openEvidexIndex(root, { stateDir: tempDir('tscmp-state') });
  try {
    const t0 = performance.now();
    await idx.refresh();
    await idx.warm();
    const r = await compareIndex(label, idx, opts);
    r.ms.index = performance.now() - t0;
    return r;
  } finally {
    await idx.close();
  }
}

/** Compares an open index (built, and perhaps updated since) with the oracle run on its tree as the tree is now. */
export async function compareIndex(label: string, idx: EvidexIndex, opts: CompareOptions = {}): Promise<TsComparison> {
  const root = idx.root;
  const t1 = performance.now();
  const files = indexedFiles(root);
  const oracle: OracleAnswer = runTsOracle(root, files);
  const t2 = performance.now();
  const res: TsComparison = {
    label, files: oracle.files.length, agree: 0, parseErrorFiles: oracle.files.filter((f) => f.parseErrors > 0).length,
    defs: 0, statements: 0, resolved: 0, toPackages: 0, nowhere: 0, inNodeModules: 0, packageNames: 0, viaQueries: 0, viaItems: 0,
    diffs: [], accepted: [], ms: { oracle: t2 - t1, index: 0, queries: 0 }, viaOrders: new Set(), status: null,
  };
  const diffs: Diff[] = [];
  const every = opts.evidenceEvery ?? 1;
  let seen = 0;
  const check = (items: Evidence[]): void => {
    const sample = items.filter(() => seen++ % every === 0);
    if (sample.length) assertEvidenceChecks(root, sample);
  };
  // ---- definitions: every name either side knows, asked of find_symbol.
  const want: string[] = [];
  const names = new Set<string>();
  for (const f of oracle.files) {
    for (const d of f.defs) { want.push(defKey(f.path, d.start, d.end, d.kind, d.qualname)); names.add(d.qualname); names.add(d.name); }
  }
  res.defs = want.length;
  for (const n of idx.sample(Number.MAX_SAFE_INTEGER).symbols) names.add(n);
  const gotMax = new Map<string, number>();
  for (const name of names) {
    const items = await allItems(idx, { name: 'find_symbol', args: { name } });
    if (typeof items === 'string') { diffs.push({ category: 'refused calls', file: '(query)', what: `find_symbol ${JSON.stringify(name)} refused: ${items}` }); continue; }
    check(items);
    const counts = new Map<string, number>();
    for (const e of items) if (isTsJsPath(e.path)) { const k = defKey(e.path, e.start_line, e.end_line, e.kind, e.name); counts.set(k, (counts.get(k) ?? 0) + 1); }
    for (const [k, c] of counts) gotMax.set(k, Math.max(gotMax.get(k) ?? 0, c));
  }
  const got = [...gotMax].flatMap(([k, c]) => Array<string>(c).fill(k));
  for (const k of missing(want, got)) diffs.push({ category: 'definitions missing from find_symbol', file: fileOf(k), what: `definition ${k}: in the oracle, not in find_symbol` });
  for (const k of missing(got, want)) diffs.push({ category: 'definitions the oracle does not have', file: fileOf(k), what: `definition ${k}: from find_symbol, not in the oracle` });

  // ---- statements by the file they resolve to.
  const all: Array<OracleStatementAnswer & { path: string }> = oracle.files.flatMap((f) => f.statements.map((s) => ({ ...s, path: f.path })));
  res.statements = all.length;
  res.resolved = all.filter((s) => s.target !== null).length;
  res.toPackages = all.filter((s) => s.unresolved === 'package').length;
  res.nowhere = all.filter((s) => s.unresolved === 'missing').length;
  res.inNodeModules = all.filter((s) => s.inNodeModules !== undefined).length;
  const byTarget = new Map<string, string[]>();
  for (const s of all) if (s.target !== null) byTarget.set(s.target, [...(byTarget.get(s.target) ?? []), stmtKey(s.path, s.start, s.end)]);
  const describe = (k: string): string => {
    const s = all.find((x) => stmtKey(x.path, x.start, x.end) === k);
    return s ? `${k} ${s.form} ${JSON.stringify(s.spec)} [${s.mode}]` : k;
  };
  const targets = new Set<string>([...byTarget.keys(), ...oracle.files.map((f) => f.path)]);
  for (const t of targets) {
    const items = await allItems(idx, { name: 'find_importers', args: { module_name: t } });
    const w = byTarget.get(t) ?? [];
    if (typeof items === 'string') { if (w.length || isTsJsPath(t)) diffs.push({ category: 'refused calls', file: '(query)', what: `find_importers ${JSON.stringify(t)} refused: ${items}` }); continue; }
    check(items);
    const g = items.map((e) => stmtKey(e.path, e.start_line, e.end_line));
    for (const k of missing(w, g)) diffs.push({ category: 'statements missing from find_importers by path', file: fileOf(k), what: `statement ${describe(k)} resolves to ${t}: not in find_importers ${JSON.stringify(t)}` });
    for (const k of missing(g, w)) diffs.push({ category: 'statements find_importers by path gives that the compiler resolves elsewhere', file: fileOf(k), what: `statement ${describe(k)}: in find_importers ${JSON.stringify(t)}, but the compiler resolves it ${resolvedTo(all, k)}` });
  }

  // ---- statements by package name: the specifier equals the name or starts with it and "/"; a package.json
  // `imports` name (`#client`, `#internal/log`) is matched the same way.
  const pkgNames = new Set(all.filter((s) => isBareSpecifier(s.spec) && isPackageName(s.spec)).flatMap((s) => packageNamesOf(s.spec)));
  for (const s of all) if (/^#[^/\0]/.test(s.spec)) for (const n of importsNamesOf(s.spec)) pkgNames.add(n);
  res.packageNames = pkgNames.size;
  for (const p of pkgNames) {
    const items = await allItems(idx, { name: 'find_importers', args: { module_name: p } });
    if (typeof items === 'string') { diffs.push({ category: 'refused calls', file: '(query)', what: `find_importers ${JSON.stringify(p)} refused: ${items}` }); continue; }
    check(items);
    const w = all.filter((s) => matchesPackage(s.spec, p)).map((s) => stmtKey(s.path, s.start, s.end));
    // A package name can be a Python module too (`os`, `glob`): Python's statements answer it by Python's rules, not the oracle's.
    const g = items.filter((e) => isTsJsPath(e.path)).map((e) => stmtKey(e.path, e.start_line, e.end_line));
    for (const k of missing(w, g)) diffs.push({ category: 'statements missing from find_importers by package name', file: fileOf(k), what: `statement ${describe(k)}: not in find_importers ${JSON.stringify(p)}` });
    for (const k of missing(g, w)) diffs.push({ category: 'statements find_importers by package name gives wrongly', file: fileOf(k), what: `statement ${describe(k)}: in find_importers ${JSON.stringify(p)}, but its specifier is not ${p} or below it` });
  }

  // ---- via_reexports: every file or package some re-export reaches.
  for (const q of reexportChains(all)) {
    res.viaQueries++;
    const items = await allItems(idx, { name: 'find_importers', args: { module_name: q.module, via_reexports: true } });
    if (typeof items === 'string') { diffs.push({ category: 'refused calls', file: '(query)', what: `find_importers ${JSON.stringify(q.module)} via_reexports refused: ${items}` }); continue; }
    check(items);
    const g = items.map((e) => stmtKey(e.path, e.start_line, e.end_line));
    const w = q.statements;
    res.viaItems += w.length;
    for (const k of missing(w, g)) diffs.push({ category: 'statements missing from find_importers via_reexports', file: fileOf(k), what: `statement ${describe(k)}: imports ${q.module}${viaText(q.items.get(k)!)}, not in find_importers ${JSON.stringify(q.module)} via_reexports` });
    for (const k of missing(g, w)) diffs.push({ category: 'statements find_importers via_reexports gives wrongly', file: fileOf(k), what: `statement ${describe(k)}: in find_importers ${JSON.stringify(q.module)} via_reexports, but reaches it through no re-export chain` });
    for (const e of items) {
      const k = stmtKey(e.path, e.start_line, e.end_line);
      const chain = q.items.get(k);
      if (chain === undefined) continue;
      const via = (e as Evidence & { via?: unknown }).via;
      const problem = viaProblem(via, chain, q.module, q.reexports);
      if (problem.order) res.viaOrders.add(problem.order);
      if (problem.error) diffs.push({ category: 'wrong via lists', file: fileOf(k), what: `statement ${describe(k)} via_reexports ${JSON.stringify(q.module)}: ${problem.error}` });
    }
  }
  // ---- the counts index/status reports: statements resolved in the repository, to packages, nowhere.
  statusCounts(idx, res, diffs);
  res.ms.queries = performance.now() - t2;
  // Accepted disagreements are listed apart, each with its reason.
  for (const d of diffs) {
    const a = opts.accepted?.find((x) => x.test(d));
    if (a) res.accepted.push({ ...d, reason: a.reason }); else res.diffs.push(d);
  }
  const bad = new Set(diffs.map((d) => d.file));
  res.agree = oracle.files.filter((f) => !bad.has(f.path)).length;
  return res;
}

/** The TypeScript counts of index/status (docs/tools.md: how many statements resolved in the repo, went to packages, or resolved nowhere, and why) against the oracle's. */
function statusCounts(idx: EvidexIndex, res: TsComparison, diffs: Diff[]): void {
  type Counts = { files: number; resolved: number; unresolved: { external: number; missing: number; config: number } };
  const counts = (idx.status() as unknown as { tsImports?: Counts }).tsImports;
  const push = (what: string): void => { diffs.push({ category: 'index/status counts', file: '(status)', what }); };
  if (!counts) { push('index/status reports no TypeScript/JavaScript import counts'); return; }
  res.status = JSON.stringify(counts);
  const u = counts.unresolved;
  const want = { files: res.files, resolved: res.resolved, unresolved: res.toPackages + res.nowhere };
  const got = { files: counts.files, resolved: counts.resolved, unresolved: u.external + u.missing + u.config };
  for (const k of Object.keys(want) as Array<keyof typeof want>) {
    if (want[k] !== got[k]) push(`index/status ${k}: ${got[k]}, the oracle ${want[k]}`);
  }
  // Which reason an unresolved statement gets is counted apart (see the tests' accepted list).
  if (u.external !== res.toPackages || u.missing + u.config !== res.nowhere) {
    diffs.push({ category: 'index/status reasons', file: '(status)', what: `index/status unresolved by reason: ${u.external} external, ${u.missing} missing, ${u.config} config; the oracle ${res.toPackages} bare specifiers (packages), ${res.nowhere} paths` });
  }
}

function resolvedTo(all: Array<OracleStatementAnswer & { path: string }>, k: string): string {
  const s = all.filter((x) => stmtKey(x.path, x.start, x.end) === k);
  if (s.length === 0) return '(no statement there in the oracle)';
  return s.map((x) => (x.target ? `to ${x.target}` : `nowhere (${x.unresolved})`)).join(', ');
}

const viaText = (chain: string[]): string => (chain.length ? ` via ${chain.join(' → ')}` : ' directly');

/** The one line the Python tests print, the disagreements by kind under it (8 of each, or `all`), and the accepted ones with their reasons. */
export function reportComparison(r: TsComparison, opts: { all?: boolean } = {}): void {
  const pct = r.files ? ((100 * r.agree) / r.files).toFixed(2) : '100.00';
  console.log(`[${r.label}] ${r.files} files, ${r.agree} agree (${pct}%) on ${r.defs} definitions, ${r.statements} statements, `
    + `${r.resolved + r.toPackages} specifiers (${r.resolved} resolved in the repository, ${r.toPackages} to packages by ${r.packageNames} package names; `
    + `${r.nowhere} resolve nowhere), ${r.viaItems} via_reexports items in ${r.viaQueries} queries; `
    + `${r.parseErrorFiles} files with syntax errors; oracle ${(r.ms.oracle / 1000).toFixed(1)} s, index ${(r.ms.index / 1000).toFixed(1)} s, queries ${(r.ms.queries / 1000).toFixed(1)} s`);
  if (r.status) console.log(`[${r.label}] index/status: ${r.status}`);
  if (r.inNodeModules) console.log(`[${r.label}] ${r.inNodeModules} statements the compiler resolves into a node_modules folder of the tree, which the rules never read: unresolved on both sides`);
  if (r.viaOrders.size) console.log(`[${r.label}] via lists come ${[...r.viaOrders].join(' and ')}`);
  if (r.diffs.length) {
    const files = new Set(r.diffs.map((d) => d.file)).size;
    const byCategory = new Map<string, string[]>();
    for (const d of r.diffs) byCategory.set(d.category, [...(byCategory.get(d.category) ?? []), d.what]);
    console.log(`[${r.label}] ${r.diffs.length} differences in ${files} files:`);
    for (const [category, whats] of byCategory) console.log(`  ${whats.length} ${category}${opts.all ? ':' : ', e.g.'}\n    ${whats.slice(0, opts.all ? undefined : 8).join('\n    ')}`);
  }
  if (r.accepted.length) {
    const byReason = new Map<string, string[]>();
    for (const a of r.accepted) byReason.set(a.reason, [...(byReason.get(a.reason) ?? []), a.what]);
    for (const [reason, whats] of byReason) console.log(`[${r.label}] accepted: ${whats.length} × ${reason} (e.g. ${whats[0]})`);
  }
}

