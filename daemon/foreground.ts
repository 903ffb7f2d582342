// A daemon as the whole life of this process: `evidex daemon run` and
// daemon/main.js (what a command spawns) both run this. It owns what belongs
// to the process rather than to the daemon: signal handlers, the last-resort
// error handlers, a log on stdout that survives a closed pipe, and the exit.
// It is the one door into the daemon for a client that runs one in-process.
import { resolve } from 'node:path';
import type { DaemonArgs } from '../protocol/daemon-settings.js';
import { Daemon, type DaemonOptions } from './server.js';

/** The DaemonOptions that the daemon's settings (parseDaemonArgs) stand for. */
export function daemonSettings(a: DaemonArgs): Pick<DaemonOptions, 'port' | 'allowedOrigins' | 'watch' | 'warmup' | 'idleTimeoutMs'> {
  return { port: a.port, allowedOrigins: a.allowedOrigins, watch: a.watch, warmup: a.warmup, idleTimeoutMs: a.idleTimeoutMs };
}

/**
 * Runs a daemon in this process until it is told to stop (daemon/shutdown,
 * SIGTERM, SIGINT), then exits 0.
 */
export async function serveForeground(opts: DaemonOptions): Promise<never> {
  // Once stdout is a closed pipe (`evidex daemon run | head`, or a parent that died), writing to it
  // fails with EPIPE as an 'error' event; logging that error would write again, a loop that spins a
  // core and never reaches a signal handler. A log nobody can read any more is dropped instead.
  let stdoutOpen = true;
  process.stdout.on('error', () => { stdoutOpen = false; });
  const log = opts.log ?? ((l: string) => { if (stdoutOpen) process.stdout.write(`${new Date().toISOString()} ${l}\n`); });
  // Signal handlers go in before the daemon exists: a SIGTERM that lands right after
  // daemon.json is written (a client may act on it at once) must still stop it cleanly.
  let daemon: Daemon | null = null;
  let pendingStop: string | null = null;
  const stop = (sig: string) => { if (daemon) void daemon.shutdown(sig); else pendingStop ??= sig; };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A bug in one code path must not take every client down with it; it is logged instead.
  process.on('uncaughtException', (e) => log(`uncaught exception: ${e.stack ?? e.message}`));
  process.on('unhandledRejection', (e) => log(`unhandled rejection: ${e instanceof Error ? e.stack ?? e.message : String(e)}`));
  // Out of the folder the daemon was started in (often the root itself): a root deleted and made
  // again must not leave the process in a deleted folder, where anything that asks for the
  // working folder (a worker thread starting) fails with ENOENT. Every path here is absolute.
  const stateDir = resolve(opts.stateDir);
  process.chdir('/');
  daemon = await Daemon.start({ ...opts, stateDir, log });
  if (pendingStop) void daemon.shutdown(pendingStop);
  await daemon.stopped;
  process.exit(0);
}
