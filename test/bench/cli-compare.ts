// `node dist/test/bench/cli-compare.js [--node NODE] [--runs N] LABEL=DIST …`:
// `evidex search COLLECTION_NAME` to a running daemon, for each build (a
// dist/ folder), beside `node -e 0`, on one Node binary (default this one).
// Each build gets its own daemon of one git copy of the fixture, in its own
// EVIDEX_HOME; rounds alternate the order, 3 warm-up rounds, then N (default
// 20). Prints, per command: wall median and p90, × `node -e 0`, the mean CPU
// time of the process (user + system, from this process's children's times
// in /proc/self/stat, so Linux only) and the load average before → after.
// On a shared machine the CPU column is the steadier one (docs/performance/cli-start.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fixtureRepo } from './corpus.js';
import { stats } from './table.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const node = option('--node') ?? process.execPath;
const runs = Number(option('--runs') ?? 20);
const builds = args.filter((a, i) => a.includes('=') && !['--node', '--runs'].includes(args[i - 1]))
  .map((a) => { const [label, dist] = a.split('='); return { label, bin: join(resolve(dist), 'client', 'bin.js') }; });
if (!builds.length) throw new Error('usage: cli-compare.js [--node NODE] [--runs N] LABEL=DIST …');

/** The CPU time (ms) of this process's waited-for children so far. */
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

const repo = fixtureRepo('evidex-cli-compare-');
const commands = [{ label: 'node -e 0', argv: ['-e', '0'], home: '' }, ...builds.map((b) => ({
  label: b.label, argv: [b.bin, 'search', 'COLLECTION_NAME'], home: mkdtempSync(join(tmpdir(), 'evidex-cli-compare-home-')),
}))];
const wall = new Map<string, number[]>(commands.map((c) => [c.label, []]));
const cpu = new Map<string, number>(commands.map((c) => [c.label, 0]));
const run = (c: typeof commands[number], counted: boolean): void => {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(node, c.argv, { cwd: repo, env: { ...process.env, EVIDEX_HOME: c.home, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
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
  const base = stats(wall.get('node -e 0')!).p50;
  for (const c of commands) {
    const s = stats(wall.get(c.label)!);
    console.log(`| ${version} | ${c.label} | ${s.p50.toFixed(1)} ms | ${s.p90.toFixed(1)} ms | ${(s.p50 / base).toFixed(2)}× | ${(cpu.get(c.label)! / runs).toFixed(1)} ms | ${before.toFixed(2)} → ${after.toFixed(2)} |`);
  }
} finally {
  for (const c of commands.slice(1)) {
    spawnSync(node, [c.argv[0], 'daemon', 'stop', '--repo', repo], { env: { ...process.env, EVIDEX_HOME: c.home }, stdio: 'ignore' });
    rmSync(c.home, { recursive: true, force: true });
  }
  rmSync(dirname(repo), { recursive: true, force: true });
}
