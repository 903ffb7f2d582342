// `npm run bench:memory [-- --corpus stdlib|large]`: the daemon's memory on a
// large tree (issue 31, point 7) without the rest of `npm run bench --large`.
// The corpus (default: every .py file of the machine's site-packages) is
// indexed in a child process, then a daemon is started on it as a command
// would start one, brought to steady state (every file's search text and the
// symbol index loaded, the request path warmed up) and given the bench's query
// pass (the same seeded queries: search_code, find_symbol, find_importers at
// limit 20 and 200). The row is its anonymous resident memory (RssAnon: heap,
// buffers, everything not backed by a file; the index's memory map is not in
// it) against the source's size, beside the same figure before the queries.
// `-- --snapshot FILE` also writes a heap snapshot of the daemon after the
// query pass (heap-snapshot.ts; heap-retained.ts reads it). `-- --smaps` also
// prints the daemon's anonymous memory by kind of mapping after the query pass
// (smaps.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, daemonStop, type Client } from '../../client/connection.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';
import { files, stateDirFor } from '../../local/state.js';
import { makeCorpus } from './corpus.js';
import { INSPECTED, writeDaemonSnapshot } from './heap-snapshot.js';
import { drawQueries } from './queries.js';
import { smapsByKind, type SmapsKind } from './smaps.js';
import { printGrid } from './table.js';

const args = process.argv.slice(2);
const kind = args.includes('--corpus') && args[args.indexOf('--corpus') + 1] === 'stdlib' ? 'stdlib' : 'large';
const here = fileURLToPath(new URL('.', import.meta.url));
const snapshotTo = args.includes('--snapshot') ? args[args.indexOf('--snapshot') + 1] : undefined;
const showSmaps = args.includes('--smaps');

function rss(pid: number): { anon: number; file: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile'), hwm: kb('VmHWM') };
}

async function waitSteady(client: Client): Promise<void> {
  for (;;) {
    const st = await client.request(Methods.indexStatus);
    if (st.index.warm && warmupSettled(st.daemon.warmup) && st.daemon.watcher === 'watching' && st.daemon.startup === 'done' && st.daemon.pendingUpdates === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const mb = (x: number) => `${(x / 1e6).toFixed(1)} MB`;
let smaps: SmapsKind[] = [];
const rows: string[][] = [['figure', 'evidex', 'reference', 'ratio', 'target', 'met']];
const c = makeCorpus(kind);
const home = mkdtempSync(join(tmpdir(), 'evidex-bench-memory-home-'));
const env = { ...process.env, EVIDEX_HOME: home };
process.env.EVIDEX_HOME = home;
const python = execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim();
console.log(`evidex bench:memory · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}) · node ${process.version} · ${python}`);
console.error(`[${c.name}] ${c.files.length} files, ${c.lines} lines, ${mb(c.bytes)} in ${c.root}; indexing`);
try {
  const built = spawnSync(process.execPath, [join(here, 'index-child.js'), c.root], { env, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (built.status !== 0) throw new Error(`index failed: ${built.stderr}`);
  const startedAt = performance.now();
  const client = await connect(c.root, { autoStart: true, env: snapshotTo ? { ...env, ...INSPECTED } : env, startTimeoutMs: 300_000 });
  try {
    await waitSteady(client);
    const steadyAfter = performance.now() - startedAt;
    const pid = client.info.pid;
    const steady = rss(pid);
    const q = JSON.parse(JSON.stringify(drawQueries(c, 300))) as ReturnType<typeof drawQueries>;
    const call = (name: string, a: unknown) => client.request(Methods.toolsCall, { name, arguments: a });
    for (const s of q.search) await call('search_code', { query: s });
    for (const n of q.symbols) await call('find_symbol', { name: n });
    for (const n of q.modules) await call('find_importers', { module_name: n });
    for (const n of q.modules) await call('find_importers', { module_name: n, limit: 200 });
    const after = rss(pid);
    if (showSmaps) smaps = smapsByKind(pid);
    if (snapshotTo) await writeDaemonSnapshot(files(stateDirFor(c.root)).log, snapshotTo);
    const src = `source ${mb(c.bytes)}`;
    const row = (figure: string, v: number, target = '', met: boolean | null = null) =>
      rows.push([figure, mb(v), src, `${(v / c.bytes).toFixed(2)}×`, target, met === null ? '' : met ? 'yes' : 'NO']);
    row(`[${c.name}] daemon anonymous RSS, steady, before queries`, steady.anon);
    row(`[${c.name}] daemon anonymous RSS after the query pass (${c.files.length} files)`, after.anon, '≤ 2× source', after.anon <= 2 * c.bytes);
    row(`[${c.name}] daemon file-backed RSS (the index's memory map)`, after.file);
    row(`[${c.name}] daemon peak RSS (VmHWM)`, after.hwm);
    rows.push([`[${c.name}] daemon start to steady state (warm-up done)`, `${(steadyAfter / 1000).toFixed(1)} s`, '', '', '', '']);
  } finally {
    await client.close();
    await daemonStop(c.root, { env });
  }
} finally {
  rmSync(home, { recursive: true, force: true });
  rmSync(c.root, { recursive: true, force: true });
}
printGrid(rows);
if (smaps.length) {
  console.log('\n| daemon anonymous memory after the query pass, by mapping | mappings | MB |\n|---|---|---|');
  for (const k of smaps) console.log(`| ${k.kind} | ${k.mappings} | ${(k.anonymous / 1e6).toFixed(1)} |`);
}
