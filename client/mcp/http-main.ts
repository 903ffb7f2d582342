// `evidex mcp --http`: the MCP server over Streamable HTTP (http.ts) for the
// life of the process, until SIGINT or SIGTERM. At start it makes sure the
// repository's daemon runs (so a host's first session does not wait for it,
// and a root that cannot be served is said now), takes its token and port
// from the state folder (http-state.ts), and says on stderr where it listens
// and what token a host must send.
import { isIP } from 'node:net';
import { canonicalRoot, type RealRoot } from '../../local/root.js';
import { files, stateDirFor } from '../../local/state.js';
import { MAX_MESSAGE_BYTES } from '../../protocol/messages.js';
import { connect } from '../connection.js';
import { isLoopback } from './http-access.js';
import { serverToken, writeHttpState } from './http-state.js';
import { McpHttpServer } from './http.js';
import { mcpLog, ownProcessOutput } from './server.js';

export interface McpHttpOptions {
  root: string | RealRoot;
  version: string;
  /** The address to listen on; 127.0.0.1 when none is named. */
  address?: string;
  /** The port; the one saved from the last start (else a free one) when none is named. */
  port?: number;
  allowedOrigins?: readonly string[];
  /** Make a new token, so the old one stops working. */
  rotateToken?: boolean;
  unnamedRoot?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Resolves when the server should stop (default: SIGINT or SIGTERM). */
  until?: Promise<unknown>;
}

/** The name this process gives itself to the daemon while it checks that one runs. */
const STARTER_NAME = 'evidex mcp --http';

/** Serves until stopped; resolves with the exit status (0, or 1 when it could not start). */
export async function runMcpHttpServer(opts: McpHttpOptions): Promise<number> {
  const log = opts.log ?? mcpLog;
  if (!opts.log) ownProcessOutput(log);
  // Listening for the stop before anything is said: whoever reads "token: …" as
  // "ready" may signal at once, and a signal with no handler yet would end the
  // process with no clean stop (and no status 0).
  const stopped = opts.until ?? stopSignal();
  const env = opts.env ?? process.env;
  const address = opts.address ?? '127.0.0.1';
  if (isIP(address) === 0) {
    log(`--host takes an IP address (127.0.0.1, 0.0.0.0, 192.168.1.5, ::1), not ${JSON.stringify(address)}`);
    return 2;
  }
  let server: McpHttpServer;
  try {
    const real = canonicalRoot(opts.root);
    const stateDir = stateDirFor(real, env);
    const open = (clientName: string) => connect(real, { autoStart: true, env, clientName, unnamedRoot: opts.unnamedRoot, announce: (l) => log(l.plain) });
    // The daemon runs before any host arrives (and a root it may not serve is refused here, once).
    await (await open(STARTER_NAME)).close();
    const { state, made } = await serverToken(stateDir, opts.rotateToken === true);
    const port = opts.port ?? state.port ?? 0;
    try {
      server = await McpHttpServer.start({
        root: real, version: opts.version, address, port, token: state.token, allowedOrigins: opts.allowedOrigins ?? [],
        maxBodyBytes: MAX_MESSAGE_BYTES, open, log,
      });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') {
        throw new Error(`port ${port} on ${address} is in use${opts.port === undefined ? ' (the port this repository\'s MCP server had last time: is another `evidex mcp --http` serving it?)' : ''}; name another with --port N, or --port 0 for any free one`);
      }
      throw e;
    }
    if (server.port !== state.port) await writeHttpState(stateDir, { token: state.token, port: server.port });
    const host = isIP(address) === 6 ? `[${address}]` : address;
    const shown = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : host;
    log(`serving ${real} over MCP Streamable HTTP at http://${shown}:${server.port}/mcp`);
    if (!isLoopback(address)) {
      log(`warning: listening on ${address}, not loopback: other machines can reach port ${server.port}, and anyone who has the token can read this repository through it; `
        + 'plain HTTP carries the token and the code unencrypted, so use it only on a network you trust');
    }
    log(`token: ${state.token} (hosts send "Authorization: Bearer TOKEN"; kept owner-only in ${files(stateDir).mcpHttp}, `
      + `${made ? 'new' : 'the same as last time'}: --rotate-token makes a new one)`);
  } catch (e) {
    log((e as Error).message.replace(/\s*\n\s*/g, ' '));
    return 1;
  }
  await stopped;
  log(`stopping (${server.openSessions} session${server.openSessions === 1 ? '' : 's'} open)`);
  await server.close();
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
