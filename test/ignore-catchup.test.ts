// An ignore source that changes during the start-up catch-up (issue 30,
// point 3): the daemon's updates (daemon/updates.ts: the catch-up and the
// watcher through one write queue) on a real index, real git and real files,
// with the catch-up held at a known point by the index handle it is given —
// no race. A folder .git/info/exclude hid comes into view meanwhile: its
// files are indexed, and a file made in it afterwards is indexed too (its
// folder is watched).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildProgress, IndexHandle } from '../indexer/api.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { IndexUpdates } from '../daemon/updates.js';
import { waitFor } from './helpers/daemon.js';
import { cleanupTemp, git, tempDir } from './helpers/fs.js';

// git as the daemon runs it reads this process's config: none of the machine's.
const home = tempDir('catchup-home');
process.env.HOME = home;
delete process.env.XDG_CONFIG_HOME;
process.env.GIT_CONFIG_GLOBAL = join(home, 'gitconfig');
process.env.GIT_CONFIG_NOSYSTEM = '1';

let idx: EvidexIndex | undefined;
let updates: IndexUpdates | undefined;
const log: string[] = [];
test.after.each(async () => {
  await updates?.stop('test over');
  await idx?.close();
  updates = idx = undefined;
  log.length = 0;
});
test.after(() => cleanupTemp());

/** A repository whose hidden/ folder .git/info/exclude names. */
function repo(): string {
  const root = join(tempDir('catchup'), 'repo');
  mkdirSync(join(root, 'hidden'), { recursive: true });
  writeFileSync(join(root, 'main.py'), 'MAIN_MARK = 1\n');
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'init']);
  writeFileSync(join(root, '.git', 'info', 'exclude'), 'hidden/\n');
  writeFileSync(join(root, 'hidden', 'a.txt'), 'HIDDEN_A_MARK\n');
  return root;
}

/** What runs at known points of one refresh of the updates' index. */
interface Hold {
  /** Awaited before the refresh starts. */
  gate?: Promise<void>;
  /** Called with the first progress report: the rules are read, the walk not yet begun. */
  walking?: () => void;
  /** Called once the refresh has written the tree it walked, before the updates see it end. */
  written?: () => void;
}

/**
 * The index handle the updates are given: refresh number n runs as holds[n]
 * says (1: the daemon's catch-up, queued first; 2: the watcher's own re-walk
 * once its scan is over), the others as they are.
 */
function held(index: EvidexIndex, holds: Record<number, Hold>): IndexHandle {
  let n = 0;
  return new Proxy(index, {
    get(target, key, receiver) {
      if (key !== 'refresh') return Reflect.get(target, key, receiver);
      return async (onProgress?: (p: BuildProgress) => void, signal?: AbortSignal) => {
        const hold = holds[++n];
        if (!hold) return target.refresh(onProgress, signal);
        await hold.gate;
        let walking = false;
        const summary = await target.refresh((p) => {
          if (!walking) { walking = true; hold.walking?.(); }
          onProgress?.(p);
        }, signal);
        hold.written?.();
        return summary;
      };
    },
  }) as IndexHandle;
}

async function found(mark: string): Promise<boolean> {
  return (await idx!.runTool('search_code', { query: mark })).total > 0;
}

async function begin(root: string, holds: Record<number, Hold>): Promise<void> {
  idx = await openEvidexIndex(root, { stateDir: tempDir('state') });
  const rules = await idx.rules();
  updates = new IndexUpdates(held(idx, holds), { root, rules, watch: 'auto', log: (l) => log.push(l) });
  updates.begin();
}

const unexclude = (root: string) => (): void => writeFileSync(join(root, '.git', 'info', 'exclude'), '');
const newFile = (root: string) => (): void => writeFileSync(join(root, 'hidden', 'b.txt'), 'HIDDEN_B_MARK\n');

function failWithLog(e: unknown): never {
  throw new Error(`${(e as Error).message}\n${log.join('\n')}`);
}

test('changed after the catch-up read the rules: the watcher\'s re-walk brings the folder in, and a file made as it ends is found', async () => {
  const root = repo();
  // The file is made the moment the re-walk has indexed the folder, before the watch has learnt of it.
  await begin(root, { 1: { walking: unexclude(root) }, 2: { written: newFile(root) } });
  await waitFor('hidden/a.txt indexed', () => found('HIDDEN_A_MARK')).catch(failWithLog);
  await waitFor('hidden/b.txt indexed', () => found('HIDDEN_B_MARK')).catch(failWithLog);
});

test('changed while the catch-up waits its turn, after the watcher scanned: a file made as the watcher\'s re-walk ends is found', async () => {
  const root = repo();
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  await begin(root, { 1: { gate }, 2: { written: newFile(root) } });
  await waitFor('the watcher', () => updates!.watcherState === 'watching');
  unexclude(root)();
  release();
  await waitFor('hidden/a.txt indexed', () => found('HIDDEN_A_MARK')).catch(failWithLog);
  await waitFor('hidden/b.txt indexed', () => found('HIDDEN_B_MARK')).catch(failWithLog);
});

test('changed during the watcher\'s own re-walk: the folder is indexed, and a file made in it later is found', async () => {
  const root = repo();
  await begin(root, { 2: { walking: unexclude(root) } });
  await waitFor('hidden/a.txt indexed', () => found('HIDDEN_A_MARK')).catch(failWithLog);
  newFile(root)();
  await waitFor('hidden/b.txt indexed', () => found('HIDDEN_B_MARK')).catch(failWithLog);
});

test.run();
