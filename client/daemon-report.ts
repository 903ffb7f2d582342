// The human form of `evidex daemon status | list | prune | stop --all` (--json prints the
// reports themselves). Fields an older daemon does not send print as unknown
// rather than fail.
import { formatDuration } from '../daemon/idle.js';
import type { LatencySnapshot, WarmupStatus } from '../protocol/messages.js';
import type { StatusReport } from './connection.js';
import { formatTsImports } from './format.js';
import type { DaemonList, ListedDaemon, PruneResult, StoppedDaemon } from './daemon-commands.js';

/** The request-path warm-up, for `evidex daemon status` (absent from an older daemon's answer). */
function formatWarmup(w: WarmupStatus | undefined): string {
  switch (w?.state) {
    case undefined: return 'unknown';
    case 'waiting': return 'waiting for start-up and the caches';
    case 'running': return 'running';
    case 'done': {
      const notes = [`${w.calls} calls`, `${w.busyMs} ms`];
      if (w.refused) notes.push(`${w.refused} refused`);
      if (w.outcome !== 'done') notes.push(w.outcome === 'budget' ? 'time budget reached' : 'stopped');
      return `done (${notes.join(', ')})`;
    }
    case 'failed': return 'failed (see the daemon log)';
    case 'off': return 'off';
    case 'skipped': return 'skipped (the start-up build failed)';
    default: return String((w as { state: unknown }).state); // a state a newer daemon reports
  }
}

const latencyMs = (x: number | null) => (x === null ? '-' : x < 1 ? `${x.toFixed(3)} ms` : `${x.toFixed(1)} ms`);

/** The daemon's own answer times per method and tool, for `evidex daemon status` (absent from an older daemon's answer). */
function formatLatency(book: Record<string, LatencySnapshot> | undefined): string[] {
  const names = Object.keys(book ?? {});
  if (!book || names.length === 0) return ['latency      no client requests yet'];
  const width = Math.max(...names.map((n) => n.length));
  return ['latency      daemon side, message read to answer written:', ...names.map((n) => {
    const h = book[n];
    const notes = [`${h.calls} call${h.calls === 1 ? '' : 's'}`, `p50 ${latencyMs(h.p50Ms)}`, `p99 ${latencyMs(h.p99Ms)}`, `max ${latencyMs(h.maxMs)}`, `${h.over1ms} over 1 ms`];
    if (h.errors) notes.push(`${h.errors} refused or failed`);
    return `  ${n.padEnd(width)}  ${notes.join(' · ')}`;
  })];
}

/** The human form of `evidex daemon status`. */
export function formatStatus(r: StatusReport): string {
  if (!r.running) return `${r.message}\n`;
  const d = r.status.daemon;
  const ts = formatTsImports(r.status.index.tsImports);
  const lines = [
    `running      yes (pid ${r.pid}, up ${d.uptimeSeconds} s)`,
    `url          ${r.url}`,
    `root         ${r.root}`,
    `index        ${r.state}${d.startup === 'running' ? ' (start-up refresh running)' : d.startup === 'failed' ? ` (start-up failed: ${d.startupError})` : ''}`,
    `files        ${r.files}`,
    `symbols      ${r.symbols}`,
    ...(ts === null ? [] : [`ts/js        ${ts}`]),
    `generation   ${r.generation}`,
    `last update  ${r.lastUpdate ?? 'never'}`,
    `watcher      ${r.watcher}${d.watcherNote ? ` (${d.watcherNote})` : ''}`,
    `warm-up      ${formatWarmup(d.warmup)}`,
    `clients      ${d.clients}`,
    `state        ${r.stateDir}`,
    ...formatLatency(d.latency),
  ];
  return `${lines.join('\n')}\n`;
}

const mb = (b: number | null) => (b === null ? '-' : `${(b / 1048576).toFixed(b < 10 * 1048576 ? 1 : 0)} MB`);

function uptime(s: number | null): string {
  if (s === null) return '-';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor(s / 3600) % 24).padStart(2, '0')}h`;
}

function lifetime(d: ListedDaemon): string {
  if (d.idleTimeoutSeconds === null) return '-';
  return d.idleTimeoutSeconds === 0 ? 'until stopped' : `idle ${formatDuration(d.idleTimeoutSeconds * 1000)}`;
}

/** The human form of `evidex daemon list`: a table of the live ones, a line per stale one. */
export function formatList(l: DaemonList): string {
  const live = l.daemons.filter((d) => d.state !== 'stale');
  const lines: string[] = [];
  if (live.length === 0) {
    lines.push(`no evidex daemons running (state: ${l.home})`);
  } else {
    const rows = [['ROOT', 'PID', 'PORT', 'UPTIME', 'MEMORY', 'FILES', 'EXITS'], ...live.map((d) => [
      d.root, String(d.pid), String(d.port), uptime(d.uptimeSeconds), mb(d.rssBytes),
      d.state === 'running' ? String(d.files) : 'not answering', lifetime(d),
    ])];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) lines.push(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  }
  for (const d of l.daemons.filter((x) => x.state === 'stale')) lines.push(`stale: ${d.root} (pid ${d.pid} is not running; its daemon.json was removed)`);
  return `${lines.join('\n')}\n`;
}

/** The human form of `evidex daemon prune`. */
export function formatPrune(r: PruneResult): string {
  const lines = r.removed.map((x) => `removed ${x.stateDir} (${x.root} no longer exists, ${mb(x.bytes)})`);
  for (const x of r.inUse) lines.push(`left ${x.stateDir}: ${x.root} no longer exists, but its daemon (pid ${x.pid}) still runs; stop it with \`evidex daemon stop --all\``);
  for (const d of r.unknown) lines.push(`left ${d}: it does not record its root`);
  const n = r.removed.length;
  lines.push(n === 0 ? `nothing to prune in ${r.home} (${r.kept} state folder${r.kept === 1 ? '' : 's'} of existing roots)`
    : `freed ${mb(r.bytes)} in ${n} folder${n === 1 ? '' : 's'}; kept ${r.kept} of existing roots`);
  return `${lines.join('\n')}\n`;
}

/** What `evidex daemon stop --all` prints: one line per daemon stopped, or that none ran under `home`. */
export function formatStopAll(stopped: readonly StoppedDaemon[], home: string): string {
  return stopped.length === 0 ? `no evidex daemons running (state: ${home})\n` : `${stopped.map((s) => s.message).join('\n')}\n`;
}
