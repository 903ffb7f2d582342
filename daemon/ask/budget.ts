// The context budget (docs/ask.md): how many tokens a prompt costs, how much
// room is left for a tool result, and whether the server kept the whole prompt.
//
// Ollama silently drops messages from the front of a prompt that is longer than
// num_ctx (keeping the system prompt), so the user's question is the first
// thing lost. evidex never sends such a prompt knowingly: every estimate here
// errs on the large side, and is raised whenever the server's own count of the
// prompt (Ollama's `prompt_eval_count`) shows the real tokenizer counted more.
import type { ChatMessage, ToolSpec } from './model.js';

/** Bytes per token assumed before Ollama has counted anything: dense for code and JSON, so the first estimate is high. */
const BYTES_PER_TOKEN = 3;
/** What the chat template adds around each message (role markers, separators). */
const PER_MESSAGE_TOKENS = 8;
/** A correction from prompt_eval_count overshoots a little, so the next estimate stays on the high side. */
const CORRECTION_MARGIN = 1.1;

/** Tokens kept free for the model's reply: a fifth of the window, 512 to 2,048 (a cited answer rarely needs more). */
export function replyReserve(numCtx: number): number {
  return Math.min(2048, Math.max(512, Math.floor(numCtx / 5)));
}

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * The text of one message as a template renders it (what is counted): its
 * content, its tool calls as `{"function":{"name":…,"arguments":…}}` each (the
 * shape both Ollama and OpenAI-style APIs send them in, less the ids), and the
 * name of the tool that answered.
 */
function messageText(m: ChatMessage): string {
  let t = m.content;
  if (m.role === 'assistant' && m.toolCalls?.length) t += JSON.stringify(m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })));
  if (m.role === 'tool' && m.toolName) t += m.toolName;
  return t;
}

export interface PromptCheck {
  /** Ollama's count shows that part of the prompt was dropped or cut. */
  cut: boolean;
  /** The factor after this observation (1 = the byte estimate was right or high). */
  factor: number;
}

export class ContextBudget {
  /** Multiplies the byte estimate; only ever raised. */
  private factor = 1;
  /** Ollama's tokens per estimated token on the first turn it did not cut (the tokenizer's own ratio). */
  private calibration: number | null = null;
  private readonly toolsBytes: number;

  constructor(readonly numCtx: number, tools: readonly ToolSpec[]) {
    this.toolsBytes = utf8Bytes(JSON.stringify(tools));
  }

  /** Tokens kept free for the model's reply. */
  get reserve(): number { return replyReserve(this.numCtx); }

  /** The most a prompt may cost: the window less the reply's reserve. */
  get limit(): number { return this.numCtx - this.reserve; }

  /** Tokens for `text` inside a message (no per-message overhead). */
  text(text: string): number {
    return Math.ceil((utf8Bytes(text) / BYTES_PER_TOKEN) * this.factor);
  }

  private raw(messages: readonly ChatMessage[]): number {
    let bytes = this.toolsBytes;
    for (const m of messages) bytes += utf8Bytes(messageText(m));
    return bytes / BYTES_PER_TOKEN + messages.length * PER_MESSAGE_TOKENS;
  }

  /** Tokens the whole prompt (tools included) costs. */
  prompt(messages: readonly ChatMessage[]): number {
    return Math.ceil(this.raw(messages) * this.factor);
  }

  /** Tokens left for more messages before the prompt reaches `limit` (negative when over). */
  room(messages: readonly ChatMessage[]): number {
    return this.limit - this.prompt(messages);
  }

  /**
   * After a turn: the server's count of `sent` (Ollama's `prompt_eval_count`).
   * A count above the estimate raises the factor. A count that fills the
   * window, or falls well short of what the tokenizer's measured ratio
   * predicts, means the server cut the prompt. A missing or zero count (some
   * Ollama versions leave it out when the prompt was cached) teaches nothing.
   */
  observe(sent: readonly ChatMessage[], promptEvalCount: number | undefined): PromptCheck {
    if (typeof promptEvalCount !== 'number' || !(promptEvalCount > 0)) return { cut: false, factor: this.factor };
    const raw = this.raw(sent);
    const ratio = promptEvalCount / raw;
    let cut = promptEvalCount >= this.numCtx - PER_MESSAGE_TOKENS;
    if (!cut && this.calibration !== null && promptEvalCount < 0.7 * raw * this.calibration) cut = true;
    if (!cut) {
      this.calibration ??= ratio;
      if (ratio * CORRECTION_MARGIN > this.factor) this.factor = ratio * CORRECTION_MARGIN;
    } else if (this.calibration !== null) {
      // The real count is unknown (only what was kept was counted); assume the worst ratio seen.
      this.factor = Math.max(this.factor, this.calibration * CORRECTION_MARGIN);
    } else {
      // Cut on the first turn: the kept part alone filled the window, so the tokenizer is at least this dense.
      this.factor = Math.max(this.factor, (this.numCtx / raw) * CORRECTION_MARGIN);
    }
    return { cut, factor: this.factor };
  }
}

/** The window to ask for: the model's context length, capped by EVIDEX_NUM_CTX (default 8192). */
export function chooseNumCtx(modelContextLength: number | undefined, cap: number): number {
  return modelContextLength && modelContextLength > 0 ? Math.min(modelContextLength, cap) : cap;
}
