// `evidex daemon run`: the daemon in the foreground of this terminal (logs to
// stdout; Ctrl-C stops it cleanly). `evidex daemon start` runs the same code
// detached, and both take the daemon's settings from the environment. The
// client's one door into daemon/: the process around a daemon.
import { stateDirFor } from '../local/state.js';
import { parseDaemonArgs } from '../protocol/daemon-settings.js';
import { daemonSettings, serveForeground } from '../daemon/foreground.js';

export async function runDaemonForeground(root: string): Promise<number> {
  await serveForeground({ root, stateDir: stateDirFor(root), ...daemonSettings(parseDaemonArgs([])) });
  return 0;
}
