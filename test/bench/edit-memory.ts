// `npm run bench:edits -- [--rounds N] [--share F] [--mode edit|checkout] [--queries N] [--idle S] [--snapshots DIR] [--smaps]`:
// a long-running daemon's memory through rounds of mass change on a large
// tree (issue 31's bad day: branch switches, rebases and formatters on a
// tree whose search text lies in the text map). Every .py file of the
// machine's site-packages is copied into a fresh git repository (corpus.ts)
// and indexed in a child process; a daemon is started on it as a command
// starts one, with its inspector open (heap figures, snapshots) and a
// temporary EVIDEX_HOME. Each round then changes the tree:
//   edit      F of the files (seeded) get a line appended, a hundredth of the
//             rest are deleted, and as many new files added (default);
//   checkout  one such change is committed as a second commit, and the rounds
//             `git checkout` between it and the first.
// and waits until the index holds the change (index/status: the file count
// expected, a search for the round's marker counting every edited file,
// warm, nothing queued or catching up), runs a query pass (the seeded
// queries of queries.ts) and reads the daemon's RssAnon (and by kind of
// mapping, smaps.ts: malloc's main heap, V8's pages, the rest), its heap used,
// its external memory and `index/status`'s text map line (generation, map
// size, text in the heap beside it, text of it no file reads).
// --snapshots DIR writes a heap snapshot after the first and the last round
// (heap-retained.ts reads them; taking one leaves ~200 MB more in malloc's
// heap, so the rows after it are not comparable); --against DIST runs
// another build's daemon (main's dist/, say) under the same drive; --smaps prints the last round's anonymous
// memory by kind of mapping (smaps.ts); --idle S adds a row after S seconds idle;
// --heaptrack FILE starts the daemon under heaptrack (this build's daemon only,
// not --against's) and writes its record to FILE.zst (read it with
// `heaptrack_print`; the daemon is slower under it, so its rows are not
// comparable).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '../../client/connection.js';
import { files as stateFiles, stateDirFor } from '../../local/state.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';
import { mulberry32 } from '../helpers/random.js';
import { makeCorpus } from './corpus.js';
import { daemonMemoryUsage, INSPECTED, writeDaemonSnapshot } from './heap-snapshot.js';
import { drawQueries } from './queries.js';
import { smapsByKind } from './smaps.js';
import { printGrid } from './table.js';

const USAGE = `usage: edit-memory [--rounds N (6)] [--share F (0.3)] [--mode edit|checkout] [--queries N (100)] [--idle S] [--snapshots DIR] [--smaps] [--heaptrack FILE] [--against OTHER/dist]`;
const args = process.argv.slice(2);
if (args.includes('--help')) { console.log(USAGE); process.exit(0); }
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const rounds = Number(opt('--rounds') ?? 6);
const share = Number(opt('--share') ?? 0.3);
const mode = opt('--mode') ?? 'edit';
const nQueries = Number(opt('--queries') ?? 100);
const idleS = opt('--idle') === undefined ? 0 : Number(opt('--idle'));
const snapshots = opt('--snapshots');
const heaptrackOut = opt('--heaptrack');
if (heaptrackOut && opt('--against')) { console.error('--heaptrack runs this build\'s daemon only, not --against\'s'); process.exit(2); }
if (!(rounds >= 1) || !(share > 0 && share <= 1) || !['edit', 'checkout'].includes(mode) || !(nQueries >= 0) || !(idleS >= 0)) {
  console.error(USAGE);
  process.exit(2);
}
const here = fileURLToPath(new URL('.', import.meta.url));
// --against DIST: the daemon is another build's (e.g. main's dist/), started through that build's client.
const against = opt('--against');
const { connect, daemonCommand, daemonStop } = (await import(against ? pathToFileURL(join(resolve(against), 'client', 'connection.js')).href : '../../client/connection.js')) as typeof import('../../client/connection.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (x: number) => (x / 1e6).toFixed(1);

function rssAnon(pid: number): number {
  return Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
}

const c = makeCorpus('large');
const root = c.root;
const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-C', root, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'site-packages');
const home = mkdtempSync(join(tmpdir(), 'evidex-bench-edits-home-'));
const env = { ...process.env, EVIDEX_HOME: home };
process.env.EVIDEX_HOME = home;
const rand = mulberry32(20261207);

/** The tree's .py files now (the index holds these once it has caught up). */
let live = [...c.files];
let added = 0;

/** Files the index leaves out for their size (maxFileBytes, 2 MiB): never picked, so the index's count follows the tree's. */
const tooLarge = new Set(c.files.filter((f) => statSync(join(root, f)).size > 2 << 20));

/** One mass change: `share` of the files get `marker` appended, a hundredth deleted and as many added. Returns the files edited. */
function massChange(marker: string): number {
  const pick = live.filter((f) => !tooLarge.has(f) && rand() < share);
  for (const f of pick) writeFileSync(join(root, f), `${readFileSync(join(root, f), 'utf8')}\n# ${marker}\n`);
  const picked = new Set(pick);
  const gone = new Set(live.filter((f) => !picked.has(f) && !tooLarge.has(f) && rand() < 0.01));
  for (const f of gone) unlinkSync(join(root, f));
  // Copies of files left unedited: the marker's count stays the number of files edited.
  const sources = live.filter((f) => !gone.has(f) && !picked.has(f) && !tooLarge.has(f)).slice(0, gone.size);
  live = live.filter((f) => !gone.has(f));
  for (const f of sources) {
    const name = `evidex_added_${added++}.py`;
    writeFileSync(join(root, name), readFileSync(join(root, f)));
    live.push(name);
  }
  return pick.length;
}

/**
 * Starts the daemon under heaptrack (`heaptrack -o OUT node … daemon/main.js`,
 * the command and environment a start uses: daemonCommand), its output in the
 * daemon's log; resolves to heaptrack's exit, which follows the daemon's.
 * heaptrack's attach (-p) crashed the daemon, so it records from the start.
 */
function startUnderHeaptrack(out: string, daemonEnv: NodeJS.ProcessEnv): Promise<unknown> {
  const cmd = daemonCommand(root, daemonEnv, ['--idle-timeout', '3h']);
  const fd = openSync(stateFiles(stateDirFor(root)).log, 'a', 0o600);
  const ht = spawn('heaptrack', ['-o', resolve(out), ...cmd.argv], { stdio: ['ignore', fd, fd], env: cmd.env, cwd: root });
  closeSync(fd);
  return new Promise((done) => ht.once('exit', done));
}

/** Connects to the daemon started by startUnderHeaptrack once it has written daemon.json. */
async function connectStarted(daemonEnv: NodeJS.ProcessEnv): Promise<Client> {
  for (let tries = 0; ; tries++) {
    try { return await connect(root, { env: daemonEnv }); } catch (e) { if (tries > 1500) throw e; }
    await sleep(200);
  }
}

/** Files in the tree that the index leaves out (too large), so its count is the tree's less these. */
let leftOut = 0;

/** Waits until the index holds the change: the tree's files, `marked` of them with `marker`, nothing queued; resolves to the seconds it took. */
async function caughtUp(client: Client, marker: string, marked: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const st = await client.request(Methods.indexStatus);
    const d = st.daemon;
    if (st.index.files === live.length - leftOut && st.index.warm && warmupSettled(d.warmup) && d.startup === 'done' && !d.catchingUp && d.pendingUpdates === 0) {
      const r = await client.request(Methods.toolsCall, { name: 'search_code', arguments: { query: marker, limit: 1 } }) as { total: number };
      // Asked again after the search: a change the watcher saw meanwhile would be queued now.
      const again = await client.request(Methods.indexStatus);
      if (r.total === marked && again.index.warm && again.daemon.pendingUpdates === 0 && !again.daemon.catchingUp) return (performance.now() - t0) / 1000;
    }
    await sleep(200);
  }
}

const rows: string[][] = [['point', 'files', 'changed', 'caught up', 'RssAnon MB', 'malloc [heap] MB', 'V8 pages MB', 'other anon MB', 'heap used MB', 'external MB', 'text map', 'load']];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.error(`[edits] ${c.files.length} files, ${mb(c.bytes)} MB in ${root}; indexing`);
try {
  const built = spawnSync(process.execPath, [join(here, 'index-child.js'), root], { env, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (built.status !== 0) throw new Error(`index failed: ${built.stderr}`);
  const daemonEnv = { ...env, ...INSPECTED };
  const heaptrackExit = heaptrackOut ? startUnderHeaptrack(heaptrackOut, daemonEnv) : undefined;
  const client = heaptrackOut ? await connectStarted(daemonEnv) : await connect(root, { autoStart: true, env: daemonEnv, startTimeoutMs: 300_000 });
  const log = stateFiles(stateDirFor(root)).log;
  const q = JSON.parse(JSON.stringify(drawQueries(c, nQueries))) as ReturnType<typeof drawQueries>;
  const queryPass = async () => {
    const call = (name: string, a: unknown) => client.request(Methods.toolsCall, { name, arguments: a });
    for (const s of q.search) await call('search_code', { query: s });
    for (const n of q.symbols.slice(0, nQueries)) await call('find_symbol', { name: n });
    for (const n of q.modules.slice(0, nQueries)) await call('find_importers', { module_name: n });
  };
  try {
    const pid = client.info.pid;
    const row = async (point: string, changed: string, secs: string) => {
      const st = await client.request(Methods.indexStatus);
      const m = await daemonMemoryUsage(log);
      const kinds = smapsByKind(pid);
      const kind = (prefix: string) => mb(kinds.find((k) => k.kind.startsWith(prefix))?.anonymous ?? 0);
      rows.push([point, String(st.index.files), changed, secs, mb(rssAnon(pid)), kind('[heap]'), kind('256 KB'), kind('other'), mb(m.heapUsed), mb(m.external), st.index.textMap ?? '-', load()]);
      console.error(rows[rows.length - 1].join(' | '));
    };
    const startMarker = 'evidex-bench-never-written';
    leftOut = tooLarge.size;
    await caughtUp(client, startMarker, 0);
    await queryPass();
    await row('start, after a query pass', '', '');
    let base = '', second = '', secondMarked = 0;
    if (mode === 'checkout') {
      base = git('rev-parse', 'HEAD');
      secondMarked = massChange('evidex-edit-b');
      git('add', '-A');
      git('commit', '-qm', 'mass change');
      second = git('rev-parse', 'HEAD');
      git('checkout', '-q', base);
      live = git('ls-files').split('\n');
      await caughtUp(client, startMarker, 0);
      console.error(`[edits] checkout between ${base.slice(0, 8)} and ${second.slice(0, 8)} (${secondMarked} files edited)`);
    }
    for (let r = 1; r <= rounds; r++) {
      let marker: string, marked: number;
      if (mode === 'checkout') {
        const to = r % 2 === 1 ? second : base;
        git('checkout', '-q', to);
        live = git('ls-files').split('\n');
        marker = 'evidex-edit-b';
        marked = to === second ? secondMarked : 0;
      } else {
        marker = `evidex-edit-round-${r}`;
        marked = massChange(marker);
      }
      const secs = await caughtUp(client, marker, marked);
      await queryPass();
      await row(`round ${r}`, String(marked), `${secs.toFixed(0)} s`);
      if (snapshots && (r === 1 || r === rounds)) await writeDaemonSnapshot(log, join(snapshots, `round-${r}.heapsnapshot`));
    }
    if (idleS > 0) {
      await sleep(idleS * 1000);
      await row(`after ${idleS} s idle`, '', '');
    }
    if (args.includes('--smaps')) {
      console.log('| anonymous memory after the last row, by mapping | mappings | MB |\n|---|---|---|');
      for (const k of smapsByKind(pid)) console.log(`| ${k.kind} | ${k.mappings} | ${mb(k.anonymous)} |`);
    }
    const textMapLines = readFileSync(log, 'utf8').split('\n').filter((l) => /text map|heap collected/.test(l));
    console.log(`daemon log, text map and collections (${textMapLines.length} lines):\n${textMapLines.join('\n')}\n`);
  } finally {
    await client.close();
    await daemonStop(root, { env });
    await heaptrackExit;
  }
} finally {
  rmSync(home, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}
console.log(`evidex bench:edits · ${against ? `daemon of ${resolve(against)}` : 'this build'} · node ${process.version} · ${c.files.length} files, ${mb(c.bytes)} MB · ${rounds} rounds, mode ${mode}, share ${share}, ${nQueries} queries of each tool`);
printGrid(rows);
