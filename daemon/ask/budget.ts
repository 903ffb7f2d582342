// The context budget (docs/ask.md): how many tokens a prompt costs, how much
// room is left for a tool result, and whether the server kept the whole prompt.
//
// A server that gets a prompt longer than its window drops or cuts part of it
// (Ollama drops messages from the front, keeping the system prompt, so the
// question is the first thing lost; LM Studio does the same; llama-server and
// vLLM refuse it). evidex never sends such a prompt knowingly, and yet wants
// the window full of evidence, so the estimate is fitted to the server's own
// count of each prompt it was sent (Ollama's `prompt_eval_count`, an
// OpenAI-style `usage.prompt_tokens`), down as well as up.
//
// A prompt is counted in two parts, because their tokenizers' density differs
// and each is learned from a different turn:
//
//   fixed     the tool list, the system prompt, the question and the rest of
//             the conversation's own text, plus what the chat template adds
//             around them; the first turn's prompt is nearly all of it, so
//             the first count fits it exactly.
//   evidence  tool results (JSON envelopes of code), denser and escaped once
//             more by some templates; fitted from each later count, as what
//             the count holds beyond the fixed part.
//
// Before any count, each part is estimated from its bytes with a density on
// the dense side of what three model families' real tokenizers and chat
// templates measured (the table in docs/ask.md), so the first prompts err
// high; after, each estimate is the fitted one with a margin for the next
// result being denser than those counted.
import type { ChatMessage, ToolSpec } from './model.js';

/**
 * Bytes per token before the server has counted anything. Measured (qwen3,
 * llama3.1, gemma3 through their chat templates, docs/ask.md): prose 3.9 to
 * 4.3, the tool list as templates render it 2.3 to 3.2 (an indented copy of
 * the schemas, and instructions around it), tool results 2.75 to 3.45 in the
 * prompt (some templates quote them once more). Prose and the tool list are
 * counted in the first turn, so their priors sit below the densest measured;
 * the first tool result is sized before anything like it was counted, so its
 * prior sits at the densest (gemma3's), leaving the lightest (qwen3,
 * llama3.1) about three quarters of the room.
 */
const PRIOR_BYTES_PER_TOKEN = { prose: 3.5, tools: 2.2, evidence: 2.8 } as const;
/** What the chat template adds around each message (role markers, separators). */
const PER_MESSAGE_TOKENS = 8;
/** What templates add around a tool call or result besides: call ids, a result's wrapper (<tool_response>, gemma3's {"tool_response": …} in llama.cpp's generic format). */
const PER_CALL_TOKENS = 24;
/** What a template adds once (a date header, the tool-calling instructions around the list). */
const TEMPLATE_TOKENS = 64;
/**
 * Fitted estimates are raised by this much: the fixed part barely changes
 * once counted; the next prompt's tool results may be denser than those
 * counted (more path:line references, another template wrapper): in
 * ask-tokenizers the next prompt's results counted 0.95 to 1.11 times their
 * fitted estimate (gemma3 the densest), and a margin of 1.1 let one prompt
 * past its limit.
 */
const FIXED_MARGIN = 1.02;
const EVIDENCE_MARGIN = 1.15;
/** A fitted evidence factor stays within these bounds of the prior (a count that says more is read as noise). */
const EVIDENCE_FACTOR_RANGE = [0.5, 3] as const;
/** A prompt whose tool results are at most this share of it fits the fixed part (what it mostly holds); one with more fits the results. */
const FIXED_PART_SHARE = 0.25;
/** A count below this share of the fitted prediction means the server cut the prompt (it counts only what it kept). */
const CUT_SHORTFALL = 0.7;

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

/** A prompt's two parts, in prior tokens (before any factor). */
interface Parts { fixed: number; evidence: number }

export interface PromptCheck {
  /** The server's count shows that part of the prompt was dropped or cut. */
  cut: boolean;
  /** The factors after this observation (1 = the prior was right). */
  fixedFactor: number;
  evidenceFactor: number;
}

export class ContextBudget {
  /** Real tokens per prior token of each part; 1 until a count says otherwise, in either direction. */
  private fixedFactor = 1;
  private evidenceFactor = 1;
  private fixedFitted = false;
  private evidenceFitted = false;
  private readonly toolsTokens: number;

  constructor(readonly numCtx: number, tools: readonly ToolSpec[]) {
    this.toolsTokens = utf8Bytes(JSON.stringify(tools)) / PRIOR_BYTES_PER_TOKEN.tools + TEMPLATE_TOKENS;
  }

  /** Tokens kept free for the model's reply. */
  get reserve(): number { return replyReserve(this.numCtx); }

  /** The most a prompt may cost: the window less the reply's reserve. */
  get limit(): number { return this.numCtx - this.reserve; }

  private fixedScale(): number { return this.fixedFactor * (this.fixedFitted ? FIXED_MARGIN : 1); }
  private evidenceScale(): number { return this.evidenceFactor * (this.evidenceFitted ? EVIDENCE_MARGIN : 1); }

  /** Tokens for `text` inside a tool result (no per-message overhead): how results are sized to the room. */
  text(text: string): number {
    return Math.ceil((utf8Bytes(text) / PRIOR_BYTES_PER_TOKEN.evidence) * this.evidenceScale());
  }

  /** Tokens a tool message costs besides its content: the template's wrapper, its call's id, the tool's name. */
  resultOverhead(toolName: string): number {
    return Math.ceil((PER_MESSAGE_TOKENS + PER_CALL_TOKENS) * this.fixedScale()) + this.text(toolName) + 1;
  }

  private parts(messages: readonly ChatMessage[]): Parts {
    const p: Parts = { fixed: this.toolsTokens, evidence: 0 };
    for (const m of messages) {
      p.fixed += PER_MESSAGE_TOKENS + (m.role === 'tool' || (m.role === 'assistant' && m.toolCalls?.length) ? PER_CALL_TOKENS : 0);
      if (m.role === 'tool') p.evidence += utf8Bytes(messageText(m)) / PRIOR_BYTES_PER_TOKEN.evidence;
      else p.fixed += utf8Bytes(messageText(m)) / PRIOR_BYTES_PER_TOKEN.prose;
    }
    return p;
  }

  /** Tokens the whole prompt (tools included) costs. */
  prompt(messages: readonly ChatMessage[]): number {
    const p = this.parts(messages);
    return Math.ceil(p.fixed * this.fixedScale() + p.evidence * this.evidenceScale());
  }

  /** Tokens left for more messages before the prompt reaches `limit` (negative when over). */
  room(messages: readonly ChatMessage[]): number {
    return this.limit - this.prompt(messages);
  }

  /**
   * After a turn: the server's count of `sent`. A prompt with little
   * evidence fits the fixed part to it; one with more fits the evidence part
   * to what the count holds beyond the fixed part. A count that fills the
   * window, or falls well short of the fitted prediction, means the server
   * cut the prompt: nothing is fitted down from it, and the factor is raised
   * to at least what the window alone shows. A missing or zero count (Ollama
   * leaves it out when the prompt was cached) teaches nothing. `whole` says
   * the server counted all of the prompt, past the window too (a server
   * refusing it as too long): never a cut, fitted like any count.
   */
  observe(sent: readonly ChatMessage[], count: number | undefined, whole = false): PromptCheck {
    if (typeof count !== 'number' || !(count > 0)) return this.check(false);
    const p = this.parts(sent);
    const predicted = p.fixed * this.fixedFactor + p.evidence * this.evidenceFactor;
    // The least the count can honestly be: evidence not yet counted may be lighter than its prior, down to the range's floor.
    const least = p.fixed * this.fixedFactor + p.evidence * (this.evidenceFitted ? this.evidenceFactor : EVIDENCE_FACTOR_RANGE[0]);
    const cut = !whole && (count >= this.numCtx - PER_MESSAGE_TOKENS || (this.fixedFitted && count < CUT_SHORTFALL * least));
    if (cut) {
      // Only what was kept was counted: the whole was at least the window.
      if (!this.fixedFitted) {
        this.fixedFactor = Math.max(this.fixedFactor, this.numCtx / (p.fixed + p.evidence));
        this.evidenceFactor = Math.max(this.evidenceFactor, this.fixedFactor);
      } else if (p.evidence > 0) {
        this.evidenceFactor = Math.max(this.evidenceFactor, (this.numCtx - p.fixed * this.fixedFactor) / p.evidence);
      } else {
        this.fixedFactor = Math.max(this.fixedFactor, this.numCtx / p.fixed);
      }
      return this.check(true);
    }
    const evidenceShare = (p.evidence * this.evidenceFactor) / predicted;
    if (!this.fixedFitted && evidenceShare > FIXED_PART_SHARE) {
      // Evidence from the start (a conversation's earlier results): one factor for both parts until the fixed part is counted alone.
      this.fixedFactor = this.evidenceFactor = count / (p.fixed + p.evidence);
      this.evidenceFitted = true;
    } else if (!this.fixedFitted || evidenceShare <= FIXED_PART_SHARE) {
      this.fixedFactor = Math.max(0.1, (count - p.evidence * this.evidenceFactor) / p.fixed);
    } else {
      const [lo, hi] = EVIDENCE_FACTOR_RANGE;
      this.evidenceFactor = Math.min(hi, Math.max(lo, (count - p.fixed * this.fixedFactor) / p.evidence));
      this.evidenceFitted = true;
    }
    this.fixedFitted = true;
    return this.check(false);
  }

  private check(cut: boolean): PromptCheck {
    return { cut, fixedFactor: this.fixedFactor, evidenceFactor: this.evidenceFactor };
  }
}

/** The window to ask for: the model's context length, capped by EVIDEX_NUM_CTX (default 8192). */
export function chooseNumCtx(modelContextLength: number | undefined, cap: number): number {
  return modelContextLength && modelContextLength > 0 ? Math.min(modelContextLength, cap) : cap;
}
