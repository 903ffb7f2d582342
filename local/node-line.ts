// Whether this Node.js is on a line evidex supports (package.json's
// `engines`, copied here so that nothing is read for it; a test checks the
// two agree). On another line evidex may well run, but untested: one line on
// stderr says so at the start of the CLI, the MCP server and the daemon
// (whose stderr is its log). Only a version compare: nothing is read or
// loaded for it.

/** package.json's `engines.node`, word for word: caret ranges, one per line. */
export const SUPPORTED_NODE = '^22.12.0 || ^24.0.0 || ^26.0.0';

/** The setting that silences the line (`0`): for a user who knows, and for the test suite, which CI runs on Node 20 too. */
export const NODE_WARNING_ENV = 'EVIDEX_NODE_WARNING';

const parts = (v: string): number[] => v.split('.').map(Number);

/** Whether `version` (`20.20.2`) is within SUPPORTED_NODE: `^M.m.p` takes major M from m.p on. */
export function supportedNode(version: string): boolean {
  const [major, minor, patch] = parts(version);
  return SUPPORTED_NODE.split('||').some((range) => {
    const [M, m, p] = parts(range.trim().slice(1));
    return major === M && (minor > m || (minor === m && patch >= p));
  });
}

/** The warning for this process's Node, or null when its line is supported or the warning is turned off. */
export function unsupportedNodeWarning(version: string = process.versions.node, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env[NODE_WARNING_ENV] === '0' || supportedNode(version)) return null;
  return `warning: Node.js ${version} is not one evidex supports (${SUPPORTED_NODE}) and is not tested on; ${NODE_WARNING_ENV}=0 silences this line`;
}
