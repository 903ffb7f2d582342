// `evidex daemon status`: asks a root's daemon for index/status as an observer
// (looking does not hold off an idle exit, and never starts a daemon), and the
// human form of the answer. Fields an older daemon does not send print as
// unknown rather than fail.
import { Methods, type LatencySnapshot, type StatusResult, type WarmupStatus } from '../protocol/messages.js';
import { locate, makeClient } from './connection.js';

export type StatusReport =
  | { running: false; root: string; stateDir: string; message: string }
  | { running: true; root: string; stateDir: string; pid: number; url: string; files: number; symbols: number;
      generation: number; lastUpdate: string | null; watcher: string; state: string; status: StatusResult };

/** `evidex daemon status`: never starts a daemon, and looks as an observer (it does not hold off an idle exit). */
export async function daemonStatus(root: string, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<StatusReport> {
  const { real, stateDir, p } = await locate(root, opts.env, { observer: true });
  if (p.kind === 'none') return { running: false, root: real, stateDir, message: `no evidex daemon running for ${real}` };
  if (p.kind === 'unreachable') {
    return { running: false, root: real, stateDir, message: `the daemon for ${real} (pid ${p.info.pid}) is not answering: ${p.error}` };
  }
  const c = makeClient(p.ws, p.info, stateDir);
  try {
    const s = await c.request(Methods.indexStatus);
    return {
      running: true, root: real, stateDir, pid: s.daemon.pid, url: s.daemon.url, files: s.index.files, symbols: s.index.symbols,
      generation: s.index.generation, lastUpdate: s.index.lastUpdate, watcher: s.daemon.watcher, state: s.index.state, status: s,
    };
  } finally {
    await c.close();
  }
}

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
  const lines = [
    `running      yes (pid ${r.pid}, up ${d.uptimeSeconds} s)`,
    `url          ${r.url}`,
    `root         ${r.root}`,
    `index        ${r.state}${d.startup === 'running' ? ' (start-up refresh running)' : d.startup === 'failed' ? ` (start-up failed: ${d.startupError})` : ''}`,
    `files        ${r.files}`,
    `symbols      ${r.symbols}`,
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
