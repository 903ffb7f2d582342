// The model behind the ask loop, as the loop sees it: whatever API serves it
// (Ollama's own, or another), a model is checked once, then asked for turns.
// A turn takes the conversation in evidex's own message shape and gives back
// the reply assembled whole: visible text, thinking, every tool call complete
// with its arguments parsed, why it ended, and the server's count of the
// prompt. Everything an API does differently — its wire shapes, how it
// streams calls, how it names a cut reply or counts a prompt, how it reports a
// window and a failure — stays inside its implementation, so the loop has no
// branch for any API (docs/architecture.md, "The ask loop").
import type { AskErrorCode, AskFailure } from '../../protocol/ask-events.js';

/** One tool as the model is offered it: the JSON-schema function shape both Ollama and OpenAI-style APIs take. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool call exactly as the model made it: nothing checked, nothing repaired. */
export interface ModelToolCall {
  /** The name as sent (any JSON value: the loop checks it). */
  name: unknown;
  /** The arguments as sent. An API that sends them as JSON text parses them; text that is not JSON stays a string (and is refused). */
  arguments: unknown;
  /** The API's id for the call, when it gives one; the `tool` message answering it carries it back. */
  id?: string;
  /** Why the arguments, sent as JSON text, did not parse (the parser's words, with the position): the call is refused with it. */
  argumentsError?: string;
}

/** A message of the conversation in evidex's own shape; each implementation writes it in its API's. */
export type ChatMessage = { role: 'system' | 'user'; content: string } | AssistantMessage | ToolMessage;

/** A reply of the model's, as its history: the calls as the loop kept them (names and arguments safe to serialise). */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ModelToolCall[];
}

/** The answer to one tool call: its result or its refusal, as text. */
export interface ToolMessage {
  role: 'tool';
  content: string;
  /** The tool's name as the call gave it (as logs show it). */
  toolName: string;
  /** The id of the call it answers, when the API gave one. */
  callId?: string;
}

/** What one model turn is asked with. */
export interface TurnRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** The window the prompt was fitted to; an API that sets the window per request (Ollama's num_ctx) asks for it. */
  numCtx: number;
  /** Tokens the prompt leaves free for the reply; an API may cap the reply's length with it. */
  replyReserve: number;
  /** The reply's size cap in characters (content, thinking, call arguments): the implementation's ReplyAssembly enforces it. */
  maxReplyChars: number;
  /** Ends the request, streamed or not, at once. */
  signal: AbortSignal;
}

/** Streamed text as it arrives: the model's thinking, or its visible text (`<think>` text already moved to thinking). */
export type TextDelta = (kind: 'thinking' | 'content', text: string) => void;

/** One model turn, assembled whole. */
export interface ModelReply {
  /** The visible text, without `<think>…</think>`. */
  content: string;
  thinking: string;
  /** Every call complete (an API that streams a call in pieces joins them first), in the order the model made them. */
  toolCalls: ModelToolCall[];
  /** Why the reply ended, as the server said it; `length` always means cut at the model's output limit, whatever the API calls it. */
  doneReason?: string;
  /** The server's own count of the prompt's tokens (what it kept of the prompt), when it gives one. */
  promptTokens?: number;
  /** Set (to the cap) when the reply reached its size cap: it was stopped there, and is not whole. */
  overCap?: number;
}

/** What the model check learns. */
export interface ModelFacts {
  /** The model's context length as the server reports it, when it does. */
  contextLength?: number;
}

/** The server's version and the model's digest, for reports that compare runs (evidex eval); best effort. */
export interface ModelDescription {
  version?: string;
  digest?: string;
}

/** A model, as one question uses it. Every method rejects with a ModelError, or with the signal's abort error. */
export interface ChatModel {
  /** Before the first turn: the model exists and can call tools (otherwise a ModelError naming models that can), and its window. */
  check(signal: AbortSignal): Promise<ModelFacts>;
  describe(signal: AbortSignal): Promise<ModelDescription>;
  /** One turn: `onText` hears the text as it streams; the promise gives the whole reply once the server has finished it. */
  turn(request: TurnRequest, onText: TextDelta): Promise<ModelReply>;
}

/** Why a model could not be used, in the loop's terms: a wire code and one actionable line. */
export class ModelError extends Error {
  /**
   * Set when the server refused the prompt as longer than its window and
   * said how many tokens it counted: the loop fits its budget to that count
   * and asks once more with less (loop.ts, modelTurn).
   */
  promptTokens?: number;

  constructor(readonly code: AskErrorCode, message: string) {
    super(message.replace(/\s*\n\s*/g, ' '));
    this.name = 'ModelError';
  }
  toJSON(): AskFailure { return { code: this.code, message: this.message }; }
}

export function isAbortError(err: unknown): boolean {
  return !!err && typeof err === 'object' && ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError');
}

/** Whatever a server answered is quoted as one short line at most: the daemon relays no foreign response bodies. */
const QUOTE_MAX = 200;
export function shortQuote(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > QUOTE_MAX ? `${t.slice(0, QUOTE_MAX - 1)}…` : t;
}
