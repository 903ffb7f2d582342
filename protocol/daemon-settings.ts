// The daemon's settings: its command line and environment, read one way by
// the daemon's entry (daemon/main.ts, `evidex daemon run`) and by a client
// about to start one (client/connection.ts), so a bad value is a one-line
// refusal before anything is spawned. And the durations they are written in
// (EVIDEX_IDLE_TIMEOUT, --idle-timeout), which `daemon status` and `daemon
// list` print back.
//
// The idle timeout is a flag only, never read from the environment by the
// daemon: it is the client that decides a daemon it auto-starts gets one
// (EVIDEX_IDLE_TIMEOUT, default 3h), while `evidex daemon start` and `daemon
// run` pass none, so that daemon stays until stopped even when
// EVIDEX_IDLE_TIMEOUT is set.
import type { WatchMode } from '../indexer/watch.js';
import { expandHome } from '../local/root.js';

const USAGE = 'usage: daemon/main.js [--repo DIR] [--port N] [--allow-origin ORIGIN]... [--watch auto|poll|off] [--warmup on|off] [--idle-timeout DURATION]';

export interface DaemonArgs {
  repo?: string; port?: number; allowedOrigins: string[]; watch: WatchMode; warmup: boolean;
  /** Exit after this long with no client; 0 (the default) = never. */
  idleTimeoutMs: number;
  /** Exit once the root has been gone this long (EVIDEX_ROOT_GONE_GRACE, for tests; absent: the daemon's default, 60 s). */
  rootGoneGraceMs?: number;
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
  if (env.EVIDEX_ROOT_GONE_GRACE) out.rootGoneGraceMs = parseDuration(env.EVIDEX_ROOT_GONE_GRACE, 'EVIDEX_ROOT_GONE_GRACE');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--repo': { const v = value(); if (!v) throw new Error('--repo needs a folder'); out.repo = expandHome(v, '--repo'); break; }
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

// ---- durations: the idle timeout -------------------------------------------

/** The idle timeout a command gives the daemon it starts on its own, unless EVIDEX_IDLE_TIMEOUT says otherwise. */
export const DEFAULT_IDLE_TIMEOUT = '3h';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longest timeout setTimeout can hold (about 24.8 days); past it Node fires at once. */
const MAX_MS = 2 ** 31 - 1;

/**
 * Parses a duration: `0` (never), or one or more NUMBER+UNIT parts with units
 * s, m, h, d (`90s`, `30m`, `3h`, `1h30m`). Returns milliseconds; throws a
 * one-line error naming `from` for anything else.
 */
export function parseDuration(text: string, from: string): number {
  const t = text.trim();
  const bad = () => new Error(`${from}: expected a duration such as 90s, 30m or 3h (0 = never), got ${JSON.stringify(text)}`);
  if (t === '0') return 0;
  if (!/^(\d+[smhd])+$/.test(t)) throw bad();
  let ms = 0;
  for (const [, n, unit] of t.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * UNIT_MS[unit];
  if (ms === 0) throw bad();
  if (ms > MAX_MS) throw new Error(`${from}: at most 24d, got ${JSON.stringify(text)}`);
  return ms;
}

/** Milliseconds as the shortest exact duration text (`3h`, `1h30m`, `90s` → `1m30s`); 0 is `never`. */
export function formatDuration(ms: number): string {
  if (ms <= 0) return 'never';
  let rest = Math.round(ms / 1000);
  if (rest === 0) return `${ms} ms`;
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) { parts.push(`${Math.floor(rest / size)}${unit}`); rest %= size; }
  }
  return parts.join('');
}

/** The idle timeout for a daemon a command starts on its own: EVIDEX_IDLE_TIMEOUT, else 3h. Throws a one-line error for a bad value. */
export function autoStartIdleTimeout(env: NodeJS.ProcessEnv): string {
  const v = env.EVIDEX_IDLE_TIMEOUT;
  if (v === undefined || v === '') return DEFAULT_IDLE_TIMEOUT;
  parseDuration(v, 'EVIDEX_IDLE_TIMEOUT');
  return v.trim();
}
