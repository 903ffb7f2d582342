// `evidex mcp`: a Model Context Protocol server on stdio (docs/mcp.md), one
// session (session.ts) for the life of the process, read and written by
// stdio.ts. Loaded only by `evidex mcp` (commands/mcp.ts imports it on demand):
// the MCP SDK stays out of every other command's start-up.
import type { Readable, Writable } from 'node:stream';
import { human, stderr } from '../../local/human.js';
import { canonicalRoot, type RealRoot } from '../../local/root.js';
import { MAX_MESSAGE_BYTES } from '../../protocol/messages.js';
import { ToolError } from '../../indexer/errors.js';
import { connect } from '../connection.js';
import { UnnamedRootError } from '../index-guard.js';
import { McpSession } from './session.js';
import { STDIN_END_DRAIN_MS, StdioTransport } from './stdio.js';

export interface McpServerOptions {
  root: string | RealRoot;
  version: string;
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics; stdout is the protocol's alone. */
  log?: (line: string) => void;
  /** After stdin closed, how long the requests already read may take (default STDIN_END_DRAIN_MS). */
  drainMs?: number;
  /** No --repo: the daemon is not started unasked for the home folder or a huge non-git tree (a host's own folder may be either). */
  unnamedRoot?: boolean;
}

/** One diagnostic line on stderr, `evidex mcp: ...` (a host shows them as this server's log). */
export function mcpLog(line: string): void {
  stderr().line(human`evidex mcp: ${line}`);
}

/**
 * Every line this process writes to stderr starts `evidex mcp:`: Node's own
 * warnings are logged as such instead of in Node's format, and a bug that
 * escapes everything ends the process with one line and status 1, not a stack
 * trace.
 */
export function ownProcessOutput(log: (line: string) => void): void {
  process.removeAllListeners('warning');
  process.on('warning', (w) => log(`warning: ${w.name}: ${w.message}`));
  process.on('uncaughtException', (e) => {
    log(`internal error, exiting: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}

/**
 * A root not named with --repo that evidex will not index unasked, refused as
 * a tool refusal (`code: reason`, docs/mcp.md) with advice for the host's
 * configuration rather than for a command line.
 */
function unnamedRootRefusal(e: UnnamedRootError): ToolError {
  return new ToolError('index_unavailable', `not indexing ${e.root} unasked (evidex mcp was started there without --repo): ${e.why}; `
    + 'name the repository in the host\'s configuration of this server: "args": ["mcp", "--repo", "/absolute/path/to/your/repo"]');
}

/**
 * Serves until stdin closes (the host went away) and the requests read by
 * then are answered (calls still running after drainMs are answered with a
 * refusal saying so), then closes the daemon connection and resolves with the
 * exit status. A daemon started here was
 * started detached: it stays for the next client until its idle timeout.
 */
export async function runMcpServer(opts: McpServerOptions): Promise<number> {
  const log = opts.log ?? mcpLog;
  if (!opts.stdin) ownProcessOutput(log);
  const session = new McpSession({
    root: canonicalRoot(opts.root),
    version: opts.version,
    log,
    // The process is the session: a daemon that went away (stopped, restarted) is reached again by the next request.
    reconnect: true,
    open: (clientName) => connect(opts.root, { autoStart: true, env: opts.env, clientName, unnamedRoot: opts.unnamedRoot, announce: (l) => log(l.plain) })
      .catch((e: unknown) => { throw e instanceof UnnamedRootError ? unnamedRootRefusal(e) : e; }),
  });
  const drainMs = opts.drainMs ?? STDIN_END_DRAIN_MS;
  const transport = new StdioTransport(opts.stdin ?? process.stdin, opts.stdout ?? process.stdout, session, { maxLineBytes: MAX_MESSAGE_BYTES, log, drainMs });
  const unanswered = await transport.run();
  if (unanswered > 0) log(`stdin closed; ${unanswered} call(s) still running after ${drainMs / 1000} s are answered as cut short`);
  await session.close(unanswered > 0 ? `the MCP session ended: stdin closed and the call was still running after ${drainMs / 1000} s` : undefined);
  return 0;
}
