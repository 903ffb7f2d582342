// What an MCP host sends, read the same way whatever carries it (a stdio line,
// an HTTP POST body): JSON, then a JSON-RPC 2.0 message, then, for a request
// this server handles, params that fit the method. Each failure is the answer
// JSON-RPC names for it, on one line:
//
//   - not JSON: -32700, `id: null` (a text that does not parse has no id);
//   - JSON that is not a JSON-RPC message (a batch too): -32600, with its id when it has one;
//   - params that do not fit a handled request (a bad `_meta.progressToken`,
//     a tools/list cursor this server never gave): -32602, naming the first
//     field (the SDK's own schemas, so the SDK client and this server agree on what fits).
//
// And what goes back: answers as JSON text, written once. A result that is
// already JSON (the prepared tool list, a daemon answer) is spliced in as it
// is, not parsed and written again.
import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

import { issueWords, type Issue } from '../../indexer/query/issue-words.js';

export { ErrorCode, type RequestId };

/** A message as the session takes it: a request or a notification with its params checked, or a response (ignored). */
export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'response' };

/** A message refused before the session sees it: the error to answer with. */
export interface Refusal {
  id: RequestId | null;
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A schema the SDK's way (zod): what a request of one method must look like. */
interface RequestSchema {
  safeParse(v: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<Issue> } };
}

/** The requests this server answers, with the SDK's schema for each: their params are checked before the session runs them. */
const REQUESTS: Readonly<Record<string, RequestSchema>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ');

/** The first zod issue in words (issueWords); `params` is what the SDK's schema checked. */
function issueLine(error: { issues: ReadonlyArray<Issue> }, checked: unknown): string {
  const i = error.issues[0];
  if (!i) return 'does not match the schema';
  return oneLine(issueWords(i, checked, 'params'));
}

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** A JSON-RPC 2.0 message's own shape, checked by hand (not the SDK's schema, which also checks params and takes integer ids only). */
function envelope(value: unknown): { message: Incoming } | { refusal: Refusal } {
  const invalid = (id: RequestId | null, why: string) => ({ refusal: { id, code: ErrorCode.InvalidRequest, message: `invalid request: ${why}` } });
  if (Array.isArray(value)) return invalid(null, 'a batch (an array); send one JSON-RPC message at a time');
  if (value === null || typeof value !== 'object') return invalid(null, 'not a JSON-RPC 2.0 message (a JSON object with "jsonrpc": "2.0")');
  const m = value as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return invalid(id, 'not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"');
  if (!('method' in m)) {
    return 'result' in m || 'error' in m ? { message: { kind: 'response' } } : invalid(id, 'neither a request or notification ("method") nor a response ("result" or "error")');
  }
  if (typeof m.method !== 'string' || m.method === '') return invalid(id, '"method" must be a non-empty string');
  if ('id' in m && id === null) return invalid(null, '"id" must be a string or a number');
  if (m.params !== undefined && (m.params === null || typeof m.params !== 'object')) return invalid(id, '"params" must be an object');
  const params = m.params as Record<string, unknown> | undefined;
  return { message: id === null ? { kind: 'notification', method: m.method, params } : { kind: 'request', id, method: m.method, params } };
}

/**
 * One message's text read as JSON-RPC: the message, or the refusal to answer
 * it with. An id with a fractional part (JSON-RPC says it SHOULD NOT have one)
 * is taken and echoed, as JSON-RPC allows. A notification's params are not
 * checked: a notification is never answered, and the session reads the few
 * it takes with care.
 */
export function readMessage(text: string): { message: Incoming } | { refusal: Refusal } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { refusal: { id: null, code: ErrorCode.ParseError, message: `parse error: the message is not JSON (${oneLine((e as Error).message).slice(0, 160)})` } };
  }
  const read = envelope(value);
  if ('refusal' in read || read.message.kind !== 'request') return read;
  const { id, method, params } = read.message;
  const bad = (why: string) => ({ refusal: { id, code: ErrorCode.InvalidParams, message: `invalid params for ${method}: ${why}` } });
  if (Array.isArray(params)) return bad('params: must be an object, not an array');
  if (Object.hasOwn(REQUESTS, method)) {
    const checked = REQUESTS[method].safeParse({ method, params });
    if (!checked.success) return bad(issueLine(checked.error, { method, params }));
  }
  // MCP: a cursor the server did not give is -32602; this server gives none (the whole list comes at once, without nextCursor).
  if (method === 'tools/list' && params?.cursor !== undefined) return bad('params.cursor: not a cursor this server gave (it lists every tool at once, with no nextCursor); send tools/list without one');
  return read;
}

/** A JSON-RPC error answer as JSON text (`id: null` where the id could not be read, as JSON-RPC says). */
export function errorText(r: Refusal): string {
  return JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: r.code, message: r.message, ...(r.data ? { data: r.data } : {}) } });
}

/** A JSON-RPC result answer as JSON text, `resultJson` being the result already written as JSON. */
export function resultText(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

/** The refusal of a message over the size limit; `id` read from its start (topLevelId). */
export function tooLarge(id: RequestId | null, bytes: number, limit: number): Refusal {
  return {
    id, code: ErrorCode.InvalidRequest,
    message: `message too large: ${bytes} bytes, over the limit of ${limit} bytes per message`,
    data: { code: 'message_too_large', bytes, limit },
  };
}

/**
 * The `id` of a JSON-RPC message from the start of its text (a message too
 * large to parse): the value of the key "id" at the top level of an object,
 * when it is a string or a number and lies inside `text`; null otherwise. A
 * small scanner over strings and nesting, no parse of the rest.
 */
export function topLevelId(text: string): RequestId | null {
  let depth = 0;
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => { while (i < n && /\s/.test(text[i])) i++; };
  /** The end (exclusive) of the string starting at i (a quote), or -1 when it runs past the text. */
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < n; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  skipSpace();
  if (text[i] !== '{') return null;
  // Inside the top object: alternate keys and values; at depth 1, a key "id" is ours.
  let expectKey = false;
  for (; i < n; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(i);
      if (end < 0) return null;
      if (depth === 1 && expectKey) {
        let key: unknown;
        try { key = JSON.parse(text.slice(i, end)); } catch { return null; }
        i = end;
        skipSpace();
        if (text[i] !== ':') return null;
        i++;
        skipSpace();
        if (key === 'id') {
          const rest = text.slice(i);
          const m = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])/.exec(rest);
          if (!m) return null;
          const v: unknown = JSON.parse(m[0]);
          return isId(v) ? v : null;
        }
        expectKey = false;
        i--; // the value starts here; the loop's i++ moves onto it
        continue;
      }
      i = end - 1;
      continue;
    }
    if (c === '{' || c === '[') { depth++; if (depth === 1) expectKey = true; continue; }
    if (c === '}' || c === ']') { depth--; if (depth === 0) return null; continue; }
    if (c === ',' && depth === 1) expectKey = true;
  }
  return null;
}
