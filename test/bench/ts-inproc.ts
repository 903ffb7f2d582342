// The TypeScript rows' costs timed in process, without the watcher and the
// transport, so a loaded machine's queueing shows as little as it can (issue
// 24's speed targets). With `--against DIST` (another build's dist/ folder),
// both builds open their own index of the same corpora in this one process and
// their rounds alternate, so a drift of the machine falls on both alike.
//   save: a new `export const` appended to a .ts file of the TS corpus, then
//         update([file]) and find_symbol of the new name until it is found;
//         wall and CPU time (process.cpuUsage: no worker runs for one file).
//   find_symbol / find_importers: the mean µs per call over the seeded TS names
//         (ts-bench.ts) and the stdlib's Python names (queries.ts), each call
//         through IndexHandle.runTool, as the daemon's are.
// The minimum and the median are printed (on a busy machine the minimum is the
// steadier figure).
//
// Usage: node dist/test/bench/ts-inproc.js [--against OTHER/dist] [--saves N] [--rounds N] [--no-python]
import { appendFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { IndexHandle } from '../../indexer/api.js';
import { cleanupTemp } from '../helpers/fs.js';
import { makeCorpus } from './corpus.js';
import { drawQueries } from './queries.js';
import { drawTsQueries, makeTsCorpus } from './ts-bench.js';
import { closeAll, minMedian, openWith, OWN_DIST, type InProcessIndex } from './in-process.js';
const argValue = (name: string, dflt: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : dflt;
};
const SAVES = argValue('--saves', 40);
const ROUNDS = argValue('--rounds', 30);
const UNTIMED = 5;

type Handle = IndexHandle & { warm(): Promise<void> };
interface Build { label: string; ts: Handle; py: Handle | null; opened: InProcessIndex[] }

async function openBuild(dist: string, tsRoot: string, pyRoot: string | null): Promise<Build> {
  const opened: InProcessIndex[] = [];
  const open = async (root: string): Promise<Handle> => {
    const o = await openWith(dist, root, 'evidex-tsinproc-state-');
    opened.push(o);
    return o.idx;
  };
  return { label: dist, ts: await open(tsRoot), py: pyRoot === null ? null : await open(pyRoot), opened };
}

const minMed = (xs: number[], unit: string, digits = 1): string => minMedian(xs).map((x) => `${x.toFixed(digits)} ${unit}`).join(' / ');

/** One save of `file` by `b`: append, update, find_symbol until found; wall and CPU ms. */
async function oneSave(b: Build, root: string, file: string, token: string): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  appendFileSync(join(root, file), `export const ${token} = 1;\n`);
  for (;;) {
    await b.ts.update([file]);
    const r = await b.ts.runTool('find_symbol', { name: token, limit: 1 });
    if (r.total > 0) break;
  }
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

async function perCall(idx: Handle, tool: string, key: string, values: readonly string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (const v of values) await idx.runTool(tool, { [key]: v });
  return Number(process.hrtime.bigint() - t0) / 1000 / values.length;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--against');
  const dists = [OWN_DIST, ...(at > 0 ? [resolve(process.argv[at + 1])] : [])];
  const ts = makeTsCorpus();
  const py = process.argv.includes('--no-python') ? null : makeCorpus('stdlib');
  const builds: Build[] = [];
  try {
    for (const d of dists) builds.push(await openBuild(d, ts.root, py?.root ?? null));
    // Drawn before the saves change the target file, so every run asks the same names.
    const tq = drawTsQueries(ts, 300);
    const pq = py ? drawQueries(py, 300) : null;
    const target = ts.tsFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))[0];
    const saves = builds.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
    for (let i = 0; i < SAVES + UNTIMED; i++) {
      for (const [j, b] of builds.entries()) {
        const s = await oneSave(b, ts.root, target, `evidex_inproc_${j}_${i}`);
        if (i >= UNTIMED) { saves[j].wall.push(s.wall); saves[j].cpu.push(s.cpu); }
      }
    }
    const rows = [
      `| save of ${target} to found, wall, min / median of ${SAVES} | ${saves.map((s) => minMed(s.wall, 'ms')).join(' | ')} |`,
      `| the same saves, CPU time | ${saves.map((s) => minMed(s.cpu, 'ms')).join(' | ')} |`,
    ];
    const sets = [
      ['find_symbol', 'name', 'ts', tq.symbols, 'TS names'],
      ...(pq ? [['find_symbol', 'name', 'py', pq.symbols, 'stdlib names']] as const : []),
      ['find_importers', 'module_name', 'ts', tq.modules, 'TS modules'],
      ...(pq ? [['find_importers', 'module_name', 'py', pq.modules, 'stdlib modules']] as const : []),
    ] as const;
    for (const [tool, key, which, values, what] of sets) {
      const times = builds.map(() => [] as number[]);
      for (let r = 0; r < UNTIMED + ROUNDS; r++) {
        for (const [j, b] of builds.entries()) {
          const t = await perCall(which === 'ts' ? b.ts : b.py!, tool, key, values);
          if (r >= UNTIMED) times[j].push(t);
        }
      }
      rows.push(`| \`${tool}\`, ${values.length} ${what}, per call, min / median of ${ROUNDS} rounds | ${times.map((t) => minMed(t, 'µs')).join(' | ')} |`);
    }
    console.log(`| in process | ${builds.map((b) => b.label).join(' | ')} |`);
    console.log(`|---|${builds.map(() => '---|').join('')}`);
    console.log(rows.join('\n'));
  } finally {
    await closeAll(builds.flatMap((b) => b.opened));
    if (py) rmSync(py.root, { recursive: true, force: true });
    cleanupTemp();
  }
}

await main();
