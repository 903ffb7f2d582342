// A daemon started on an index that was complete when it closed answers at
// once, while its start-up catch-up looks for what changed while no daemon
// ran. A file added meanwhile is missing from those answers until the
// catch-up ends, so they say so (catching_up with the start-up check), after
// a short wait for it; a first build marks nothing (calls wait for it in the
// index itself). The catch-up is held shut here, so nothing depends on speed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexHandle } from '../indexer/api.js';
import { openEvidexIndex } from '../indexer/index.js';
import { HELD_BUILD, IndexUpdates, START_CHECK } from '../daemon/updates.js';
import { noSpace } from '../indexer/write-failure.js';
import { RepoWatcher } from '../indexer/watch.js';
import { formatFooter } from '../client/commands/tool-command.js';
import { formatWaited } from '../client/daemon-report.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** The handle with its refresh held until open() (the start-up catch-up is a refresh). */
function heldRefresh(handle: IndexHandle): { handle: IndexHandle; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const held = Object.create(handle) as IndexHandle;
  held.refresh = (...args) => gate.then(() => handle.refresh(...args));
  return { handle: held, open };
}

function repo(): string {
  const root = tempDir('repo');
  mkdirSync(join(root, 'pkg'));
  writeFileSync(join(root, 'pkg/a.py'), 'def before_stop():\n    return 1\n');
  return root;
}

/** A state folder holding a complete index of `root`, closed (what a stopped daemon leaves). */
async function completeIndex(root: string): Promise<string> {
  const state = tempDir('state');
  const first = await openEvidexIndex(root, { stateDir: state, workers: 1 });
  await first.refresh();
  await first.close();
  return state;
}

/** A complete index of a tree that gained a file while no daemon ran, reopened with its updates' refreshes held until open(). */
async function offlineAdded(): Promise<{ opened: IndexHandle; open: () => void; updates: IndexUpdates }> {
  const root = repo();
  const state = await completeIndex(root);
  writeFileSync(join(root, 'pkg/offline.py'), 'def added_while_no_daemon_ran():\n    return 2\n');
  const opened = await openEvidexIndex(root, { stateDir: state, workers: 1 });
  const { handle, open } = heldRefresh(opened);
  return { opened, open, updates: new IndexUpdates(handle, { root, rules: await opened.rules(), watch: 'off', log: () => {} }) };
}

test('answers during the start-up check of a complete index are marked, after a bounded wait; the file added offline is found once it ends', async () => {
  const { opened, open, updates } = await offlineAdded();
  try {
    updates.begin();
    const note = updates.answerNote;
    assert.equal(note && { changes: note.changes, rewalk: note.rewalk }, { changes: 0, rewalk: START_CHECK });
    const r = await opened.runTool('find_symbol', { name: 'added_while_no_daemon_ran' });
    assert.is(r.total, 0, 'the offline file is not in the index yet: why the answer is marked');
    // Since when as the local clock (local/when.ts), not the daemon's ISO UTC string.
    const footer = formatFooter({ ...r, catching_up: note! }, Date.parse(note!.since) + 2_000).plain;
    assert.match(footer, /· start-up check for changes made while no daemon ran \(since \d\d:\d\d:\d\d\): this answer may be out of date$/);
    assert.not.match(footer, /\d{4}-\d\d-\d\dT/, footer);
    const wait = updates.settled(60_000);
    assert.ok(wait, 'a call waits for the check');
    assert.is(await wait, false, 'and is answered marked when the check is still running after the short wait');

    open();
    assert.is(await updates.startup, true);
    assert.is(updates.answerNote, null, 'unmarked once the check is over');
    assert.is(updates.settled(60_000), null, 'nothing to wait for');
    assert.is((await opened.runTool('find_symbol', { name: 'added_while_no_daemon_ran' })).total, 1);
  } finally {
    open();
    await updates.stop('test over');
    await opened.close();
  }
});

test('a first build marks no answer (calls wait for it in the index)', async () => {
  const root = repo();
  const opened = await openEvidexIndex(root, { stateDir: tempDir('state'), workers: 1 });
  const { handle, open } = heldRefresh(opened);
  const updates = new IndexUpdates(handle, { root, rules: await opened.rules(), watch: 'off', log: () => {} });
  try {
    updates.begin();
    assert.is(updates.answerNote, null);
    assert.is(updates.settled(60_000), null);
    open();
    assert.is(await updates.startup, true);
    assert.is(updates.answerNote, null);
  } finally {
    open();
    await updates.stop('test over');
    await opened.close();
  }
});

test('on a complete index the watcher starts once the start-up check is over, not alongside it; a stop during the check starts none', async () => {
  const root = repo();
  const state = await completeIndex(root);
  const opened = await openEvidexIndex(root, { stateDir: state, workers: 1 });
  const realStart = RepoWatcher.start;
  const starts: string[] = [];
  const log: string[] = [];
  RepoWatcher.start = (o) => { starts.push(log.some((l) => l.startsWith('index ready')) ? 'after the check' : 'during the check'); return realStart.call(RepoWatcher, o); };
  try {
    for (const stopEarly of [false, true]) {
      const { handle, open } = heldRefresh(opened);
      starts.length = 0;
      log.length = 0;
      const updates = new IndexUpdates(handle, { root, rules: await opened.rules(), watch: 'auto', log: (l) => log.push(l) });
      try {
        updates.begin();
        // The scan would walk the tree alongside the check (3-6 times slower on a stdlib copy, measured).
        assert.equal(starts, [], 'no watcher while the check runs');
        assert.is(updates.watcherState, 'starting');
        if (stopEarly) await Promise.all([updates.stop('stopped during the check'), open()]);
        open();
        await updates.idle();
        assert.equal(starts, stopEarly ? [] : ['after the check'], log.join('\n'));
        if (!stopEarly) assert.is(updates.watcherState, 'watching', log.join('\n'));
      } finally {
        open();
        await updates.stop('test over');
      }
    }
  } finally {
    RepoWatcher.start = realStart;
    await opened.close();
  }
});

test('a start-up build cut short by a full disk marks the answers it leaves, until it lands', async () => {
  const root = repo();
  const state = tempDir('state');
  const opened = await openEvidexIndex(root, { stateDir: state, workers: 1 });
  const full = Object.create(opened) as IndexHandle;
  full.refresh = () => Promise.reject(noSpace(state));
  const updates = new IndexUpdates(full, { root, rules: await opened.rules(), watch: 'off', log: () => {} });
  try {
    updates.begin();
    assert.is(await updates.startup, false);
    const note = updates.answerNote;
    assert.equal(note && { changes: note.changes, rewalk: note.rewalk }, { changes: 0, rewalk: HELD_BUILD }, 'the answers come from what the build wrote before the disk was full');
    assert.match(formatFooter({ evidence: [], total: 0, generation: 1, catching_up: note! }).plain,
      /^0 of 0 shown · index generation 1 · index build cut short by a full disk, retried once there is room \(since .*\): this answer may be out of date$/);
  } finally {
    await updates.stop('test over');
    await opened.close();
  }
});

test('a client\'s refresh queued behind the start-up check says what the check did: its own pass found the offline file indexed', async () => {
  const { opened, open, updates } = await offlineAdded();
  try {
    updates.begin();
    // `evidex index` typed while the check runs: its refresh waits its turn in the write queue.
    const asked = updates.refresh(() => {});
    open();
    const r = await asked;
    assert.is(r.parsed, 0, 'the check had parsed the file when this pass walked');
    const w = r.waited_for;
    assert.equal(w && { parsed: w.parsed, removed: w.removed, writes: w.writes }, { parsed: 1, removed: 0, writes: ['start-up check'] });
    assert.is(formatWaited(w!).plain, `${w!.seconds.toFixed(2)} s for the daemon's start-up check, which parsed 1 file and removed 0`);
    assert.is((await updates.refresh(() => {})).waited_for, undefined, 'nothing ran ahead of a refresh asked with the queue empty');
  } finally {
    open();
    await updates.stop('test over');
    await opened.close();
  }
});

test.run();
