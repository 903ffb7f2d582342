// `evidex daemon run`: the daemon in the foreground of this terminal (logs to
// stdout; Ctrl-C stops it cleanly). `evidex daemon start` runs the same code detached.
import { serveForeground } from '../daemon/server.js';
import { stateDirFor } from '../daemon/state.js';

export async function runDaemonForeground(root: string): Promise<number> {
  await serveForeground({ root, stateDir: stateDirFor(root) });
  return 0;
}
