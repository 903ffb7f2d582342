// The human form of `evidex daemon status | list | prune | stop --all` (--json prints the
// reports themselves). Fields an older daemon does not send print as unknown
// rather than fail. Roots, folders and what a daemon reports are outside text:
// shown by local/human.ts's rule (a root's name may hold any byte).
import type { LeftOutCounts, LeftOutReason } from '../indexer/api.js';
import { human, join, padEnd, path, plural, shellWord, type Part, type Shown } from '../local/human.js';
import { formatDuration } from '../protocol/daemon-settings.js';
import { when, whenIn } from '../local/when.js';
import type { DaemonInfoStatus, LatencySnapshot, Unresolved, WaitedFor, WarmupStatus } from '../protocol/messages.js';
import type { StatusReport } from './connection.js';
import { LEFT_OUT_WORDS } from './left-out-note.js';
import { readSoFar } from './catching-up-note.js';
import type { DaemonList, ListedDaemon, PruneResult, StoppedDaemon } from './daemon-commands.js';

/** A TS/JS statement's reason for resolving nowhere, after its count (`5 missing`), in the summary and in `evidex index --unresolved`. */
export const UNRESOLVED_WORDS: Record<Unresolved, string> = { external: 'external packages', missing: 'missing', config: 'under an unreadable config' };

/**
 * What ran ahead of a daemon's refresh while it waited its turn (`evidex
 * index`'s `waited` line): the files those writes parsed are the ones the
 * refresh then found unchanged, so its own `0 parsed` is not "nothing done".
 * `2.31 s for the daemon's start-up check, which parsed 812 files and removed 3`.
 */
export function formatWaited(w: WaitedFor): Shown {
  return human`${w.seconds.toFixed(2)} s for ${w.writes.map((x) => `the daemon's ${x}`).join(' and ')}, which parsed ${plural(w.parsed, 'file')} and removed ${w.removed}`;
}

/** TypeScript/JavaScript import statements by outcome, as `evidex index` and `evidex daemon status` print them (null: none indexed, or an older daemon). */
export function formatTsImports(c: { files: number; resolved: number; unresolved: Record<Unresolved, number> } | undefined): Shown | null {
  if (!c || c.files === 0) return null;
  const u = c.unresolved;
  const all = c.resolved + u.external + u.missing + u.config;
  const w = UNRESOLVED_WORDS;
  return human`${all} imports in ${c.files} TS/JS files: ${c.resolved} in the repository, ${u.external} ${w.external}, ${u.missing} ${w.missing}, ${u.config} ${w.config}`;
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
function formatLatency(book: Record<string, LatencySnapshot> | undefined): Shown[] {
  const names = Object.keys(book ?? {});
  if (!book || names.length === 0) return [human`latency      no client requests yet`];
  const shownNames = names.map((n) => human`${n}`);
  const width = Math.max(...shownNames.map((n) => n.plain.length));
  return [human`latency      daemon side, message read to answer written:`, ...names.map((n, i) => {
    const h = book[n];
    const notes = [`${h.calls} call${h.calls === 1 ? '' : 's'}`, `p50 ${latencyMs(h.p50Ms)}`, `p99 ${latencyMs(h.p99Ms)}`, `max ${latencyMs(h.maxMs)}`, `${h.over1ms} over 1 ms`];
    if (h.errors) notes.push(`${h.errors} refused or failed`);
    return human`  ${padEnd(shownNames[i], width)}  ${notes.join(' · ')}`;
  })];
}


/** The root line of `evidex daemon status`: the path, and what became of the folder when it is not the indexed one (since when as the local clock, as the other lines say times). */
function formatRoot(root: string, d: DaemonInfoStatus): Shown {
  switch (d.rootState) {
    case 'gone': return human`${path(root)} — GONE: ${d.rootNote ? whenIn(d.rootNote) : 'no folder at that path'}; tool calls are refused`;
    case 'reindexing': return human`${path(root)} — REPLACED: ${d.rootNote ? whenIn(d.rootNote) : 're-indexing'}; tool calls wait for it`;
    default: return path(root);
  }
}

/**
 * Files left out, by reason: `3 secret (.env, certs/a.pem and 1 more) · 1 over the size cap`, or `none`
 * (`-` when absent from an older daemon's answer). The secrets' paths (`secretPaths`, the first few; none
 * from an older daemon) are named as a refusal to read one names it, and the work trees of the repository
 * (`worktreePaths`) with a `/`, as `shown` prints a root-relative path.
 */
export function formatLeftOut(counts: LeftOutCounts | undefined, named: { secretPaths?: readonly string[]; worktreePaths?: readonly string[] } = {}, shown: (rootPath: string) => string = (p) => p): Shown {
  if (!counts) return human`-`;
  const reasons = Object.keys(LEFT_OUT_WORDS) as LeftOutReason[];
  const parts = reasons.filter((r) => counts[r] > 0).map((r) => {
    const counted = r === 'worktree' ? human`${plural(counts[r], 'work tree')} of this repository` : human`${counts[r]} ${LEFT_OUT_WORDS[r]}`;
    const listed = ((r === 'secret' ? named.secretPaths : r === 'worktree' ? named.worktreePaths : undefined) ?? []).slice(0, counts[r]);
    if (listed.length === 0) return counted;
    const more = counts[r] - listed.length;
    // A work tree is a folder, said with its `/`.
    const list = join(listed.map((p) => path(r === 'worktree' ? `${shown(p)}/` : shown(p))), ', ');
    return more > 0 ? human`${counted} (${list} and ${more} more)` : human`${counted} (${list})`;
  });
  return parts.length ? join(parts, ' · ') : human`none`;
}

/** The human form of `evidex daemon status`; `shown` prints a root-relative path (as formatLeftOut takes it). */
export function formatStatus(r: StatusReport, shown: (rootPath: string) => string = (p) => p): Shown {
  if (!r.running) return human`${r.message}`;
  const d = r.status.daemon;
  const ts = formatTsImports(r.status.index.tsImports);
  const lines = [
    human`running      yes (pid ${r.pid}, up ${d.uptimeSeconds} s)`,
    human`url          ${r.url}`,
    human`root         ${formatRoot(r.root, d)}`,
    human`index        ${r.state}${d.startup === 'running' ? ' (start-up refresh running)' : d.startup === 'failed' ? human` (start-up failed: ${d.startupError})` : ''}${d.waiting ? human`, ${plural(d.waiting.changes, 'change')} waiting` : d.catchingUp ? human`, catching up: ${d.catchingUp.changes ? human`${plural(d.catchingUp.changes, 'change')} waiting` : 're-walking'}` : ''}`,
    ...(d.waiting ? [human`waiting      ${plural(d.waiting.changes, 'change')} since ${when(d.waiting.since)} (${plural(d.waiting.attempts, 'attempt')}, retried until written): ${d.waiting.reason}`] : []),
    ...(d.catchingUp && !d.waiting ? [d.catchingUp.changes
      ? human`catching up  ${plural(d.catchingUp.changes, 'change')} seen since ${when(d.catchingUp.since)} not indexed yet${d.catchingUp.rewalk ? human`; re-walk: ${d.catchingUp.rewalk}` : ''}${readSoFar(d.catchingUp)}`
      : human`catching up  no change seen; re-walk: ${d.catchingUp.rewalk ?? ''}${readSoFar(d.catchingUp)}`] : []),
    human`files        ${r.files}`,
    human`left out     ${formatLeftOut(r.status.index.leftOut, r.status.index, shown)}`,
    human`symbols      ${r.symbols}`,
    ...(ts === null ? [] : [human`ts/js        ${ts}`]),
    human`generation   ${r.generation}`,
    human`last update  ${r.lastUpdate === null ? 'never' : when(r.lastUpdate)}`,
    human`watcher      ${r.watcher}${d.watcherNote ? human` (${d.watcherNote})` : ''}`,
    human`warm-up      ${formatWarmup(d.warmup)}`,
    ...(r.status.index.textMap ? [human`text map     ${r.status.index.textMap}`] : []),
    human`clients      ${d.clients}`,
    human`state        ${path(r.stateDir)}`,
    ...formatLatency(d.latency),
  ];
  return human`${join(lines)}\n`;
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
export function formatList(l: DaemonList): Shown {
  const live = l.daemons.filter((d) => d.state !== 'stale');
  const lines: Shown[] = [];
  if (live.length === 0) {
    lines.push(human`no evidex daemons running (state: ${path(l.home)})`);
  } else {
    const files = (d: ListedDaemon): Part => {
      if (d.state === 'unlisted') return 'no daemon.json';
      if (d.state !== 'running') return 'not answering';
      return d.rootState === 'gone' ? 'root gone' : d.rootState === 'reindexing' ? 're-indexing' : d.files;
    };
    const rows: Shown[][] = [['ROOT', 'PID', 'PORT', 'UPTIME', 'MEMORY', 'FILES', 'EXITS'].map((h) => human`${h}`), ...live.map((d) => [
      path(d.root), ...[d.pid, d.port ?? '-', uptime(d.uptimeSeconds), mb(d.rssBytes), files(d), lifetime(d)].map((c) => human`${c}`),
    ])];
    // Widths are measured on the text as shown (a root's escapes included), so the columns line up.
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].plain.length)));
    for (const r of rows) lines.push(join(r.map((c, i) => (i === r.length - 1 ? c : padEnd(c, widths[i]))), '  '));
  }
  for (const d of l.daemons.filter((x) => x.state === 'stale')) lines.push(human`stale: ${path(d.root)} (pid ${d.pid} is not running; its daemon.json was removed)`);
  for (const d of l.daemons.filter((x) => x.state === 'unlisted')) lines.push(human`unlisted: ${path(d.root)} (pid ${d.pid}) runs with no daemon.json naming it; \`evidex daemon stop --all\` stops it`);
  for (const f of l.refused ?? []) lines.push(human`${f.reason}`);
  return human`${join(lines)}\n`;
}

/** The human form of `evidex daemon prune`. */
export function formatPrune(r: PruneResult): Shown {
  const lines = r.removed.map((x) => human`removed ${path(x.stateDir)} (${path(x.root)} no longer exists, ${mb(x.bytes)})`);
  for (const x of r.inUse) lines.push(human`left ${path(x.stateDir)}: ${path(x.root)} no longer exists, but its daemon (pid ${x.pid}) still runs; stop it with \`evidex daemon stop --repo ${path(shellWord(x.root))}\``);
  for (const d of r.unknown) lines.push(human`left ${path(d)}: it does not record its root`);
  for (const f of r.refused ?? []) lines.push(human`left ${path(f.stateDir)}: ${f.reason}`);
  const n = r.removed.length;
  lines.push(n === 0 ? human`nothing to prune in ${path(r.home)} (${r.kept} state folder${r.kept === 1 ? '' : 's'} of existing roots)`
    : human`freed ${mb(r.bytes)} in ${n} folder${n === 1 ? '' : 's'}; kept ${r.kept} of existing roots`);
  return human`${join(lines)}\n`;
}

/** What `evidex daemon stop --all` prints: one line per daemon stopped, or that none ran under `home`. */
export function formatStopAll(stopped: readonly StoppedDaemon[], home: string): Shown {
  return stopped.length === 0 ? human`no evidex daemons running (state: ${path(home)})\n` : human`${join(stopped.map((s) => s.message))}\n`;
}
