// `npm run bench:flood [-- --files N] [-- --lines N]`: fair service under the
// flood of issue 31 (point 4), printed as one table. A tree whose every line
// matches one query (1,000 files of 1,000 lines: a million matching lines by
// default) is built in a temp folder and served by a real daemon process. A
// greedy client pipelines searches for that query over 8 connections (200,
// then 400), while another client asks find_symbol for a name defined once,
// one call after another, until the flood is answered. The figure is the
// other client's worst wait (target: within 250 ms), beside its wait with no
// flood and what one flood search costs alone. Then the same with a flood of
// find_symbol for a name with 100,000 definitions (the deepest page, so all
// are ordered), beside what the crowded find_symbol and find_importers calls
// (a package imported by 1,000 files, a chain of 200 barrels) cost alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { connect, daemonStop, type Client } from '../../client/connection.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';
import { CROWDED_NAME, CROWDED_PACKAGE, FLOOD_QUERY, Flood, LONE_SYMBOL, openConnection, writeCrowdedTree, writeFloodTree, type FloodCall } from '../helpers/flood.js';
import { printGrid } from './table.js';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const FILES = arg('--files', 1000);
const LINES = arg('--lines', 1000);
const CONNS = 8;
const TARGET_MS = 250;
/** The crowded part of the tree: 1,000 files defining CROWDED_NAME 100 times each, as many importing CROWDED_PACKAGE, 200 barrels. */
const CROWDED_FILES = arg('--crowded-files', 1000), CROWDED_DEFS = 100, BARRELS = 200;
const DEEPEST: FloodCall = { name: 'find_symbol', arguments: { name: CROWDED_NAME, offset: CROWDED_FILES * CROWDED_DEFS - 1 } };

const ms = (x: number) => (x < 1 ? `${x.toFixed(3)} ms` : `${x.toFixed(1)} ms`);
const rows: string[][] = [['figure', 'evidex', 'reference', 'target', 'met']];
const row = (figure: string, value: string, reference = '', target = '', met: boolean | null = null) => {
  rows.push([figure, value, reference, target, met === null ? '' : met ? 'yes' : 'NO']);
};

function stats(xs: number[]): { p50: number; max: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1], n: s.length };
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

async function waitSteady(client: Client): Promise<void> {
  for (;;) {
    const st = await client.request(Methods.indexStatus);
    if (st.index.warm && warmupSettled(st.daemon.warmup) && st.daemon.startup === 'done' && st.daemon.pendingUpdates === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The other client's find_symbol, one after another, until `until` settles: each round trip's time. */
async function askWhile(client: Client, until: Promise<void>): Promise<number[]> {
  let over = false;
  void until.then(() => { over = true; }, () => { over = true; });
  const waits: number[] = [];
  while (!over) {
    const [t, r] = await timed(() => client.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: LONE_SYMBOL } }));
    if (r.total !== 1) throw new Error(`find_symbol ${LONE_SYMBOL}: total ${r.total}`);
    waits.push(t);
  }
  return waits;
}

async function floodRows(client: Client, url: string, token: string, perConnection: number, call?: FloodCall, what = 'searches'): Promise<void> {
  const conns: WebSocket[] = [];
  for (let i = 0; i < CONNS; i++) conns.push(await openConnection(url, token));
  const t0 = performance.now();
  const flood = new Flood(conns, perConnection, call);
  try {
    const waits = await askWhile(client, flood.done);
    await flood.done;
    const floodMs = performance.now() - t0;
    const st = stats(waits);
    const n = CONNS * perConnection;
    row(`other client's find_symbol, worst wait during ${n} pipelined ${what} over ${CONNS} connections`, ms(st.max),
      `p50 ${ms(st.p50)} over ${st.n} calls`, `≤ ${TARGET_MS} ms`, st.max <= TARGET_MS);
    row(`the flood of ${n} ${what}, all answered`, ms(floodMs), `${ms(floodMs / n)} each`);
  } finally {
    for (const ws of conns) ws.terminate();
  }
}

const root = mkdtempSync(join(tmpdir(), 'evidex-bench-flood-'));
const home = mkdtempSync(join(tmpdir(), 'evidex-bench-flood-home-'));
const env = { ...process.env, EVIDEX_HOME: home };
process.env.EVIDEX_HOME = home;
console.log(`evidex bench:flood · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}) · node ${process.version}`);
try {
  writeFloodTree(root, FILES, LINES);
  writeCrowdedTree(root, CROWDED_FILES, CROWDED_DEFS, BARRELS);
  console.error(`flood tree: ${FILES} files of ${LINES} lines and a crowded part (${CROWDED_FILES} files) in ${root}; building its index`);
  const client = await connect(root, { autoStart: true, env, startTimeoutMs: 600_000 });
  try {
    await waitSteady(client);
    const idle: number[] = [];
    for (let i = 0; i < 200; i++) idle.push((await timed(() => client.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name: LONE_SYMBOL } })))[0]);
    row('other client\'s find_symbol, no flood (p50 / max of 200)', `${ms(stats(idle).p50)} / ${ms(stats(idle).max)}`);
    const one: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [t, r] = await timed(() => client.request(Methods.toolsCall, { name: 'search_code', arguments: { query: FLOOD_QUERY } }));
      if (r.total !== FILES * LINES) throw new Error(`search_code ${FLOOD_QUERY}: total ${r.total}, expected ${FILES * LINES}`);
      one.push(t);
    }
    row(`one flood search alone (${FILES * LINES} matching lines; median of 5)`, ms(stats(one).p50));
    await floodRows(client, client.info.url, client.info.token, 25);
    await floodRows(client, client.info.url, client.info.token, 50);
    const crowded: Array<[string, FloodCall]> = [
      [`find_symbol ${CROWDED_NAME} (${CROWDED_FILES * CROWDED_DEFS} definitions), the deepest page`, DEEPEST],
      [`find_importers ${CROWDED_PACKAGE} (imported by ${CROWDED_FILES} files), via_reexports`, { name: 'find_importers', arguments: { module_name: CROWDED_PACKAGE, via_reexports: true } }],
      [`find_importers chain/core.ts via_reexports (${BARRELS} barrels)`, { name: 'find_importers', arguments: { module_name: 'chain/core.ts', via_reexports: true } }],
    ];
    for (const [label, call] of crowded) {
      const alone: number[] = [];
      for (let i = 0; i < 5; i++) alone.push((await timed(() => client.request(Methods.toolsCall, call)))[0]);
      row(`one ${label}, alone (median of 5)`, ms(stats(alone).p50));
    }
    await floodRows(client, client.info.url, client.info.token, 25, DEEPEST, `deepest-page find_symbol of a name with ${CROWDED_FILES * CROWDED_DEFS} definitions`);
  } finally {
    await client.close();
    await daemonStop(root, { env });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
printGrid(rows);
