// `evidex daemon run`: the daemon in the foreground of this terminal (logs to
// stdout; Ctrl-C stops it cleanly). `evidex daemon start` runs the same code
// detached, and both take the daemon's settings from the environment.
import { daemonSettings, parseDaemonArgs } from '../daemon/args.js';
import { serveForeground } from '../daemon/foreground.js';
import { stateDirFor } from '../daemon/state.js';

export async function runDaemonForeground(root: string): Promise<number> {
  await serveForeground({ root, stateDir: stateDirFor(root), ...daemonSettings(parseDaemonArgs([])) });
  return 0;
}
