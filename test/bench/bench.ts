// `npm run bench [-- --large] [-- --queries N] [-- --cli-only] [-- --cli-runs N] [-- --ts-only | --no-ts]`:
// evidex against the references (Python's ast, ripgrep, universal-ctags; the
// TypeScript compiler's parser for the TS rows) on the same files in the same
// run, printed as one table: figure, evidex, reference, ratio, target. Nothing
// is downloaded; the Python corpora come from the machine's python3, the TS
// corpus from this project's node_modules (ts-bench.ts).
// `npm run bench -- --mcp` runs only the `evidex mcp` rows (mcp-latency.ts: stdio
// and Streamable HTTP, beside the same calls over the daemon's WebSocket), on
// the bundled fixture.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { connect, daemonStop, type Client } from '../../client/connection.js';
import { minus } from '../../daemon/latency.js';
import { Methods, warmupSettled, type LatencySnapshot } from '../../protocol/messages.js';
import { folderBytes, stateDirFor } from '../../local/state.js';
import type { ToolResult } from '../../indexer/api.js';
import { inotifyWatches } from '../helpers/inotify.js';
import { fixtureRepo, makeCorpus, type Corpus } from './corpus.js';
import { benchMcpOnly, mcpRows } from './mcp-latency.js';
import { call, coldAgainst, median, rssOf } from './measure.js';
import { drawQueries } from './queries.js';
import { waitSteady } from './steady.js';
import { mib, ms, over1, printTable, row, rowOf, rows, sec, stats, timed, type Row } from './table.js';
import { benchTs } from './ts-bench.js';

const args = process.argv.slice(2);
const LARGE = args.includes('--large');
const MCP_ONLY = args.includes('--mcp');
const NQ = Number(args[args.indexOf('--queries') + 1]) || 300;
/** Only the CLI-latency rows (benchCli): seconds instead of minutes. */
const CLI_ONLY = args.includes('--cli-only');
const CLI_RUNS = Number(args[args.indexOf('--cli-runs') + 1]) || 20;
/** Only the TypeScript rows (ts-bench.ts), or every row but them. */
const TS_ONLY = args.includes('--ts-only');
const NO_TS = args.includes('--no-ts');
/** Untimed calls before each timed set (the first calls of a fresh daemon run unoptimised code). */
const WARMUP_CALLS = 20;

// ---- references -------------------------------------------------------------
function timePythonAst(c: Corpus): number | null {
  const script = 'import ast,sys,time\nroot=sys.argv[1]\nfiles=sys.stdin.read().split("\\n")\nt=time.perf_counter()\n'
    + 'for f in files:\n  if not f: continue\n  b=open(root+"/"+f,"rb").read()\n  try: ast.parse(b)\n  except (SyntaxError, ValueError): pass\n'
    + 'print(time.perf_counter()-t)\n';
  const r = spawnSync('python3', ['-c', script, c.root], { input: c.files.join('\n'), encoding: 'utf8', maxBuffer: 1 << 20 });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}
function timeCommand(cmd: string, argv: string[]): number | null {
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { stdio: ['ignore', 'ignore', 'ignore'] });
  if (r.error) return null;
  return (performance.now() - t0) / 1000;
}
function have(cmd: string): boolean {
  return spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
}

// ---- evidex -----------------------------------------------------------------
const here = fileURLToPath(new URL('.', import.meta.url));


/** The daemon's own latency histograms (message read → answer written), per method and tool. */
const daemonLatency = async (client: Client) => (await client.request(Methods.indexStatus)).daemon.latency;
/**
 * Runs `timedLoop` and returns the row of the daemon's own time for exactly
 * the calls of `tool` it made (the difference of two histogram snapshots): the
 * part of each round trip that is evidex, the rest being transport and client.
 */
async function daemonShare(c: Corpus, client: Client, tool: string, timedLoop: () => Promise<void>, label = tool): Promise<Row> {
  const key = `tools/call ${tool}`;
  const before: LatencySnapshot | undefined = (await daemonLatency(client))[key];
  await timedLoop();
  const d = minus((await daemonLatency(client))[key], before);
  return rowOf(`[${c.name}] ${label}: the daemon's own time, p50 / p99 (read → answer written)`, `${ms(d.p50Ms ?? NaN)} / ${ms(d.p99Ms ?? NaN)}`,
    `over 1 ms: ${((100 * d.over1ms) / d.calls).toFixed(1)}% (${d.over1ms} of ${d.calls})`);
}

/** A bare `ws` server in another process (ws-echo.ts): the machine's transport, with no evidex code on either side. */
class BarePeer {
  private nextId = 0;
  /** Why the peer is gone (socket closed, child exited), once it is: pending and later requests fail with it. */
  private gone: string | null = null;
  private readonly failPending = new Set<(e: Error) => void>();
  private constructor(private readonly child: ReturnType<typeof spawn>, private readonly ws: WebSocket) {
    const fail = (why: string) => {
      this.gone ??= why;
      for (const f of this.failPending) f(new Error(`bare ws peer: ${why}`));
      this.failPending.clear();
    };
    ws.once('close', () => fail('connection closed'));
    child.once('exit', (code) => fail(`child exited with code ${code}`));
  }

  static async start(): Promise<BarePeer> {
    const child = spawn(process.execPath, [join(here, 'ws-echo.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((res, rej) => {
        child.stdout!.once('data', (d) => res(Number(String(d).trim())));
        child.once('error', rej);
        child.once('exit', (code) => rej(new Error(`bare ws peer exited with code ${code} before listening`)));
      });
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false, maxPayload: 1 << 30 });
      await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
      return new BarePeer(child, ws);
    } catch (e) {
      child.kill();
      throw e;
    }
  }

  /** One request, answered and parsed (as evidex's client parses every answer); returns the parsed result. */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.gone) return Promise.reject(new Error(`bare ws peer: ${this.gone}`));
    const id = this.nextId++;
    return new Promise((res, rej) => {
      this.failPending.add(rej);
      this.ws.once('message', (data) => {
        this.failPending.delete(rej);
        const msg = JSON.parse(String(data)) as { id: number; result?: unknown; error?: { message: string } };
        if (msg.id !== id) rej(new Error(`bare ws peer answered id ${msg.id} to request ${id}`));
        else if (msg.error) rej(new Error(`bare ws peer: ${msg.error.message}`));
        else res(msg.result);
      });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** n round trips of a tiny message: the transport floor. */
  async echo(n: number): Promise<ReturnType<typeof stats>> {
    const t: number[] = [];
    for (let i = 0; i < n; i++) t.push((await timed(() => this.request('tools/call', {})))[0]);
    return stats(t);
  }

  /** Round trips that bring back exactly these answer texts, one each, in order, after `warmup` untimed ones (as evidex gets). */
  async replay(answers: string[], warmup: number): Promise<ReturnType<typeof stats>> {
    await this.request('load', { answers });
    for (let k = 0; k < Math.min(warmup, answers.length); k++) await this.request('replay', { k });
    const t: number[] = [];
    for (let k = 0; k < answers.length; k++) t.push((await timed(() => this.request('replay', { k })))[0]);
    return stats(t);
  }

  close(): void {
    this.ws.close();
    this.child.kill();
  }
}

/** What the scale rows compare between the two corpora. */
interface CorpusFigures {
  lines: number; bytes: number; coldS: number; indexBytes: number; rssAnon: number;
  p99: Record<'search_code' | 'find_symbol' | 'find_importers', number>;
  /** find_symbol and find_importers round trips' p50 (the TypeScript rows are compared with the stdlib's). */
  p50: Record<'find_symbol' | 'find_importers', number>;
}

async function benchCorpus(c: Corpus): Promise<CorpusFigures> {
  const p99: CorpusFigures['p99'] = { search_code: NaN, find_symbol: NaN, find_importers: NaN };
  const p50: CorpusFigures['p50'] = { find_symbol: NaN, find_importers: NaN };
  const home = mkdtempSync(join(tmpdir(), 'evidex-bench-home-'));
  const env = { ...process.env, EVIDEX_HOME: home };
  process.env.EVIDEX_HOME = home; // connect() and stateDirFor() read it
  console.error(`[${c.name}] ${c.files.length} files, ${c.lines} lines, ${mib(c.bytes)} in ${c.root}`);

  // Cold index vs Python's ast.parse (and ctags' symbol pass) over the same files.
  const { refS: astS, coldS, runs: coldRuns } = coldAgainst(c, env, () => timePythonAst(c));
  const ctagsS = have('ctags') ? timeCommand('ctags', ['-R', '--languages=Python', '-f', '/dev/null', c.root]) : null;
  row(`[${c.name}] cold index (${c.files.length} files, ${c.lines} lines; median of 3)`, sec(coldS),
    astS === null ? 'python3 ast: n/a' : `ast.parse ${sec(astS)}`, astS ? `${(coldS / astS).toFixed(2)}×` : '', '≤ ast.parse (stretch 3 s)', astS ? coldS <= astS : null);
  row(`[${c.name}] cold index CPU time (all threads)`, sec(median(coldRuns.map((r) => r.cpuSeconds))), astS ? `ast.parse ${sec(astS)} (1 thread)` : '');
  if (ctagsS !== null) row(`[${c.name}] cold index vs ctags (symbols only)`, sec(coldS), `ctags ${sec(ctagsS)}`, `${(coldS / ctagsS).toFixed(1)}×`, 'speed to chase');
  row(`[${c.name}] indexer peak RSS`, mib(median(coldRuns.map((r) => r.maxRssBytes))));
  const indexBytes = folderBytes(join(stateDirFor(c.root), 'index'));
  row(`[${c.name}] index size`, mib(indexBytes), `source ${mib(c.bytes)}`, `${(indexBytes / c.bytes).toFixed(2)}×`, '≤ 1.5×', indexBytes <= 1.5 * c.bytes);

  // Warm start: a daemon on the unchanged tree, from spawn to the first answered call.
  const [warmMs, client] = await timed(async () => {
    const cl = await connect(c.root, { autoStart: true, env, startTimeoutMs: 120_000 });
    await call(cl, 'find_symbol', { name: 'bench_warm_probe' });
    return cl;
  });
  row(`[${c.name}] warm start to serving`, ms(warmMs), '', '', '< 1 s', warmMs < 1000);
  // Queries are timed once the in-memory caches are loaded (steady state); until
  // then answers are correct but come from slower paths. How long that takes is reported.
  const [warmupMs] = await timed(() => waitSteady(client));
  row(`[${c.name}] background warm-up after serving (caches, request path, watcher scan)`, ms(warmupMs));
  const w = (await client.request(Methods.indexStatus)).daemon.warmup;
  row(`[${c.name}] of which the request-path warm-up (daemon's own tool calls)`,
    w.state === 'done' ? `${w.calls} calls, ${w.busyMs} ms${w.outcome === 'done' ? '' : ` (${w.outcome})`}` : w.state);
  const floor: number[] = [];
  for (let i = 0; i < 200; i++) floor.push((await timed(() => client.requestRaw('index/status', {})))[0]);
  row(`[${c.name}] WS round trip floor (index/status p50)`, ms(stats(floor).p50));
  // The floor's own tail: what scheduling noise alone adds to any p99 below.
  row(`[${c.name}] WS round trip floor p99`, ms(stats(floor).p99));
  const bare = await BarePeer.start();
  try {
    const echo = await bare.echo(1000);
    row(`[${c.name}] bare ws echo, no evidex: the transport (p50 / p99)`, '', `${ms(echo.p50)} / ${ms(echo.p99)}`);
    row(`[${c.name}] bare ws echo round trips over 1 ms`, '', over1(echo));

    // Fresh copies of the query strings (slices would keep every line of the
    // corpus alive), then a full collection: the corpus text drawQueries read must
    // not be collected by this process while it times round trips.
    const q = JSON.parse(JSON.stringify(drawQueries(c, NQ))) as ReturnType<typeof drawQueries>;
    globalThis.gc?.();
    // search_code round trips over the WebSocket, exact total.
    for (const s of q.search.slice(0, WARMUP_CALLS)) await call(client, 'search_code', { query: s });
    const searchMs: number[] = [];
    const searchShare = await daemonShare(c, client, 'search_code', async () => {
      for (const s of q.search) searchMs.push((await timed(() => call(client, 'search_code', { query: s })))[0]);
    });
    const rgTimes: number[] = [];
    if (have('rg')) for (const s of q.search.slice(0, 20)) rgTimes.push(timeCommand('rg', ['-F', '-i', '-n', '--', s, c.root])! * 1000);
    const ss = stats(searchMs);
    p99.search_code = ss.p99;
    const rgMed = rgTimes.length ? stats(rgTimes).p50 : NaN;
    row(`[${c.name}] search_code p50 (${ss.n} queries, WS round trip)`, ms(ss.p50), rgTimes.length ? `rg -F -i -n ${ms(rgMed)}` : 'rg: not installed',
      rgTimes.length ? `${(rgMed / ss.p50).toFixed(1)}× faster` : '', '≥ 20× faster than rg', rgTimes.length ? rgMed / ss.p50 >= 20 : null);
    row(`[${c.name}] search_code p99`, ms(ss.p99), rgTimes.length ? `rg median / 2 = ${ms(rgMed / 2)}` : '', '', '≤ rg median / 2', rgTimes.length ? ss.p99 <= rgMed / 2 : null);
    row(`[${c.name}] search_code max`, ms(ss.max));
    rows.push(searchShare);
    await mcpRows(c, client, env, q);

    // Default page (limit 20) for both tools, then find_importers' largest page (limit 200): its biggest answers.
    const timedTools = [
      ['find_symbol', q.symbols, 'name', {}, 'find_symbol'],
      ['find_importers', q.modules, 'module_name', {}, 'find_importers'],
      ['find_importers', q.modules, 'module_name', { limit: 200 }, 'find_importers limit 200'],
    ] as const;
    for (const [tool, names, key, extra, label] of timedTools) {
      for (const n of names.slice(0, WARMUP_CALLS)) await call(client, tool, { [key]: n, ...extra });
      const t: number[] = [];
      const answers: ToolResult[] = [];
      const share = await daemonShare(c, client, tool, async () => {
        for (const n of names) {
          const [took, answer] = await timed(() => call(client, tool, { [key]: n, ...extra }));
          t.push(took);
          answers.push(answer);
        }
      }, label);
      const st = stats(t);
      if (label === tool) { p99[tool] = st.p99; p50[tool] = st.p50; }
      // The same answer texts, sent back by the bare server: what the transport
      // and the client's parse alone cost for these bytes, with no lookup at all.
      const rt = await bare.replay(answers.map((a) => JSON.stringify(a)), WARMUP_CALLS);
      const ref = (x: number) => `same answers from a bare ws server ${ms(x)}`;
      row(`[${c.name}] ${label} p50 (${st.n} names)`, ms(st.p50), ref(rt.p50), '', '< 0.3 ms', st.p50 < 0.3);
      row(`[${c.name}] ${label} p99`, ms(st.p99), ref(rt.p99), '', '< 1 ms', st.p99 < 1);
      row(`[${c.name}] ${label} round trips over 1 ms`, over1(st), `bare ws server, same answers: ${over1(rt)}`);
      rows.push(share);
    }
  } finally {
    bare.close();
  }

  // Save-to-queryable: append a unique token to a real file, poll until search finds it.
  const target = join(c.root, c.files[Math.floor(c.files.length / 2)]);
  const lat: number[] = [];
  for (let i = 0; i < 30; i++) {
    const token = `evidex_bench_token_${process.pid}_${i}`;
    const t0 = performance.now();
    appendFileSync(target, `# ${token}\n`);
    for (;;) {
      const r = await call(client, 'search_code', { query: token, limit: 1 });
      if (r.total > 0) break;
      if (performance.now() - t0 > 10_000) throw new Error('save never became visible');
      await new Promise((res) => setTimeout(res, 1));
    }
    lat.push(performance.now() - t0);
    await new Promise((res) => setTimeout(res, 50));
  }
  const ls = stats(lat);
  row(`[${c.name}] save-to-queryable median (30 saves)`, ms(ls.p50), '', '', '< 20 ms', ls.p50 < 20);
  row(`[${c.name}] save-to-queryable max`, ms(ls.max), '', '', '< 100 ms', ls.max < 100);

  // The watcher's inotify watches: one per folder, none per file (a large tree must not exhaust the per-user limit).
  const folders = new Set(['', ...c.files.map((f) => f.split('/').slice(0, -1).join('/'))].flatMap((d) => d.split('/').map((_, i, a) => a.slice(0, i + 1).join('/')))).size;
  const watches = inotifyWatches(client.info.pid);
  const limit = (() => { try { return readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim(); } catch { return '?'; } })();
  row(`[${c.name}] watcher's inotify watches`, `${watches}`, `${folders} folders, ${c.files.length} files; limit ${limit}`, '', '≤ one per folder', watches <= folders);

  const rss = rssOf(client.info.pid);
  // The stdlib's target is < 200 MB; site-packages' (issue 31) at most twice its source, and growth no worse than linear (the scale rows).
  const rssTarget = c.name === 'stdlib';
  row(`[${c.name}] daemon anonymous RSS (steady, after the query pass)`, `${(rss.anon / 1e6).toFixed(1)} MB`, `source ${(c.bytes / 1e6).toFixed(1)} MB`,
    `${(rss.anon / c.bytes).toFixed(2)}×`, rssTarget ? '< 200 MB' : '≤ 2× source', rssTarget ? rss.anon < 200e6 : rss.anon <= 2 * c.bytes);
  row(`[${c.name}] daemon peak RSS (VmHWM)`, mib(rss.hwm));
  await client.close();
  await daemonStop(c.root, { env });
  rmSync(home, { recursive: true, force: true });
  rmSync(c.root, { recursive: true, force: true });
  return { lines: c.lines, bytes: c.bytes, coldS, indexBytes, rssAnon: rss.anon, p99, p50 };
}

/**
 * What a user waits for at the prompt (issue 19): `evidex search` against a
 * running daemon beside `node -e 0` (the floor: starting Node) and `git grep`
 * (what it replaces), on a git copy of the bundled fixture. The commands run
 * interleaved, CLI_RUNS times each, and the medians are compared; the first
 * call (no daemon yet: start it, build the index, answer) is its own row.
 */
function benchCli(): void {
  const repo = fixtureRepo('evidex-bench-cli-');
  const home = mkdtempSync(join(tmpdir(), 'evidex-bench-cli-home-'));
  const env = { ...process.env, EVIDEX_HOME: home, NO_COLOR: '1' };
  const bin = fileURLToPath(new URL('../../client/bin.js', import.meta.url));
  const query = 'COLLECTION_NAME';
  const run = (cmd: string, argv: string[]): number => {
    const t0 = performance.now();
    const r = spawnSync(cmd, argv, { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const t = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return t;
  };
  const commands: Array<[string, string, string[]]> = [
    ['node -e 0', process.execPath, ['-e', '0']],
    [`evidex search ${query}`, process.execPath, [bin, 'search', query]],
    [`git grep -n -i ${query}`, 'git', ['grep', '-n', '-i', query]],
    ['evidex --version', process.execPath, [bin, '--version']],
  ];
  try {
    const first = run(process.execPath, [bin, 'search', query]);
    const times = new Map<string, number[]>(commands.map(([name]) => [name, []]));
    for (let i = 0; i < 3; i++) for (const [, cmd, argv] of commands) run(cmd, argv); // page cache, the daemon's first calls
    for (let i = 0; i < CLI_RUNS; i++) for (const [name, cmd, argv] of commands) times.get(name)!.push(run(cmd, argv));
    const m = (name: string) => median(times.get(name)!);
    const node = m('node -e 0');
    const ratio = (x: number) => `${(x / node).toFixed(2)}×`;
    row(`[cli] evidex search ${query}, median of ${CLI_RUNS}`, ms(m(`evidex search ${query}`)), `node -e 0 ${ms(node)}`, ratio(m(`evidex search ${query}`)), '≤ 1.5× node -e 0', m(`evidex search ${query}`) <= 1.5 * node);
    row(`[cli] git grep -n -i ${query}, median of ${CLI_RUNS}`, '', ms(m(`git grep -n -i ${query}`)));
    row(`[cli] evidex --version, median of ${CLI_RUNS}`, ms(m('evidex --version')), `node -e 0 ${ms(node)}`, ratio(m('evidex --version')));
    row('[cli] first evidex search (starts the daemon, builds the index)', ms(first));
  } finally {
    spawnSync(process.execPath, [bin, 'daemon', 'stop', '--repo', repo], { env, stdio: 'ignore' });
    rmSync(dirname(repo), { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The issue's scale target: from the stdlib to site-packages, every cost grows
 * no faster than the tree (lines for time, bytes for space) and queries stay
 * in milliseconds. Each row is large ÷ stdlib beside the tree's own growth.
 */
function scaleRows(small: CorpusFigures, large: CorpusFigures): void {
  const lines = large.lines / small.lines;
  const bytes = large.bytes / small.bytes;
  const x = (v: number) => `${v.toFixed(2)}×`;
  row('[scale] tree growth, large ÷ stdlib', `${x(lines)} lines, ${x(bytes)} bytes`);
  const grows = (figure: string, a: number, b: number, tree: number, unit: 'lines' | 'bytes') => {
    row(`[scale] ${figure}, large ÷ stdlib`, x(b / a), `tree ${x(tree)} ${unit}`, '', 'no faster than the tree', b / a <= tree);
  };
  grows('cold index time', small.coldS, large.coldS, lines, 'lines');
  grows('index size', small.indexBytes, large.indexBytes, bytes, 'bytes');
  grows('daemon anonymous RSS', small.rssAnon, large.rssAnon, bytes, 'bytes');
  for (const tool of ['search_code', 'find_symbol', 'find_importers'] as const) {
    grows(`${tool} p99 (${ms(small.p99[tool])} → ${ms(large.p99[tool])})`, small.p99[tool], large.p99[tool], lines, 'lines');
  }
}

const cpu = cpus()[0]?.model ?? 'unknown cpu';
console.log(`evidex bench · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} cores (${cpu}) · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · node ${process.version} · ${execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim()}`);
if (MCP_ONLY) {
  await benchMcpOnly(NQ);
} else {
  if (!CLI_ONLY) {
    const small = TS_ONLY ? null : await benchCorpus(makeCorpus('stdlib'));
    if (small && LARGE) scaleRows(small, await benchCorpus(makeCorpus('large')));
    if (!NO_TS) await benchTs(small?.p50 ?? null, NQ);
  }
  if (!TS_ONLY) benchCli();
}
printTable();
writeFileSync(join(tmpdir(), 'evidex-bench-last.txt'), rows.map((r) => Object.values(r).join('\t')).join('\n'));
