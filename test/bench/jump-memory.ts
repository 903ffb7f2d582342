// `npm run bench:jumps -- --repo DIR [--jumps REF,REF,…] [--idle S]`: a
// daemon's memory across branch jumps (docs/performance/memory.md, "After branch
// jumps"). DIR is a git work tree the bench may check out (a clone made for
// it: it must be clean). A daemon is started on it as a command would start
// one (temporary EVIDEX_HOME), brought to steady state, then each REF is
// checked out in turn and the daemon waited for until it has caught up
// (start-up done, nothing seen and unwritten, no update queued, held for 3 s);
// its anonymous resident memory (RssAnon) is read after each, and once more
// after S seconds idle (default 60). The work tree is left on its first ref.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, daemonStop, type Client } from '../../client/connection.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';
import { printGrid } from './table.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const repoArg = opt('--repo');
if (!repoArg) {
  console.error('usage: jump-memory --repo DIR [--jumps REF,REF,…] [--idle S]');
  process.exit(2);
}
const repo = resolve(repoArg);
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8' }).trim();
const first = git('rev-parse', '--abbrev-ref', 'HEAD');
const jumps = (opt('--jumps') ?? `${first}~1200,${first}~400,${first}~2000,${first}`).split(',');
const idleS = Number(opt('--idle') ?? 60);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssAnonMb(pid: number): number {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/RssAnon:\s+(\d+)/.exec(s)?.[1] ?? NaN) / 1024;
}

/** Waits until the daemon has caught up and stayed so for `holdMs`; resolves to the seconds it took. */
async function caughtUp(client: Client, holdMs = 3000): Promise<number> {
  const t0 = performance.now();
  let since = 0;
  for (;;) {
    const st = await client.request(Methods.indexStatus);
    const d = st.daemon;
    const ok = st.index.warm && warmupSettled(d.warmup) && d.startup === 'done' && !d.catchingUp && d.pendingUpdates === 0;
    if (!ok) since = 0;
    else if (!since) since = performance.now();
    else if (performance.now() - since >= holdMs) return (performance.now() - t0) / 1000;
    await sleep(250);
  }
}

const rows: string[][] = [['point', 'files', 'RssAnon', 'load average']];
const home = mkdtempSync(join(tmpdir(), 'evidex-bench-jumps-home-'));
const env = { ...process.env, EVIDEX_HOME: home };
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
try {
  const client = await connect(repo, { autoStart: true, env, startTimeoutMs: 300_000 });
  try {
    const pid = client.info.pid;
    const row = async (point: string) => {
      const st = await client.request(Methods.indexStatus);
      rows.push([point, String(st.index.files), `${rssAnonMb(pid).toFixed(1)} MB`, load()]);
    };
    await caughtUp(client, 5000);
    await row(`steady on ${first}`);
    for (const ref of jumps) {
      git('checkout', '-q', ref);
      await sleep(1000);
      const s = await caughtUp(client);
      await row(`after checkout ${ref} (caught up in ${s.toFixed(0)} s)`);
    }
    await sleep(idleS * 1000);
    await row(`after ${idleS} s idle`);
  } finally {
    await client.close();
    await daemonStop(repo, { env });
  }
} finally {
  git('checkout', '-q', first);
  rmSync(home, { recursive: true, force: true });
}
printGrid(rows);
