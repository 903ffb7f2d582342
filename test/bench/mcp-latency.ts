// `evidex mcp` as a host runs it, on both transports, timed by hosts written
// here from the MCP spec (newline-delimited JSON-RPC on a child's stdio; POSTs
// of one message to /mcp with the bearer token and Mcp-Session-Id over a
// keep-alive connection), not by the SDK's client: what is timed is evidex's
// server, not another implementation's client. Every call is interleaved with
// the same call over the daemon's WebSocket (evidex's own client), so both
// figures of a row see the same machine load; the MCP server reaches the same
// daemon, so the difference is what the MCP hop adds.
//
// `npm run bench -- --mcp` runs these rows alone, on the bundled fixture; the
// full bench runs them on the stdlib too.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync, mkdtempSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, daemonStop, type Client } from '../../client/connection.js';
import { Methods } from '../../protocol/messages.js';
import { fixtureCorpus, type Corpus } from './corpus.js';
import { drawQueries } from './queries.js';
import { waitSteady } from './steady.js';
import { ms, row, stats, timed, type Stats } from './table.js';

const BIN = fileURLToPath(new URL('../../client/bin.js', import.meta.url));
const ECHO = fileURLToPath(new URL('mcp-echo.js', import.meta.url));
/** Untimed calls before each timed set (the first calls of a fresh process run unoptimised code). */
const WARMUP_CALLS = 20;
/** The targets: a tool call through MCP within this of the same call over the WebSocket (p50)... */
const CALL_OVERHEAD_MS = 0.5;
/** ...and tools/list, a prepared answer with no daemon round trip, under this (p50). */
const LIST_MS = 0.3;

interface JsonRpcAnswer { id?: unknown; result?: unknown; error?: { code: number; message: string } }

/** An MCP host, reduced to what the bench needs: one request, its result (an error answer throws). */
interface Host {
  readonly transport: string;
  request(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evidex-bench', version: '1' } };

function resultOf(a: JsonRpcAnswer, id: number): unknown {
  if (a.id !== id) throw new Error(`answer to id ${JSON.stringify(a.id)}, expected ${id}`);
  if (a.error) throw new Error(`error ${a.error.code}: ${a.error.message}`);
  return a.result;
}

/** A host that starts `evidex mcp` as its subprocess and speaks newline-delimited JSON-RPC on its stdio. */
class StdioHost implements Host {
  readonly transport = 'stdio';
  private next = 1;
  private buffered = '';
  private readonly waiting = new Map<number, (a: JsonRpcAnswer) => void>();
  private readonly exited: Promise<unknown>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      this.buffered += text;
      for (let nl = this.buffered.indexOf('\n'); nl !== -1; nl = this.buffered.indexOf('\n')) {
        const a = JSON.parse(this.buffered.slice(0, nl)) as JsonRpcAnswer;
        this.buffered = this.buffered.slice(nl + 1);
        const done = this.waiting.get(a.id as number);
        this.waiting.delete(a.id as number);
        done?.(a);
      }
    });
    child.stderr.resume();
    this.exited = new Promise((r) => child.once('exit', r));
  }

  /** Spawns `node ARGV` and initializes; resolves with the host and the time from spawn to initialize answered. */
  static async start(argv: string[], env: NodeJS.ProcessEnv): Promise<[StdioHost, number]> {
    const [took, host] = await timed(async () => {
      const h = new StdioHost(spawn(process.execPath, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] }));
      await h.request('initialize', INITIALIZE);
      return h;
    });
    host.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return [host, took];
  }

  request(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (a) => { try { resolve(resultOf(a, id)); } catch (e) { reject(e); } });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }
}

/** A host that connects by URL to `evidex mcp --http` (started here, on a free port) with the token it printed. */
class HttpHost implements Host {
  readonly transport = 'HTTP';
  private next = 1;
  private session: string | undefined;
  /** One kept-alive connection, as a host holds it. */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly exited: Promise<unknown>;

  private constructor(private readonly child: ChildProcess, private readonly url: URL, private readonly token: string) {
    this.exited = new Promise((r) => child.once('exit', r));
  }

  /** Starts `evidex mcp --http` on a free port, waits for its URL and token, and initializes a session. */
  static async start(root: string, env: NodeJS.ProcessEnv): Promise<HttpHost> {
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--repo', root], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const said = await firstOutput(child, child.stderr, /^evidex mcp: token: /m);
    return HttpHost.initialized(child, new URL(/ at (http:\/\/\S+\/mcp)$/m.exec(said)![1]), /token: ([0-9a-f]{64})/.exec(said)![1]);
  }

  /** Starts the bare HTTP peer (mcp-echo.ts) and initializes with it as with evidex. */
  static async echo(): Promise<HttpHost> {
    const child = spawn(process.execPath, [ECHO, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = Number((await firstOutput(child, child.stdout, /\n/)).trim());
    return HttpHost.initialized(child, new URL(`http://127.0.0.1:${port}/mcp`), 'echo');
  }

  private static async initialized(child: ChildProcess, url: URL, token: string): Promise<HttpHost> {
    const host = new HttpHost(child, url, token);
    await host.request('initialize', INITIALIZE);
    const note = await host.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    if (note.status !== 202) throw new Error(`notifications/initialized: HTTP ${note.status}`);
    return host;
  }

  private post(body: string, method = 'POST'): Promise<{ status: number; session?: string; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(this.url, {
        method,
        agent: this.agent,
        headers: {
          Authorization: `Bearer ${this.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': INITIALIZE.protocolVersion,
          ...(this.session ? { 'Mcp-Session-Id': this.session } : {}),
        },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode!, session: res.headers['mcp-session-id'] as string | undefined, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async request(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.next++;
    const r = await this.post(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
    if (r.status !== 200) throw new Error(`${method}: HTTP ${r.status}: ${r.text}`);
    this.session ??= r.session;
    return resultOf(JSON.parse(r.text) as JsonRpcAnswer, id);
  }

  async close(): Promise<void> {
    await this.post('', 'DELETE');
    this.agent.destroy();
    this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** What `child` has written to `stream` once it matches `done`; its exit before that is an error. */
function firstOutput(child: ChildProcess, stream: NodeJS.ReadableStream, done: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (b: Buffer) => {
      text += b.toString();
      if (done.test(text)) resolve(text);
    });
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.slice(1).join(' ')} exited ${code}: ${text}`)));
  });
}

/** A tool call's result, refused if it is not a real answer (a refusal timed as an answer would flatter the figures). */
function answered(r: unknown): unknown {
  const res = r as { isError?: boolean; structuredContent?: { evidence?: unknown[] } };
  if (res.isError || !Array.isArray(res.structuredContent?.evidence)) throw new Error(`not an answer: ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

/** `calls` run through the host and over the WebSocket, one of each in turn, after WARMUP_CALLS untimed ones of each. */
async function interleaved(calls: Array<[() => Promise<unknown>, () => Promise<unknown>]>): Promise<[Stats, Stats]> {
  for (const [viaHost, viaWs] of calls.slice(0, WARMUP_CALLS)) await viaHost(), await viaWs();
  const host: number[] = [];
  const ws: number[] = [];
  for (const [viaHost, viaWs] of calls) {
    host.push((await timed(viaHost))[0]);
    ws.push((await timed(viaWs))[0]);
  }
  return [stats(host), stats(ws)];
}

const p50p90 = (s: Stats) => `${ms(s.p50)} / ${ms(s.p90)}`;

/**
 * The rows of one host: ping beside the same round trip to a bare peer on the
 * same transport (the floor: what the transport costs with no evidex in it),
 * then tools/list, find_symbol and search_code, each beside the same calls
 * over the WebSocket.
 */
async function hostRows(c: Corpus, host: Host, echo: Host, ws: Client, q: { search: string[]; symbols: string[] }): Promise<void> {
  const label = `[${c.name}] evidex mcp (${host.transport})`;
  const n = q.search.length;
  const pings = Array.from({ length: n }, () => [() => host.request('ping'), () => echo.request('ping')] as [() => Promise<unknown>, () => Promise<unknown>]);
  const [ping, floor] = await interleaved(pings);
  row(`${label} ping, p50 / p90 (${ping.n} calls)`, p50p90(ping), `bare ${host.transport} peer, no evidex: ${p50p90(floor)}`, `+${ms(ping.p50 - floor.p50)} p50`);
  const lists = Array.from({ length: n }, () => [() => host.request('tools/list'), () => ws.request(Methods.toolsList)] as [() => Promise<unknown>, () => Promise<unknown>]);
  const [list, wsList] = await interleaved(lists);
  row(`${label} tools/list, p50 / p90 (${list.n} calls)`, p50p90(list), `daemon WebSocket tools/list: ${p50p90(wsList)}`, '', `p50 < ${LIST_MS} ms`, list.p50 < LIST_MS);
  for (const [tool, inputs, key] of [['find_symbol', q.symbols, 'name'], ['search_code', q.search, 'query']] as const) {
    const calls = inputs.map((v) => [
      async () => answered(await host.request('tools/call', { name: tool, arguments: { [key]: v } })),
      () => ws.request(Methods.toolsCall, { name: tool, arguments: { [key]: v } }),
    ] as [() => Promise<unknown>, () => Promise<unknown>]);
    const [m, w] = await interleaved(calls);
    const over = m.p50 - w.p50;
    row(`${label} ${tool}, p50 / p90 (${m.n} calls)`, p50p90(m), `daemon WebSocket, same calls: ${p50p90(w)}`, `+${ms(over)} p50`,
      `p50 ≤ WebSocket's + ${CALL_OVERHEAD_MS} ms`, over <= CALL_OVERHEAD_MS);
  }
}

/**
 * The MCP rows of corpus `c`, whose daemon `ws` is connected to (in steady
 * state): the stdio server's start, then tools/list, find_symbol and
 * search_code through each transport beside the WebSocket's.
 */
export async function mcpRows(c: Corpus, ws: Client, env: NodeJS.ProcessEnv, q: { search: string[]; symbols: string[] }): Promise<void> {
  const [stdio, initMs] = await StdioHost.start([BIN, 'mcp', '--repo', c.root], env);
  row(`[${c.name}] evidex mcp (stdio): spawn to initialize answered`, ms(initMs));
  await withHosts(stdio, async () => (await StdioHost.start([ECHO, 'stdio'], env))[0], (echo) => hostRows(c, stdio, echo, ws, q));
  const http = await HttpHost.start(c.root, env);
  await withHosts(http, () => HttpHost.echo(), (echo) => hostRows(c, http, echo, ws, q));
}

/** Runs `use` with `host` and a bare peer started by `startEcho`, and closes both whatever happens. */
async function withHosts(host: Host, startEcho: () => Promise<Host>, use: (echo: Host) => Promise<void>): Promise<void> {
  try {
    const echo = await startEcho();
    try {
      await use(echo);
    } finally {
      await echo.close();
    }
  } finally {
    await host.close();
  }
}

/** `--mcp`: only the MCP rows, on a git copy of the bundled fixture, with a daemon started for them. */
export async function benchMcpOnly(nq: number): Promise<void> {
  const c = fixtureCorpus();
  const home = mkdtempSync(join(tmpdir(), 'evidex-bench-home-'));
  const env = { ...process.env, EVIDEX_HOME: home };
  console.error(`[${c.name}] ${c.files.length} files, ${c.lines} lines in ${c.root}`);
  const client = await connect(c.root, { autoStart: true, env, startTimeoutMs: 120_000 });
  try {
    await waitSteady(client);
    // Every defined name of the fixture (it has few), in turn, as many calls as search_code gets.
    const q = drawQueries(c, nq, 1);
    const symbols = Array.from({ length: nq }, (_, i) => q.symbols[i % q.symbols.length]);
    await mcpRows(c, client, env, { search: q.search, symbols });
  } finally {
    await client.close();
    await daemonStop(c.root, { env });
    rmSync(home, { recursive: true, force: true });
    rmSync(dirname(c.root), { recursive: true, force: true });
  }
}
