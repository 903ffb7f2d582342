// A model turn's reply, assembled whole from the pieces a stream brings, the
// same way whatever the API: thinking as it comes, visible text with any
// `<think>…</think>` moved to thinking (a tag may be cut across pieces), tool
// calls gathered until the end. An implementation turns its wire chunks into
// these pieces; nothing runs until `end` gives the whole reply. Bounds on a
// reply belong here, once for every API: its size (content, thinking and call
// arguments together) is capped, so a model that streams without end costs
// the daemon no more than the cap — past it nothing more is kept, `full` tells
// the implementation to stop reading and end the request, and the reply comes
// back marked `overCap`. (How many of its calls run is answerCalls's bound.)
import type { ModelReply, ModelToolCall, TextDelta } from './model.js';
import { ThinkFilter } from './reply.js';

/**
 * Characters `v` takes as JSON, about (each value counts a few for its
 * punctuation), measured without recursion and given up once past `limit`:
 * a call's arguments may be nested deeper than any recursive walk survives.
 */
export function sizeUpTo(v: unknown, limit: number): number {
  const stack: unknown[] = [v];
  let size = 0;
  while (stack.length && size <= limit) {
    const x = stack.pop();
    size += 2;
    if (typeof x === 'string') size += x.length;
    else if (typeof x === 'number' || typeof x === 'boolean') size += String(x).length;
    else if (Array.isArray(x)) { for (const e of x) stack.push(e); }
    else if (x !== null && typeof x === 'object') {
      for (const [k, e] of Object.entries(x)) { size += k.length + 2; stack.push(e); if (size > limit) break; }
    }
  }
  return size;
}

export class ReplyAssembly {
  private readonly reply: ModelReply = { content: '', thinking: '', toolCalls: [] };
  private readonly think = new ThinkFilter();
  /** Characters taken so far (content, thinking, calls). */
  private size = 0;
  private over = false;

  /** `maxChars`: the reply's size cap (AskConfig.maxReplyChars). */
  constructor(private readonly onText: TextDelta, private readonly maxChars: number) {}

  /** The reply has reached its cap: take nothing more, stop reading and end the request. */
  get full(): boolean {
    return this.over;
  }

  /** Thinking the server sent as such (Ollama's `thinking`, a reasoning field). */
  thinking(text: string): void {
    const t = this.admit(text);
    if (!t) return;
    this.reply.thinking += t;
    this.onText('thinking', t);
  }

  /** A piece of the reply's text; `<think>` text in it is thinking. */
  content(text: string): void {
    const t = this.admit(text);
    if (t) this.take(this.think.push(t));
  }

  /** Calls, each already whole; past the cap, none is kept. */
  toolCalls(calls: readonly ModelToolCall[]): void {
    for (const c of calls) {
      if (this.over) return;
      const room = this.maxChars - this.size;
      const size = sizeUpTo(c.name, room) + sizeUpTo(c.arguments, room);
      if (size > room) { this.over = true; return; }
      this.size += size;
      this.reply.toolCalls.push(c);
    }
  }

  /** The end of the stream: what the filter held back is released, and the reply is whole (or cut at its cap). */
  end(doneReason: string | undefined, promptTokens: number | undefined): ModelReply {
    this.take(this.think.end());
    if (doneReason !== undefined) this.reply.doneReason = doneReason;
    if (promptTokens !== undefined) this.reply.promptTokens = promptTokens;
    if (this.over) this.reply.overCap = this.maxChars;
    return this.reply;
  }

  /** As much of `text` as the cap leaves room for; the cap is reached when it cuts. */
  private admit(text: string): string {
    if (!text || this.over) return '';
    const room = this.maxChars - this.size;
    if (text.length > room) { this.over = true; text = text.slice(0, room); }
    this.size += text.length;
    return text;
  }

  private take(part: { content: string; thinking: string }): void {
    if (part.thinking) { this.reply.thinking += part.thinking; this.onText('thinking', part.thinking); }
    if (part.content) { this.reply.content += part.content; this.onText('content', part.content); }
  }
}
