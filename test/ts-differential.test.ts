// Differential test: evidex's TypeScript/JavaScript answers (find_symbol,
// find_importers by path and by package name, with via_reexports) against the
// independent oracle built on the compiler (test/oracle/ts-oracle.ts), on
// fixtures/ts-monorepo and on real code nobody here wrote that every machine
// has after `npm ci`: this project's own node_modules (zod, typescript, the MCP
// SDK, ollama, ws, chokidar) copied into a temp git repository as workspace
// packages. EVIDEX_TS_CORPUS=small leaves typescript's own files out of the
// second corpus (the largest part; for a quick run).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { loadEvalCases } from '../client/eval.js';
import { openEvidexIndex } from '../indexer/index.js';
import { validateToolCall } from '../indexer/query/schemas.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { ACCEPTED } from './helpers/ts-accepted.js';
import { compareTree, reportComparison } from './helpers/ts-compare.js';
import { fixtureRepo, NODE_MODULES_PACKAGES, nodeModulesRepo } from './helpers/ts-corpus.js';

test.after(cleanupTemp);

test('fixtures/ts-monorepo: every definition, statement, target, package match and via chain agrees with the compiler oracle', async () => {
  const r = await compareTree('ts-fixture', fixtureRepo(), { accepted: ACCEPTED, evidenceEvery: 1 });
  reportComparison(r);
  assert.ok(r.defs > 100 && r.statements > 60 && r.resolved > 40 && r.toPackages > 15 && r.viaQueries > 5, 'the fixture holds what it is for');
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

test('node_modules (zod, typescript, MCP SDK, ollama, ws, chokidar): every definition, statement, target and package match agrees with the compiler oracle', async () => {
  const small = process.env.EVIDEX_TS_CORPUS === 'small';
  const corpus = nodeModulesRepo(small ? NODE_MODULES_PACKAGES.filter(([p]) => p !== 'typescript') : NODE_MODULES_PACKAGES);
  console.log(`[node_modules] ${corpus.files} files, ${(corpus.bytes / 1048576).toFixed(1)} MiB${small ? ' (EVIDEX_TS_CORPUS=small: without typescript)' : ''}`);
  const r = await compareTree('node_modules', corpus.root, { accepted: ACCEPTED, evidenceEvery: 50 });
  reportComparison(r);
  assert.ok(r.files > 500 && r.defs > 5000, 'the corpus was read');
  assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
});

test('fixtures/eval/ts-monorepo.jsonl: every expected call is valid and finds something on the fixture', async () => {
  const root = fixtureRepo();
  const idx = await openEvidexIndex(root, { stateDir: tempDir('tseval-state') });
  try {
    await idx.refresh();
    for (const c of loadEvalCases(join(PROJECT_ROOT, 'fixtures', 'eval', 'ts-monorepo.jsonl'))) {
      if (c.kind !== 'tool' || !c.expect.args || Array.isArray(c.expect.tool)) continue;
      const r = await idx.runTool(validateToolCall(c.expect.tool, c.expect.args));
      assertEvidenceChecks(root, r.evidence);
      assert.ok(r.total > 0, `${c.id}: ${c.expect.tool} ${JSON.stringify(c.expect.args)} finds nothing`);
    }
  } finally {
    await idx.close();
  }
});

test.run();
