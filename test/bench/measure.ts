// What every benchmark corpus is measured with: small statistics over timings,
// a cold in-process index build in a child process (index-child.ts, so peak
// memory is the indexer's own), a daemon's memory, tool calls over its
// WebSocket and the wait for its steady state.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '../../client/connection.js';
import { stateDirFor } from '../../local/state.js';
import { stats } from './table.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';

// ---- small statistics (table.ts) and the steady-state wait (steady.ts), re-exported for the TS rows
export { over1, stats, timed } from './table.js';
export { waitSteady } from './steady.js';
export const median = (xs: number[]) => stats(xs).p50;

// ---- evidex -----------------------------------------------------------------
const here = fileURLToPath(new URL('.', import.meta.url));
export interface ColdRun { wallSeconds: number; cpuSeconds: number; maxRssBytes: number; files: number; symbols: number; imports: number; lines: number }
export function coldIndex(c: { root: string }, env: NodeJS.ProcessEnv): ColdRun {
  rmSync(stateDirFor(c.root), { recursive: true, force: true }); // cold: no index left from a previous run
  const r = spawnSync(process.execPath, [join(here, 'index-child.js'), c.root], { env, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`index failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/**
 * Cold builds against a reference over the same files: three runs each,
 * alternating, medians reported (a shared 2-core machine is noisy). The
 * reference answers seconds, or null when it could not run.
 */
export function coldAgainst(c: { root: string }, env: NodeJS.ProcessEnv, reference: () => number | null): { refS: number | null; coldS: number; runs: ColdRun[] } {
  const refRuns: number[] = [];
  const runs: ColdRun[] = [];
  for (let i = 0; i < 3; i++) {
    const r = reference();
    if (r !== null) refRuns.push(r);
    runs.push(coldIndex(c, env));
  }
  return { refS: refRuns.length ? median(refRuns) : null, coldS: median(runs.map((r) => r.wallSeconds)), runs };
}

export function rssOf(pid: number): { anon: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) * 1024;
  return { anon: kb('RssAnon'), hwm: kb('VmHWM') };
}

export const call = (client: Client, name: string, a: unknown) => client.request(Methods.toolsCall, { name, arguments: a });


/** How long a save or an edit may take to show before a row says "never". */
const VISIBLE_WITHIN_MS = 10_000;

/** Makes the change, then asks `probe` until it says the answer shows it: the time from the change on, or null past the limit. */
export async function timeUntilVisible(change: () => void, probe: () => Promise<boolean>): Promise<number | null> {
  const t0 = performance.now();
  change();
  for (;;) {
    if (await probe()) return performance.now() - t0;
    if (performance.now() - t0 > VISIBLE_WITHIN_MS) return null;
    await new Promise((res) => setTimeout(res, 1));
  }
}
