// Runs every compiled test file (dist/test/**/*.test.js) in its own uvu process,
// so one crashing file cannot hide the others, then prints the totals as the
// last line: `N passed, N failed` (CI reads it to see that tests really ran).
// Usage: node test/run.mjs [substring-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const testDir = join(root, 'dist', 'test');
const filters = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'bench') out.push(...walk(p)); }
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

/** The lines a test file printed itself: uvu's progress marks, counters and summary removed. */
function figures(out) {
  return out.replace(/\x1b\[[0-9;]*m/g, '').split('\n')
    .filter((l) => !/^\s*(Total|Passed|Skipped|Duration):/.test(l))
    .map((l) => l.replace(/[•✘]\s*/g, '').replace(/\(\s*\d+\s*\/\s*\d+\s*\)/g, '').trim())
    .filter((l) => l.length > 0);
}

const files = walk(testDir).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
let passed = 0, failed = 0, skipped = 0;
const broken = [];
for (const file of files) {
  const rel = relative(root, file);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, FORCE_COLOR: '0' } });
  const out = (r.stdout ?? '') + (r.stderr ?? '');
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const skip = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    failed += 1; broken.push(rel);
    process.stdout.write(`✘ ${rel}: no uvu summary (exit ${r.status}, signal ${r.signal})\n${out}\n`);
    continue;
  }
  passed += ok; skipped += skip;
  const bad = total - ok - skip;
  failed += bad;
  if (bad > 0 || r.status !== 0) {
    if (bad === 0) { failed += 1; }
    broken.push(rel);
    process.stdout.write(`✘ ${rel} (${Date.now() - t0} ms)\n${out}\n`);
  } else {
    process.stdout.write(`✔ ${rel}: ${ok} passed (${Date.now() - t0} ms)\n`);
    // What the tests printed (agreement counts, latencies) is part of the record: keep it, minus uvu's own marks.
    for (const line of figures(out)) process.stdout.write(`    ${line}\n`);
  }
}
if (files.length === 0) { failed += 1; process.stdout.write('no test files found under dist/test\n'); }
if (broken.length) process.stdout.write(`failing files: ${broken.join(', ')}\n`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed > 0 ? 1 : 0);
