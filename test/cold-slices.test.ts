// A daemon still warming up serves fairly (issue 31, point 4, on a fresh
// daemon): a search on an index whose search text is not in memory yet reads
// the files it needs from LMDB, and a search with a trigram first rebuilds the
// file-level postings. Both ran in one step: on 6,500 files a search for "e"
// read every file (4.5 s) and the rebuild took 0.3 s, while every other client
// waited. As in fair-slices.test.ts, what is asserted is never a time: the
// slice clock is a counter, or a pace whose every slice is due at once.
//  - A cold search for a one-character query pauses between the files it
//    reads, and answers what it answers in one go.
//  - A cold search with a trigram pauses within the postings rebuild.
//  - A commit landing mid-rebuild drops it: the answer after is a fresh index's.
//  - Under FairTurns, a find_symbol asked while a cold search for "e" runs is
//    answered before the search has read every file (in one go, after).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FairTurns } from '../daemon/fair-turns.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import type { Pace } from '../indexer/api.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { countingClock, eagerPace } from './helpers/clock.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

const FILES = 300;
const NEEDLE = 'lonely_needle';

/** A tree of FILES small Python files (every one holds "e"), the last defining NEEDLE; built once, its state folder returned. */
async function builtTree(name: string): Promise<{ root: string; stateDir: string }> {
  const root = tempDir(name);
  const tree: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) tree[`pkg/m${String(i).padStart(4, '0')}.py`] = `def helper_${i}():\n    return ${i}  # here\n`;
  tree['zz.py'] = `def ${NEEDLE}():\n    return 1\n`;
  write(root, tree);
  const stateDir = tempDir(`${name}-state`);
  const idx = await openEvidexIndex(root, { stateDir });
  try { await idx.refresh(); } finally { await idx.close(); }
  return { root, stateDir };
}

/** The index reopened as a restarted daemon finds it: complete, nothing of it in memory (no warm-up is started). */
async function cold(root: string, stateDir: string): Promise<EvidexIndex> {
  const idx = await openEvidexIndex(root, { stateDir });
  assert.is(idx.store.textComplete, false, 'the reopened index has no search text in memory');
  return idx;
}

test('a cold search for one character pauses between the files it reads, and answers as in one go', async () => {
  const { root, stateDir } = await builtTree('cold-e');
  const args = { query: 'e', offset: 5, limit: 3 };
  const whole = await (async () => { const idx = await cold(root, stateDir); try { return await idx.runTool('search_code', args); } finally { await idx.close(); } })();
  const idx = await cold(root, stateDir);
  try {
    const pace = eagerPace();
    const paced = await idx.runTool('search_code', args, pace);
    assert.equal(paced, whole);
    assertEvidenceChecks(root, paced.evidence);
    // One pause per file read at least (in one step: none, the files being few lines each).
    assert.ok(pace.pauses >= FILES, `paused ${pace.pauses} times over ${FILES + 1} files read`);
  } finally {
    await idx.close();
  }
});

test('a cold search with a trigram pauses within the postings rebuild; a write mid-rebuild drops it', async () => {
  const { root, stateDir } = await builtTree('cold-tri');
  const args = { query: NEEDLE };
  let idx = await cold(root, stateDir);
  try {
    const pace = eagerPace();
    const paced = await idx.runTool('search_code', args, pace);
    assert.is(paced.total, 1, JSON.stringify(paced));
    assertEvidenceChecks(root, paced.evidence);
    // Read in steps of 64 files, then filled in steps of 64: 301 files are 5 reads and 5 fills (and a file read after).
    assert.ok(pace.pauses >= 9, `paused ${pace.pauses} times`);
  } finally {
    await idx.close();
  }
  // A write landing while the rebuild is paused: the answer starts again, and sees the new file.
  idx = await cold(root, stateDir);
  try {
    let wrote = false;
    const pace: Pace = {
      due: () => true,
      pause: async () => {
        if (!wrote) {
          wrote = true;
          writeFileSync(join(root, 'pkg/late.py'), `${NEEDLE}_too = 1\n`);
          await idx.update(['pkg/late.py']);
        }
        await new Promise((r) => setImmediate(r));
      },
    };
    const paced = await idx.runTool('search_code', args, pace);
    assert.ok(wrote, 'the write landed mid-answer');
    assert.equal(paced, await idx.runTool('search_code', args));
    assertEvidenceChecks(root, paced.evidence);
  } finally {
    await idx.close();
  }
});

test('under FairTurns, a find_symbol asked while a cold search for "e" runs is answered before the search has read every file', async () => {
  const { root, stateDir } = await builtTree('cold-turns');
  const idx = await cold(root, stateDir);
  try {
    const turns = new FairTurns({ sliceMs: 1, now: countingClock() });
    const log: string[] = [];
    // The search starts at once (the turns are idle); the find_symbol comes while it runs.
    const a = Promise.resolve(turns.run({}, (pace) => idx.runTool('search_code', { query: 'e', offset: 100_000 }, pace))).then(() => log.push('search'));
    const b = Promise.resolve(turns.run({}, (pace) => idx.runTool('find_symbol', { name: NEEDLE }, pace))).then((r) => {
      log.push(`find_symbol${idx.store.textComplete ? ' after every file was read' : ''}`);
      assert.is(r.total, 1);
      assertEvidenceChecks(root, r.evidence);
    });
    await Promise.all([a, b]);
    // In one go, the search read every file in its first turn: the find_symbol came after all of them.
    assert.equal(log, ['find_symbol', 'search']);
  } finally {
    await idx.close();
  }
});

test.run();
