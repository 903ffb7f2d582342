// The held-out check: the same comparison as test/ts-differential.test.ts (evidex
// against the compiler oracle) on a real TypeScript tree nobody here wrote,
// given by path — e.g. a checkout of a monorepo with workspaces and `paths`.
// Not a test file: it needs a tree the test suite does not have.
//
//   npx tsc -p . && node dist/test/ts-heldout.js PATH [--label NAME] [--oracle-only]
//
// PATH must be a git work tree (what git ignores is left out, as the index
// leaves it out). The tree is only read: the index lives in a temp folder.
// --oracle-only prints what the oracle finds (counts by kind, resolution,
// governing configs) without building an index. Exit 0 when every
// comparison agrees, 1 otherwise.
import { resolve } from 'node:path';
import { cleanupTemp, git } from './helpers/fs.js';
import { compareTree, reportComparison } from './helpers/ts-compare.js';
import { ACCEPTED } from './helpers/ts-accepted.js';
import { indexedFiles } from './helpers/ts-corpus.js';
import { runTsOracle } from './oracle/ts-oracle.js';

const args = process.argv.slice(2);
const path = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--label');
const label = args.includes('--label') ? args[args.indexOf('--label') + 1] : 'held-out';
if (!path) {
  console.error('usage: node dist/test/ts-heldout.js PATH [--label NAME] [--oracle-only]');
  process.exit(1);
}
const root = resolve(path);
try {
  git(root, ['rev-parse', '--is-inside-work-tree']);
} catch {
  console.error(`ts-heldout: ${root} is not a git work tree (run git init there, or check the tree out with git)`);
  process.exit(1);
}

/** Counts of what the oracle found, for a look at a tree before (or without) evidex. */
function oracleSummary(): void {
  const t0 = performance.now();
  const files = indexedFiles(root);
  const a = runTsOracle(root, files);
  const count = (xs: string[]): string => [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())]
    .sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  const stmts = a.files.flatMap((f) => f.statements);
  console.log(`[${label}] oracle: ${files.length} indexed files, ${a.files.length} TS/JS files, ${a.packages.length} workspace packages, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`[${label}] definitions: ${count(a.files.flatMap((f) => f.defs.map((d) => d.kind)))}`);
  console.log(`[${label}] statements: ${stmts.length}; ${count(stmts.map((s) => (s.target ? 'resolved in the repository' : `unresolved (${s.unresolved})`)))}`);
  console.log(`[${label}] forms and modes: ${count(stmts.map((s) => `${s.form} [${s.mode}]`))}`);
  console.log(`[${label}] governing configs: ${count(a.files.map((f) => f.config ?? '(defaults)')).split(', ').slice(0, 15).join(', ')}, ...`);
  console.log(`[${label}] files with syntax errors: ${a.files.filter((f) => f.parseErrors > 0).map((f) => f.path).join(', ') || 'none'}`);
}

try {
  if (args.includes('--oracle-only')) {
    oracleSummary();
  } else {
    const r = await compareTree(label, root, { accepted: ACCEPTED, evidenceEvery: 20 });
    reportComparison(r, { all: true });
    process.exitCode = r.diffs.length === 0 ? 0 : 1;
  }
} finally {
  cleanupTemp();
}
