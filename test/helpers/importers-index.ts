// A real index of a tree written from a map of files, with find_importers on
// it: the tests of find_importers' notes (importer-notes, importer-submodules)
// each start from one.
import { join } from 'node:path';
import { openEvidexIndex } from '../../indexer/index.js';
import type { ToolResult } from '../../indexer/query/schemas.js';
import { assertEvidenceChecks } from './evidence.js';
import { tempDir, write } from './fs.js';

/** An index of a tree written from `files`, and find_importers on it, each answer's evidence checked against the files. */
export async function importersIndexOf(files: Record<string, string>) {
  const root = tempDir('importers-repo');
  write(root, files);
  const idx = await openEvidexIndex(root, { stateDir: join(tempDir('importers-state'), 's') });
  await idx.refresh();
  const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
    const r = await idx.runTool('find_importers', args) as ToolResult;
    assertEvidenceChecks(root, r.evidence);
    return r;
  };
  return { root, idx, call };
}
