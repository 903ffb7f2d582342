// find_importers' near misses are the same before warm-up as after it, on an
// index reopened as a daemon restart reopens it: the package names statements
// write (`:react`) came from the in-memory symbol index, which holds only the
// files warm-up has read so far, so on hono `./hono` first suggested
// `hono` and moments later `hono, @hono`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ToolError } from '../indexer/errors.js';
import { openEvidexIndex } from '../indexer/index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

const tmp = tempDir('suggest-before-warmup');
const root = join(tmp, 'repo');
const stateDir = join(tmp, 'state');
write(root, {
  'package.json': JSON.stringify({ name: 'acme' }),
  'src/app.ts': 'import React from "react";\nimport cfg from "@acme/eslint-config";\n',
});

/** What a call answers, as the wire would carry it: its suggestions' names, or its refusal's line. */
async function said(idx: Awaited<ReturnType<typeof openEvidexIndex>>, args: Record<string, unknown>): Promise<string> {
  try {
    const r = await idx.runTool('find_importers', args);
    return `${r.total}; suggestions: ${(r.suggestions ?? []).map((s) => s.name).join(', ')}`;
  } catch (e) {
    assert.instance(e, ToolError);
    return (e as ToolError).message;
  }
}

test('near misses of a name and of a path are those of the warm index before warm-up', async () => {
  const built = await openEvidexIndex(root, { stateDir });
  await built.refresh();
  await built.close();
  // Reopened, not warmed: what a daemon answers right after a restart.
  const idx = await openEvidexIndex(root, { stateDir });
  await idx.refresh();
  assert.not.ok(idx.store.symbolsReady);
  const asked = [{ module_name: 'reactt' }, { module_name: './acme' }, { module_name: '@acme/eslint-confg' }];
  const before = await Promise.all(asked.map((a) => said(idx, a)));
  await idx.warm();
  assert.ok(idx.store.symbolsReady);
  const after = await Promise.all(asked.map((a) => said(idx, a)));
  assert.equal(before, after);
  // And they name what statements write: the check above would hold for two empty lists too.
  assert.match(after[0], /suggestions: react\b/);
  assert.match(after[1], /did you mean: package names acme, @acme\b/);
  assert.match(after[2], /suggestions: @acme\/eslint-config\b/);
  await idx.close();
});

test.after(() => cleanupTemp());
test.run();
