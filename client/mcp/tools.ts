// How the daemon's tools look to an MCP host: its tools/list descriptors (the
// zod-generated argument and answer schemas, passed through unchanged) with
// descriptions addressed to a model, and its answers and refusals as MCP tool
// results. Nothing here decides what a call may do: the daemon validates,
// applies the path rules and audits every call.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../indexer/api.js';
import { SYMBOL_LANGUAGES, type ToolDescriptor, type ToolName } from '../../indexer/query/schemas.js';
import { ToolError } from '../../indexer/errors.js';
import { SNIPPET_MAX_CHARS } from '../../indexer/query/limits.js';
import { RpcError } from '../../protocol/jsonrpc.js';

/**
 * What a model needs beyond what each tool answers: when to pick it over the
 * others. Keyed by the allowlist's own type, so a tool added there without a
 * line here does not compile.
 */
const GUIDE: Record<ToolName, { title: string; when: string }> = {
  search_code: {
    title: 'Search code',
    when: 'Use it first for anything you can name literally: an identifier in any language, a string, a config key, an error message, part of a file name. '
      + `It finds uses as well as definitions; for the definition of a name in ${SYMBOL_LANGUAGES} use find_symbol.`,
  },
  find_symbol: {
    title: `Find a definition (${SYMBOL_LANGUAGES})`,
    when: 'Use it when you know the name of a class, function, method, variable, interface, type, enum or namespace and want where it is defined, with its whole body. '
      + 'For where a name is used, use search_code.',
  },
  read_evidence: {
    title: 'Read file lines',
    when: 'Use it to read around an item another tool returned (its path and start_line), or a known part of a file; '
      + 'read a longer span in several calls of up to 400 lines.',
  },
  find_importers: {
    title: `Find importers of a module (${SYMBOL_LANGUAGES})`,
    when: 'Use it to see which files depend on a module (who is affected by a change to it); more exact than searching for "import".',
  },
  read_git_diff: {
    title: 'Read uncommitted changes',
    when: 'Use it to see what has changed and is not committed yet (reviewing work in progress, "what did I change").',
  },
};

/** Every tool only reads the repository: hosts may use these hints to skip confirmation prompts. */
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The paging sentence, from the arguments the tool's schema actually takes. */
function pagingNote(inputSchema: Record<string, unknown>): string {
  const props = (inputSchema.properties ?? {}) as Record<string, { maximum?: number }>;
  if (!props.limit) return '';
  const max = props.limit.maximum !== undefined ? ` (at most ${props.limit.maximum})` : '';
  if (props.offset) {
    return `Paged: returns items offset..offset+limit-1 of the full answer${max}; \`total\` counts every match, `
      + 'so when total > offset + items returned, call again with offset increased by limit.';
  }
  return `Returns the first \`limit\` items${max}; \`total\` counts every match, so when it is larger, call again with a larger limit.`;
}

/** One tool as tools/list shows it to an MCP host. */
export function mcpTool(d: ToolDescriptor): Tool {
  const guide = GUIDE[d.name];
  const description = [d.description, guide?.when, pagingNote(d.inputSchema)].filter(Boolean).join(' ');
  return {
    name: d.name,
    ...(guide ? { title: guide.title } : {}),
    description,
    inputSchema: d.inputSchema as Tool['inputSchema'],
    outputSchema: d.outputSchema as Tool['outputSchema'],
    annotations: { ...(guide ? { title: guide.title } : {}), ...ANNOTATIONS },
  };
}

/** The server's `instructions`: what the evidence is and how to cite it, said once for all tools. */
export function serverInstructions(root: string): string {
  return `Read-only, exact code evidence from the repository at ${root} (an index kept current as files change). `
    + 'Every item names a repository-relative path and lines start_line..end_line, and its snippet is exactly those lines of the file, '
    + `but for an item marked truncated: true, whose snippet is their first ${SNIPPET_MAX_CHARS.toLocaleString('en-US')} characters (read the rest with read_evidence from next_start_line, or from the last line it holds): `
    + 'cite answers as path:start_line and read more with read_evidence. A refused call says why in one line; correct the arguments and call again.';
}

/**
 * A daemon answer as an MCP result, written as JSON: the answer as
 * structuredContent, and the same JSON as text for hosts that read only text.
 * The answer is written once and used twice.
 */
export function answerResultJson(r: ToolResult): string {
  const json = JSON.stringify(r);
  return `{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`;
}

/** The `code: message` line of a refusal or failure, for the model to correct itself by. */
export function refusalLine(e: unknown): string {
  if (e instanceof ToolError) return `${e.code}: ${e.message}`;
  if (e instanceof RpcError) {
    const data = e.data as { code?: unknown; message?: unknown } | undefined;
    if (data && typeof data.code === 'string') return `${data.code}: ${typeof data.message === 'string' ? data.message : e.message}`;
    return e.message;
  }
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
}

/** A refused or failed call as an MCP result: `isError`, with the one-line reason. */
export function refusalResult(e: unknown): CallToolResult {
  return { content: [{ type: 'text', text: refusalLine(e) }], isError: true };
}
