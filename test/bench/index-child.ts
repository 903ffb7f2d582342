// Child process of the benchmark: one cold (or warm) in-process index build of
// argv[2], printing its summary, wall time and peak RSS as one JSON line.
// A separate process so peak memory is the indexer's own.
import { buildInProcess } from '../../client/index-command.js';

const root = process.argv[2];
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const summary = await buildInProcess(root, () => undefined);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0); // the whole process: main thread and parse workers
process.stdout.write(`${JSON.stringify({
  ...summary, wallSeconds: seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssBytes: process.resourceUsage().maxRSS * 1024,
})}\n`);
