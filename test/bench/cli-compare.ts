// `node dist/test/bench/cli-compare.js [--node NODE] [--runs N] [--repo PATH]
// [--symbol NAME] [--search QUERY] [--only symbol,search,help,version] LABEL=DIST …`:
// CLI calls to a running daemon — `evidex symbol NAME`, `evidex search QUERY`,
// `evidex --help`, `evidex --version` — for each build (a dist/ folder),
// beside `node -e 0`, on one Node binary (default this one). The repository
// is a git copy of the bundled fixture (symbol VectorStore, search
// COLLECTION_NAME), or --repo, a git work tree of one's own (left as it was
// found but for nothing: evidex writes only in its EVIDEX_HOME). Each build
// gets its own daemon in its own EVIDEX_HOME; rounds alternate the order, 3
// warm-up rounds (which start the daemons and fill the compile caches), then
// N (default 30). Prints, per command: wall median and p90, × `node -e 0`
// (medians), the mean CPU time of the process (user + system, from this
// process's children's times in /proc/self/stat, so Linux only) and the load
// average before → after. On a shared machine the CPU column is the steadier
// one (docs/performance/cli-start.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fixtureRepo } from './corpus.js';
import { stats } from './table.js';

const args = process.argv.slice(2);
const OPTIONS = ['--node', '--runs', '--repo', '--symbol', '--search', '--only'];
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const node = option('--node') ?? process.execPath;
const runs = Number(option('--runs') ?? 30);
const ownRepo = option('--repo');
const symbol = option('--symbol') ?? (ownRepo ? undefined : 'VectorStore');
const query = option('--search') ?? (ownRepo ? undefined : 'COLLECTION_NAME');
const builds = args.filter((a, i) => a.includes('=') && !OPTIONS.includes(args[i - 1]))
  .map((a) => { const [label, dist] = a.split('='); return { label, bin: join(resolve(dist), 'client', 'bin.js') }; });
if (!builds.length) throw new Error('usage: cli-compare.js [--node NODE] [--runs N] [--repo PATH] [--symbol NAME] [--search QUERY] [--only symbol,search,help,version] LABEL=DIST …');
const CALLS: Record<string, string[] | undefined> = {
  symbol: symbol === undefined ? undefined : ['symbol', symbol],
  search: query === undefined ? undefined : ['search', query],
  help: ['--help'],
  version: ['--version'],
};
const only = (option('--only') ?? Object.keys(CALLS).join(',')).split(',');
const unknown = only.filter((k) => !Object.hasOwn(CALLS, k));
if (unknown.length) throw new Error(`--only: unknown ${unknown.join(', ')} (symbol, search, help, version)`);
const calls = only.filter((k) => CALLS[k] !== undefined).map((k) => CALLS[k]!);
if (!calls.length) throw new Error('nothing to run: with --repo, give --symbol or --search (or --only help,version)');

/** The CPU time (ms) of this process's waited-for children so far. */
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

const repo = ownRepo !== undefined ? resolve(ownRepo) : fixtureRepo('evidex-cli-compare-');
const homes = builds.map(() => mkdtempSync(join(tmpdir(), 'evidex-cli-compare-home-')));
const commands = [{ label: '`node -e 0`', argv: ['-e', '0'], home: '' }, ...calls.flatMap((call) => builds.map((b, i) => ({
  label: `${builds.length > 1 ? `${b.label}: ` : ''}\`evidex ${call.join(' ')}\``, argv: [b.bin, ...call], home: homes[i],
})))];
const wall = new Map<string, number[]>(commands.map((c) => [c.label, []]));
const cpu = new Map<string, number>(commands.map((c) => [c.label, 0]));
const run = (c: typeof commands[number], counted: boolean): void => {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(node, c.argv, { cwd: repo, env: { ...process.env, EVIDEX_HOME: c.home, NO_COLOR: '1', EVIDEX_NODE_WARNING: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const t = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${c.label}: exit ${r.status}: ${r.stderr}`);
  if (!counted) return;
  wall.get(c.label)!.push(t);
  cpu.set(c.label, cpu.get(c.label)! + childrenCpuMs() - c0);
};
try {
  const before = loadavg()[0];
  for (let i = 0; i < 3; i++) for (const c of commands) run(c, false);
  for (let i = 0; i < runs; i++) for (const c of i % 2 ? [...commands].reverse() : commands) run(c, true);
  const after = loadavg()[0];
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const base = stats(wall.get(commands[0].label)!).p50;
  for (const c of commands) {
    const s = stats(wall.get(c.label)!);
    console.log(`| ${version} | ${c.label} | ${s.p50.toFixed(1)} ms | ${s.p90.toFixed(1)} ms | ${(s.p50 / base).toFixed(2)}× | ${(cpu.get(c.label)! / runs).toFixed(1)} ms | ${before.toFixed(2)} → ${after.toFixed(2)} |`);
  }
} finally {
  for (const [i, b] of builds.entries()) {
    spawnSync(node, [b.bin, 'daemon', 'stop', '--repo', repo], { env: { ...process.env, EVIDEX_HOME: homes[i], EVIDEX_NODE_WARNING: '0' }, stdio: 'ignore' });
    rmSync(homes[i], { recursive: true, force: true });
  }
  if (ownRepo === undefined) rmSync(dirname(repo), { recursive: true, force: true });
}
