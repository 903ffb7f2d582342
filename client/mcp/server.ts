// `evidex mcp`: a Model Context Protocol server on stdio (docs/mcp.md), built
// on the official SDK. It is a client of the repository's daemon like every
// other command, so the index, its watcher and the audit log are shared: the
// tool list and every call are the daemon's, and the host is named to it by
// its clientInfo. Loaded only by `evidex mcp` (commands/mcp.ts imports it on demand):
// the SDK stays out of every other command's start-up.
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, ListToolsRequestSchema, McpError, PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { boundsRefusal } from '../../indexer/query/arg-bounds.js';
import { human, stderr } from '../../local/human.js';
import { MAX_MESSAGE_BYTES, Methods, toClientName } from '../../protocol/messages.js';
import { connect, type Client } from '../connection.js';
import { GuardedStdioTransport } from './stdio.js';
import { answerResult, mcpTool, refusalLine, refusalResult, serverInstructions } from './tools.js';

/**
 * The requests this server answers, with the SDK's schema for each: the
 * transport checks their params before the SDK sees them (client/mcp/stdio.ts).
 */
const REQUESTS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

export interface McpServerOptions {
  root: string;
  version: string;
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics; stdout is the protocol's alone. */
  log?: (line: string) => void;
  /** No --repo: the daemon is not started unasked for the home folder or a huge non-git tree (a host's own folder may be either). */
  unnamedRoot?: boolean;
}

/** The host's name made into a client name the daemon accepts (toClientName), "mcp" when it has none. */
export function clientHeaderName(name: string | undefined): string {
  return toClientName(name, 'mcp');
}

/**
 * The connection to the daemon, opened on first need and opened again after
 * it drops (the daemon was stopped or restarted), each time named after the
 * host as it is known by then.
 */
class DaemonLink {
  private client: Promise<Client> | null = null;
  private closing = false;

  constructor(private readonly root: string, private readonly env: NodeJS.ProcessEnv | undefined,
    private readonly name: () => string, private readonly log: (line: string) => void, private readonly unnamedRoot = false) {}

  get(): Promise<Client> {
    if (this.closing) return Promise.reject(new Error('the MCP server is shutting down'));
    if (this.client) return this.client;
    const p = connect(this.root, { autoStart: true, env: this.env, clientName: this.name(), unnamedRoot: this.unnamedRoot, announce: (l) => this.log(l.plain) });
    this.client = p;
    const forget = () => { if (this.client === p) this.client = null; };
    p.then((c) => {
      this.log(`connected to the evidex daemon for ${c.info.root} (pid ${c.info.pid}) as ${JSON.stringify(this.name())}`);
      void c.closed.then((why) => { forget(); if (!this.closing) this.log(`daemon connection closed: ${why}; the next request reconnects`); });
    }, (e: unknown) => { forget(); this.log(`cannot reach the daemon: ${refusalLine(e)}`); });
    return p;
  }

  async close(): Promise<void> {
    this.closing = true;
    const c = await this.client?.catch(() => null);
    this.client = null;
    await c?.close();
  }
}

/**
 * Every line this process writes to stderr starts `evidex mcp:` (a host shows
 * them as this server's log): Node's own warnings are logged as such instead
 * of in Node's format, and a bug that escapes everything ends the process
 * with one line and status 1, not a stack trace.
 */
function ownProcessOutput(log: (line: string) => void): void {
  process.removeAllListeners('warning');
  process.on('warning', (w) => log(`warning: ${w.name}: ${w.message}`));
  process.on('uncaughtException', (e) => {
    log(`internal error, exiting: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}

/**
 * Serves until stdin closes (the host went away), then closes the daemon
 * connection and resolves with the exit status. A daemon started here was
 * started detached: it stays for the next client until its idle timeout.
 */
export async function runMcpServer(opts: McpServerOptions): Promise<number> {
  const log = opts.log ?? ((line: string) => stderr().line(human`evidex mcp: ${line}`));
  const stdin = opts.stdin ?? process.stdin;
  if (!opts.stdin) ownProcessOutput(log);
  const server = new Server({ name: 'evidex', version: opts.version },
    { capabilities: { tools: {} }, instructions: serverInstructions(opts.root) });
  const link = new DaemonLink(opts.root, opts.env, () => clientHeaderName(server.getClientVersion()?.name), log, opts.unnamedRoot);

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      const { tools } = await (await link.get()).request(Methods.toolsList);
      return { tools: tools.map(mcpTool) };
    } catch (e) {
      throw new McpError(ErrorCode.InternalError, refusalLine(e));
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = req.params.arguments ?? {};
    // The daemon's own first check, here too: arguments nested 100,000 deep would overflow the stack of the
    // JSON writer that sends them, so they get the daemon's documented refusal without being sent.
    const excess = boundsRefusal(req.params.name, args);
    if (excess) return refusalResult(excess);
    try {
      const daemon = await link.get();
      // The host's cancellation travels on as $/cancelRequest: the daemon stops waiting for the call.
      const r = await daemon.request(Methods.toolsCall, { name: req.params.name, arguments: args }, extra.signal);
      return answerResult(r);
    } catch (e) {
      return refusalResult(e);
    }
  });

  // Connect as soon as the host has said who it is, so its first call does not wait for a daemon start.
  server.oninitialized = () => { link.get().catch(() => undefined); };
  server.onerror = (e) => log(`protocol error: ${refusalLine(e)}`);

  const done = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    server.onclose = () => resolve();
  });
  await server.connect(new GuardedStdioTransport(stdin, opts.stdout ?? process.stdout, { maxLineBytes: MAX_MESSAGE_BYTES, requests: REQUESTS, log }));
  await done;
  await link.close();
  await server.close().catch(() => undefined);
  return 0;
}
