// `evidex daemon list | stop --all | prune`: the commands that look at every
// state folder under $EVIDEX_HOME rather than one root's. Listing connects as
// an observer (daemon/idle.ts), so looking at daemons does not keep them alive.
// Loaded only by those commands; what they print is daemon-report.ts's.
import { promises as fsp, statSync } from 'node:fs';
import { Methods } from '../protocol/messages.js';
import {
  acquireLock, DaemonRunningError, folderBytes, listStateDirs, processRssBytes, readDaemonInfo,
  stateFolderRoot, stateRoot, type DaemonInfo,
} from '../local/state.js';
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
