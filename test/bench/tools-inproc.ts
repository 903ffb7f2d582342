// find_symbol and find_importers on the stdlib's names, search_code on its
// seeded substrings, either case (queries.ts), timed in
// process, without the transport: a round trip costs ~0.2 ms, which hides a
// difference of a few µs per call. With `--against DIST` (another build's
// dist/ folder, e.g. main's, built elsewhere), both builds index the same
// stdlib copy in this one process and their rounds alternate, so a loaded
// machine's drift falls on both alike. Each call goes through
// IndexHandle.runTool (checked, then answered), as the daemon's do; 5 untimed
// rounds, then 60 timed ones; the minimum and the median of the mean µs per
// call are printed (on a busy machine the minimum is the steadier figure).
// `--against` may be given more than once (each build gets a column). The
// last row is search_code's queries too short or too common for the block
// signatures to skip anything (`e`, `x`: no trigram, every block is scanned;
// `self`: in most blocks), which measure the scan itself.
//
// Usage: node dist/test/bench/tools-inproc.js [--against OTHER/dist ...]
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { makeCorpus } from './corpus.js';
import { closeAll, minMedian, openWith, OWN_DIST, type InProcessIndex } from './in-process.js';
import { drawQueries } from './queries.js';

const ROUNDS = 60;
/** Queries the signatures cannot narrow: `e` and `x` hold no trigram, `self` is in most blocks. */
const SCAN_ALL = ['e', 'self', 'x'];
const UNTIMED = 5;

interface Opened extends InProcessIndex { label: string }

async function open(dist: string, root: string): Promise<Opened> {
  return { label: dist, ...await openWith(dist, root, 'evidex-inproc-state-') };
}

/** Per build, the mean µs per call of each round, the builds' rounds alternating. */
async function rounds(builds: readonly Opened[], tool: string, key: string, values: readonly string[], extra: object): Promise<number[][]> {
  const times = builds.map(() => [] as number[]);
  for (let r = 0; r < UNTIMED + ROUNDS; r++) {
    for (const [i, b] of builds.entries()) {
      const t0 = process.hrtime.bigint();
      for (const v of values) await b.idx.runTool(tool, { [key]: v, ...extra });
      if (r >= UNTIMED) times[i].push(Number(process.hrtime.bigint() - t0) / 1000 / values.length);
    }
  }
  return times;
}

const fmt = (xs: number[]): string => minMedian(xs).map((x) => `${x.toFixed(1)} µs`).join(' / ');

async function main(): Promise<void> {
  const dists = [OWN_DIST, ...process.argv.flatMap((a, i) => (a === '--against' ? [resolve(process.argv[i + 1])] : []))];
  const corpus = makeCorpus('stdlib');
  const builds: Opened[] = [];
  try {
    const q = drawQueries(corpus, 300);
    for (const d of dists) builds.push(await open(d, corpus.root));
    const rows: string[] = [];
    for (const [tool, key, values, what, extra] of [
      ['find_symbol', 'name', q.symbols, 'stdlib names', {}],
      ['find_importers', 'module_name', q.modules, 'stdlib module names', {}],
      ['search_code', 'query', q.search, 'seeded substrings', {}],
      ['search_code', 'query', q.search, 'seeded substrings, case-sensitive', { case_sensitive: true }],
      ['search_code', 'query', SCAN_ALL, 'queries that scan (nearly) every block', {}],
    ] as const) {
      const t = await rounds(builds, tool, key, values, extra);
      rows.push(`| \`${tool}\`, ${values.length} ${what} | ${t.map(fmt).join(' | ')} |`);
    }
    console.log(`| per call, in process: min / median of ${ROUNDS} rounds | ${builds.map((b) => b.label).join(' | ')} |`);
    console.log(`|---|${builds.map(() => '---|').join('')}`);
    console.log(rows.join('\n'));
  } finally {
    await closeAll(builds);
    rmSync(corpus.root, { recursive: true, force: true });
  }
}

await main();
