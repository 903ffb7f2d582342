// What a test file leaves behind when it ends: processes still running, and
// files in its temp folder.
//
// Processes. A file that crashes
// before its after hook (or forgets a stop) leaves daemons, `evidex mcp
// --http` servers or fake model servers behind, and they outlive the run,
// holding ports and temp folders. run.mjs marks each file's process with
// its own EVIDEX_TEST_RUN value, which every child that copies the
// environment inherits (tests build a daemon's environment from
// process.env), finds what still carries the mark once the file has ended,
// says so and stops it. Linux only (/proc); elsewhere it finds nothing.
//
// Temp files. Each file runs with TMPDIR set to a folder of its own
// (tempFolder), so whatever it (or a daemon it started) made under the
// system temp folder and did not remove is found there when it ends: said
// under the file, then removed with the folder (sweep). Without it, a file
// that forgets its cleanup fills the machine's /tmp a few hundred folders
// per run.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Live (not zombie) processes whose environment holds `EVIDEX_TEST_RUN=mark`. */
export function marked(mark) {
  const needle = Buffer.from(`\0EVIDEX_TEST_RUN=${mark}\0`);
  const found = [];
  let pids;
  try { pids = readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)); } catch { return found; }
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid) continue;
    try {
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${p}/environ`)]);
      if (!env.includes(needle) || zombie(pid)) continue;
      const cmd = readFileSync(`/proc/${p}/cmdline`).toString('utf8').split('\0').filter(Boolean).join(' ');
      found.push({ pid, cmd });
    } catch { /* gone meanwhile, or not ours to read */ }
  }
  return found;
}

function zombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch { return true; }
}

function signal(pid, sig) {
  try { process.kill(pid, sig); } catch { /* already gone */ }
}

/**
 * Stops what the file left (SIGTERM, then SIGKILL for whatever still runs
 * after `graceMs`) and returns the lines that say what it was.
 */
export async function reap(mark, graceMs = 3000) {
  const left = marked(mark);
  if (left.length === 0) return [];
  for (const { pid } of left) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let still = left;
  while (still.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    still = still.filter(({ pid }) => !zombie(pid));
  }
  for (const { pid } of still) signal(pid, 'SIGKILL');
  return left.map(({ pid, cmd }) => `left running by the file, stopped: pid ${pid}: ${cmd.length > 160 ? `${cmd.slice(0, 157)}...` : cmd}`);
}

/**
 * A new empty folder under the system temp folder, for one test file's TMPDIR.
 * Open to all as the system's own is (mode 1777), since tests that run a
 * process as another user (an impostor daemon as `nobody`) share files with it
 * through the temp folder.
 */
export function tempFolder(mark) {
  const dir = mkdtempSync(join(tmpdir(), `evidex-test-${mark}-`));
  chmodSync(dir, 0o1777);
  return dir;
}

/** Removes a file's temp folder, returning a line that names what the file left in it (none when it left nothing). */
export function sweep(dir) {
  let names = [];
  try { names = readdirSync(dir).sort(); } catch { return []; }
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  if (names.length === 0) return [];
  const shown = names.slice(0, 4).map((n) => JSON.stringify(n)).join(', ');
  return [`left in its temp folder, removed: ${names.length} ${names.length === 1 ? 'entry' : 'entries'} (${shown}${names.length > 4 ? ', ...' : ''})`];
}
