// The client's side of the daemon: find it (daemon.json in the root's state
// folder, used only when it is the user's alone: local/state-trust.ts), check
// it is alive (a zombie or a process already killed is not: a dead daemon is
// replaced at once), connect with its token, start one when none runs, and
// `evidex daemon start|stop|status` (daemon-report.ts prints the status).
// Errors are one line and say what to do next.
import { commandLine } from './command-line.js';
import type { ChildProcess, spawn as Spawn } from 'node:child_process';
import { WsClient } from '../protocol/ws-client.js';
import { RpcConnection, RpcError } from '../protocol/jsonrpc.js';
import {
  CLIENT_NAME_HEADER, listenerFor, OBSERVER_HEADER, MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES, Methods,
  type NotificationType, type ParamsOfType, type RequestType, type ResultOfType, type StatusResult,
} from '../protocol/messages.js';
import { human, path, stderr, type Shown } from '../local/human.js';
import { isPidAlive, isPidStopped } from '../local/processes.js';
import { canonicalRoot, RealRoot } from '../local/root.js';
import {
  daemonAlive, ensureStateDir, EXIT_ALREADY_RUNNING, EXIT_NO_SPACE, files, lockHeld, readDaemonInfo, removeDaemonInfo, stateDirFor, type DaemonInfo,
} from '../local/state.js';
import { checkStateFolder } from '../local/state-trust.js';
import { UsageError } from './command.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { closeSync, openSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath } = process.getBuiltinModule('node:url');

export { RpcError };

/** A connection problem with a message that tells the user what to do. */
export class ConnectionError extends Error {
  constructor(message: string) { super(message); this.name = 'ConnectionError'; }
}


/**
 * A wait that does not keep the process alive: the CLI exits as soon as its
 * work is done, not when a fallback timeout of a race it already won runs out.
 */
function sleepUnref(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

export type NotificationListener = (method: string, params: unknown) => void;

export interface Client {
  readonly info: DaemonInfo;
  readonly stateDir: string;
  /**
   * Sends one request of a protocol method (`Methods.toolsCall`...), typed by
   * its definition; rejects with RpcError (client/errors.ts maps it for users).
   */
  request<T extends RequestType<unknown, unknown>>(def: T, ...rest: RequestArgs<T>): Promise<ResultOfType<T>>;
  /** Untyped form for scripts and tests that send arbitrary method names. */
  requestRaw(method: string, params?: unknown, signal?: AbortSignal): Promise<unknown>;
  /** Listens to one protocol notification (`Notifications.indexProgress`...), its params typed by its definition; returns the way to stop. */
  onNotification<P>(type: NotificationType<P>, fn: (params: P) => void): () => void;
  /** Untyped form: every notification, by wire name (scripts and tests). */
  onNotification(fn: NotificationListener): () => void;
  /** Resolves when the daemon closes the connection (or it breaks). */
  readonly closed: Promise<string>;
  close(): Promise<void>;
  /**
   * Starts the closing handshake and lets the process exit without waiting
   * for the daemon's answer to it (a one-shot command's last act: the wait is
   * ~2 ms of every CLI call); the daemon sees the close code either way.
   */
  leave(): void;
}

export interface ConnectOptions {
  /** Start a daemon when none runs (CLI commands that need the index do). */
  autoStart?: boolean;
  /** How long to wait for a daemon we started (default 30 s). */
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Sent as the X-Evidex-Client upgrade header, so the daemon's log and audit say which client asked (the CLI sends `cli`). */
  clientName?: string;
  /** The root was not named with --repo: starting a daemon for it is refused for the home folder or a huge non-git tree (index-guard.ts). */
  unnamedRoot?: boolean;
  /** Where a daemon started here is announced (default: a line on stderr; `evidex mcp` logs it as its own). */
  announce?: (line: Shown) => void;
}

/** A method's params (optional when it takes none), then an optional AbortSignal. */
type RequestArgs<T> = undefined extends ParamsOfType<T>
  ? [params?: ParamsOfType<T>, signal?: AbortSignal]
  : [params: ParamsOfType<T>, signal?: AbortSignal];

/** Path of the compiled daemon entry, next to this file in dist/. */
export function daemonEntry(): string {
  return fileURLToPath(new URL('../daemon/main.js', import.meta.url));
}

/**
 * How a connection presents itself: `clientName` becomes the X-Evidex-Client
 * header (the daemon's audit names the caller by it); an `observer`
 * (daemon list, daemon status) does not hold off an idle daemon's exit.
 */
export interface SocketOptions { clientName?: string; observer?: boolean }

/** Opens one authenticated WebSocket to the daemon described by `info`. */
export function openSocket(info: DaemonInfo, timeoutMs = 5000, opts: SocketOptions = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const ws = new WsClient(info.url, {
      headers: {
        Authorization: `Bearer ${info.token}`,
        ...(opts.clientName ? { [CLIENT_NAME_HEADER]: opts.clientName } : {}),
        ...(opts.observer ? { [OBSERVER_HEADER]: '1' } : {}),
      },
      maxPayload: MAX_PAYLOAD_BYTES,
      handshakeTimeout: timeoutMs,
    });
    const fail = (e: Error) => { ws.removeAllListeners(); ws.terminate(); reject(e); };
    ws.once('open', () => { ws.removeAllListeners('error'); ws.removeAllListeners('unexpected-response'); resolve(ws); });
    ws.once('error', (e) => fail(e));
    ws.once('unexpected-response', (_req, res) => fail(new Error(`the daemon refused the connection: HTTP ${res.statusCode}`)));
  });
}

export function makeClient(ws: WsClient, info: DaemonInfo, stateDir: string): Client {
  // The client takes any answer the socket takes, and sends only small requests.
  const conn = new RpcConnection(ws, { maxMessageBytes: MAX_PAYLOAD_BYTES, maxBufferedBytes: MAX_PAYLOAD_BYTES });
  const closed = new Promise<string>((r) => conn.onClose(r));
  return {
    info,
    stateDir,
    request: (def, ...[params, signal]) => conn.sendRequest(def.method, params, signal) as Promise<never>,
    requestRaw: (method, params, signal) => conn.sendRequest(method, params, signal),
    onNotification: <P>(...a: [NotificationType<P>, (params: P) => void] | [NotificationListener]) =>
      conn.onNotification(a.length === 2 ? listenerFor(a[0], a[1]) : a[0]),
    closed,
    close: async () => {
      if (ws.readyState === WsClient.CLOSED) return;
      conn.close(1000, 'client done');
      await Promise.race([closed, sleepUnref(1000)]);
      if (ws.readyState !== WsClient.CLOSED) ws.terminate();
    },
    leave: () => {
      if (ws.readyState === WsClient.CLOSED) return;
      conn.close(1000, 'client done');
      ws.unref();
    },
  };
}

export type Probe =
  | { kind: 'none' }                       // no daemon.json (or a stale one from a dead process, now removed)
  | { kind: 'running'; info: DaemonInfo; ws: WsClient }
  | { kind: 'unreachable'; info: DaemonInfo; error: string }; // a live daemon pid that does not answer

/**
 * How long a daemon that refused or dropped the connection is watched for its
 * death: one killed a moment ago closes its socket while the kernel is still
 * tearing it down (docs/architecture.md, "A dead daemon is dead").
 */
const DYING_GRACE_MS = 1000;

/** Errors of a connection that nothing listens behind any more (a daemon that died, or is dying). */
const DEAD_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/** Waits up to `ms` for the lock holder `pid` to be seen dead; true if it is. */
async function diesWithin(stateDir: string, pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await daemonAlive(stateDir, pid))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Looks for a daemon for this state folder and connects to it if one answers
 * (within `timeoutMs`). A state folder or daemon.json that is not the user's
 * alone is refused first (StateNotYoursError): nothing is read from it and
 * nothing is sent. A daemon that is dead — gone, a zombie, killed and on its
 * way out — counts as none, and its daemon.json is cleared.
 */
export async function probe(stateDir: string, sock: SocketOptions = {}, timeoutMs = 5000, busy?: BusyWait): Promise<Probe> {
  await checkStateFolder(stateDir);
  const info = await readDaemonInfo(stateDir);
  if (!info) return { kind: 'none' };
  const dead = async (): Promise<Probe> => {
    // Left behind by a daemon that was killed: nobody serves it; clear it so status is truthful.
    await removeDaemonInfo(stateDir, info.pid).catch(() => undefined);
    return { kind: 'none' };
  };
  if (!(await daemonAlive(stateDir, info.pid))) return dead();
  let waited = false;
  for (;;) {
    try {
      return { kind: 'running', info, ws: await openSocket(info, waited ? busy!.waitMs : timeoutMs, sock) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if ((DEAD_SOCKET.has(code) || /socket hang up/.test((e as Error).message)) && await diesWithin(stateDir, info.pid, DYING_GRACE_MS)) return dead();
      if (!HANDSHAKE_TIMED_OUT.test((e as Error).message)) return { kind: 'unreachable', info, error: (e as Error).message };
      if (isPidStopped(info.pid)) {
        return { kind: 'unreachable', info, error: `it is stopped (SIGSTOP, Ctrl-Z or a debugger); \`kill -CONT ${info.pid}\` resumes it` };
      }
      if (waited || !busy) return { kind: 'unreachable', info, error: `${(e as Error).message} (${Math.round((waited ? timeoutMs + busy!.waitMs : timeoutMs) / 1000)} s)` };
      // Alive, running, and its event loop not free yet (a large batch of changes being written): it will answer.
      busy.onWait(info.pid, timeoutMs);
      waited = true;
    }
  }
}

/** The error `ws` gives when the daemon took the connection but did not answer its upgrade in time. */
const HANDSHAKE_TIMED_OUT = /handshake has timed out/i;

/**
 * A command's patience with a daemon that is alive and running but has not
 * answered the connection's first `timeoutMs`: its event loop is busy (a
 * large batch of changes, a checkout, being written), so it is waited for
 * another `waitMs`, said once through `onWait`, instead of being reported as
 * not answering with advice to restart it.
 */
export interface BusyWait { waitMs: number; onWait: (pid: number, afterMs: number) => void }

/** How long commands wait on a busy daemon beyond the first 5 s. */
export const BUSY_WAIT_MS = 55_000;

/**
 * V8 flags for the daemon process. A 4 MB young generation instead of the
 * default 16 MB: a request's garbage dies young and small, while the default
 * keeps ~50 MB of young-generation pages resident in a process that sits idle
 * most of the time (measured: anonymous RSS 192 -> 142 MB on the stdlib, with
 * the same query latencies).
 */
const DAEMON_NODE_FLAGS = ['--max-semi-space-size=4'];

/**
 * glibc malloc's mmap threshold for the daemon, unless the caller's
 * environment sets one: fixed at glibc's own starting value (128 KiB), which
 * turns off its dynamic threshold. That one rises to the size of any mmapped
 * block freed (up to 32 MiB), so once warm-up had freed a mapped block of
 * ~1 MiB, the long-lived arrays sized at its end (the symbol index's columns,
 * fit()) came from the top of malloc's main heap, above the freed temporaries
 * of reading every file, and the heap could not shrink past them. Fixed, the
 * daemon holds 23-40 MB less anonymous memory on site-packages
 * (docs/performance/memory.md, "Layouts off malloc's heap (mem-slab)"). Other C
 * libraries ignore the variable.
 */
const DAEMON_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The daemon's command line `node <dist>/daemon/main.js --repo ROOT [ARGS]` and environment, as a start spawns it (a bench may run it under a profiler). */
export function daemonCommand(root: string, env: NodeJS.ProcessEnv, args: string[]): { argv: string[]; env: NodeJS.ProcessEnv } {
  return { argv: [process.execPath, ...DAEMON_NODE_FLAGS, daemonEntry(), '--repo', root, ...args], env: { ...DAEMON_MALLOC_ENV, ...env } };
}

/**
 * Spawns the daemon (daemonCommand) detached, its output appended to
 * daemon.log. `spawn` is node:child_process's, loaded by the caller only when
 * a daemon is started: a call to a running one never needs it (~6 M
 * instructions of a ~230 M call on Node 22, docs/performance/cli-start.md).
 */
function spawnDaemon(spawn: typeof Spawn, root: string, stateDir: string, env: NodeJS.ProcessEnv, args: string[]): ChildProcess {
  const fd = openSync(files(stateDir).log, 'a', 0o600);
  try {
    const cmd = daemonCommand(root, env, args);
    const child = spawn(cmd.argv[0], cmd.argv.slice(1), {
      detached: true, stdio: ['ignore', fd, fd], env: cmd.env, cwd: root,
    });
    child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

/** How many more daemons a start spawns when the one it spawned met a lock holder that then died (a zombie, a daemon killed meanwhile). */
const RESPAWNS = 3;

/**
 * Spawns a daemon and waits until one answers for this state folder (ours,
 * or a racing starter's that won the lock). The daemon we spawned exiting
 * first ends the wait at once with its last log line, unless it exited
 * because another daemon held the root's lock: then that one is waited for,
 * and if that holder is dead by now (it was dying when ours looked), a new
 * daemon is spawned in its place. `spawned` holds the pids of ours.
 */
async function spawnAndWait(root: string, stateDir: string, timeoutMs: number, spawnOne: () => ChildProcess, sock: SocketOptions = {}, made?: string):
Promise<{ info: DaemonInfo; ws: WsClient; spawned: Set<number> }> {
  const spawned = new Set<number>();
  let exit: number | null = null;
  /** How ours ended, as the error line says it: `status 1`, `signal SIGSEGV`. */
  let ended = '';
  const start = (): ChildProcess => {
    exit = null;
    const child = spawnOne();
    if (child.pid !== undefined) spawned.add(child.pid);
    child.once('exit', (code, signal) => { exit = code ?? (signal ? 128 : 1); ended = code !== null ? `status ${code}` : `signal ${signal}`; });
    return child;
  };
  /** Ours exited at start: a first start takes back the folders it made (failed-start.ts, loaded only then); where its log is now. */
  const undo = async (keepLog: boolean): Promise<string | null> => (made === undefined ? files(stateDir).log : (await import('./failed-start.js')).undoFirstStart(stateDir, made, keepLog));
  /** The daemon this start spawned last (the earlier ones have exited). */
  let ours = start();
  let respawns = 0;
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    const p = await probe(stateDir, sock);
    if (p.kind === 'running') {
      // A racing starter's daemon answered while ours is still starting: ours is not needed, and
      // left alone it could take the root once that one stops (a daemon nobody asked for any more).
      if (!spawned.has(p.info.pid) && exit === null) ours.kill('SIGTERM');
      return { ...p, spawned };
    }
    if (p.kind === 'unreachable') lastError = p.error;
    // No room on the state folder's disk for what a start writes: the code and line `evidex index` gives there too.
    if (exit === EXIT_NO_SPACE) {
      await undo(false);
      throw (await import('../indexer/write-failure.js')).noSpace(stateDir);
    }
    if (exit !== null && exit !== EXIT_ALREADY_RUNNING) {
      const last = (await import('./failed-start.js')).lastLogLine(files(stateDir).log) || 'no output';
      const log = await undo(true);
      throw new ConnectionError(`the evidex daemon for ${root} exited at start (${ended}): ${last}${log ? `; log: ${log}` : ''}`);
    }
    if (exit === EXIT_ALREADY_RUNNING && p.kind === 'none' && respawns < RESPAWNS && !(await lockHeld(stateDir))) {
      respawns++;
      ours = start();
    }
    // A probe is one small file read: poll often, so a fresh daemon is used the moment it listens.
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new ConnectionError(`the evidex daemon for ${root} did not start within ${Math.round(timeoutMs / 1000)} s${lastError ? ` (${lastError})` : ''}; see ${files(stateDir).log}`);
}

/** Where a root's daemon would be, and whether one answers there: the first step of every command below. */
async function locate(root: string | RealRoot, envOpt?: NodeJS.ProcessEnv, sock: SocketOptions = {}, announce?: (line: Shown) => void): Promise<{ env: NodeJS.ProcessEnv; real: string; stateDir: string; p: Probe }> {
  const env = envOpt ?? process.env;
  const real = canonicalRoot(root);
  const stateDir = stateDirFor(RealRoot.trusted(real), env);
  const say = announce ?? ((l: Shown) => stderr().line(l));
  const busy: BusyWait = {
    waitMs: BUSY_WAIT_MS,
    onWait: (pid, afterMs) => say(human`the evidex daemon for ${path(real)} (pid ${pid}) is busy (no answer in ${Math.round(afterMs / 1000)} s): waiting up to ${Math.round(BUSY_WAIT_MS / 1000)} s more`),
  };
  return { env, real, stateDir, p: await probe(stateDir, sock, undefined, busy) };
}

/**
 * Spawns a daemon for `real` and waits until it (or a racing starter's)
 * answers; `spawned` says it is ours. `auto`: a command starts it on its own,
 * so it gets the idle timeout (EVIDEX_IDLE_TIMEOUT, default 3h).
 */
async function startAndWait(real: string, stateDir: string, env: NodeJS.ProcessEnv,
  opts: { auto: boolean; unnamedRoot?: boolean; timeoutMs?: number; clientName?: string }):
Promise<{ info: DaemonInfo; ws: WsClient; spawned: boolean }> {
  // Loaded only here: a call to a running daemon never needs them.
  const [{ autoStartIdleTimeout, parseDaemonArgs }, { checkUnnamedRoot }, { spawn }] = await Promise.all([
    import('../protocol/daemon-settings.js'), import('./index-guard.js'), import('node:child_process'),
  ]);
  // The daemon's own settings from the environment, checked here so a bad one is a one-line refusal now.
  let args: string[];
  try {
    parseDaemonArgs([], env);
    args = opts.auto ? ['--idle-timeout', autoStartIdleTimeout(env)] : [];
  } catch (e) { throw new UsageError((e as Error).message); }
  if (opts.unnamedRoot) await checkUnnamedRoot(real);
  const made = await ensureStateDir(stateDir);
  const up = await spawnAndWait(real, stateDir, opts.timeoutMs ?? 30_000, () => spawnDaemon(spawn, real, stateDir, env, args), { clientName: opts.clientName }, made);
  return { info: up.info, ws: up.ws, spawned: up.spawned.has(up.info.pid) };
}

/** Connects to the daemon of `root` (any folder inside the repository), starting one if asked. */
export async function connect(root: string | RealRoot, opts: ConnectOptions = {}): Promise<Client> {
  const { env, real, stateDir, p } = await locate(root, opts.env, { clientName: opts.clientName }, opts.announce);
  if (p.kind === 'running') return makeClient(p.ws, p.info, stateDir);
  if (p.kind === 'unreachable') {
    throw new ConnectionError(`the evidex daemon for ${real} (pid ${p.info.pid}) is not answering at ${p.info.url}: ${p.error}; `
      + `restart it with \`${adviceCommand('stop', real)}\` then \`${adviceCommand('start', real)}\` (log: ${files(stateDir).log})`);
  }
  if (!opts.autoStart) {
    throw new ConnectionError(`no evidex daemon for ${real}; start one with \`${adviceCommand('start', real)}\``);
  }
  const started = await startAndWait(real, stateDir, env, { auto: true, unnamedRoot: opts.unnamedRoot, timeoutMs: opts.startTimeoutMs, clientName: opts.clientName });
  // A background process now runs for this root: say so, once, where it does not mix with the answer.
  if (started.spawned) (opts.announce ?? ((l) => stderr().line(l)))(human`started evidex daemon for ${path(real)} (pid ${started.info.pid})`);
  return makeClient(started.ws, started.info, stateDir);
}

/** `evidex daemon ACTION --repo ROOT`: these messages are read wherever the command ran, so they name the root. */
const adviceCommand = (action: string, root: string): string => commandLine(undefined, ['daemon', action, '--repo', root]);

// ---- evidex daemon start | stop | status --------------------------------------

export interface StartResult { started: boolean; info: DaemonInfo; stateDir: string; log: string }

/** `evidex daemon start`: starts a detached daemon unless one already answers. */
export async function daemonStart(root: string | RealRoot, opts: ConnectOptions = {}): Promise<StartResult> {
  const { env, real, stateDir, p } = await locate(root, opts.env);
  if (p.kind === 'running') { p.ws.terminate(); return { started: false, info: p.info, stateDir, log: files(stateDir).log }; }
  if (p.kind === 'unreachable') {
    throw new ConnectionError(`a daemon for ${real} (pid ${p.info.pid}) is running but not answering (${p.error}); stop it with \`${adviceCommand('stop', real)}\``);
  }
  const s = await startAndWait(real, stateDir, env, { auto: false, unnamedRoot: opts.unnamedRoot, timeoutMs: opts.startTimeoutMs });
  s.ws.terminate();
  return { started: true, info: s.info, stateDir, log: files(stateDir).log };
}

export interface StopResult { stopped: boolean; pid?: number; how?: 'shutdown' | 'SIGTERM' | 'SIGKILL'; message: string }

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isPidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isPidAlive(pid);
}

/** `evidex daemon stop`: asks for daemon/shutdown; a daemon that does not answer gets SIGTERM, then SIGKILL. */
export async function daemonStop(root: string | RealRoot, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<StopResult> {
  const real = canonicalRoot(root);
  return daemonStopAt(stateDirFor(RealRoot.trusted(real), opts.env ?? process.env), real, opts);
}

/** daemonStop by state folder (`daemon stop --all`: the root may be gone); `real` names the root in messages. */
export async function daemonStopAt(stateDir: string, real: string, opts: { timeoutMs?: number } = {}): Promise<StopResult> {
  const p = await probe(stateDir);
  const timeout = opts.timeoutMs ?? 10_000;
  if (p.kind === 'none') return { stopped: false, message: `no evidex daemon running for ${real}` };
  const pid = p.info.pid;
  if (p.kind === 'running') {
    const c = makeClient(p.ws, p.info, stateDir);
    try {
      await c.request(Methods.daemonShutdown);
      await Promise.race([c.closed, sleepUnref(timeout)]);
    } catch { /* it may close before answering; the pid check below decides */ }
    await c.close();
    if (await waitGone(pid, timeout)) return { stopped: true, pid, how: 'shutdown', message: `stopped the evidex daemon for ${real} (pid ${pid})` };
  }
  const how = await stopProcess(pid, timeout);
  await removeDaemonInfo(stateDir, pid).catch(() => undefined);
  return how === 'SIGTERM'
    ? { stopped: true, pid, how, message: `stopped the evidex daemon for ${real} (pid ${pid}, SIGTERM)` }
    : { stopped: true, pid, how, message: `killed the unresponsive evidex daemon for ${real} (pid ${pid})` };
}

/**
 * Stops a process by signal: SIGTERM (with SIGCONT, so a stopped one can act
 * on it), then SIGKILL if it is still there after `timeoutMs`. For a daemon
 * that does not answer, or one no daemon.json names (daemon stop --all).
 */
export async function stopProcess(pid: number, timeoutMs: number): Promise<'SIGTERM' | 'SIGKILL'> {
  try { process.kill(pid, 'SIGTERM'); process.kill(pid, 'SIGCONT'); } catch { /* gone already */ }
  if (await waitGone(pid, timeoutMs)) return 'SIGTERM';
  try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ }
  await waitGone(pid, 2000);
  return 'SIGKILL';
}

export type StatusReport =
  | { running: false; root: string; stateDir: string; message: string }
  | { running: true; root: string; stateDir: string; pid: number; url: string; files: number; symbols: number;
      generation: number; lastUpdate: string | null; watcher: string; state: string; status: StatusResult };

/** `evidex daemon status`: never starts a daemon, and looks as an observer (it does not hold off an idle exit). */
export async function daemonStatus(root: string | RealRoot, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<StatusReport> {
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
  } catch (e) {
    // The daemon closed the connection before answering (an idle exit or a stop racing this status): it is not running.
    if (await closedBy(c)) return { running: false, root: real, stateDir, message: `the daemon for ${real} (pid ${p.info.pid}) went away while asked: ${(e as Error).message}` };
    throw e;
  } finally {
    await c.close();
  }
}

/** True when the daemon has closed (or broken) the connection: a request failed because of that, not because of an answer. */
export function closedBy(c: Client): Promise<boolean> {
  // The connection resolves `closed` in the same step as it fails its pending requests; one turn of the loop is enough.
  return Promise.race([c.closed.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);
}

export { MAX_MESSAGE_BYTES };
