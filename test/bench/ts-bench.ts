// The TypeScript/JavaScript rows of the benchmark (issue 24), on the TS corpus:
// this project's own node_modules packages (zod, typescript, the MCP SDK,
// ollama, ws, chokidar) copied into a temp git repository as workspace
// packages, as test/ts-differential.test.ts reads them. Cold index against
// `ts.createSourceFile` of every file in one process, index size against the
// source, find_symbol / find_importers p50 on TS names beside the stdlib's
// Python rows of the same run, save-to-queryable of a .ts file, and how a
// tsconfig.json edit's re-resolution scales (ts-config-scale.ts).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, daemonStop } from '../../client/connection.js';
import { folderBytes, stateDirFor } from '../../local/state.js';
import { cleanupTemp } from '../helpers/fs.js';
import { mulberry32 } from '../helpers/random.js';
import { indexedFiles, nodeModulesRepo } from '../helpers/ts-corpus.js';
import { isTsJsPath } from '../oracle/ts-extract.js';
import { call, coldAgainst, median, stats, timed, timeUntilVisible, waitSteady } from './measure.js';
import { mib, ms, row, sec } from './table.js';
import { tsconfigScaleRows } from './ts-config-scale.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const WARMUP_CALLS = 20;

export interface TsCorpus { name: string; root: string; files: string[]; tsFiles: string[]; lines: number; bytes: number }

export function makeTsCorpus(): TsCorpus {
  const { root } = nodeModulesRepo();
  const files = indexedFiles(root);
  let lines = 0, bytes = 0;
  for (const f of files) {
    const buf = readFileSync(join(root, f));
    bytes += buf.length;
    for (let i = 0; i < buf.length; i++) if (buf[i] === 10) lines++;
  }
  return { name: 'ts', root, files, tsFiles: files.filter(isTsJsPath), lines, bytes };
}

function timeCreateSourceFile(c: TsCorpus): number | null {
  const r = spawnSync(process.execPath, [join(here, 'ts-parse-child.js'), c.root], { input: c.tsFiles.join('\n'), encoding: 'utf8', maxBuffer: 1 << 20 });
  return r.status === 0 ? (JSON.parse(r.stdout) as { seconds: number }).seconds : null;
}

/** Query sets drawn from the corpus with a fixed seed: declared names for find_symbol; imported files (by path) and packages for find_importers. */
export function drawTsQueries(c: TsCorpus, n: number): { symbols: string[]; modules: string[] } {
  const rand = mulberry32(20261203);
  const symbols = new Set<string>();
  const modules = new Set<string>();
  const decl = /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function|interface|type|enum|namespace|const|let|var)\s+([A-Za-z_$][\w$]*)/;
  const spec = /(?:from|import|require\()\s*['"]([^'"]+)['"]/;
  for (const f of c.tsFiles) {
    for (const l of readFileSync(join(c.root, f), 'utf8').split('\n')) {
      const d = decl.exec(l);
      if (d && rand() < 0.05) symbols.add(d[1]);
      const m = spec.exec(l);
      if (m && rand() < 0.1) {
        const s = m[1];
        if (!s.startsWith('.')) modules.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
      }
    }
    if (rand() < 0.05) modules.add(f);
  }
  const pick = (s: Set<string>) => [...s].sort(() => rand() - 0.5).slice(0, n);
  return { symbols: pick(symbols), modules: pick(modules) };
}

/** Python's p50 for each tool in the same run (the stdlib rows), to set beside the TS ones; null when the stdlib rows did not run. */
export type PythonP50 = Record<'find_symbol' | 'find_importers', number> | null;

/** All TS rows, with a state folder of their own (EVIDEX_HOME) and the corpus removed at the end. */
export async function benchTs(python: PythonP50, nq: number): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'evidex-bench-home-'));
  const env = { ...process.env, EVIDEX_HOME: home };
  process.env.EVIDEX_HOME = home; // connect() and stateDirFor() read it
  try {
    await benchTsCorpus(env, python, nq);
    await tsconfigScaleRows(env);
  } finally {
    rmSync(home, { recursive: true, force: true });
    cleanupTemp();
  }
}

async function benchTsCorpus(env: NodeJS.ProcessEnv, python: PythonP50, nq: number): Promise<void> {
  const c = makeTsCorpus();
  console.error(`[ts] ${c.files.length} files (${c.tsFiles.length} TS/JS), ${c.lines} lines, ${mib(c.bytes)} in ${c.root}`);
  const { refS, coldS, runs: coldRuns } = coldAgainst(c, env, () => timeCreateSourceFile(c));
  row(`[ts] cold index (${c.files.length} files, ${c.lines} lines; median of 3)`, sec(coldS),
    refS === null ? 'ts.createSourceFile: failed' : `ts.createSourceFile ${sec(refS)} (${c.tsFiles.length} files, 1 process)`,
    refS ? `${(coldS / refS).toFixed(2)}×` : '', '≤ 1.0× ts.createSourceFile', refS ? coldS <= refS : null);
  const last = coldRuns[coldRuns.length - 1];
  row('[ts] cold index CPU time (all threads); what it found', sec(median(coldRuns.map((r) => r.cpuSeconds))), `${last.symbols} symbols, ${last.imports} imports`);
  const indexBytes = folderBytes(join(stateDirFor(c.root), 'index'));
  row('[ts] index size', mib(indexBytes), `source ${mib(c.bytes)}`, `${(indexBytes / c.bytes).toFixed(2)}×`, '≤ 1.5×', indexBytes <= 1.5 * c.bytes);

  const client = await connect(c.root, { autoStart: true, env, startTimeoutMs: 300_000 });
  try {
    await waitSteady(client);
    const q = JSON.parse(JSON.stringify(drawTsQueries(c, nq))) as ReturnType<typeof drawTsQueries>;
    for (const [tool, names, key] of [['find_symbol', q.symbols, 'name'], ['find_importers', q.modules, 'module_name']] as const) {
      for (const n of names.slice(0, WARMUP_CALLS)) await call(client, tool, { [key]: n }).catch(() => null);
      const t: number[] = [];
      let found = 0, refused = 0;
      for (const n of names) {
        // A refusal (a TS path before the index knows TS files) is counted, not timed.
        const [took, r] = await timed(() => call(client, tool, { [key]: n }).catch(() => null));
        if (r === null) { refused++; continue; }
        t.push(took);
        if (r.total > 0) found++;
      }
      const st = stats(t);
      const py = python?.[tool];
      row(`[ts] ${tool} p50 (${st.n} TS names, ${found} found${refused ? `, ${refused} refused` : ''})`, ms(st.p50), py === undefined ? 'stdlib rows not run' : `Python names ${ms(py)}`,
        py === undefined ? '' : `${(st.p50 / py).toFixed(2)}×`, '≤ the Python p50', py === undefined ? null : st.p50 <= py);
      row(`[ts] ${tool} p99`, ms(st.p99));
    }
    // Save-to-queryable: a new definition appended to a real .ts file, until find_symbol finds it.
    const target = c.tsFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))[0];
    const lat: number[] = [];
    let never = 0;
    for (let i = 0; i < 30; i++) {
      const token = `evidex_bench_ts_${process.pid}_${i}`;
      const took = await timeUntilVisible(() => appendFileSync(join(c.root, target), `export const ${token} = ${i};\n`),
        async () => (await call(client, 'find_symbol', { name: token, limit: 1 })).total > 0);
      if (took === null) never++; else lat.push(took);
      if (never >= 2) break; // the index does not take this in: no point waiting out every save
      await new Promise((res) => setTimeout(res, 50));
    }
    const ls = stats(lat);
    row(`[ts] save-to-queryable of a .ts file, median (30 saves of ${target})`, lat.length ? ms(ls.p50) : 'never', never ? `${never} never visible within 10 s (${lat.length + never} saves)` : '', '', '≤ 20 ms', lat.length ? ls.p50 <= 20 && never === 0 : false);
    row('[ts] save-to-queryable of a .ts file, max', lat.length ? ms(ls.max) : 'never');
  } finally {
    await client.close();
    await daemonStop(c.root, { env });
  }
}
