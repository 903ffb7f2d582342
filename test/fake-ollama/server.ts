// A fake Ollama that speaks the real wire protocol over loopback HTTP, so
// tests drive the real `ollama` package end to end. Each /api/chat request
// takes the next scripted turn; every request is recorded (the transcript
// tests assert), including whether the client closed it before it finished.
//
// Shapes follow Ollama's own server (api/types.go, server/routes.go): NDJSON
// chunks with `done: false`, then a final `done: true` chunk with done_reason and
// durations; errors as {"error": "..."} with the HTTP status Ollama uses; an
// error after streaming began is an {"error": ...} line inside the 200 stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from '../helpers/fake-http.js';

export interface FakeModel {
  name: string;
  capabilities: string[];
  family?: string;
  /** `<family>.context_length` in /api/show model_info (default 4096); null leaves it out. */
  contextLength?: number | null;
  digest?: string;
}

/** Ollama's own default window when a request sets no num_ctx (the older, smaller one: a missing num_ctx must show). */
export const FAKE_DEFAULT_NUM_CTX = 2048;
export const FAKE_VERSION = '0.12.3';

/**
 * The fake's tokenizer: independent of evidex's estimate, and harsher than a
 * real BPE on code and JSON — every digit is a token of its own, a run of
 * letters is one token per 4 letters, a run of other symbols one per 2, a run
 * of whitespace one token.
 */
export function fakeTokenCount(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[A-Za-z]+|\d|\s+|[^\sA-Za-z\d]+/gu)) {
    const t = m[0];
    n += /^[A-Za-z]/.test(t) ? Math.ceil(t.length / 4) : /^[^\s\d]/.test(t) ? Math.ceil([...t].length / 2) : 1;
  }
  return n;
}

export interface FakeChunk {
  content?: string;
  thinking?: string;
  tool_calls?: Array<{ function: { name: unknown; arguments: unknown } }>;
  /** tool_calls as JSON text, sent verbatim (streamed turns only): for values JSON.stringify cannot write, such as 200k-deep nesting. */
  rawToolCalls?: string;
}

/** Stands in for rawToolCalls while the rest of the line is serialised. */
const RAW_MARK = '\u0000raw-tool-calls';

export interface ChatTurn {
  chunks?: FakeChunk[];        // each becomes one `done: false` line (streamed); merged into one message when not streaming
  delayMs?: number;            // pause before each line
  splitLines?: boolean;        // write each line in two TCP writes, cutting it in the middle of the JSON
  errorLine?: string;          // after the chunks, an {"error": ...} line and the end of the response (no done line)
  hang?: boolean;              // after the chunks, keep the response open until the client goes away
  /** After the chunks, this chunk again and again until the client goes away (a model that streams without end); `sent` counts them. */
  endless?: { chunk: FakeChunk; sent?: number };
  /** After the chunks, this many bytes of one line that never ends, then the response stays open until the client goes away. */
  unendedLineBytes?: number;
  endEarly?: boolean;          // after the chunks, end the response without a done line (a crashed server)
  status?: number;             // answer this HTTP status with {"error": error} instead of a reply
  error?: string;
  doneReason?: string;         // default "stop"
  /** Reported instead of the kept prompt's token count (e.g. to model a server that miscounts). */
  promptEvalCount?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: any;                   // parsed JSON body (undefined for GET)
  completed: boolean;          // the server finished its response
  aborted: boolean;            // the client closed the connection before the response finished
  /** /api/chat only: the window used (options.num_ctx, else FAKE_DEFAULT_NUM_CTX), the whole prompt's tokens, and what was kept. */
  numCtx?: number;
  promptTokens?: number;
  keptTokens?: number;
  /** Messages dropped from the front (the system prompt is kept), as Ollama does when a prompt is over the window. */
  truncated?: boolean;
  /** The messages the "model" actually saw after truncation. */
  kept?: any[];
}

/** Handy constructors for scripted chunks. */
export const call = (name: unknown, args: unknown): { function: { name: unknown; arguments: unknown } } =>
  ({ function: { name, arguments: args } });

function fullName(model: string): string {
  return model.includes(':') ? model : `${model}:latest`;
}

export class FakeOllama extends FakeHttpServer<RecordedRequest> {
  /** Which API it speaks (the parameterised suites ask each fake for its own). */
  readonly api = 'ollama' as const;
  /** Multiplies every token count (a denser tokenizer than the default one). */
  tokenScale = 1;

  constructor(public models: FakeModel[] = [{ name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] }]) {
    super('fake-ollama');
  }

  get url(): string { return `http://127.0.0.1:${this.port}`; }
  /** Only the /api/chat requests, in order. */
  get chats(): RecordedRequest[] { return this.requests.filter((r) => r.path === '/api/chat'); }

  private find(model: unknown): FakeModel | undefined {
    return typeof model === 'string' ? this.models.find((m) => fullName(m.name) === fullName(model)) : undefined;
  }

  protected record(req: IncomingMessage): RecordedRequest {
    return { method: req.method ?? '', path: (req.url ?? '').split('?')[0], body: undefined, completed: false, aborted: false };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, raw: string): Promise<void> {
    if (raw) {
      try { rec.body = JSON.parse(raw); } catch { return this.json(res, rec, 400, { error: 'invalid character in JSON body' }); }
    }
    if (rec.method === 'GET' && rec.path === '/api/tags') {
      return this.json(res, rec, 200, {
        models: this.models.map((m) => ({
          name: fullName(m.name), model: fullName(m.name), modified_at: '2025-01-01T00:00:00Z', size: 5_000_000_000,
          digest: m.digest ?? 'sha256:' + '0'.repeat(64), details: this.details(m),
        })),
      });
    }
    if (rec.method === 'GET' && rec.path === '/api/version') return this.json(res, rec, 200, { version: FAKE_VERSION });
    if (rec.method === 'POST' && rec.path === '/api/show') {
      const m = this.find(rec.body?.model);
      if (!m) return this.json(res, rec, 404, { error: `model '${rec.body?.model}' not found` });
      const arch = m.family ?? 'qwen3';
      const info: Record<string, unknown> = { 'general.architecture': arch, 'general.parameter_count': 8_190_735_360 };
      if (m.contextLength !== null) info[`${arch}.context_length`] = m.contextLength ?? 4096;
      return this.json(res, rec, 200, {
        license: '', modelfile: `FROM ${fullName(m.name)}`, parameters: '', template: '{{ .Prompt }}',
        details: this.details(m), model_info: info,
        capabilities: m.capabilities, modified_at: '2025-01-01T00:00:00Z',
      });
    }
    if (rec.method === 'POST' && rec.path === '/api/chat') return this.chat(req, res, rec);
    return this.json(res, rec, 404, { error: `404 page not found` });
  }

  /** A message as the prompt template renders it: role, text, thinking, tool calls and the tool's name. */
  private messageTokens(m: any): number {
    const parts = [String(m?.role ?? ''), String(m?.content ?? '')];
    if (m?.thinking) parts.push(String(m.thinking));
    if (m?.tool_calls) parts.push(JSON.stringify(m.tool_calls));
    if (m?.tool_name) parts.push(String(m.tool_name));
    return Math.ceil(fakeTokenCount(parts.join('\n')) * this.tokenScale) + 4;
  }

  /**
   * Ollama's chatPrompt: the system messages (with the tools rendered beside
   * them) are always kept, and so is the last message; older messages are
   * dropped from the front until the rest fits num_ctx. If even that does not
   * fit, the runner cuts tokens and the prompt fills the window.
   */
  private fitPrompt(rec: RecordedRequest, body: any): void {
    const numCtx = typeof body?.options?.num_ctx === 'number' ? body.options.num_ctx : FAKE_DEFAULT_NUM_CTX;
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const fixed = (body?.tools ? Math.ceil(fakeTokenCount(JSON.stringify(body.tools)) * this.tokenScale) : 0)
      + msgs.filter((m) => m?.role === 'system').reduce((a, m) => a + this.messageTokens(m), 0);
    const rest = msgs.filter((m) => m?.role !== 'system');
    const sizes = rest.map((m) => this.messageTokens(m));
    const full = fixed + sizes.reduce((a, b) => a + b, 0);
    let from = 0;
    let kept = full;
    while (kept > numCtx && from < rest.length - 1) kept -= sizes[from++];
    rec.numCtx = numCtx;
    rec.promptTokens = full;
    rec.truncated = from > 0 || kept > numCtx;
    rec.keptTokens = Math.min(kept, numCtx);
    rec.kept = [...msgs.filter((m) => m?.role === 'system'), ...rest.slice(from)];
  }

  private details(m: FakeModel): Record<string, unknown> {
    return { parent_model: '', format: 'gguf', family: m.family ?? 'qwen3', families: [m.family ?? 'qwen3'], parameter_size: '8.2B', quantization_level: 'Q4_K_M' };
  }


  private async chat(_req: IncomingMessage, res: ServerResponse, rec: RecordedRequest): Promise<void> {
    const body = rec.body ?? {};
    const model = this.find(body.model);
    if (!model) return this.json(res, rec, 404, { error: `model "${body.model}" not found, try pulling it first` });
    if (Array.isArray(body.tools) && body.tools.length && !model.capabilities.includes('tools')) {
      return this.json(res, rec, 400, { error: `registry.ollama.ai/library/${fullName(model.name)} does not support tools` });
    }
    this.fitPrompt(rec, body);
    const n = this.chats.length - 1;
    const turn = this.turns.shift() ?? this.fallback?.(body, n);
    if (!turn) return this.json(res, rec, 500, { error: 'fake-ollama: no scripted turn left' });
    if (turn.status) return this.json(res, rec, turn.status, { error: turn.error ?? 'error' });

    const base = (): Record<string, unknown> => ({ model: body.model, created_at: new Date().toISOString() });
    const message = (c: FakeChunk): Record<string, unknown> => {
      const m: Record<string, unknown> = { role: 'assistant', content: c.content ?? '' };
      if (c.thinking !== undefined) m.thinking = c.thinking;
      if (c.tool_calls !== undefined) m.tool_calls = c.tool_calls;
      if (c.rawToolCalls !== undefined) m.tool_calls = RAW_MARK;
      return m;
    };
    const final = {
      done_reason: turn.doneReason ?? 'stop', done: true, total_duration: 1_234_567, load_duration: 12_345,
      prompt_eval_count: turn.promptEvalCount ?? rec.keptTokens, prompt_eval_duration: 100_000, eval_count: 7, eval_duration: 200_000,
    };
    const stream = body.stream !== false; // Ollama streams unless told not to
    if (!stream) {
      if (turn.errorLine) return this.json(res, rec, 500, { error: turn.errorLine });
      const merged: FakeChunk = { content: '', thinking: undefined, tool_calls: undefined };
      for (const c of turn.chunks ?? []) {
        merged.content += c.content ?? '';
        if (c.thinking) merged.thinking = (merged.thinking ?? '') + c.thinking;
        if (c.tool_calls) merged.tool_calls = [...(merged.tool_calls ?? []), ...c.tool_calls];
      }
      return this.json(res, rec, 200, { ...base(), message: message(merged), ...final });
    }
    const ndjson = { 'Content-Type': 'application/x-ndjson' };
    const send = async (obj: unknown, raw?: string): Promise<boolean> => {
      const json = JSON.stringify(obj);
      return this.streamLine(res, turn, ndjson, (raw === undefined ? json : json.replace(JSON.stringify(RAW_MARK), () => raw)) + '\n');
    };
    for (const c of turn.chunks ?? []) {
      if (!(await send({ ...base(), message: message(c), done: false }, c.rawToolCalls))) return;
    }
    if (turn.endless) {
      await this.streamEndless(res, ndjson, turn.endless, (c) => `${JSON.stringify({ ...base(), message: message(c), done: false })}\n`);
      return;
    }
    if (turn.unendedLineBytes !== undefined) {
      if (!res.headersSent) res.writeHead(200, ndjson);
      await this.streamUnendedLine(res, `{"message":{"role":"assistant","content":"${'x'.repeat(64 * 1024)}`, turn.unendedLineBytes);
      return; // open until the client goes away
    }
    if (turn.hang) { if (!res.headersSent) res.writeHead(200, ndjson); return; } // open until the client goes away
    if (turn.endEarly) { res.end(() => { rec.completed = true; }); return; }
    if (turn.errorLine !== undefined) {
      if (!(await send({ error: turn.errorLine }))) return;
      res.end(() => { rec.completed = true; });
      return;
    }
    if (!(await send({ ...base(), message: { role: 'assistant', content: '' }, ...final }))) return;
    res.end(() => { rec.completed = true; });
  }
}
