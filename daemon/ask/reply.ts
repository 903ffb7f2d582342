// What real local models put in a reply that is not an answer: reasoning
// inside <think>…</think> in `content`, and tool calls written as text instead
// of through `tool_calls`. Both are recognised here, so the loop can keep
// thinking out of the answer and refuse a text call with a reason.

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Splits streamed content into visible text and thinking, chunk by chunk. A
 * tag may arrive cut across chunks, so a tail that could be the start of a tag
 * is held back until the next chunk (or the end) decides it.
 */
export class ThinkFilter {
  private inThink = false;
  private held = '';

  push(chunk: string): { content: string; thinking: string } {
    let text = this.held + chunk;
    this.held = '';
    let content = '';
    let thinking = '';
    for (;;) {
      const tag = this.inThink ? CLOSE : OPEN;
      const at = text.indexOf(tag);
      if (at === -1) {
        const keep = partialTagSuffix(text, tag);
        const out = text.slice(0, text.length - keep);
        this.held = text.slice(text.length - keep);
        if (this.inThink) thinking += out; else content += out;
        return { content, thinking };
      }
      if (this.inThink) thinking += text.slice(0, at); else content += text.slice(0, at);
      text = text.slice(at + tag.length);
      this.inThink = !this.inThink;
    }
  }

  /** The end of the reply: whatever was held back is what it looked like. */
  end(): { content: string; thinking: string } {
    const rest = this.held;
    this.held = '';
    return this.inThink ? { content: '', thinking: rest } : { content: rest, thinking: '' };
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

/** Removes <think>…</think> (and an unclosed <think> to the end) from a whole text. */
export function stripThinking(text: string): string {
  const f = new ThinkFilter();
  return f.push(text).content + f.end().content;
}

function asCall(v: unknown): { name: string; arguments: unknown } | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
  if (typeof fn.name !== 'string') return null;
  if (!('arguments' in fn) && !('parameters' in fn) && !('args' in fn)) return null;
  return { name: fn.name, arguments: fn.arguments ?? fn.parameters ?? fn.args };
}

/**
 * The tool call a reply wrote as text, if it is one: a JSON object (or list of
 * them) with a `name` and `arguments`/`parameters`, bare, in a code fence, in
 * <tool_call> tags or in LM Studio's [TOOL_REQUEST] … [END_TOOL_REQUEST]
 * markers — the forms qwen2.5-coder, llama3 and others emit when their
 * template does not turn them into tool_calls (LM Studio returns a call it
 * could not parse as such text). Prose that merely mentions a tool is not a
 * call.
 */
export function textToolCall(content: string): { name: string; arguments: unknown } | null {
  let t = content.trim();
  const tagged = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/.exec(t) ?? /\[TOOL_REQUEST\]\s*([\s\S]*?)\s*(?:\[END_TOOL_REQUEST\]|$)/.exec(t);
  if (tagged) t = tagged[1];
  const fenced = /^```[\w-]*\s*\n?([\s\S]*?)\n?```$/.exec(t);
  if (fenced) t = fenced[1].trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return null;
  let v: unknown;
  try { v = JSON.parse(t); } catch { return tagged ? { name: '(unparsed)', arguments: t.slice(0, 200) } : null; }
  return asCall(Array.isArray(v) ? v[0] : v);
}

/**
 * A call's identity for "the same call with the same arguments": the name and
 * the arguments with keys sorted. Null for arguments too deep to walk (they are
 * refused by validation anyway).
 */
export function callKey(name: string, args: unknown): string | null {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  try {
    return `${name}\0${JSON.stringify(canon(args ?? null))}`;
  } catch {
    return null;
  }
}
