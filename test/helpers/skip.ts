// Tests that cannot run on this machine are skipped, and say so: never
// counted as passed. A test that needs something the machine may lack (tmux,
// python3, /proc, the bundled fixture) is registered through testUnless(why):
// when something is missing, uvu records the test as skipped (its "Skipped"
// count, which test/run.mjs adds up) and a line starting with SKIP_MARK gives
// the reason (run.mjs shows it under the file and again at the end).
// The check is made when the file loads, before any test runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test, type Test } from 'uvu';
import { FIXTURE } from './fs.js';

/** Starts the line that gives a skip's reason: `⊘ skipped [REASON] TEST NAME` (test/run.mjs reads it). */
export const SKIP_MARK = '⊘ skipped';

type TestBody = () => void | Promise<void>;
/** How a file registers a test: uvu's `test`, or the skipping stand-in. */
export type Register = (name: string, body: TestBody) => void;

const runs = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** Caches a check: each runs at most once per process. */
function once(check: () => string | null): () => string | null {
  let known: string | null | undefined;
  return () => (known === undefined ? (known = check()) : known);
}

/** Why tests that need each thing cannot run here, or null when they can. */
export const lacks = {
  /** A real terminal (test/helpers/terminal.ts). */
  tmux: once(() => (runs('tmux', ['-V']) ? null : 'tmux is not installed')),
  /** python3 with `ast` and `sysconfig`: the oracle and the standard-library corpora (test/helpers/corpus.ts). */
  python3: once(() => (runs('python3', ['-c', 'import ast, sysconfig']) ? null : 'python3 is not installed (the ast oracle and the stdlib corpora need it)')),
  /** /proc, for process start times and memory. */
  proc: once(() => (existsSync('/proc/self/stat') ? null : 'this system has no /proc')),
  /** util-linux `script`: a pseudo-terminal for one command, whose output and typed keys a test handles as streams. */
  script: once(() => (runs('script', ['--version']) ? null : 'script (util-linux) is not installed')),
  /** The bundled fixture repository. */
  fixture: once(() => (existsSync(FIXTURE) ? null : `the fixture repository ${FIXTURE} is absent`)),
};

/** The first reason of several, or null when none applies. */
export const firstReason = (...reasons: Array<string | null>): string | null => reasons.find((r) => r !== null) ?? null;

/** uvu's `test` (or the suite `on`) when `reason` is null; else a stand-in that registers each test as skipped and prints why. */
export function testUnless(reason: string | null, on: Test = test): Register {
  if (reason === null) return on;
  return (name, body) => {
    on.skip(name, body);
    console.log(`${SKIP_MARK} [${reason.replace(/]/g, ')')}] ${name}`);
  };
}
