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
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEvalCases } from '../client/eval.js';
import { openEvidexIndex } from '../indexer/index.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';
import { ACCEPTED } from './helpers/ts-accepted.js';
import { compareIndex, compareTree, reportComparison } from './helpers/ts-compare.js';
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

test('live: after edits (a paths alias moved, a package.json export changed, a barrel line dropped, a file deleted, a missing import\'s file created), update() leaves answers that agree with the oracle on the tree as it now is', async () => {
  const root = fixtureRepo();
  const idx = await openEvidexIndex(root, { stateDir: tempDir('tslive-state') });
  try {
    await idx.refresh();
    const edit = (path: string, change: (text: string) => string): [string, string] => {
      const text = readFileSync(join(root, path), 'utf8');
      const changed = change(text);
      assert.is.not(changed, text, `the edit of ${path} changes it`);
      return [path, changed];
    };
    const edits = new Map<string, string | null>([
      edit('tsconfig.json', (s) => s.replace('"@lib/*": ["libs/*"]', '"@lib/*": ["types/*", "libs/*"]')),
      ['types/enums.ts', "export enum Color {\n  Red = 'red',\n}\n"],
      edit('packages/ui/package.json', (s) => s.replace('"import": "./dist/button/index.js"', '"import": "./dist/card.js"').replace('"types": "./dist/button/index.d.ts"', '"types": "./dist/card.d.ts"')),
      edit('packages/shared/src/index.ts', (s) => s.replace("export * as crlf from './crlf';\n", '')),
      edit('libs/enums.ts', (s) => `import { clamp } from '@shared/math';\n${s}export const limit = clamp(1, 0, 2);\n`),
      ['apps/web/src/components/Header.jsx', null],
      ['apps/web/src/does-not-exist.ts', 'export const nothing = 0;\n'],
    ]);
    for (const [path, text] of edits) {
      if (text === null) rmSync(join(root, path));
      else writeFileSync(join(root, path), text);
    }
    await idx.update([...edits.keys()]);
    const r = await compareIndex('ts-fixture after edits', idx, { accepted: ACCEPTED, evidenceEvery: 1 });
    reportComparison(r);
    assert.ok(r.resolved > 40, 'the edited fixture still resolves');
    assert.is(r.diffs.length, 0, `${r.diffs.length} differences (see above)`);
  } finally {
    await idx.close();
  }
});

test('fixtures/eval/ts-monorepo.jsonl: every expected call is valid and finds something on the fixture', async () => {
  const root = fixtureRepo();
  const idx = await openEvidexIndex(root, { stateDir: tempDir('tseval-state') });
  try {
    await idx.refresh();
    for (const c of loadEvalCases(join(PROJECT_ROOT, 'fixtures', 'eval', 'ts-monorepo.jsonl'))) {
      if (c.kind !== 'tool' || !c.expect.args || Array.isArray(c.expect.tool)) continue;
      const r = await idx.runTool(c.expect.tool, c.expect.args);
      assertEvidenceChecks(root, r.evidence);
      assert.ok(r.total > 0, `${c.id}: ${c.expect.tool} ${JSON.stringify(c.expect.args)} finds nothing`);
    }
  } finally {
    await idx.close();
  }
});

test.run();
