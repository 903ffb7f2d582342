// What the ask suites that run a real daemon share (ask-cli, ask-settings,
// ask-terminal, chat-terminal): a fake Ollama speaking the real protocol, a
// fresh copy of the fixture and a real daemon process pointed at it; `evidex
// ask` run through a client with its output captured; the daemon's audit
// lines; and the environment of an `evidex` command in a terminal. (The suites
// that run the loop in process use test/fake-ollama/harness.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '../../client/connection.js';
import { runAskCommand } from '../../client/ask.js';
import { FakeOllama, type FakeModel } from '../fake-ollama/server.js';
import { captureStream, fixtureCopy, startDaemon, stopDaemon, type TestDaemon } from './daemon.js';
import { cleanupTemp } from './fs.js';

export interface AskDaemon {
  fake: FakeOllama;
  daemon: TestDaemon;
  /** The fixture copy the daemon serves. */
  root: string;
  /** Stops the daemon and the fake, and removes the temp folders. */
  stop(): Promise<void>;
}

export interface AskDaemonOptions {
  /** The fake's installed models (default: FakeOllama's own). */
  models?: FakeModel[];
  /** Make the fixture copy a git repository with one commit. */
  git?: boolean;
  /** The daemon's environment, given the fake (its OLLAMA_HOST, EVIDEX_MODEL...). */
  env: (fake: FakeOllama) => NodeJS.ProcessEnv;
}

export async function startAskDaemon(o: AskDaemonOptions): Promise<AskDaemon> {
  const fake = await new FakeOllama(o.models).start();
  const root = fixtureCopy({ git: o.git });
  const daemon = await startDaemon(root, { env: o.env(fake) });
  return {
    fake, daemon, root,
    stop: async () => { await stopDaemon(daemon); await fake.stop(); cleanupTemp(); },
  };
}

/** One `evidex ask`: its exit code, stdout, stderr, and both (stderr first). */
export interface AskOutput { code: number; out: string; err: string; text: string }

/** Runs `evidex ask QUESTION` (runAskCommand) over `client`, capturing stdout and stderr; `env` is the asking client's environment. */
export async function askThrough(client: Client, question: string, o: { json: boolean; env?: NodeJS.ProcessEnv; model?: string }): Promise<AskOutput> {
  const out = captureStream();
  const err = captureStream();
  const code = await runAskCommand(client, question, { json: o.json, out: out.out, err: err.out, env: o.env ?? {}, ...(o.model ? { model: o.model } : {}) });
  return { code, out: out.text(), err: err.text(), text: err.text() + out.text() };
}

/** The lines of `--json` output, parsed. */
export const jsonLines = (text: string): any[] => text.trimEnd().split('\n').map((l) => JSON.parse(l));

/** Every line of the daemon's audit log, parsed, oldest first. */
export const auditLines = (d: TestDaemon): any[] => jsonLines(readFileSync(join(d.stateDir, 'audit.log'), 'utf8'));

/** The environment of an `evidex` command run in a terminal against this daemon and fake (`extra` on top). */
export function terminalEnv(s: AskDaemon, extra: Record<string, string> = {}): Record<string, string> {
  return { EVIDEX_HOME: s.daemon.home, OLLAMA_HOST: s.fake.url, TERM: 'xterm-256color', ...extra };
}
