// Runs every compiled test file (dist/test/**/*.test.js) in its own uvu
// process, so one crashing file cannot hide the others, several files at once:
// as many as the machine has cores (os.availableParallelism()), or
// EVIDEX_TEST_JOBS. Each file's output is printed whole, in file order, as
// soon as that file and every file before it have ended, so a run reads the
// same however the files interleaved. The last line is the totals,
// `N passed, N failed, N skipped`: CI reads it to see that tests really ran.
//
// A test that cannot run on this machine (tmux or python3 missing, say) is
// registered as skipped by test/helpers/skip.ts: uvu counts it under
// "Skipped", and a line `⊘ skipped [REASON] NAME` says why; it is shown under
// the file, and each reason once more, with its count, before the totals. It
// never counts as passed.
//
// Files start longest first, by their times in the last run
// (dist/test/.durations.json, written at the end of every run), so a long
// file does not start last and hold up the end of the run; without that file
// they start in file order.
//
// What a file leaves behind is said under it and cleared (test/leftovers.mjs):
// processes it left running are stopped, and it runs with TMPDIR set to a
// folder of its own, removed when it ends. Neither counts as a result.
//
// Usage: node test/run.mjs [substring-filter ...]   (a filter is a substring of
// the file's path from the project's root: `watch`, `dist/test/watch.test`)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reap, sweep, tempFolder } from './leftovers.mjs';
import { figures } from './uvu-output.mjs';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const testDir = join(root, 'dist', 'test');
const durationsFile = join(testDir, '.durations.json');
const filters = process.argv.slice(2);
/** A skip's reason, as test/helpers/skip.ts prints it: `⊘ skipped [REASON] TEST NAME`. */
const SKIP_LINE = /^\s*⊘ skipped \[([^\]]*)\] /;

function jobsSetting() {
  const raw = process.env.EVIDEX_TEST_JOBS;
  if (raw === undefined || raw === '') return availableParallelism();
  if (!/^[1-9][0-9]*$/.test(raw)) {
    process.stderr.write(`run.mjs: EVIDEX_TEST_JOBS must be a whole number of parallel files (1 or more), got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return Number(raw);
}

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'bench') out.push(...walk(p)); }
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

function lastDurations() {
  try { return JSON.parse(readFileSync(durationsFile, 'utf8')); } catch { return {}; }
}

/** Runs one file; resolves with its outcome (never rejects). */
function runFile(file, mark) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const chunks = [];
    const tmp = tempFolder(mark);
    // EVIDEX_NODE_WARNING=0: the suite runs on Node 20 too, where every command would say it is unsupported (test/node-line.test.ts checks the line).
    const env = { ...process.env, FORCE_COLOR: '0', EVIDEX_TEST_RUN: mark, TMPDIR: tmp, EVIDEX_NODE_WARNING: '0' };
    const child = spawn(process.execPath, [file], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b) => chunks.push(b));
    child.stderr.on('data', (b) => chunks.push(b));
    child.on('error', (e) => chunks.push(Buffer.from(`run.mjs: cannot start ${file}: ${e.message}\n`)));
    child.on('close', async (status, signal) => {
      const ms = Date.now() - t0;
      // Said under the file (and kept in its record), not counted: what a file leaks is a defect to fix, not a test result.
      const left = [...await reap(mark), ...sweep(tmp)].map((l) => `${l}\n`).join('');
      resolve({ status, signal, ms, out: Buffer.concat(chunks).toString('utf8') + left });
    });
  });
}

/** What one file's output says: its counts, and the block to print for it. */
function judge(rel, r) {
  const { out } = r;
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  // uvu's Total is the tests that ran; a test registered as skipped is counted apart, under Skipped.
  const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    return { passed: 0, failed: 1, skipped: 0, broken: true, text: `✘ ${rel}: no uvu summary (exit ${r.status}, signal ${r.signal})\n${out}\n` };
  }
  const bad = total - ok;
  // A file that exits non-zero with every test passed (a crash in an after hook, an unhandled rejection) is one failure.
  const failed = bad > 0 ? bad : r.status !== 0 ? 1 : 0;
  if (failed > 0) return { passed: ok, failed, skipped, broken: true, text: `✘ ${rel} (${r.ms} ms)\n${out}\n` };
  const counts = `${ok} passed${skipped ? `, ${skipped} skipped` : ''}`;
  // What the tests printed (agreement counts, latencies, skip reasons) is part of the record: keep it, minus uvu's own marks.
  const lines = figures(out).map((l) => `    ${l}\n`).join('');
  return { passed: ok, failed: 0, skipped, broken: false, text: `${ok === 0 && skipped > 0 ? '⊘' : '✔'} ${rel}: ${counts} (${r.ms} ms)\n${lines}` };
}

// Filters match the path from the project's root (dist/test/…), so a checkout's own folder name never matches them all.
const files = walk(testDir).filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)));
const jobs = Math.min(jobsSetting(), Math.max(1, files.length));
const known = lastDurations();
// Longest first (files never timed count as long, so a new file is not left for the end); ties in file order.
const queue = files.map((f, i) => ({ f, i, rel: relative(root, f) }))
  .sort((a, b) => (known[b.rel] ?? Infinity) - (known[a.rel] ?? Infinity) || a.i - b.i);

const results = new Array(files.length);
let printed = 0;
/** Prints every finished file whose predecessors have all been printed: output in file order, each file whole. */
function flush() {
  while (printed < files.length && results[printed]) process.stdout.write(results[printed++].text);
}

const t0 = Date.now();
let next = 0;
async function worker() {
  while (next < queue.length) {
    const { f, i, rel } = queue[next++];
    const r = await runFile(f, `${process.pid}-${i}`);
    results[i] = { ...judge(rel, r), rel, ms: r.ms };
    flush();
  }
}
await Promise.all(Array.from({ length: jobs }, worker));

let passed = 0, failed = 0, skipped = 0;
const broken = [];
for (const r of results) {
  passed += r.passed; failed += r.failed; skipped += r.skipped;
  if (r.broken) broken.push(r.rel);
}
if (files.length === 0) { failed += 1; process.stdout.write('no test files found under dist/test\n'); }
try {
  writeFileSync(durationsFile, JSON.stringify({ ...known, ...Object.fromEntries(results.map((r) => [r.rel, r.ms])) }, null, 1));
} catch { /* a read-only dist/: the next run starts in file order */ }
// Why tests were skipped, once per reason (each skipped test is listed under its file above).
const reasons = new Map();
for (const r of results) {
  for (const line of r.text.split('\n')) {
    const m = SKIP_LINE.exec(line);
    if (!m) continue;
    const seen = reasons.get(m[1]) ?? reasons.set(m[1], { tests: 0, files: new Set() }).get(m[1]);
    seen.tests++; seen.files.add(r.rel);
  }
}
for (const [why, { tests, files: where }] of reasons) process.stdout.write(`skipped ${tests} in ${[...where].join(', ')}: ${why}\n`);
process.stdout.write(`${files.length} files, ${jobs} at a time, in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
if (broken.length) process.stdout.write(`failing files: ${broken.join(', ')}\n`);
process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 ? 1 : 0);
