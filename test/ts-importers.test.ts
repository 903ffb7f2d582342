// find_importers and find_symbol over TypeScript beside Python, through a
// real index of a small mixed tree: what module_name names (a file, a package
// or subpath, a dotted module), the refusals, via_reexports chains (nearest
// first, each statement once, cycles ending), paging, path_prefix and total
// over whole answers — warm (the symbol index) and cold (the LMDB rows) alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ToolError } from '../indexer/errors.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import type { Evidence } from '../indexer/evidence.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

const tmp = tempDir('ts-importers');
const root = join(tmp, 'repo');
write(root, {
  'package.json': JSON.stringify({ workspaces: ['packages/*'] }),
  'packages/ui/package.json': JSON.stringify({ name: '@org/ui', exports: { '.': './src/index.ts', './button': './src/button.ts' } }),
  'packages/ui/src/index.ts': 'export * from "./button";\nexport * as forms from "./forms";\n',
  'packages/ui/src/button.ts': 'export class Button {}\nexport const render = () => 1;\n',
  'packages/ui/src/forms.ts': 'export { Button as FormButton } from "./button";\nexport function field() {}\n',
  'app/barrel.ts': 'export * from "@org/ui";\nimport "./cycle-a";\n',
  'app/cycle-a.ts': 'export * from "./cycle-b";\nexport * from "../packages/ui/src/button";\n',
  'app/cycle-b.ts': 'export * from "./cycle-a";\n',
  'app/main.ts': [
    'import { Button } from "@org/ui";',                     // 1: via index.ts
    'import { Button as B } from "@org/ui/button";',         // 2: direct
    'import { forms } from "./barrel";',                     // 3: via barrel.ts, index.ts
    'import React from "react";',                            // 4
    'import { jsx } from "react/jsx-runtime";',              // 5
    'import "@org/uix";',                                    // 6: not @org/ui
    'const c = require("./cycle-b");',                       // 7: via cycle-b, cycle-a
    'import type { X } from "./types.json";',                // 8
  ].join('\n') + '\n',
  'app/types.json': '{}\n',
  'scripts/version.cjs': 'const { version } = require("../package.json");\n',
  'py/utils.py': 'import react\nfrom app import main\n',
  'docs/notes.md': '# notes\n',
});

let idx: EvidexIndex;
async function call(name: string, args: Record<string, unknown>): Promise<{ evidence: Evidence[]; total: number }> {
  const r = await idx.runTool(name, args);
  assertEvidenceChecks(root, r.evidence);
  return r;
}
const lines = (r: { evidence: Evidence[] }): string[] => r.evidence.map((e) => `${e.path}:${e.start_line}${e.via ? ` via ${e.via.join(' > ')}` : ''}`);
async function refused(args: Record<string, unknown>, code: string): Promise<void> {
  try { await idx.runTool('find_importers', args); } catch (e) {
    assert.instance(e, ToolError);
    assert.is((e as ToolError).code, code, JSON.stringify(args));
    return;
  }
  assert.unreachable(`${JSON.stringify(args)} should be refused with ${code}`);
}

test.before(async () => {
  idx = await openEvidexIndex(root, { stateDir: join(tmp, 'state') });
  await idx.refresh();
});

/** Runs every check twice: from the LMDB rows (before warm-up), then from the warm symbol index. */
const bothWays = (name: string, body: () => Promise<void>): void => {
  test(name, async () => {
    idx.store.symbolsReady = false;
    await body();
    await idx.warm();
    assert.ok(idx.store.symbolsReady);
    await body();
  });
};

bothWays('a file path: the statements resolving to that file, any language that can import it', async () => {
  assert.equal(lines(await call('find_importers', { module_name: 'packages/ui/src/button.ts' })),
    ['app/cycle-a.ts:2', 'app/main.ts:2', 'packages/ui/src/forms.ts:1', 'packages/ui/src/index.ts:1']);
  assert.equal(lines(await call('find_importers', { module_name: './app/types.json' })), ['app/main.ts:8']);
  assert.equal(lines(await call('find_importers', { module_name: 'package.json' })), ['scripts/version.cjs:1'], 'a JSON file at the root is a path');
  await refused({ module_name: 'docs/notes.md' }, 'not_indexed');
  await refused({ module_name: './lib/x' }, 'not_indexed');
  await refused({ module_name: 'app/missing.py' }, 'not_indexed');
  // A name with a `/` that is no indexed file is a package subpath, as a specifier names it (a `paths` alias may look like a folder).
  assert.is((await call('find_importers', { module_name: 'app/missing.ts' })).total, 0);
  await refused({ module_name: '../outside.ts' }, 'path_denied');
});

bothWays('a package name or subpath: the specifier or a leading part of it up to a `/`; Python\'s beside it', async () => {
  assert.equal(lines(await call('find_importers', { module_name: 'react' })), ['app/main.ts:4', 'app/main.ts:5', 'py/utils.py:1']);
  assert.equal(lines(await call('find_importers', { module_name: 'react/jsx-runtime' })), ['app/main.ts:5']);
  assert.equal(lines(await call('find_importers', { module_name: '@org/ui' })), ['app/barrel.ts:1', 'app/main.ts:1', 'app/main.ts:2']);
  assert.equal(lines(await call('find_importers', { module_name: '@org' })), ['app/barrel.ts:1', 'app/main.ts:1', 'app/main.ts:2', 'app/main.ts:6']);
  assert.is((await call('find_importers', { module_name: '@org/u' })).total, 0, 'a prefix that stops inside a name matches nothing');
  assert.equal(lines(await call('find_importers', { module_name: 'app.main' })), ['py/utils.py:2'], 'a Python dotted name');
});

bothWays('via_reexports: chains through export-from files, nearest first; each statement once; cycles end', async () => {
  const r = await call('find_importers', { module_name: 'packages/ui/src/button.ts', via_reexports: true });
  assert.equal(lines(r), [
    'app/barrel.ts:1 via packages/ui/src/index.ts',
    'app/barrel.ts:2 via app/cycle-a.ts', // a plain import of a re-exporting file counts too
    'app/cycle-a.ts:1 via app/cycle-b.ts > app/cycle-a.ts', // round the cycle: cycle-b re-exports cycle-a
    'app/cycle-a.ts:2',
    'app/cycle-b.ts:1 via app/cycle-a.ts',
    'app/main.ts:1 via packages/ui/src/index.ts',
    'app/main.ts:2',
    'app/main.ts:3 via app/barrel.ts > packages/ui/src/index.ts',
    'app/main.ts:7 via app/cycle-b.ts > app/cycle-a.ts',
    'packages/ui/src/forms.ts:1',
    'packages/ui/src/index.ts:1',
    'packages/ui/src/index.ts:2 via packages/ui/src/forms.ts',
  ]);
  assert.is(r.total, 12);
  // `import "./cycle-a"` in barrel.ts is no re-export: nothing reaches button.ts through barrel.ts's line 2.
  const page = await call('find_importers', { module_name: 'packages/ui/src/button.ts', via_reexports: true, offset: 6, limit: 2, path_prefix: 'app/' });
  assert.equal([lines(page), page.total], [['app/main.ts:2', 'app/main.ts:3 via app/barrel.ts > packages/ui/src/index.ts'], 9]);
  assert.equal(lines(await call('find_importers', { module_name: 'react', via_reexports: true })), ['app/main.ts:4', 'app/main.ts:5', 'py/utils.py:1']);
  assert.equal(lines(await call('find_importers', { module_name: '@org/ui/button', via_reexports: false })), ['app/main.ts:2']);
});

bothWays('find_symbol serves TypeScript beside Python, with the new kinds', async () => {
  const r = await call('find_symbol', { name: 'Button' });
  assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line} ${e.kind} ${e.name}`), ['packages/ui/src/button.ts:1 class Button']);
  assert.equal((await call('find_symbol', { name: 'render', kind: 'function' })).evidence.map((e) => e.path), ['packages/ui/src/button.ts']);
  assert.is((await call('find_symbol', { name: 'render', kind: 'variable' })).total, 0);
});

test.after(async () => {
  await idx.close();
  cleanupTemp();
});
test.run();
