// Every file the index holds can be asked for by the path the index reports:
// odd but legal POSIX names (a colon after one letter, percent escapes, a
// backslash, spaces, non-ASCII) come back from search_code and are readable by
// read_evidence under that same path (search and read must agree on what a
// path is, or search returns names that read refuses).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openIndex } from '../indexer/index.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

const root = tempDir('odd');
const state = tempDir('odd-state');
const NAMES = ['ｚ.txt', '😀.txt', 'a:2.txt', 'caf%c3%a9.md', 'a%2e.txt', 'back\\slash.txt', 'with space.txt', 'ünï/ß.py', '50%.txt', '-dash.txt'];

test('every path search_code returns is readable by read_evidence', async () => {
  mkdirSync(join(root, 'ünï'));
  for (const n of NAMES) writeFileSync(join(root, n), `first line\noddname_marker in ${n}\n`);
  const ix = await openIndex(root, { stateDir: state });
  try {
    await ix.refresh();
    const found = await ix.runTool('search_code', { query: 'oddname_marker', limit: 200 });
    assert.is(found.total, NAMES.length);
    // Sorted as UTF-8 bytes, like git and ripgrep ('ｚ' U+FF5A before '😀' U+1F600, unlike JS string order).
    const bytewise = [...NAMES].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.equal(found.evidence.map((e) => e.path), bytewise);
    assertEvidenceChecks(root, found.evidence);
    for (const e of found.evidence) {
      const read = await ix.runTool('read_evidence', { path: e.path, start_line: e.start_line });
      assert.is(read.evidence[0].snippet, e.snippet, e.path);
      assertEvidenceChecks(root, read.evidence);
    }
  } finally {
    await ix.close();
  }
});

test.after(() => cleanupTemp());
test.run();
