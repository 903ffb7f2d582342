// search_code over the text map against the heap: site-packages (the `large`
// corpus, above the map's threshold) indexed twice in this one process, its
// one-byte search text once kept in the heap (threshold out of reach) and once
// moved to a text map (the default threshold), rounds alternating so a loaded
// machine's drift falls on both alike. Rows: the hit-dense queries (`e`, `x`:
// no trigram; `self`: in most blocks; `Self` case-sensitive), two selective
// ones, and the bench's seeded substrings (queries.ts) either case. Every
// answer's total is checked equal between the two indexes. Prints min / median
// ms per query (per call for the seeded rows) of ROUNDS timed rounds. With
// `--against DIST` (another build's dist/, e.g. main's), that build indexes
// the same copy too, with and without a map, and its rounds alternate with
// this one's (four indexes in one process: ~1.5 GB).
//
// Usage: node dist/test/bench/text-map-speed.js [--rounds N] [--against OTHER/dist]
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { makeCorpus } from './corpus.js';
import { closeAll, minMedian, openWith, OWN_DIST, type InProcessIndex } from './in-process.js';
import { drawQueries } from './queries.js';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const ROUNDS = Number(argOf('--rounds') ?? 20);
const UNTIMED = 3;

interface Row { label: string; calls: Array<Record<string, unknown>> }
interface Opened extends InProcessIndex { label: string }

async function open(dist: string, root: string, label: string, textMapMinBytes: number | undefined): Promise<Opened> {
  return { label, ...await openWith(dist, root, 'evidex-tm-speed-', textMapMinBytes) };
}

const fmt = (xs: number[]): string => minMedian(xs).map((x) => x.toFixed(1)).join(' / ');

async function main(): Promise<void> {
  const corpus = makeCorpus('large');
  const builds: Opened[] = [];
  try {
    const seeded = drawQueries(corpus, 300).search;
    const against = argOf('--against');
    for (const [dist, name] of against ? [[resolve(against), 'other'], [OWN_DIST, 'this']] : [[OWN_DIST, 'this']]) {
      builds.push(await open(dist, corpus.root, `${name}, heap`, Number.MAX_SAFE_INTEGER));
      builds.push(await open(dist, corpus.root, `${name}, map`, undefined));
      if (builds.at(-2)!.idx.store.textMapBytes !== 0 || builds.at(-1)!.idx.store.textMapBytes === 0) throw new Error('expected the heap index unmapped and the map index mapped');
    }
    if (against) console.log(`other: ${resolve(against)}`);
    const one = (query: string, extra: object = {}): Row => ({ label: `\`${query}\`${'case_sensitive' in extra ? ', case-sensitive' : ''}`, calls: [{ query, ...extra }] });
    const rows: Row[] = [
      one('e'), one('self'), one('x'), one('Self', { case_sensitive: true }), one('import os'), one('getattr('),
      { label: `seeded, ${seeded.length} (ms per call)`, calls: seeded.map((query) => ({ query })) },
      { label: `seeded, ${seeded.length}, case-sensitive (ms per call)`, calls: seeded.map((query) => ({ query, case_sensitive: true })) },
    ];
    console.log(`${corpus.name}: ${corpus.files.length} files, ${(corpus.bytes / 1048576).toFixed(1)} MiB; load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
    console.log(`| query | total | ${builds.map((b) => `${b.label}, min / median ms`).join(' | ')} |`);
    console.log(`|---|---|${builds.map(() => '---|').join('')}`);
    for (const row of rows) {
      const times = builds.map(() => [] as number[]);
      const totals = builds.map(() => 0);
      for (let r = 0; r < UNTIMED + ROUNDS; r++) {
        for (const [i, b] of builds.entries()) {
          let total = 0;
          const t0 = process.hrtime.bigint();
          for (const args of row.calls) total += ((await b.idx.runTool('search_code', args)) as { total: number }).total;
          if (r >= UNTIMED) times[i].push(Number(process.hrtime.bigint() - t0) / 1e6 / row.calls.length);
          totals[i] = total;
        }
      }
      if (totals.some((t) => t !== totals[0])) throw new Error(`${row.label}: totals differ: ${totals.join(', ')}`);
      console.log(`| ${row.label} | ${totals[0].toLocaleString('en')} | ${times.map(fmt).join(' | ')} |`);
    }
    console.log(`load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
  } finally {
    await closeAll(builds);
    rmSync(corpus.root, { recursive: true, force: true });
  }
}

await main();
