// The daemon's side of the protocol: the zod schema each method's params must
// pass before its handler runs. Each schema is checked against the params type
// protocol/messages.ts declares, so the two cannot drift; clients never load
// this file (nor zod).
import { z } from 'zod';
import {
  MAX_CALLS_PER_TURN_LIMIT, MAX_NUM_CTX, MAX_STEPS_LIMIT, MAX_TIMEOUT_S, MIN_NUM_CTX, MODEL_APIS, type MethodKey, type ParamsOf,
} from '../protocol/messages.js';
import { MAX_LIMIT, MAX_OFFSET, UNRESOLVED_REASONS } from '../indexer/query/limits.js';
import { pathPrefix } from '../indexer/query/schemas.js';

const Empty = z.strictObject({}).optional();
/** A folder of the repository from its root, with its "/" ("apps/web/"): named segments only, no "." or "..". */
const Folder = z.string().max(4096).regex(/^(?:(?!\.\.?\/)[^/]+\/)+$/, 'must be a folder of the repository from its root, ending in "/", without "." or ".."');
/** Text that says something: blanks alone are as empty as nothing. */
const Filled = z.string().min(1).regex(/\S/, 'must not be blank');

export const ParamsSchemas: { [K in MethodKey]: z.ZodType<ParamsOf<K>> } = {
  toolsList: Empty,
  toolsCall: z.strictObject({
    name: z.string().min(1).max(200),
    // The tool's own arguments are checked by validateToolCall (strict schema), so the refusal says `invalid_arguments`.
    arguments: z.unknown().optional(),
    shown_from: Folder.optional(),
  }),
  ask: z.strictObject({
    question: Filled.max(20_000),
    ...askSettings(),
    conversation: z.string().min(1).max(100).optional(),
    describe_model: z.boolean().optional(),
  }),
  askModel: z.strictObject(askSettings()),
  indexStatus: Empty,
  indexRefresh: z.strictObject({ folder: Folder.optional() }).optional(),
  indexLeftOut: z.strictObject({
    query: z.string().min(1).max(1000),
    case_sensitive: z.boolean().optional(),
    path_prefix: z.string().max(4096).optional(),
    limit: z.number().int().min(1).max(100).optional(),
  }),
  indexUnresolved: z.strictObject({
    reasons: z.array(z.enum(UNRESOLVED_REASONS)).min(1).max(UNRESOLVED_REASONS.length).optional(),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    offset: z.number().int().min(0).max(MAX_OFFSET).optional(),
    // The tools' own path_prefix, checked and normalised as theirs is (a refusal says path_denied).
    path_prefix: pathPrefix,
    shown_from: Folder.optional(),
  }),
  daemonShutdown: Empty,
};

/** The settings an `ask` carries (AskSettings), for `ask` and `ask/model` alike. */
function askSettings() {
  return {
    model: Filled.max(200).optional(),
    // The host is normalised and checked by the ask loop (a bad one fails only this request).
    ollama_host: z.string().min(1).max(2048).optional(),
    api: z.enum(MODEL_APIS).optional(),
    // Checked like ollama_host: by the loop, per request (loopback or the daemon's own base).
    api_base: z.string().min(1).max(2048).optional(),
    api_key: z.string().min(1).max(4096).optional(),
    max_steps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional(),
    calls_per_turn: z.number().int().min(1).max(MAX_CALLS_PER_TURN_LIMIT).optional(),
    timeout_s: z.number().positive().max(MAX_TIMEOUT_S).optional(),
    think: z.boolean().optional(),
    num_ctx: z.number().int().min(MIN_NUM_CTX).max(MAX_NUM_CTX).optional(),
  };
}
