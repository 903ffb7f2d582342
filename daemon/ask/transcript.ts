// The prompt one question sends the model: the tool list and the messages,
// fitted to the window by the budget. When room runs out, the oldest tool
// results shrink to the path:line lists of what they held, then whole earlier
// turns of a conversation go, then whole earlier exchanges of this question;
// the system prompt and the question never do.
import type { ContextBudget } from './budget.js';
import type { ChatMessage, ToolMessage, ToolSpec } from './model.js';
import { summariseToolContent } from './prompt.js';

/** A prompt message evidex may shrink to make room, and how. */
type Shrinkable = { kind: 'tool'; message: ToolMessage } | { kind: 'history'; messages: ChatMessage[] };

export class Transcript {
  /** What the next turn sends, in order. */
  readonly messages: ChatMessage[] = [];
  /** Messages that may be shrunk, oldest first: earlier conversation turns, then tool results as they come. */
  private readonly shrinkable: Shrinkable[] = [];
  /**
   * Whole earlier exchanges of this question (a reply's tool calls and their
   * results), dropped oldest first once every result is already summarised;
   * the latest one always stays.
   */
  private readonly exchanges: ChatMessage[][] = [];

  constructor(readonly budget: ContextBudget, readonly tools: readonly ToolSpec[]) {}

  add(m: ChatMessage): void {
    this.messages.push(m);
  }

  /** Messages the question can do without (an earlier turn of a conversation, its evidence): dropped together when room runs out. */
  addDroppable(ms: ChatMessage[]): void {
    this.messages.push(...ms);
    this.shrinkable.push({ kind: 'history', messages: ms });
  }

  /**
   * The end of one exchange: a reply and the answers to its calls. Results
   * that ran may be summarised from now on; those of one reply never make
   * room for each other.
   */
  endExchange(reply: ChatMessage, results: readonly ToolMessage[]): void {
    for (const m of results) this.shrinkable.push({ kind: 'tool', message: m });
    this.exchanges.push(this.messages.slice(this.messages.indexOf(reply)));
  }

  /** Tokens left before the whole prompt reaches the budget's limit (negative when over). */
  room(): number {
    return this.budget.room(this.messages);
  }

  /**
   * Shrinks the oldest shrinkable messages (tool results to path:line lists,
   * then whole earlier conversation turns, then earlier exchanges) until
   * `need` tokens are free or nothing is left to shrink. Returns how many
   * were shrunk.
   */
  makeRoom(need: number): number {
    let shrunk = 0;
    let s: Shrinkable | undefined;
    while (this.room() < need && (s = this.shrinkable.shift())) {
      if (s.kind === 'tool') {
        const summary = summariseToolContent(s.message.content);
        if (summary !== null && summary.length < s.message.content.length) { s.message.content = summary; shrunk++; }
      } else {
        this.drop(s.messages);
        shrunk++;
      }
    }
    while (this.room() < need && this.exchanges.length > 1) {
      this.drop(this.exchanges.shift() ?? []);
      shrunk++;
    }
    return shrunk;
  }

  private drop(ms: readonly ChatMessage[]): void {
    for (const m of ms) { const at = this.messages.indexOf(m); if (at !== -1) this.messages.splice(at, 1); }
  }
}
