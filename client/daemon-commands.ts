// `evidex daemon list | stop --all | prune`: the commands that look at every
// state folder under $EVIDEX_HOME rather than one root's. Listing connects as
// an observer (idle.ts), so looking at daemons does not keep them alive.
// Loaded only by those commands.
import { promises as fsp, statSync } from 'node:fs';
import { formatDuration } from '../daemon/idle.js';
import { Methods } from '../protocol/messages.js';
import {
  acquireLock, DaemonRunningError, folderBytes, listStateDirs, processRssBytes, readDaemonInfo,
  stateFolderRoot, stateRoot, type DaemonInfo,
} from '../daemon/state.js';
import { daemonStopAt, makeClient, probe, type StopResult } from './connection.js';

export interface ListedDaemon {
  /** running: answered; not_answering: alive but silent; stale: its process is gone (its daemon.json is removed). */
  state: 'running' | 'not_answering' | 'stale';
  root: string;
  pid: number;
  port: number;
  url: string;
  stateDir: string;
  uptimeSeconds: number | null;
  /** Resident memory (RSS), null when unknown. */
  rssBytes: number | null;
  /** Files in the index, null when the daemon did not say. */
  files: number | null;
  /** An auto-started daemon's idle timeout; 0 = none (started by hand, runs until stopped); null when unknown. */
  idleTimeoutSeconds: number | null;
  note?: string;
}

export interface DaemonList { home: string; daemons: ListedDaemon[] }

const ASK_TIMEOUT_MS = 5000;

async function describe(stateDir: string, info: DaemonInfo): Promise<ListedDaemon> {
  const base = { root: info.root, pid: info.pid, port: info.port, url: info.url, stateDir };
  // The same look every client takes (a dead daemon's file is removed), as an observer.
  const p = await probe(stateDir, { observer: true }, ASK_TIMEOUT_MS);
  if (p.kind === 'none') {
    return { ...base, state: 'stale', uptimeSeconds: null, rssBytes: null, files: null, idleTimeoutSeconds: null, note: 'not running; its daemon.json was removed' };
  }
  const rssBytes = processRssBytes(info.pid);
  if (p.kind === 'unreachable') {
    return { ...base, state: 'not_answering', uptimeSeconds: null, rssBytes, files: null, idleTimeoutSeconds: null, note: p.error };
  }
  try {
    const c = makeClient(p.ws, p.info, stateDir);
    try {
      const s = await c.request(Methods.indexStatus, undefined, AbortSignal.timeout(ASK_TIMEOUT_MS));
      return {
        ...base, state: 'running', uptimeSeconds: s.daemon.uptimeSeconds, rssBytes, files: s.index.files,
        idleTimeoutSeconds: s.daemon.idleTimeoutSeconds ?? null,
      };
    } finally {
      await c.close();
    }
  } catch (e) {
    return { ...base, state: 'not_answering', uptimeSeconds: null, rssBytes, files: null, idleTimeoutSeconds: null, note: (e as Error).message };
  }
}

/** Every daemon whose daemon.json is under $EVIDEX_HOME, asked in parallel. */
export async function listDaemons(env: NodeJS.ProcessEnv = process.env): Promise<DaemonList> {
  const found: Array<{ dir: string; info: DaemonInfo }> = [];
  for (const dir of await listStateDirs(env)) {
    const info = await readDaemonInfo(dir).catch(() => null);
    if (info) found.push({ dir, info });
  }
  return { home: stateRoot(env), daemons: await Promise.all(found.map(({ dir, info }) => describe(dir, info))) };
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

export type StoppedDaemon = StopResult & { root: string };

/** `evidex daemon stop --all`: stops every live daemon under $EVIDEX_HOME, in parallel (a root that is gone included). */
export async function stopAllDaemons(env: NodeJS.ProcessEnv = process.env): Promise<StoppedDaemon[]> {
  const l = await listDaemons(env);
  const live = l.daemons.filter((d) => d.state !== 'stale');
  return Promise.all(live.map(async (d) => ({ ...await daemonStopAt(d.stateDir, d.root), root: d.root })));
}

export interface PruneResult {
  home: string;
  removed: Array<{ stateDir: string; root: string; bytes: number }>;
  /** Folders whose root is gone but whose daemon still runs: never touched. */
  inUse: Array<{ stateDir: string; root: string; pid: number }>;
  /** Folders whose root still exists. */
  kept: number;
  /** Folders with no record of their root (left alone). */
  unknown: string[];
  bytes: number;
}

function isFolder(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/**
 * `evidex daemon prune`: removes the state folders of roots that no longer
 * exist. The folder's lock is taken first, so a running daemon's folder is
 * never touched and no daemon can start in it while it is being removed.
 */
export async function pruneStateDirs(env: NodeJS.ProcessEnv = process.env): Promise<PruneResult> {
  const out: PruneResult = { home: stateRoot(env), removed: [], inUse: [], kept: 0, unknown: [], bytes: 0 };
  for (const dir of await listStateDirs(env)) {
    const root = await stateFolderRoot(dir);
    if (root === null) { out.unknown.push(dir); continue; }
    if (isFolder(root)) { out.kept++; continue; }
    try {
      await acquireLock(dir, root);
    } catch (e) {
      if (e instanceof DaemonRunningError) { out.inUse.push({ stateDir: dir, root, pid: e.pid }); continue; }
      throw e;
    }
    const bytes = folderBytes(dir);
    await fsp.rm(dir, { recursive: true, force: true });
    out.removed.push({ stateDir: dir, root, bytes });
    out.bytes += bytes;
  }
  return out;
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

/** `evidex daemon list | prune | stop --all` as the CLI runs them: text or --json on stdout; exit 0. */
export async function runAllDaemonsCommand(action: string, json: boolean): Promise<number> {
  const print = (human: string, obj: unknown) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : human);
  switch (action) {
    case 'list': {
      const l = await listDaemons();
      print(formatList(l), l);
      return 0;
    }
    case 'prune': {
      const r = await pruneStateDirs();
      print(formatPrune(r), r);
      return 0;
    }
    default: { // stop --all
      const stopped = await stopAllDaemons();
      const text = stopped.length === 0 ? `no evidex daemons running (state: ${stateRoot()})\n` : `${stopped.map((s) => s.message).join('\n')}\n`;
      print(text, { stopped });
      return 0;
    }
  }
}
