// The `ask` method's handler: one client's question handed to the Ollama tool
// loop (ask/loop.ts), with that client's `evidex chat` conversations, its
// progress sent to it alone, and whatever the loop throws made into one
// JSON-RPC error. The loop is imported on the first question, so a daemon
// that is never asked anything never loads the Ollama client.
import type { ToolResult } from '../indexer/api.js';
import { ToolError } from '../indexer/errors.js';
import { RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { ASK_ERROR, Notifications, type AskModel, type AskModelParams, type AskParams, type AskResult } from '../protocol/messages.js';
import type { Conversation } from './ask/loop.js';
import type { Caller } from './caller.js';

/** Conversations one connection may keep (each is bounded by the context budget when used). */
const MAX_CONVERSATIONS = 16;

export interface AskHandlerDeps {
  /** The index's runTool (IndexHandle.runTool: checks the call, then answers it); the loop audits its calls itself. */
  runTool: (name: unknown, args: unknown) => ToolResult | Promise<ToolResult>;
  /** The index's first build while it runs (IndexHandle.firstBuild): a question waits for it off its clock. */
  firstBuild: () => Promise<unknown> | null;
  stateDir: string;
  /** The repository's absolute root (an answer's absolute paths under it cite repository paths). */
  root: string;
  /** Whether a repository path is an indexed file (an answer's citation of a file that does not exist is told apart). */
  indexed: (path: string) => Promise<boolean>;
}

export async function handleAsk(req: AskParams, client: Caller, ctx: RequestContext, deps: AskHandlerDeps): Promise<AskResult> {
  const { runAsk } = await import('./ask/loop.js');
  try {
    // The whole validated params: the client's settings override this daemon's environment per request.
    const conversation = req.conversation === undefined ? undefined : conversationOf(client, req.conversation);
    const { conversation: _c, ...request } = req;
    return await runAsk(request, {
      clientId: client.name,
      ...(conversation ? { conversation } : {}),
      runTool: deps.runTool,
      firstBuild: deps.firstBuild,
      // Events go to the asking client only; the params are the event itself plus the request id.
      notify: (event) => client.notify(Notifications.askEvent, { ...event, requestId: ctx.id }),
      signal: ctx.signal, // aborted when this client disconnects or sends $/cancelRequest
      stateDir: deps.stateDir,
      root: deps.root,
      indexed: deps.indexed,
    });
  } catch (e) {
    throw askError(e);
  }
}

/**
 * `ask/model`: the model an `ask` with these settings would use, resolved
 * as runAsk resolves it (resolveAskConfig: the settings, then this daemon's
 * environment, then the default), so chat's `/model` names it rather than
 * "the daemon's default". A setting it cannot use is the ask's own error.
 */
export async function handleAskModel(settings: AskModelParams): Promise<AskModel> {
  const { resolveAskConfig } = await import('./ask/config.js');
  try {
    return { model: resolveAskConfig({}, settings).model };
  } catch (e) {
    throw askError(e);
  }
}

/** What the ask loop threw as one JSON-RPC error: a refusal as it is, anything else ASK_ERROR with its code and one line. */
function askError(e: unknown): Error {
  if (e instanceof RpcError || e instanceof ToolError) return e;
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : 'ask_failed';
  const message = typeof err?.message === 'string' ? err.message.replace(/\s*\n\s*/g, ' ') : String(e);
  return new RpcError(ASK_ERROR, message, { code, message });
}

/** The client's conversation `id`, started when new (the oldest is dropped past MAX_CONVERSATIONS); none for a caller that keeps none. */
function conversationOf(client: Caller, id: string): Conversation | undefined {
  const all = client.conversations;
  if (!all) return undefined;
  let conversation = all.get(id);
  if (!conversation) {
    if (all.size >= MAX_CONVERSATIONS) all.delete(all.keys().next().value!);
    conversation = { turns: [] };
    all.set(id, conversation);
  }
  return conversation;
}
