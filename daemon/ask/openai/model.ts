// An OpenAI-compatible server (llama.cpp's llama-server, LM Studio, vLLM,
// LocalAI, Jan) behind the ChatModel interface (../model.ts), through the
// official `openai` package. The model check is /v1/models, the server's own
// window endpoint (server.ts) and a probe call (probe.ts); a turn is one
// streamed /v1/chat/completions. What differs from Ollama stays here: a call
// streams in pieces by `index` (its arguments as JSON text, in fragments),
// joined by ReplyAssembly and parsed only once the reply has ended; the
// window is fixed by the server, so nothing asks for one, and the reply is
// capped with `max_tokens` from the reserve; `finish_reason` says how the
// reply ended and `usage.prompt_tokens` (asked for with
// stream_options.include_usage) counts the prompt; reasoning arrives as
// `reasoning_content` (llama-server, vLLM) or `reasoning` (LM Studio).
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ReplyAssembly } from '../assembly.js';
import {
  ModelError, type ChatMessage, type ChatModel, type ModelDescription, type ModelFacts, type ModelReply, type ModelToolCall,
  type TextDelta, type ToolSpec, type TurnRequest,
} from '../model.js';
import { makeOpenAI, type ServerAddress } from './client.js';
import { classifyOpenAIError, type ErrorContext, type ServerKind } from './errors.js';
import { probeTools } from './probe.js';
import { checkServedModel, describeServer } from './server.js';

export interface OpenAISettings extends ServerAddress {
  model: string;
  /** Sent as chat_template_kwargs.enable_thinking when set (llama-server and vLLM pass it to the template); the model's default otherwise. */
  think?: boolean;
}

/** A streamed choice's delta as these servers send it: OpenAI's fields plus the reasoning ones. */
interface Delta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> | null;
}

export class OpenAIModel implements ChatModel {
  /** Learned by check: which server, for messages that name its flags. */
  private kind: ServerKind = 'server';

  constructor(private readonly settings: OpenAISettings) {}

  private context(): ErrorContext {
    const { base, model, apiKey } = this.settings;
    return { base, model, kind: this.kind, ...(apiKey !== undefined ? { apiKey } : {}) };
  }

  async check(signal: AbortSignal): Promise<ModelFacts> {
    const client = makeOpenAI(this.settings, signal);
    const facts = await checkServedModel(client, this.settings, this.context(), signal);
    this.kind = facts.kind;
    await probeTools(client, this.context(), signal);
    return facts.contextLength !== undefined ? { contextLength: facts.contextLength } : {};
  }

  describe(signal: AbortSignal): Promise<ModelDescription> {
    return describeServer(this.settings, signal);
  }

  async turn(request: TurnRequest, onText: TextDelta): Promise<ModelReply> {
    const { model, think } = this.settings;
    const client = makeOpenAI(this.settings, request.signal);
    const failure = (err: unknown, phase: 'request' | 'stream'): unknown =>
      request.signal.aborted ? request.signal.reason : classifyOpenAIError(err, this.context(), phase);
    let stream;
    try {
      stream = await client.chat.completions.create({
        model, messages: request.messages.map(wireMessage), tools: request.tools.map(wireTool),
        stream: true, stream_options: { include_usage: true }, max_tokens: request.replyReserve,
        ...(think !== undefined ? { chat_template_kwargs: { enable_thinking: think } } : {}),
      }, { signal: request.signal });
    } catch (err) {
      throw failure(err, 'request');
    }
    const reply = new ReplyAssembly(onText, request.maxReplyChars);
    const pieces = new PieceIndex();
    let doneReason: string | undefined;
    let promptTokens: number | undefined;
    try {
      for await (const chunk of stream) {
        const tokens = chunk.usage?.prompt_tokens;
        if (typeof tokens === 'number') promptTokens = tokens;
        for (const choice of chunk.choices ?? []) {
          const d = (choice.delta ?? {}) as Delta;
          const thinking = d.reasoning_content ?? d.reasoning;
          if (typeof thinking === 'string') reply.thinking(thinking);
          if (typeof d.content === 'string') reply.content(d.content);
          if (d.tool_calls !== undefined && d.tool_calls !== null) {
            if (!Array.isArray(d.tool_calls)) throw new ModelError('api_bad_reply', `the server sent tool_calls that is not a list: ${JSON.stringify(d.tool_calls).slice(0, 200)}`);
            for (const tc of d.tool_calls) {
              reply.callPiece({ index: pieces.of(tc), ...(tc.id ? { id: tc.id } : {}), ...(tc.function?.name ? { name: tc.function.name } : {}), ...(typeof tc.function?.arguments === 'string' ? { arguments: tc.function.arguments } : {}) });
            }
          }
          if (choice.finish_reason) doneReason = choice.finish_reason;
        }
        // Past its size cap the reply is not read on: the request ends, so the server stops generating.
        if (reply.full) { stream.controller.abort(); break; }
      }
    } catch (err) {
      throw failure(err, 'stream');
    }
    if (doneReason === undefined && !reply.full) {
      throw failure(new ModelError('api_stream_cut', `the reply from the server at ${this.settings.base} ended before it was complete (no finish_reason); the server may have crashed or been restarted`), 'stream');
    }
    const whole = reply.end(doneReason, promptTokens);
    whole.toolCalls = whole.toolCalls.map(parsedCall);
    return whole;
  }
}

/**
 * Which call a streamed piece belongs to: its `index`, as the API says; a
 * server that leaves the index out sends each call whole or starts a new one
 * with a new id, so a piece without one continues the last call unless it
 * brings an id of its own.
 */
class PieceIndex {
  private last = -1;
  private lastId: string | undefined;

  of(tc: { index?: number; id?: string }): number {
    if (typeof tc.index === 'number' && Number.isInteger(tc.index) && tc.index >= 0) {
      this.last = Math.max(this.last, tc.index);
      return tc.index;
    }
    if (this.last < 0 || (tc.id !== undefined && tc.id !== this.lastId)) this.last++;
    if (tc.id !== undefined) this.lastId = tc.id;
    return this.last;
  }
}

/**
 * A call whose arguments came as JSON text: parsed when they parse (none at
 * all is `{}`), else left as text with the parser's reason (the call is
 * refused with it); an id when the server gave none.
 */
function parsedCall(c: ModelToolCall): ModelToolCall {
  let args: unknown = c.arguments;
  let argumentsError: string | undefined;
  if (typeof args === 'string') {
    if (args.trim() === '') args = {};
    else { try { args = JSON.parse(args); } catch (err) { argumentsError = (err as Error).message; } }
  }
  return { name: c.name, arguments: args, id: c.id ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, ...(argumentsError !== undefined ? { argumentsError } : {}) };
}

/** A message in the OpenAI shape: calls with their id and arguments as JSON text, a tool's answer tied to its call by `tool_call_id`. */
export function wireMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'assistant':
      return m.toolCalls?.length
        ? { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c, i) => ({
          id: c.id ?? `call_${i}`, type: 'function' as const,
          function: { name: String(c.name), arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
        })) }
        : { role: 'assistant', content: m.content };
    case 'tool':
      // The answer to a call the model wrote as text has no call to be tied to, and OpenAI-style servers refuse
      // a tool message that answers none: it goes back as the next user message, naming the tool.
      return m.callId !== undefined ? { role: 'tool', tool_call_id: m.callId, content: m.content } : { role: 'user', content: `${m.toolName}: ${m.content}` };
    default:
      return { role: m.role, content: m.content };
  }
}

function wireTool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.function.name, description: t.function.description, parameters: t.function.parameters } };
}
