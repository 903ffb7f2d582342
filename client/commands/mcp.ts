// `evidex mcp`: the MCP server on stdio (client/mcp/), a client of the root's daemon.
import { defineCommand, HELP, needPositionals, REPO, repoOf, unnamedRoot, version } from '../command.js';

const USAGE = 'evidex mcp [--repo DIR]';

export const command = defineCommand({
  usage: USAGE,
  summary: 'MCP server on stdio: the five tools for any MCP host, answered by the daemon',
  flags: { ...REPO, ...HELP },
  async run(p) {
    needPositionals(p, 0, USAGE);
    // Loaded here only: the MCP SDK stays out of every other command's start-up.
    const { runMcpServer } = await import('../mcp/server.js');
    return runMcpServer({ root: await repoOf(p), version: version(), unnamedRoot: unnamedRoot(p) });
  },
});
