// Processes on this machine, as evidex needs to judge them: whether a pid is
// a live process (a zombie, or one already killed and on its way out, is
// not), when it started (so a pid reused after a crash is told apart), its
// memory, and which processes are evidex daemons of this user — found in the
// process table, so a daemon whose state folder lost its daemon.json is still
// found (docs/architecture.md, "Every daemon").
//
// Linux answers all of it from /proc; elsewhere liveness falls back to
// kill(pid, 0) and the process table is not read.
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { readdirSync, readFileSync, statSync } = process.getBuiltinModule('node:fs');

/** What /proc/PID/stat says of a process, the fields evidex reads. */
interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), T, t, I... */
  state: string;
  /** Field 4. */
  ppid: number;
  /** Field 9: the kernel's PF_* flags. */
  flags: number;
  /** Field 22: clock ticks since boot, as text (compared, never computed with). */
  startTime: string;
  /** Field 31: the main thread's pending signals (the first 31). */
  pending: number;
}

/** The kernel sets PF_EXITING as the first step of a process's exit (include/linux/sched.h). */
const PF_EXITING = 0x4;
const SIGKILL_BIT = 1 << 8;

function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3, so field N is rest[N - 3].
  return { state: rest[0] ?? '', ppid: Number(rest[1]), flags: Number(rest[6]), startTime: rest[19] ?? '', pending: Number(rest[28]) };
}

/** True when the process is stopped (state T: SIGSTOP, Ctrl-Z, or t: a debugger's stop): alive, and answering nothing until resumed. */
export function isPidStopped(pid: number): boolean {
  const st = procStat(pid);
  return st !== null && (st.state === 'T' || st.state === 't');
}

/**
 * True when a process with this pid exists and is not dead already: a zombie
 * (exited, never reaped by a parent that does not wait — a container whose
 * PID 1 is no init) is dead, and so is a process that has been sent SIGKILL
 * or has begun to exit, though the kernel has not finished tearing it down.
 * EPERM from kill(pid, 0): it exists but is another user's.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const st = procStat(pid);
  if (st === null) return true; // no /proc here: kill(pid, 0) is all there is to go on
  if (st.state === 'Z' || st.state === 'X' || st.state === 'x') return false;
  return (st.flags & PF_EXITING) === 0 && (st.pending & SIGKILL_BIT) === 0;
}

/**
 * When the process started (Linux: field 22 of /proc/PID/stat, clock ticks since
 * boot), or null where that is not available. Stored next to the pid in the lock
 * so a pid reused by an unrelated process after a crash is not taken for the holder.
 */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.startTime || null;
}

/** Resident memory of a process in bytes (Linux: VmRSS of /proc/PID/status; elsewhere `ps`), or null when unknown. */
export function processRssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s*(\d+)\s*kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch { /* no /proc: ask ps */ }
  // node:child_process only here, where there is no /proc: every client loads this file, and a call to a running daemon needs no child process.
  const r = process.getBuiltinModule('node:child_process').spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8', shell: false, timeout: 5000 });
  const kb = Number.parseInt(r.stdout ?? '', 10);
  return r.status === 0 && Number.isFinite(kb) ? kb * 1024 : null;
}

// ---- evidex daemons in the process table ----------------------------------

/** An evidex daemon process found in the process table. */
export interface DaemonProcess {
  pid: number;
  /** The root it was started for (its `--repo`), or null when its command line does not say. */
  root: string | null;
  /** The environment it was started with: where its state folder is (EVIDEX_HOME, XDG_CACHE_HOME, HOME). */
  env: NodeJS.ProcessEnv;
}

/** NUL-separated strings of a /proc file (cmdline, environ), or null when unreadable. */
function procStrings(pid: number, name: string): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/${name}`, 'utf8');
    return text.split('\0').filter((s) => s !== '');
  } catch {
    return null;
  }
}

/** The variables of an environ listing that say where state lives. */
function stateEnvOf(environ: readonly string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const kv of environ) {
    const eq = kv.indexOf('=');
    const k = kv.slice(0, eq);
    if (k === 'EVIDEX_HOME' || k === 'XDG_CACHE_HOME' || k === 'HOME') env[k] = kv.slice(eq + 1);
  }
  return env;
}

/**
 * Every live process of this user running the daemon entry `entry` (the
 * absolute path of dist/daemon/main.js, which every command spawns): its
 * pid, its `--repo` and the environment that placed its state folder.
 * Empty where there is no /proc. A process that exits meanwhile is skipped,
 * and so is a daemon's own child between its fork and its exec (git, say),
 * which shows the daemon's command line for that moment.
 */
export function daemonProcesses(entry: string): DaemonProcess[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const out: Array<DaemonProcess & { ppid: number }> = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${pid}`).uid !== uid) continue;
    } catch { continue; }
    const argv = procStrings(pid, 'cmdline');
    const stat = procStat(pid);
    if (!argv || !argv.includes(entry) || !stat || !isPidAlive(pid)) continue;
    const environ = procStrings(pid, 'environ');
    if (environ === null) continue;
    const at = argv.indexOf('--repo');
    out.push({ pid, ppid: stat.ppid, root: at >= 0 && at + 1 < argv.length ? argv[at + 1] : null, env: stateEnvOf(environ) });
  }
  const found = new Set(out.map((p) => p.pid));
  return out.filter((p) => !found.has(p.ppid)).map(({ pid, root, env }) => ({ pid, root, env }));
}

