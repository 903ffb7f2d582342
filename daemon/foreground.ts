// A daemon as the whole life of this process: `evidex daemon run` and
// daemon/main.js (what a command spawns) both run this. It owns what belongs
// to the process rather than to the daemon: signal handlers, the last-resort
// error handlers, a log on stdout that survives a closed pipe, and the exit.
// It is the one door into the daemon for a client that runs one in-process.
import { resolve } from 'node:path';
import { human, stdout } from '../local/human.js';
import { LogLineStart } from './log-file.js';
import type { DaemonArgs } from '../protocol/daemon-settings.js';
import { Daemon, type DaemonOptions } from './server.js';

/** The DaemonOptions that the daemon's settings (parseDaemonArgs) stand for. */
export function daemonSettings(a: DaemonArgs): Pick<DaemonOptions, 'port' | 'allowedOrigins' | 'watch' | 'warmup' | 'idleTimeoutMs' | 'rootGoneGraceMs'> {
  return { port: a.port, allowedOrigins: a.allowedOrigins, watch: a.watch, warmup: a.warmup, idleTimeoutMs: a.idleTimeoutMs, rootGoneGraceMs: a.rootGoneGraceMs };
}

/**
 * Runs a daemon in this process until it is told to stop (daemon/shutdown,
 * SIGTERM, SIGINT), then exits 0.
 */
export async function serveForeground(opts: DaemonOptions): Promise<never> {
  // Once stdout is a closed pipe (`evidex daemon run | head`, or a parent that died), writing to it
  // fails with EPIPE as an 'error' event; logging that error would write again, a loop that spins a
  // core and never reaches a signal handler. A log nobody can read any more is dropped instead.
  // A full disk (ENOSPC) is no reason to stop: the log goes on once there is room again.
  let stdoutOpen = true;
  stdout().onError((e) => { if (e.code === 'EPIPE') stdoutOpen = false; });
  const lineStart = new LogLineStart();
  // One record per line, whatever it quotes (a file name from the watcher, a message): local/human.ts's rule, so
  // `evidex daemon run` on a terminal and `tail daemon.log` show a hostile name as text, never as a line of its own.
  // Each record is a whole line even after text that is not (LogLineStart).
  const log = opts.log ?? ((l: string) => {
    if (!stdoutOpen) return;
    const record = human`${new Date().toISOString()} ${l}`;
    stdout().line(lineStart.midLine() ? human`\n${record}` : record);
  });
  // Signal handlers go in before the daemon exists: a SIGTERM that lands right after
  // daemon.json is written (a client may act on it at once) must still stop it cleanly.
  let daemon: Daemon | null = null;
  let pendingStop: string | null = null;
  const stop = (sig: string) => { if (daemon) void daemon.shutdown(sig); else pendingStop ??= sig; };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A bug in one code path must not take every client down with it; it is logged instead.
  // A stack is logged a frame per record, so it stays readable with the one-line rule.
  const logStack = (what: string, e: unknown) => {
    const [head, ...frames] = (e instanceof Error ? e.stack ?? e.message : String(e)).split('\n');
    log(`${what}: ${head}`);
    for (const f of frames) log(`  ${f.trim()}`);
  };
  process.on('uncaughtException', (e) => logStack('uncaught exception', e));
  process.on('unhandledRejection', (e) => logStack('unhandled rejection', e));
  // Out of the folder the daemon was started in (often the root itself): a root deleted and made
  // again must not leave the process in a deleted folder, where anything that asks for the
  // working folder (a worker thread starting) fails with ENOENT. Every path here is absolute.
  const stateDir = resolve(opts.stateDir);
  process.chdir('/');
  // Stopped before it began (a starter that found another daemon serving): it takes no lock and writes nothing.
  if (pendingStop) {
    log(`stopped by ${pendingStop} before it started`);
    process.exit(0);
  }
  daemon = await Daemon.start({ ...opts, stateDir, log });
  if (pendingStop) void daemon.shutdown(pendingStop);
  await daemon.stopped;
  process.exit(0);
}
