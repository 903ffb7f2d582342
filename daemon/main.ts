#!/usr/bin/env node
// The daemon process entry: `node dist/daemon/main.js --repo ROOT [--port N]
// [--allow-origin ORIGIN]... [--watch auto|poll|off] [--warmup on|off] [--idle-timeout DURATION]`.
// The client spawns it detached with stdout/stderr going to <state>/daemon.log (with
// --idle-timeout when a command auto-starts it); it can also be run by hand.
// Environment: EVIDEX_PORT, EVIDEX_ALLOWED_ORIGINS (comma-separated), EVIDEX_WATCH, EVIDEX_WARMUP,
// EVIDEX_HOME / XDG_CACHE_HOME (state folder).
import { human, stderr } from '../local/human.js';
import { asWriteFailure, isNoSpace } from '../indexer/write-failure.js';
import { unsupportedNodeWarning } from '../local/node-line.js';
import { resolveRepoRoot } from '../local/root.js';
import { DaemonRunningError, EXIT_ALREADY_RUNNING, EXIT_NO_SPACE, stateDirFor } from '../local/state.js';
import { parseDaemonArgs, type DaemonArgs } from '../protocol/daemon-settings.js';
import { daemonSettings, serveForeground } from './foreground.js';

async function main(): Promise<void> {
  const unsupported = unsupportedNodeWarning();
  if (unsupported !== null) stderr().line(human`evidex daemon: ${unsupported}`);
  let args: DaemonArgs;
  let root: string;
  let stateDir: string;
  try {
    args = parseDaemonArgs(process.argv.slice(2));
    root = await resolveRepoRoot(args.repo);
    stateDir = stateDirFor(root); // a relative EVIDEX_HOME is refused here too (local/home.ts)
  } catch (e) {
    stderr().line(human`evidex daemon: ${(e as Error).message}`);
    process.exit(2);
  }
  try {
    await serveForeground({ root, stateDir, ...daemonSettings(args) });
  } catch (thrown) {
    // No room for the lock, the token or daemon.json says so in the one line a full disk gets everywhere.
    const e = asWriteFailure(thrown, stateDir);
    // Another daemon already serving this root is not a failure of the caller's intent.
    if (e instanceof DaemonRunningError) {
      stderr().line(human`evidex daemon: ${e.message}`);
      process.exit(EXIT_ALREADY_RUNNING);
    }
    stderr().line(human`evidex daemon: ${(e as Error).message}`);
    // The line above may not reach a log on a full disk: the status alone tells the client why.
    process.exit(isNoSpace(e) ? EXIT_NO_SPACE : 1);
  }
}

void main();
