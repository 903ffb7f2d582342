// Ollama behind the ChatModel interface (../model.ts), through the `ollama`
// package: the model check is /api/show (capabilities.ts), a turn is one
// streamed /api/chat with the window asked for as options.num_ctx. Ollama
// sends each tool call whole, with its arguments already an object, says
// `done_reason: "length"` for a reply cut at the output limit and counts the
// prompt it kept in `prompt_eval_count`: all of it maps onto the interface
// as it is. The reply reserve is not sent: Ollama's num_predict stays the
// model's own default.
import type { Message, Tool, ToolCall } from 'ollama';
import { ReplyAssembly } from '../assembly.js';
import {
  ModelError, type ChatMessage, type ChatModel, type ModelDescription, type ModelFacts, type ModelReply, type ModelToolCall,
  type TextDelta, type ToolSpec, type TurnRequest,
} from '../model.js';
import { checkToolCapability, describeModel } from './capabilities.js';
import { classifyOllamaError, makeOllama } from './client.js';

export interface OllamaSettings {
  /** Ollama's base URL, normalised (config.ts). */
  host: string;
  model: string;
  /** Sent as `think` when set; the model's default otherwise. */
  think?: boolean;
}

export class OllamaModel implements ChatModel {
  constructor(private readonly settings: OllamaSettings) {}

  check(signal: AbortSignal): Promise<ModelFacts> {
    return checkToolCapability(makeOllama(this.settings.host, signal), this.settings.host, this.settings.model);
  }

  describe(signal: AbortSignal): Promise<ModelDescription> {
    return describeModel(makeOllama(this.settings.host, signal), this.settings.model);
  }

  async turn(request: TurnRequest, onText: TextDelta): Promise<ModelReply> {
    const { host, model, think } = this.settings;
    const ollama = makeOllama(host, request.signal);
    const failure = (err: unknown, phase: 'request' | 'stream'): unknown =>
      request.signal.aborted ? request.signal.reason : classifyOllamaError(err, host, model, phase);
    let stream;
    try {
      stream = await ollama.chat({
        model, messages: request.messages.map(wireMessage), tools: request.tools.map(wireTool), stream: true,
        options: { num_ctx: request.numCtx }, ...(think !== undefined ? { think } : {}),
      });
    } catch (err) {
      throw failure(err, 'request');
    }
    const reply = new ReplyAssembly(onText, request.maxReplyChars);
    let doneReason: string | undefined;
    let promptTokens: number | undefined;
    try {
      for await (const chunk of stream) {
        const m = chunk.message;
        if (m && typeof m.thinking === 'string') reply.thinking(m.thinking);
        if (m && typeof m.content === 'string') reply.content(m.content);
        if (m?.tool_calls !== undefined && m.tool_calls !== null) {
          if (!Array.isArray(m.tool_calls)) throw new ModelError('ollama_bad_reply', `Ollama sent tool_calls that is not a list: ${JSON.stringify(m.tool_calls).slice(0, 200)}`);
          reply.toolCalls(m.tool_calls.map(callOf));
        }
        if (chunk.done) {
          doneReason = chunk.done_reason;
          if (typeof chunk.prompt_eval_count === 'number') promptTokens = chunk.prompt_eval_count;
        }
        // Past its size cap the reply is not read on: the request ends, so Ollama stops generating.
        if (reply.full) { stream.abort(); break; }
      }
    } catch (err) {
      throw failure(err, 'stream');
    }
    return reply.end(doneReason, promptTokens);
  }
}

/** A call as Ollama sent it (`{function: {name, arguments}}`, newer servers add an `id`), whatever its shape. */
function callOf(raw: unknown): ModelToolCall {
  const r = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null | undefined;
  const fn = r?.function;
  return { name: fn?.name, arguments: fn?.arguments, ...(typeof r?.id === 'string' ? { id: r.id } : {}) };
}

/** A message in Ollama's shape: tool calls under `function`, a tool's answer named by `tool_name`. */
function wireMessage(m: ChatMessage): Message {
  switch (m.role) {
    case 'assistant':
      return m.toolCalls?.length ? { role: m.role, content: m.content, tool_calls: m.toolCalls.map(wireCall) } : { role: m.role, content: m.content };
    case 'tool':
      return { role: 'tool', tool_name: m.toolName, content: m.content };
    default:
      return { role: m.role, content: m.content };
  }
}

function wireCall(c: ModelToolCall): ToolCall {
  // The name and arguments go back exactly as the loop kept them (checked or not: they are the model's own history).
  const fn = { name: c.name, arguments: c.arguments } as ToolCall['function'];
  return c.id !== undefined ? { id: c.id, function: fn } as ToolCall : { function: fn };
}

/** The package spells out a subset of JSON Schema for `parameters`; the schema itself is the allowlist's, unchanged. */
function wireTool(t: ToolSpec): Tool {
  return { type: t.type, function: { name: t.function.name, description: t.function.description, parameters: t.function.parameters as Tool['function']['parameters'] } };
}
