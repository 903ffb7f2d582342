// Test plumbing shared by the ask tests: a real index over the fixture repo in
// a temp state folder, and one-call helpers that run a question against a
// fake model server (Ollama's or an OpenAI-compatible one) and collect its events.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import type { IndexHandle, ToolResult } from '../../indexer/api.js';
import { openIndex } from '../../indexer/index.js';
import type { AskConfig } from '../../daemon/ask/config.js';
import type { AskEvent, AskResult } from '../../protocol/ask-events.js';
import { runAsk } from '../../daemon/ask/loop.js';
import { FIXTURE, tempDir } from '../helpers/fs.js';
import type { ModelApi } from '../../protocol/messages.js';
import { fakeServer, serverConfig, type FakeServer } from '../helpers/model-servers.js';

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

/** What each test of a per-API suite gets: the fixture's index (opened once for the suite) and a fake server of the suite's API (fresh for each test). */
export interface ApiSuite { ix: FixtureIndex; f: FakeServer }

/** A uvu suite named after `api`, whose hooks open the fixture's index once and start a fresh fake server before each test (its tests read both from their context). */
export function apiSuite(api: ModelApi): Test<ApiSuite> {
  const test = suite<ApiSuite>(api, {} as ApiSuite);
  test.before(async (s) => { s.ix = await openFixtureIndex(); });
  test.after(async (s) => { await s.ix.close(); });
  test.before.each(async (s) => { s.f = await fakeServer(api).start(); });
  test.after.each(async (s) => { await s.f.stop(); });
  return test;
}

export function tempStateDir(): string {
  return tempDir('ask-state');
}

export interface AskRun { result: AskResult; events: AskEvent[]; ms: number }

export async function askFake(fake: FakeServer, question: string, opts: {
  runTool: (name: unknown, args: unknown) => Promise<ToolResult>;
  stateDir: string;
  model?: string;
  config?: Partial<AskConfig>;
  signal?: AbortSignal;
  onEvent?: (e: AskEvent) => void;
  clientId?: string;
  /** The repository's absolute root, as the daemon passes it. */
  root?: string;
  /** Whether a path is an indexed file, as the daemon passes it. */
  indexed?: (path: string) => Promise<boolean>;
}): Promise<AskRun> {
  const events: AskEvent[] = [];
  const t0 = Date.now();
  const result = await runAsk({ question, ...(opts.model ? { model: opts.model } : {}) }, {
    clientId: opts.clientId ?? 'test-client',
    runTool: opts.runTool,
    notify: (e) => { events.push(e); opts.onEvent?.(e); },
    signal: opts.signal ?? new AbortController().signal,
    stateDir: opts.stateDir,
    ...(opts.root ? { root: opts.root } : {}),
    ...(opts.indexed ? { indexed: opts.indexed } : {}),
    config: { ...serverConfig(fake), model: 'qwen3:8b', maxSteps: 8, timeoutMs: 20_000, ...opts.config },
  });
  return { result, events, ms: Date.now() - t0 };
}

/** A runTool for tests where every call must be refused before running; reaching it is a test failure. */
export const mustNotRun = async (name: unknown): Promise<ToolResult> => {
  throw new Error(`runTool reached for ${String(name)}: the call should have been refused before running`);
};
