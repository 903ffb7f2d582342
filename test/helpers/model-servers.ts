// The two fake model servers behind one face, for the suites that run every
// scenario on both APIs: Ollama's own (test/fake-ollama) and an
// OpenAI-compatible server (test/fake-openai). Each is scripted the same way
// (ChatTurn); what differs is the wire, so a suite reads a request's messages
// through `view`, in evidex's own shape, and names the server to the loop or
// to a command through `serverConfig` / `serverEnv`.
import type { AskConfig } from '../../daemon/ask/config.js';
import type { ModelApi } from '../../protocol/messages.js';
import { FakeOllama, type FakeModel, type RecordedRequest } from '../fake-ollama/server.js';
import { FakeOpenAI, type PromptCounter } from '../fake-openai/server.js';
import type { Quirk } from '../fake-openai/quirks.js';

export type FakeServer = FakeOllama | FakeOpenAI;

export const APIS: readonly ModelApi[] = ['ollama', 'openai'];

export interface FakeOptions {
  models?: FakeModel[];
  /** The OpenAI-compatible server to play (default llama-server with --jinja). */
  quirk?: Quirk;
  counter?: PromptCounter;
}

/** A fake of `api`, not started. */
export function fakeServer(api: ModelApi, o: FakeOptions = {}): FakeServer {
  return api === 'ollama' ? new FakeOllama(o.models) : new FakeOpenAI(o);
}

/** A message of a request, as the loop meant it: role, text, the calls with their arguments, and the tool a result answers. */
export interface SeenMessage {
  role: string;
  content: string;
  toolCalls?: Array<{ name: unknown; arguments: unknown }>;
  /** For a tool message: the tool whose call it answers (Ollama names it; an OpenAI-style answer is tied to its call by id). */
  toolName?: string;
}

function parsed(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try { return JSON.parse(args); } catch { return args; }
}

/** The messages of a recorded chat request in evidex's own shape, whichever wire carried them. */
export function view(rec: RecordedRequest): SeenMessage[] {
  const msgs: any[] = rec.body?.messages ?? [];
  const names = new Map<string, unknown>();
  return msgs.map((m) => {
    const out: SeenMessage = { role: m.role, content: m.content ?? '' };
    if (Array.isArray(m.tool_calls)) {
      out.toolCalls = m.tool_calls.map((c: any) => {
        if (typeof c?.id === 'string') names.set(c.id, c.function?.name);
        return { name: c?.function?.name, arguments: parsed(c?.function?.arguments) };
      });
    }
    if (m.role === 'tool') out.toolName = m.tool_name ?? String(names.get(m.tool_call_id));
    return out;
  });
}

/** What the loop's config needs to reach the fake (tests that call runAsk in process). */
export function serverConfig(f: FakeServer): Partial<AskConfig> {
  return f.api === 'ollama' ? { host: f.url } : { api: 'openai', host: f.url };
}

/** The variables that point a command (or a daemon) at the fake. */
export function serverEnv(f: FakeServer): Record<string, string> {
  return f.api === 'ollama' ? { OLLAMA_HOST: f.url } : { EVIDEX_API: 'openai', EVIDEX_API_BASE: f.url };
}

/** The setting name of the server's address, as messages name it. */
export function serverVariable(api: ModelApi): string {
  return api === 'ollama' ? 'OLLAMA_HOST' : 'EVIDEX_API_BASE';
}

/** The request counted the whole prompt within the window, and the server kept all of it. */
export function withinWindow(rec: RecordedRequest): boolean {
  return rec.promptTokens! <= rec.numCtx! && !rec.truncated;
}

/** The window a request asked for (Ollama's num_ctx) or the server enforced (fixed at load). */
export function windowOf(rec: RecordedRequest): number | undefined {
  return rec.body?.options?.num_ctx ?? rec.numCtx;
}
