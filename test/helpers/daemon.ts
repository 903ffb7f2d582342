// Test aids for the daemon: copies of the fixture repository, a real daemon process
// (dist/daemon/main.js) with its own EVIDEX_HOME, raw WebSocket probes for the
// refusal tests, and small polling helpers. No mocks: every test talks to a
// real process over loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { connect, RpcError, type Client } from '../../client/connection.js';
import type { ToolResult } from '../../indexer/api.js';
import { assertEvidenceChecks } from './evidence.js';
import { cleanupTemp, FIXTURE, git, PROJECT_ROOT, tempDir } from './fs.js';
import { files, readDaemonInfo, stateDirFor, type DaemonInfo } from '../../local/state.js';
import { Methods } from '../../protocol/messages.js';

export const DAEMON_MAIN = join(PROJECT_ROOT, 'dist', 'daemon', 'main.js');

/** A fresh copy of the fixture repository (symlinks kept as links), optionally a git repo with one commit. */
export function fixtureCopy(opts: { git?: boolean } = {}): string {
  const root = join(tempDir('repo'), 'mobileai-local-rag');
  cpSync(FIXTURE, root, { recursive: true, verbatimSymlinks: true });
  if (opts.git) git(root, ['init', '-q']), git(root, ['add', '-A']), git(root, ['commit', '-qm', 'init']);
  return root;
}

export interface TestDaemon {
  root: string;
  home: string;
  stateDir: string;
  info: DaemonInfo;
  proc: ChildProcess;
  log(): string;
  /** Resolves with the exit code/signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  env: NodeJS.ProcessEnv;
}

export function daemonEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Tests must never reach a real Ollama or pick up the developer's state folder.
  return { ...process.env, EVIDEX_HOME: home, EVIDEX_PORT: '', OLLAMA_HOST: 'http://127.0.0.1:9', ...extra };
}

export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) { last = e; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Spawns a real daemon for `root` (foreground child, output to daemon.log) and waits for its daemon.json. */
export async function startDaemon(root: string, opts: { home?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<TestDaemon> {
  const home = opts.home ?? tempDir('home');
  const env = daemonEnv(home, opts.env);
  const stateDir = stateDirFor(root, env);
  const out: Buffer[] = [];
  const proc = spawn(process.execPath, [DAEMON_MAIN, '--repo', root, ...(opts.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (b: Buffer) => out.push(b));
  proc.stderr!.on('data', (b: Buffer) => out.push(b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  let gone = false;
  void exited.then(() => { gone = true; });
  const info = await waitFor('daemon.json', async () => {
    if (gone) throw new Error(`daemon exited early: ${Buffer.concat(out).toString()}`);
    const i = await readDaemonInfo(stateDir);
    return i && i.pid === proc.pid ? i : null;
  }, 20_000);
  return { root, home, stateDir, info, proc, exited, env, log: () => Buffer.concat(out).toString() };
}

/** Stops a test daemon with SIGTERM (clean shutdown) unless it is gone already. */
export async function stopDaemon(d: TestDaemon): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill('SIGTERM');
  return d.exited;
}

/** Result of a raw connection attempt: open socket, or the HTTP status of the refusal. */
export function tryConnect(url: string, headers: Record<string, string>): Promise<{ ws: WebSocket } | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => { resolve({ status: res.statusCode ?? 0 }); ws.terminate(); });
    ws.once('error', (e) => reject(e));
  });
}

/** Sends one raw text frame and resolves with the next message the daemon sends back (parsed). */
export function rawExchange(ws: WebSocket, text: string | Buffer, binary = false): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const onMsg = (data: WebSocket.RawData) => { cleanup(); resolve(JSON.parse(data.toString())); };
    const onClose = (code: number) => { cleanup(); reject(new Error(`socket closed (${code})`)); };
    const cleanup = () => { ws.off('message', onMsg); ws.off('close', onClose); };
    ws.on('message', onMsg);
    ws.on('close', onClose);
    ws.send(text, { binary });
  });
}

export function logOf(d: TestDaemon): string {
  try { return readFileSync(files(d.stateDir).log, 'utf8'); } catch { return d.log(); }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Waits until the daemon's start-up catch-up and the watcher's first scan have settled (before measuring anything). */
export async function waitWatcherReady(c: Client): Promise<void> {
  await waitFor('watcher ready', async () => {
    const s = await c.request(Methods.indexStatus);
    return s.daemon.watcher === 'watching' && s.daemon.startup === 'done' && s.daemon.pendingUpdates === 0;
  }, 15_000, 50);
}

/**
 * A tools/call over `c` whose answer is checked against the disk as it is now:
 * inside waitFor, an answer from just before an update fails the check and is asked again.
 */
export function checkedCaller(c: () => Client, root: () => string): (name: string, args: unknown) => Promise<ToolResult> {
  return async (name, args) => {
    const r = await c().request(Methods.toolsCall, { name, arguments: args });
    assertEvidenceChecks(root(), r.evidence);
    return r;
  };
}

/** True when the daemon refuses to read `path` as not indexed (what a test waits for after a delete or an ignore). */
export async function isNotIndexed(c: Client, path: string): Promise<boolean> {
  try {
    await c.request(Methods.toolsCall, { name: 'read_evidence', arguments: { path, start_line: 1 } });
    return false;
  } catch (e) {
    return e instanceof RpcError && (e.data as { code?: string })?.code === 'not_indexed';
  }
}

/** A writable stream that keeps what is written to it (for CLI renderers under test). */
export function captureStream(): { out: NodeJS.WriteStream; text: () => string } {
  let buf = '';
  const w = new Writable({ write(chunk, _e, cb) { buf += String(chunk); cb(); } });
  return { out: w as unknown as NodeJS.WriteStream, text: () => buf };
}

/** A real daemon on `root` and a client connected to it, once the watcher is ready (for watcher tests). */
export async function startWatched(root: string): Promise<{ d: TestDaemon; c: Client }> {
  const d = await startDaemon(root);
  const c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  return { d, c };
}

/** Closes the client, checks the daemon stops cleanly (exit 0), and removes the temp folders. */
export async function stopWatched(d: TestDaemon | undefined, c: Client | undefined): Promise<void> {
  await c?.close();
  if (d) {
    const code = (await stopDaemon(d)).code;
    if (code !== 0) throw new Error(`daemon exited ${code}: ${d.log()}`);
  }
  cleanupTemp();
}

/**
 * A client on the daemon already running for `root`, opened once its watcher is
 * ready, with `run` for tools/call; close() is safe whether open() got that far or not.
 */
export function readyClient(root: string, env: NodeJS.ProcessEnv): {
  open(): Promise<{ client: Client; run: (name: string, args: unknown) => Promise<ToolResult> }>;
  close(): Promise<void>;
} {
  let c: Client | undefined;
  return {
    async open() {
      const client = c = await connect(root, { env });
      await waitWatcherReady(client);
      return { client, run: (name, args) => client.request(Methods.toolsCall, { name, arguments: args }) };
    },
    async close() { await c?.close(); },
  };
}
