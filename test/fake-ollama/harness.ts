// Test plumbing shared by the ask tests: a real index over the fixture repo in
// a temp state folder, and one-call helpers that run a question against a
// fake Ollama and collect its events.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexHandle, ToolResult } from '../../indexer/api.js';
import { openIndex } from '../../indexer/index.js';
import type { AskConfig } from '../../daemon/ask/config.js';
import type { AskEvent, AskResult } from '../../protocol/ask-events.js';
import { runAsk } from '../../daemon/ask/loop.js';
import { FIXTURE, tempDir } from '../helpers/fs.js';
import type { FakeOllama } from './server.js';

export interface FixtureIndex {
  root: string;
  stateDir: string;
  handle: IndexHandle;
  runTool: (name: unknown, args: unknown) => Promise<ToolResult>;
  close: () => Promise<void>;
}

/** Opens and builds a real index of the fixture in a fresh temp folder. */
export async function openFixtureIndex(): Promise<FixtureIndex> {
  const stateDir = tempDir('ask');
  const handle = await openIndex(FIXTURE, { stateDir: join(stateDir, 'index-state') });
  await handle.refresh();
  return {
    root: FIXTURE, stateDir, handle,
    // The index checks the call (shape, exact name, strict schema) and runs it, as for the daemon.
    runTool: async (name, args) => handle.runTool(name, args),
    close: async () => { await handle.close(); rmSync(stateDir, { recursive: true, force: true }); },
  };
}

export function tempStateDir(): string {
  return tempDir('ask-state');
}

export interface AskRun { result: AskResult; events: AskEvent[]; ms: number }

export async function askFake(fake: FakeOllama, question: string, opts: {
  runTool: (name: unknown, args: unknown) => Promise<ToolResult>;
  stateDir: string;
  model?: string;
  config?: Partial<AskConfig>;
  signal?: AbortSignal;
  onEvent?: (e: AskEvent) => void;
  clientId?: string;
}): Promise<AskRun> {
  const events: AskEvent[] = [];
  const t0 = Date.now();
  const result = await runAsk({ question, ...(opts.model ? { model: opts.model } : {}) }, {
    clientId: opts.clientId ?? 'test-client',
    runTool: opts.runTool,
    notify: (e) => { events.push(e); opts.onEvent?.(e); },
    signal: opts.signal ?? new AbortController().signal,
    stateDir: opts.stateDir,
    config: { host: fake.url, model: 'qwen3:8b', maxSteps: 8, timeoutMs: 20_000, ...opts.config },
  });
  return { result, events, ms: Date.now() - t0 };
}

/** A runTool for tests where every call must be refused before running; reaching it is a test failure. */
export const mustNotRun = async (name: unknown): Promise<ToolResult> => {
  throw new Error(`runTool reached for ${String(name)}: the call should have been refused before running`);
};
