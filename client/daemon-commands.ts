// `evidex daemon list | stop --all | prune`: the commands that look at every
// state folder under $EVIDEX_HOME rather than one root's. Listing connects as
// an observer (daemon/idle.ts), so looking at daemons does not keep them alive.
// A daemon no daemon.json names (its state folder removed under it, say) is
// still found, in the process table (local/processes.ts), and stopped by
// signal. A state folder that is not the user's alone is named and left
// alone (local/state-trust.ts). Loaded only by those commands; what they
// print is daemon-report.ts's.
import { basename, dirname, join, resolve } from 'node:path';
import { promises as fsp, realpathSync, statSync } from 'node:fs';
import { RealRoot } from '../local/root.js';
import { Methods, type RootState } from '../protocol/messages.js';
import { daemonProcesses, processRssBytes, type DaemonProcess } from '../local/processes.js';
import {
  acquireLock, DaemonRunningError, folderBytes, listStateDirs, readDaemonInfo,
  stateDirFor, stateFolderRoot, stateRoot, type DaemonInfo,
} from '../local/state.js';
import { checkStateFolder, StateNotYoursError } from '../local/state-trust.js';
import { daemonEntry, daemonStopAt, makeClient, probe, stopProcess, type StopResult } from './connection.js';

/**
 * The root a `--repo DIR` names that no longer exists, when a state folder
 * records it: `daemon stop` and `daemon status` reach a daemon whose root was
 * deleted (the state folder is keyed by the root's path, which the daemon
 * knew by its real path: the deepest folder of DIR that still exists is
 * resolved, the rest appended). Null when no state folder is that root's.
 */
export async function goneRoot(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<RealRoot | null> {
  let existing = resolve(dir);
  const rest: string[] = [];
  for (;;) {
    try { existing = realpathSync(existing); break; } catch { /* not there: look one folder up */ }
    if (dirname(existing) === existing) return null;
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  if (rest.length === 0) return null; // it exists: not gone
  const root = join(existing, ...rest);
  const stateDir = stateDirFor(RealRoot.trusted(root), env);
  return (await stateFolderRoot(stateDir).catch(() => null)) === root ? RealRoot.trusted(root) : null;
}

export interface ListedDaemon {
  /**
   * running: answered; not_answering: alive but silent; stale: its process is gone (its daemon.json is removed);
   * unlisted: a live daemon found in the process table that no daemon.json names (it cannot be reached, only stopped).
   */
  state: 'running' | 'not_answering' | 'stale' | 'unlisted';
  root: string;
  pid: number;
  /** null for an unlisted daemon (no daemon.json says where it listens). */
  port: number | null;
  url: string | null;
  stateDir: string;
  uptimeSeconds: number | null;
  /** Resident memory (RSS), null when unknown. */
  rssBytes: number | null;
  /** Files in the index, null when the daemon did not say. */
  files: number | null;
  /** An auto-started daemon's idle timeout; 0 = none (started by hand, runs until stopped); null when unknown. */
  idleTimeoutSeconds: number | null;
  /** Whether its root is still the indexed tree (a running daemon says; absent otherwise): `gone` or `reindexing` otherwise. */
  rootState?: RootState;
  note?: string;
}

/** A state folder evidex will not use (another user's, or writable by others), with why. */
export interface RefusedFolder { stateDir: string; reason: string }

export interface DaemonList { home: string; daemons: ListedDaemon[]; refused: RefusedFolder[] }

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
        ...(s.daemon.rootState ? { rootState: s.daemon.rootState } : {}),
        ...(s.daemon.rootNote ? { note: s.daemon.rootNote } : {}),
      };
    } finally {
      await c.close();
    }
  } catch (e) {
    return { ...base, state: 'not_answering', uptimeSeconds: null, rssBytes, files: null, idleTimeoutSeconds: null, note: (e as Error).message };
  }
}

/** A live daemon that no daemon.json names, as the process table shows it. */
function unlisted(p: DaemonProcess, env: NodeJS.ProcessEnv): ListedDaemon {
  const root = p.root ?? '(unknown root)';
  return {
    state: 'unlisted', root, pid: p.pid, port: null, url: null, stateDir: p.root ? stateDirFor(p.root, { ...env, ...p.env }) : '',
    uptimeSeconds: null, rssBytes: processRssBytes(p.pid), files: null, idleTimeoutSeconds: null,
    note: 'running, but no daemon.json names it (its state folder was removed or replaced); it can only be stopped',
  };
}

/** The same folder, however its path is spelled (EVIDEX_HOME of another process may end in `/`). */
const sameHome = (a: string, b: string): boolean => resolve(a) === resolve(b);

/** The home of another process's environment; null for a relative EVIDEX_HOME (an older evidex's: whose folder it meant is unknown here). */
function homeOf(env: NodeJS.ProcessEnv): string | null {
  try { return stateRoot(env); } catch { return null; }
}

/**
 * Every daemon of this user under $EVIDEX_HOME: those a daemon.json names,
 * asked in parallel, and those the process table shows running with their
 * state here that no daemon.json names. Folders that are not the user's alone
 * are listed as refused, never read.
 */
export async function listDaemons(env: NodeJS.ProcessEnv = process.env): Promise<DaemonList> {
  const home = stateRoot(env);
  const found: Array<{ dir: string; info: DaemonInfo }> = [];
  const refused: RefusedFolder[] = [];
  for (const dir of await listStateDirs(env)) {
    try {
      await checkStateFolder(dir);
      const info = await readDaemonInfo(dir);
      if (info) found.push({ dir, info });
    } catch (e) {
      if (e instanceof StateNotYoursError) refused.push({ stateDir: dir, reason: e.message });
    }
  }
  const daemons = await Promise.all(found.map(({ dir, info }) => describe(dir, info)));
  const named = new Set(daemons.filter((d) => d.state !== 'stale').map((d) => d.pid));
  for (const p of daemonProcesses(daemonEntry())) {
    const theirs = homeOf({ ...p.env, HOME: p.env.HOME ?? env.HOME });
    if (!named.has(p.pid) && theirs !== null && sameHome(theirs, home)) daemons.push(unlisted(p, env));
  }
  return { home, daemons, refused };
}

export type StoppedDaemon = StopResult & { root: string };

/** How long a daemon found only in the process table gets to act on SIGTERM before SIGKILL. */
const UNLISTED_STOP_MS = 10_000;

/** `evidex daemon stop --all`: stops every live daemon under $EVIDEX_HOME, in parallel (a root that is gone, and a daemon no daemon.json names, included). */
export async function stopAllDaemons(env: NodeJS.ProcessEnv = process.env): Promise<StoppedDaemon[]> {
  const l = await listDaemons(env);
  const live = l.daemons.filter((d) => d.state !== 'stale');
  return Promise.all(live.map(async (d): Promise<StoppedDaemon> => {
    if (d.state !== 'unlisted') return { ...await daemonStopAt(d.stateDir, d.root), root: d.root };
    const how = await stopProcess(d.pid, UNLISTED_STOP_MS);
    const verb = how === 'SIGTERM' ? 'stopped' : 'killed';
    return { stopped: true, pid: d.pid, how, root: d.root, message: `${verb} the evidex daemon for ${d.root} (pid ${d.pid}, ${how}; found in the process table, no daemon.json named it)` };
  }));
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
  /** Folders that are not the user's alone (left alone). */
  refused: RefusedFolder[];
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
  const out: PruneResult = { home: stateRoot(env), removed: [], inUse: [], kept: 0, unknown: [], refused: [], bytes: 0 };
  for (const dir of await listStateDirs(env)) {
    try {
      await checkStateFolder(dir);
    } catch (e) {
      if (e instanceof StateNotYoursError) { out.refused.push({ stateDir: dir, reason: e.message }); continue; }
      throw e;
    }
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
