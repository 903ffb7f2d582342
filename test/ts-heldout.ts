// The held-out check: the same comparison as test/ts-differential.test.ts (evidex
// against the compiler oracle) on a real TypeScript tree nobody here wrote,
// given by path — e.g. a checkout of a monorepo with workspaces and `paths`.
// Not a test file: it needs a tree the test suite does not have.
//
//   npx tsc -p . && node dist/test/ts-heldout.js PATH [--label NAME] [--oracle-only] [--compiler]
//
// PATH must be a git work tree (what git ignores is left out, as the index
// leaves it out). The tree is only read: the index lives in a temp folder.
// --oracle-only prints what the oracle finds (counts by kind, resolution,
// governing configs) without building an index. --compiler then checks the
// oracle itself: its statements against the compiler's Program per governing
// config, with the workspace packages linked as pnpm and as npm link them
// (oracle/ts-program.ts), and its definitions against the binder
// (oracle/ts-binder.ts); what they find is printed, not counted in the exit
// status. Exit 0 when every comparison agrees, 1 otherwise.
import { resolve } from 'node:path';
import { cleanupTemp, git } from './helpers/fs.js';
import { compareTree, reportComparison } from './helpers/ts-compare.js';
import { ACCEPTED } from './helpers/ts-accepted.js';
import { indexedFiles } from './helpers/ts-corpus.js';
import { binderCheck } from './oracle/ts-binder.js';
import { runTsOracle } from './oracle/ts-oracle.js';
import { programCheck } from './oracle/ts-program.js';

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

/** The oracle against the compiler's Program under both install layouts, and against the binder. */
function compilerChecks(): void {
  const files = indexedFiles(root);
  const a = runTsOracle(root, files);
  const statements = a.files.reduce((n, f) => n + f.statements.length, 0);
  for (const layout of ['pnpm', 'hoisted'] as const) {
    const p = programCheck(root, files, a, layout);
    console.log(`[${label}] the compiler's Program, workspace packages linked as ${layout === 'pnpm' ? 'pnpm' : 'npm (hoisted)'} links them (${p.links} links): `
      + `${p.agree} of the oracle's ${statements} statements agree, ${p.differ.length} differ, ${p.notInProgram.length} the program does not resolve, `
      + `${p.mapped} resolved through build output the tree lacks (not compared)`);
    for (const x of [...p.differ, ...p.notInProgram]) console.log(`    ${x}`);
  }
  const b = binderCheck(root, a);
  console.log(`[${label}] the binder: ${b.declarations - b.uncovered.length} of ${b.declarations} declarations lie in an oracle item of their name; `
    + `${b.items - b.computed - b.unbound.length} of ${b.items} oracle items hold one (${b.computed} computed names not compared)`);
  for (const x of b.uncovered) console.log(`    no oracle item: ${x}`);
  for (const x of b.unbound) console.log(`    no declaration: ${x}`);
}

try {
  if (args.includes('--oracle-only')) {
    oracleSummary();
  } else {
    const r = await compareTree(label, root, { accepted: ACCEPTED, evidenceEvery: 20 });
    reportComparison(r, { all: true });
    process.exitCode = r.diffs.length === 0 ? 0 : 1;
  }
  if (args.includes('--compiler')) compilerChecks();
} finally {
  cleanupTemp();
}
