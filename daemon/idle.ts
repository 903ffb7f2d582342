// The idle timeout of an auto-started daemon (docs/architecture.md): it exits after a
// period with no client. A request needs a connection, so "no client and no
// request" is counted from the moment the last client left (or from start-up
// when none came). Connections that only look (`evidex daemon list`, marked
// with OBSERVER_HEADER) do not count: listing daemons must not keep them alive.
// Small on purpose: the client parses EVIDEX_IDLE_TIMEOUT with this module too.

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

/**
 * Calls `onIdle` once when no client has been connected for `ms`. Clients are
 * counted with opened()/closed(); the clock starts at construction, stops
 * while any client is connected and starts over when the last one leaves.
 */
export class IdleTimer {
  private clients = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(readonly ms: number, private readonly onIdle: () => void) {
    this.arm();
  }

  opened(): void {
    this.clients++;
    this.disarm();
  }

  closed(): void {
    this.clients = Math.max(0, this.clients - 1);
    if (this.clients === 0) this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    if (this.stopped) return;
    this.timer = setTimeout(() => { this.timer = null; if (!this.stopped && this.clients === 0) this.onIdle(); }, this.ms);
    // The server keeps the process alive; this timer alone should not.
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
