// `evidex mcp`: the MCP server on stdio, or with --http over Streamable HTTP
// (client/mcp/), a client of the root's daemon.
import { normalOrigin } from '../mcp/http-access.js';
import { defineCommand, flag, HELP, needPositionals, REPO, repoOf, unnamedRoot, UsageError, version } from '../command.js';

const USAGE = 'evidex mcp [--repo DIR] [--http] [--port N] [--host ADDR] [--allow-origin ORIGINS] [--rotate-token]';

const HTTP_FLAGS = {
  http: flag.boolean('serve MCP over Streamable HTTP (http://127.0.0.1:PORT/mcp, behind a bearer token) instead of stdio'),
  port: flag.int('with --http: the port (default: the one used last time for this repository, else a free one; 0 = a free one)', { range: [0, 65535] }),
  host: flag.string('ADDR', 'with --http: the IP address to listen on (default 127.0.0.1; another one lets other machines reach the server)'),
  'allow-origin': flag.string('ORIGINS', 'with --http: browser origins allowed to call the server, comma-separated (default none)'),
  'rotate-token': flag.boolean('with --http: make a new bearer token (the old one stops working)'),
};

/** The origins of --allow-origin, each checked as a browser sends one (scheme://host[:port]). */
function origins(list: string | undefined): string[] {
  if (list === undefined) return [];
  return list.split(',').map((v) => v.trim()).filter(Boolean).map((v) => {
    const o = normalOrigin(v);
    if (o === null) throw new UsageError(`--allow-origin takes origins such as http://localhost:3000 (scheme, host and port, no path); got ${JSON.stringify(v)}`);
    return o;
  });
}

export const command = defineCommand({
  usage: USAGE,
  summary: 'MCP server: the five tools for any MCP host, answered by the daemon (stdio, or --http)',
  details: 'On stdio a host starts it as a subprocess. With --http it serves hosts that\n'
    + 'connect by URL (Open WebUI, LM Studio, Jan): it prints the URL and the bearer\n'
    + 'token to configure them with, keeps both across restarts, and stops on Ctrl-C.\n'
    + 'The options after --http go with --http only. See docs/mcp.md.',
  examples: ['evidex mcp --repo ~/src/flask', 'evidex mcp --http --port 8765 --allow-origin http://localhost:3000'],
  flags: { ...REPO, ...HTTP_FLAGS, ...HELP },
  async run(p) {
    needPositionals(p, 0, USAGE);
    const f = p.flags;
    if (!f.http) {
      const stray = (Object.keys(HTTP_FLAGS) as Array<keyof typeof HTTP_FLAGS>).find((k) => f[k] !== undefined);
      if (stray) throw new UsageError(`--${stray} goes with --http; usage: ${USAGE}`);
      // Loaded here only: the MCP SDK stays out of every other command's start-up.
      const { runMcpServer } = await import('../mcp/server.js');
      return runMcpServer({ root: await repoOf(p), version: version(), unnamedRoot: unnamedRoot(p) });
    }
    const allowedOrigins = origins(f['allow-origin']);
    const { runMcpHttpServer } = await import('../mcp/http-main.js');
    return runMcpHttpServer({
      root: await repoOf(p), version: version(), unnamedRoot: unnamedRoot(p),
      address: f.host, port: f.port, allowedOrigins, rotateToken: f['rotate-token'] === true,
    });
  },
});
