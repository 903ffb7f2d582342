// The daemon's settings from its command line and environment, shared by the
// process entry (main.ts) and `evidex daemon run` (which has no flags of its
// own, so it reads the environment the same way).
//
// The idle timeout is a flag only, never read from the environment here: it is
// the client that decides a daemon it auto-starts gets one (EVIDEX_IDLE_TIMEOUT,
// default 3h), while `evidex daemon start` and `daemon run` pass none, so that
// daemon stays until stopped even when EVIDEX_IDLE_TIMEOUT is set.
import type { WatchMode } from '../indexer/watch.js';
import { parseDuration } from './idle.js';
import type { DaemonOptions } from './server.js';

const USAGE = 'usage: daemon/main.js [--repo DIR] [--port N] [--allow-origin ORIGIN]... [--watch auto|poll|off] [--warmup on|off] [--idle-timeout DURATION]';

export interface DaemonArgs {
  repo?: string; port?: number; allowedOrigins: string[]; watch: WatchMode; warmup: boolean;
  /** Exit after this long with no client; 0 (the default) = never. */
  idleTimeoutMs: number;
}

/** Parses the daemon's argv and environment; throws a one-line error on bad input. */
export function parseDaemonArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): DaemonArgs {
  const out: DaemonArgs = { allowedOrigins: [], watch: 'auto', warmup: true, idleTimeoutMs: 0 };
  const port = (v: string | undefined, from: string): number => {
    const n = Number(v);
    if (v === undefined || !/^\d+$/.test(v) || n > 65535) throw new Error(`${from}: expected a port number 0-65535, got ${JSON.stringify(v ?? '')}`);
    return n;
  };
  const watch = (v: string | undefined, from: string): WatchMode => {
    if (v === 'auto' || v === 'poll' || v === 'off') return v;
    throw new Error(`${from}: expected auto, poll or off, got ${JSON.stringify(v ?? '')}`);
  };
  const onOff = (v: string | undefined, from: string): boolean => {
    if (v === 'on' || v === 'off') return v === 'on';
    throw new Error(`${from}: expected on or off, got ${JSON.stringify(v ?? '')}`);
  };
  if (env.EVIDEX_PORT) out.port = port(env.EVIDEX_PORT, 'EVIDEX_PORT');
  if (env.EVIDEX_ALLOWED_ORIGINS) out.allowedOrigins.push(...env.EVIDEX_ALLOWED_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean));
  if (env.EVIDEX_WATCH) out.watch = watch(env.EVIDEX_WATCH, 'EVIDEX_WATCH');
  if (env.EVIDEX_WARMUP) out.warmup = onOff(env.EVIDEX_WARMUP, 'EVIDEX_WARMUP');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--repo': { const v = value(); if (!v) throw new Error('--repo needs a folder'); out.repo = v; break; }
      case '--port': out.port = port(value(), '--port'); break;
      case '--allow-origin': { const v = value(); if (!v) throw new Error('--allow-origin needs an origin'); out.allowedOrigins.push(v); break; }
      case '--watch': out.watch = watch(value(), '--watch'); break;
      case '--warmup': out.warmup = onOff(value(), '--warmup'); break;
      case '--idle-timeout': out.idleTimeoutMs = parseDuration(value() ?? '', '--idle-timeout'); break;
      case '-h': case '--help': throw new Error(USAGE);
      default: throw new Error(`unknown argument ${JSON.stringify(a)}; ${USAGE}`);
    }
  }
  return out;
}

/** The DaemonOptions these settings stand for. */
export function daemonSettings(a: DaemonArgs): Pick<DaemonOptions, 'port' | 'allowedOrigins' | 'watch' | 'warmup' | 'idleTimeoutMs'> {
  return { port: a.port, allowedOrigins: a.allowedOrigins, watch: a.watch, warmup: a.warmup, idleTimeoutMs: a.idleTimeoutMs };
}
