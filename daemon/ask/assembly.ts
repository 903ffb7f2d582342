// A model turn's reply, assembled whole from the pieces a stream brings, the
// same way whatever the API: thinking as it comes, visible text with any
// `<think>…</think>` moved to thinking (a tag may be cut across pieces), tool
// calls gathered until the end. An implementation turns its wire chunks into
// these pieces; nothing runs until `end` gives the whole reply. Bounds on a
// reply (how many calls, how much text) belong here, once for every API.
import type { ModelReply, ModelToolCall, TextDelta } from './model.js';
import { ThinkFilter } from './reply.js';

export class ReplyAssembly {
  private readonly reply: ModelReply = { content: '', thinking: '', toolCalls: [] };
  private readonly think = new ThinkFilter();

  constructor(private readonly onText: TextDelta) {}

  /** Thinking the server sent as such (Ollama's `thinking`, a reasoning field). */
  thinking(text: string): void {
    if (!text) return;
    this.reply.thinking += text;
    this.onText('thinking', text);
  }

  /** A piece of the reply's text; `<think>` text in it is thinking. */
  content(text: string): void {
    if (text) this.take(this.think.push(text));
  }

  /** Calls, each already whole. */
  toolCalls(calls: readonly ModelToolCall[]): void {
    this.reply.toolCalls.push(...calls);
  }

  /** The end of the stream: what the filter held back is released, and the reply is whole. */
  end(doneReason: string | undefined, promptTokens: number | undefined): ModelReply {
    this.take(this.think.end());
    if (doneReason !== undefined) this.reply.doneReason = doneReason;
    if (promptTokens !== undefined) this.reply.promptTokens = promptTokens;
    return this.reply;
  }

  private take(part: { content: string; thinking: string }): void {
    if (part.thinking) { this.reply.thinking += part.thinking; this.onText('thinking', part.thinking); }
    if (part.content) { this.reply.content += part.content; this.onText('content', part.content); }
  }
}
