// What the room check costs each commit of the main index (store/commit-room.ts):
// a Store of 200 small files opened in this process by this build, and by
// another with `--against OTHER/dist` (e.g. main's), then rounds alternating
// between them so a loaded machine's drift falls on both alike. Each round
// commits one small file COMMITS times (a save's commit) and times the whole
// commit and, inside it, the room check alone (Store.checkRoom, wrapped).
// Prints min / median µs per commit over ROUNDS rounds; no assertion.
//
// Usage: node dist/test/bench/commit-cost.js [--rounds N] [--commits N] [--against OTHER/dist]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FileWrite, StoreOp } from '../../indexer/store/store.js';
import { minMedian, OWN_DIST } from './in-process.js';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const ROUNDS = Number(argOf('--rounds') ?? 15);
const COMMITS = Number(argOf('--commits') ?? 200);
const UNTIMED = 2;

type AnyStore = { commit(ops: readonly StoreOp[]): number; close(): Promise<void>; checkRoom(ops: readonly StoreOp[]): unknown };
interface Opened { label: string; store: AnyStore; state: string; commitUs: number[]; checkUs: number[]; checkMs: number }

const file = (i: number, text: string): FileWrite => ({
  path: `f${i}.txt`, size: text.length, mtimeMs: 1, hash: 'x', lines: 1, text: Buffer.from(text), tri: new Uint8Array(0), lang: null, defs: [], imports: [], mods: [],
});

async function open(dist: string, label: string): Promise<Opened> {
  const { Store } = await import(join(dist, 'indexer', 'store', 'store.js')) as typeof import('../../indexer/store/store.js');
  const state = mkdtempSync(join(tmpdir(), 'evidex-commit-cost-'));
  const store = await Store.open(join(state, 'index')) as unknown as AnyStore;
  store.commit(Array.from({ length: 200 }, (_, i) => ({ op: 'put', file: file(i, `line ${i}\n`) })));
  const o: Opened = { label, store, state, commitUs: [], checkUs: [], checkMs: 0 };
  const check = store.checkRoom;
  store.checkRoom = function (ops) {
    const t0 = performance.now();
    try { return check.call(this, ops); } finally { o.checkMs += performance.now() - t0; }
  };
  return o;
}

async function main(): Promise<void> {
  const against = argOf('--against');
  const builds: Opened[] = [];
  try {
    if (against) builds.push(await open(resolve(against), 'other'));
    builds.push(await open(OWN_DIST, 'this'));
    for (let r = 0; r < UNTIMED + ROUNDS; r++) {
      for (const b of builds) {
        b.checkMs = 0;
        const t0 = performance.now();
        for (let i = 0; i < COMMITS; i++) b.store.commit([{ op: 'put', file: file(i % 200, `line ${i} of round ${r}\n`) }]);
        const ms = performance.now() - t0;
        if (r < UNTIMED) continue;
        b.commitUs.push((1000 * ms) / COMMITS);
        b.checkUs.push((1000 * b.checkMs) / COMMITS);
      }
    }
    if (against) console.log(`other: ${resolve(against)}`);
    console.log(`${ROUNDS} rounds of ${COMMITS} one-file commits on a Store of 200 files (state in the temp folder); load ${loadavg()[0].toFixed(1)}`);
    console.log('| build | commit, min / median µs | room check, min / median µs |');
    console.log('|---|---|---|');
    const fmt = (xs: number[]): string => minMedian(xs).map((x) => x.toFixed(1)).join(' / ');
    for (const b of builds) console.log(`| ${b.label} | ${fmt(b.commitUs)} | ${fmt(b.checkUs)} |`);
  } finally {
    for (const b of builds) {
      await b.store.close();
      rmSync(b.state, { recursive: true, force: true });
    }
  }
}

await main();
