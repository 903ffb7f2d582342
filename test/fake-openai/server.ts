// A fake OpenAI-compatible server speaking the real wire protocol over
// loopback HTTP, so tests drive the real `openai` package end to end: POST
// /v1/chat/completions streamed as SSE (`data: {…}` chunks, `data: [DONE]`)
// or whole, GET /v1/models, and each server's own window endpoint (/props,
// /api/v0/models, max_model_len); usage in a last chunk when
// stream_options.include_usage asks; a call streamed as `delta.tool_calls`
// pieces by index, its arguments in fragments, parallel calls interleaved;
// finish_reason; error bodies as each server sends them (quirks.ts). Turns
// are scripted like the fake Ollama's (ChatTurn), so one suite can run on
// both. The probe the loop sends before its first question (a request whose
// one tool is evidex_probe) is answered by the "model" itself, as a model
// that can call tools would, and recorded apart from the turns.
//
// Like the servers, it refuses a history an OpenAI-style server refuses: a
// tool message that answers no call of the reply before it, or a call left
// unanswered.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeTokenCount, type ChatTurn, type FakeChunk, type FakeModel, type RecordedRequest } from '../fake-ollama/server.js';
import { FakeHttpServer } from '../helpers/fake-http.js';
import { dropsTools, errorBody, familyOf, overflow, toolsRefusal, type Quirk } from './quirks.js';

/** Counts a whole prompt as the server's tokenizer would: its messages (OpenAI shape) and tool list. */
export type PromptCounter = (messages: any[], tools: any[] | undefined) => number;

export interface FakeOpenAIOptions {
  models?: FakeModel[];
  quirk?: Quirk;
  /** Counts prompts with this (a real tokenizer and chat template) instead of the fake's own tokenizer. */
  counter?: PromptCounter;
}

/** A recorded request, with the headers it came with. */
export type OpenAIRecord = RecordedRequest & { headers: Record<string, string | string[] | undefined> };

export const FAKE_BUILD = 'b6500-fake';
export const FAKE_VLLM_VERSION = '0.10.2';
const PROBE_TOOL = 'evidex_probe';

export class FakeOpenAI extends FakeHttpServer<OpenAIRecord> {
  readonly api = 'openai' as const;
  readonly quirk: Quirk;
  models: FakeModel[];
  tokenScale = 1;
  /** How the "model" answers the probe (default: it calls the probe tool, unless the quirk drops tools or the model has none). */
  probeTurn?: ChatTurn;
  private readonly counter?: PromptCounter;

  constructor(opts: FakeOpenAIOptions = {}) {
    super('fake-openai');
    this.models = opts.models ?? [{ name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] }];
    this.quirk = opts.quirk ?? 'llama-server';
    if (opts.counter) this.counter = opts.counter;
  }

  /** The base URL, as the servers document it (ending in /v1). */
  get url(): string { return `http://127.0.0.1:${this.port}/v1`; }
  /** The chat requests that are model turns, in order (the probe is not one). */
  get chats(): OpenAIRecord[] { return this.requests.filter((r) => r.path === '/v1/chat/completions' && !isProbe(r.body)); }
  /** The probe requests. */
  get probes(): OpenAIRecord[] { return this.requests.filter((r) => r.path === '/v1/chat/completions' && isProbe(r.body)); }

  /** The window the server loaded `m` with (what it enforces), and whether it reports it. */
  windowOf(m: FakeModel): { window: number; reported: boolean } {
    return m.contextLength === null ? { window: 8192, reported: false } : { window: m.contextLength ?? 4096, reported: true };
  }


  private find(model: unknown): FakeModel | undefined {
    return typeof model === 'string' ? this.models.find((m) => m.name === model) : undefined;
  }

  protected record(req: IncomingMessage): OpenAIRecord {
    return { method: req.method ?? '', path: (req.url ?? '').split('?')[0], body: undefined, completed: false, aborted: false, headers: { ...req.headers } };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse, rec: OpenAIRecord, raw: string): Promise<void> {
    const family = familyOf(this.quirk);
    if (raw) {
      try { rec.body = JSON.parse(raw); } catch { return this.json(res, rec, 400, errorBody(family, 400, 'Failed to parse the request body as JSON')); }
    }
    if (rec.method === 'GET' && rec.path === '/v1/models') return this.json(res, rec, 200, { object: 'list', data: this.models.map((m) => this.modelEntry(m)) });
    if (rec.method === 'GET' && rec.path === '/props' && family === 'llama') return this.json(res, rec, 200, this.props());
    if (rec.method === 'GET' && rec.path === '/version' && family === 'vllm') return this.json(res, rec, 200, { version: FAKE_VLLM_VERSION });
    if (rec.method === 'GET' && rec.path === '/api/v0/models' && family === 'lmstudio') {
      return this.json(res, rec, 200, { object: 'list', data: this.models.map((m) => ({
        id: m.name, object: 'model', type: 'llm', publisher: 'lmstudio-community', arch: m.family ?? 'qwen3', compatibility_type: 'gguf',
        quantization: 'Q4_K_M', state: 'loaded', max_context_length: 131072, ...(this.windowOf(m).reported ? { loaded_context_length: this.windowOf(m).window } : {}),
      })) });
    }
    if (rec.method === 'POST' && rec.path === '/v1/chat/completions') return this.chat(res, rec);
    // LM Studio answers an unknown endpoint with HTTP 200 and an error object; the others with 404.
    if (family === 'lmstudio') return this.json(res, rec, 200, { error: `Unexpected endpoint or method. (${rec.method} ${rec.path})` });
    return this.json(res, rec, 404, errorBody(family, 404, `File Not Found`, 'not_found_error'));
  }

  private modelEntry(m: FakeModel): Record<string, unknown> {
    const base = { id: m.name, object: 'model', created: 1_700_000_000 };
    if (familyOf(this.quirk) === 'vllm') return { ...base, owned_by: 'vllm', root: m.name, parent: null, ...(this.windowOf(m).reported ? { max_model_len: this.windowOf(m).window } : {}) };
    if (familyOf(this.quirk) === 'llama') return { ...base, owned_by: 'llamacpp', meta: { n_ctx_train: 40960, n_params: 8_190_735_360 } };
    return { ...base, owned_by: 'organization_owner' };
  }

  /** llama-server's /props: the slot's window under default_generation_settings (one model: the first). */
  private props(): Record<string, unknown> {
    const m = this.models[0];
    const { window, reported } = m ? this.windowOf(m) : { window: 4096, reported: true };
    return {
      ...(reported ? { default_generation_settings: { n_ctx: window, params: { n_predict: -1 } } } : {}), total_slots: 1,
      model_path: `/models/${m?.name ?? 'model'}.gguf`, chat_template: '{{ messages }}', build_info: FAKE_BUILD,
    };
  }


  /** One message as the fake's tokenizer counts it: role, text, the calls and the id they answer. */
  private messageTokens(m: any): number {
    const parts = [String(m?.role ?? ''), typeof m?.content === 'string' ? m.content : ''];
    if (m?.tool_calls) parts.push(JSON.stringify(m.tool_calls.map((c: any) => c?.function)));
    return Math.ceil(fakeTokenCount(parts.join('\n')) * this.tokenScale) + 4;
  }

  private count(msgs: any[], tools: any[] | undefined): number {
    if (this.counter) return this.counter(msgs, tools);
    return (tools ? Math.ceil(fakeTokenCount(JSON.stringify(tools)) * this.tokenScale) : 0) + msgs.reduce((a, m) => a + this.messageTokens(m), 0);
  }

  /** A history an OpenAI-style server refuses, or null: each tool message answers a call of the reply before it, and every call is answered. */
  private badHistory(msgs: any[]): string | null {
    let open: Set<string> | null = null;
    for (const [i, m] of msgs.entries()) {
      if (m?.role === 'tool') {
        if (!open || !open.has(m.tool_call_id)) return `messages[${i}]: a tool message must answer a tool call of the assistant message before it (tool_call_id ${JSON.stringify(m.tool_call_id)})`;
        open.delete(m.tool_call_id);
        continue;
      }
      if (open && open.size) return `messages[${i}]: the tool calls ${[...open].join(', ')} have no tool message`;
      open = m?.role === 'assistant' && Array.isArray(m.tool_calls) ? new Set(m.tool_calls.map((c: any) => c?.id)) : null;
    }
    return open && open.size ? `the tool calls ${[...open].join(', ')} have no tool message` : null;
  }

  private async chat(res: ServerResponse, rec: OpenAIRecord): Promise<void> {
    const body = rec.body ?? {};
    const family = familyOf(this.quirk);
    const model = this.find(body.model);
    if (!model) return this.json(res, rec, 404, errorBody(family, 404, `The model \`${body.model}\` does not exist.`, 'NotFoundError'));
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const refused = hasTools ? toolsRefusal(this.quirk) : null;
    if (refused) return this.json(res, rec, refused.status, refused.body);
    const msgs: any[] = Array.isArray(body.messages) ? body.messages : [];
    const bad = this.badHistory(msgs);
    if (bad) return this.json(res, rec, 400, errorBody(family, 400, bad));
    const drop = dropsTools(this.quirk) || !model.capabilities.includes('tools');
    const tools = drop ? undefined : body.tools;
    const { window } = this.windowOf(model);
    const full = this.count(msgs, tools);
    rec.numCtx = window;
    rec.promptTokens = full;
    rec.keptTokens = full;
    rec.truncated = false;
    rec.kept = msgs;
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 0;
    const over = overflow(this.quirk, full, maxTokens, window);
    if (over && over !== 'truncate') return this.json(res, rec, over.status, over.body);
    if (over === 'truncate') this.truncate(rec, msgs, tools, window);
    let turn: ChatTurn | undefined;
    if (isProbe(body)) turn = this.probeTurn ?? (drop ? { chunks: [{ content: 'I cannot call functions here.' }] } : { chunks: [{ tool_calls: [{ function: { name: PROBE_TOOL, arguments: {} } }] }] });
    else turn = this.turns.shift() ?? this.fallback?.(body, this.chats.length - 1);
    if (!turn) return this.json(res, rec, 500, errorBody(family, 500, 'fake-openai: no scripted turn left'));
    if (turn.status) return this.json(res, rec, turn.status, errorBody(family, turn.status, turn.error ?? 'error'));
    // A server that parses no calls hands the model's call back as the text the model wrote.
    const chunks = drop ? (turn.chunks ?? []).map(asWrittenText) : turn.chunks ?? [];
    const usage = { prompt_tokens: turn.promptEvalCount ?? rec.keptTokens, completion_tokens: 7, total_tokens: (turn.promptEvalCount ?? rec.keptTokens) + 7 };
    if (body.stream !== true) return this.whole(res, rec, body, turn, chunks, usage);
    return this.stream(res, rec, body, turn, chunks, usage);
  }

  /** LM Studio and the rest: older messages dropped from the front (system kept) until the prompt fits; failing that, cut to the window. */
  private truncate(rec: OpenAIRecord, msgs: any[], tools: any[] | undefined, window: number): void {
    const system = msgs.filter((m) => m?.role === 'system');
    let rest = msgs.filter((m) => m?.role !== 'system');
    while (rest.length > 1 && this.count([...system, ...rest], tools) > window) rest = rest.slice(1);
    rec.kept = [...system, ...rest];
    rec.truncated = true;
    rec.keptTokens = Math.min(this.count(rec.kept, tools), window);
  }

  private base(body: any, id: string): Record<string, unknown> {
    return { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model, system_fingerprint: FAKE_BUILD };
  }

  /** A reply that is not streamed: the chunks merged into one message. */
  private whole(res: ServerResponse, rec: OpenAIRecord, body: any, turn: ChatTurn, chunks: FakeChunk[], usage: Record<string, number>): void {
    if (turn.errorLine) return this.json(res, rec, 500, errorBody(familyOf(this.quirk), 500, turn.errorLine));
    const calls = chunks.flatMap((c) => c.tool_calls ?? []).map((c) => ({ id: callId(), type: 'function', function: { name: c.function.name, arguments: argsText(c.function.arguments) } }));
    const reasoning = chunks.map((c) => c.thinking ?? '').join('');
    const message: Record<string, unknown> = { role: 'assistant', content: chunks.map((c) => c.content ?? '').join('') || (calls.length ? null : ''), ...(reasoning ? { reasoning_content: reasoning } : {}), ...(calls.length ? { tool_calls: calls } : {}) };
    return this.json(res, rec, 200, {
      id: `chatcmpl-${randomUUID()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: turn.doneReason ?? (calls.length ? 'tool_calls' : 'stop') }], usage,
    });
  }

  private async stream(res: ServerResponse, rec: OpenAIRecord, body: any, turn: ChatTurn, chunks: FakeChunk[], usage: Record<string, number>): Promise<void> {
    const id = `chatcmpl-${randomUUID()}`;
    const sse = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };
    const send = (data: unknown): Promise<boolean> => this.streamLine(res, turn, sse, `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    const delta = (d: Record<string, unknown>, finish: string | null = null): unknown => ({ ...this.base(body, id), choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
    if (!(await send(delta({ role: 'assistant', content: '' })))) return;
    let next = 0;
    for (const c of chunks) {
      if (c.thinking !== undefined && !(await send(delta({ reasoning_content: c.thinking })))) return;
      if (c.content !== undefined && c.content !== '' && !(await send(delta({ content: c.content })))) return;
      if (c.tool_calls) {
        for (const piece of callPieces(c.tool_calls, next)) if (!(await send(delta({ tool_calls: [piece] })))) return;
        next += c.tool_calls.length;
      }
    }
    if (turn.endless) {
      await this.streamEndless(res, { 'Content-Type': 'text/event-stream' }, turn.endless, (c) => {
        const d = c.thinking !== undefined ? { reasoning_content: c.thinking } : { content: c.content ?? '' };
        return `data: ${JSON.stringify(delta(d))}\n\n`;
      });
      return;
    }
    if (turn.unendedLineBytes !== undefined) {
      await this.streamUnendedLine(res, `data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(64 * 1024)}`, turn.unendedLineBytes);
      return;
    }
    if (turn.hang) return;
    if (turn.endEarly) { res.end(() => { rec.completed = true; }); return; }
    if (turn.errorLine !== undefined) {
      if (!(await send({ error: { code: 500, message: turn.errorLine, type: 'server_error' } }))) return;
      res.end(() => { rec.completed = true; });
      return;
    }
    if (!(await send(delta({}, turn.doneReason ?? (next > 0 ? 'tool_calls' : 'stop'))))) return;
    if (body.stream_options?.include_usage === true && !(await send({ ...this.base(body, id), choices: [], usage }))) return;
    if (!(await send('[DONE]'))) return;
    res.end(() => { rec.completed = true; });
  }
}

/** The probe the loop sends: a request whose one tool is evidex_probe. */
function isProbe(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.length === 1 && body.tools[0]?.function?.name === PROBE_TOOL;
}

function callId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** Arguments as the wire carries them: JSON text (a scripted string is sent as the model wrote it). */
function argsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

/**
 * The pieces a streamed reply sends parallel calls in: each call's first piece
 * (index, id, name, no arguments yet), then its arguments in fragments of a
 * few characters, the calls' fragments interleaved, each piece its own chunk.
 */
function callPieces(calls: NonNullable<FakeChunk['tool_calls']>, first: number): unknown[] {
  const heads = calls.map((c, i) => ({ index: first + i, id: callId(), type: 'function', function: { name: c.function.name, arguments: '' } }));
  const frags = calls.map((c) => argsText(c.function.arguments).match(/[\s\S]{1,7}/g) ?? []);
  const out: unknown[] = [...heads];
  for (let k = 0; frags.some((f) => k < f.length); k++) {
    frags.forEach((f, i) => { if (k < f.length) out.push({ index: first + i, function: { arguments: f[k] } }); });
  }
  return out;
}

/** A chunk as a server that parses no calls passes it on: its calls as the text the model wrote (Qwen's <tool_call> form). */
function asWrittenText(c: FakeChunk): FakeChunk {
  if (!c.tool_calls) return c;
  const text = c.tool_calls.map((t) => `<tool_call>\n{"name": ${JSON.stringify(t.function.name)}, "arguments": ${argsText(t.function.arguments)}}\n</tool_call>`).join('\n');
  return { ...(c.thinking !== undefined ? { thinking: c.thinking } : {}), content: (c.content ?? '') + text };
}
