// The allowlist (docs/tools.md): exactly five read-only tools, each defined once
// here as a strict zod schema. Validation, the JSON Schema sent to Ollama,
// `tools/list` and `evidex tools` all derive from TOOLS; nothing else may
// describe a tool's arguments.
import { z } from 'zod';
import { ToolError } from '../errors.js';
import { EVIDENCE_KINDS, type Evidence } from '../evidence.js';
import { FOLDER_LEFT_OUT_REASONS } from '../discover/left-out.js';
import { issueWords } from './issue-words.js';

import { DEFAULT_LIMIT, MAX_CONTEXT, MAX_LIMIT, MAX_OFFSET, READ_MAX_LINES, SYMBOL_KINDS } from './limits.js';

export { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, READ_MAX_LINES, SYMBOL_KINDS };

/**
 * The paging arguments every list tool takes (docs/tools.md): the answer is the
 * items at positions offset .. offset+limit-1 of the full answer order.
 */
const paging = {
  limit: z.number().int().min(1).max(MAX_LIMIT).optional()
    .describe(`Items per page (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT}); \`total\` counts every match.`),
  offset: z.number().int().min(0).max(MAX_OFFSET).optional()
    .describe(`Items to skip first, for the next page (0-${MAX_OFFSET}, default 0).`),
};

/** The tools' path_prefix, which index/unresolved takes too (daemon/methods.ts). */
export const pathPrefix = z.string().min(1).max(1000).optional()
  .describe('Only paths starting with this, e.g. "src/".');

export const SearchCodeArgs = z.strictObject({
  // Said in words, not zod's `Too big: expected string to have <=200 characters`, to the CLI, tools and MCP alike.
  query: z.string().min(1).max(200, { error: (issue) => `${typeof issue.input === 'string' ? `${issue.input.length} characters, over the 200 a query may hold` : 'over 200 characters'}: search a shorter, distinctive part of it` })
    .describe('Literal text to find (not a regex), 1-200 characters. Matches file paths and file lines.'),
  ...paging,
  case_sensitive: z.boolean().optional().describe('Match case exactly (default false).'),
  path_prefix: pathPrefix,
});

export const FindSymbolArgs = z.strictObject({
  name: z.string().min(1).max(500)
    .describe('Simple name ("run"), qualified name ("Server.run", "outer.inner") or module-qualified name ("pkg.mod.Server.run").'),
  kind: z.enum(SYMBOL_KINDS).optional().describe('Only definitions of this kind.'),
  ...paging,
  path_prefix: pathPrefix,
});

const lineNo = z.number().int().min(1);
export const ReadEvidenceArgs = z.strictObject({
  path: z.string().min(1).max(1000).describe('Repository-relative POSIX path of an indexed file.'),
  start_line: lineNo.describe('First line to read, 1-based.'),
  end_line: lineNo.optional().describe('Last line to read, inclusive (default start_line).'),
  context: z.number().int().min(0).max(MAX_CONTEXT).optional()
    .describe(`Extra lines on each side (0-${MAX_CONTEXT}, default 0). Clamped to the file; at most ${READ_MAX_LINES} lines in all.`),
});

export const FindImportersArgs = z.strictObject({
  module_name: z.string().min(1).max(1000)
    .describe('Module ("pkg.mod"), package ("react") or path ("src/log.ts").'),
  via_reexports: z.boolean().optional()
    .describe('Follow re-exports; items list them in `via`.'),
  ...paging,
  path_prefix: pathPrefix,
});

export const ReadGitDiffArgs = z.strictObject({
  path: z.string().min(1).max(1000).optional().describe('Only this repository-relative file or folder.'),
  staged: z.boolean().optional().describe('Diff the index (staged changes) instead of the working tree (default false).'),
  base: z.string().min(1).max(200).optional()
    .describe('Commit-ish to diff against (default HEAD). Must not start with "-".'),
  untracked: z.boolean().optional()
    .describe('Show untracked files (not ignored, not secret, indexed as text) as new-file hunks (default true; never with staged).'),
  ...paging,
});

/** The languages whose definitions and imports are indexed (every text file gets path and line search). */
export const SYMBOL_LANGUAGES = 'Python, TypeScript and JavaScript';

export const TOOLS = {
  search_code: {
    schema: SearchCodeArgs,
    description:
      'Find a literal string in the repository. Returns path_match items (files whose path contains the query, by path) ' +
      'then content_match items (one per matching line, by path and line).',
  },
  find_symbol: {
    schema: FindSymbolArgs,
    description:
      `Find definitions in ${SYMBOL_LANGUAGES} by simple, qualified or module-qualified name. ` +
      'Each item spans the whole definition, decorators included.',
  },
  read_evidence: {
    schema: ReadEvidenceArgs,
    description:
      'Read lines of an indexed file, optionally widened by context lines. At most 400 lines. ' +
      'A snippet over 4,000 characters is cut ("truncated": true): go on with start_line = its next_start_line, not end_line + 1.',
  },
  find_importers: {
    schema: FindImportersArgs,
    description:
      `Find the import statements (${SYMBOL_LANGUAGES}) that import a module, package or file, one item per statement.`,
  },
  read_git_diff: {
    schema: ReadGitDiffArgs,
    description:
      'Show uncommitted changes as one diff item per hunk (working tree or staged, against HEAD or a base ref); ' +
      'untracked files count as new files. Line numbers are those of the new file.',
  },
} as const;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export type ToolArgs = {
  search_code: z.infer<typeof SearchCodeArgs>;
  find_symbol: z.infer<typeof FindSymbolArgs>;
  read_evidence: z.infer<typeof ReadEvidenceArgs>;
  find_importers: z.infer<typeof FindImportersArgs>;
  read_git_diff: z.infer<typeof ReadGitDiffArgs>;
};

/** A validated call: the name is on the allowlist and the arguments passed its schema unchanged. */
export type ToolCall = { [N in ToolName]: { name: N; args: ToolArgs[N] } }[ToolName];
/** A call as a client sends it (the params of tools/call), with arguments its tool accepts. */
export type ToolCallParams = { [N in ToolName]: { name: N; arguments: ToolArgs[N] } }[ToolName];

export function isToolName(name: unknown): name is ToolName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(TOOLS, name);
}

/**
 * Checks a call by exact name and strict schema. Nothing is coerced: the
 * string "5" is not a number, an unknown field is an error, and the returned
 * arguments are exactly the ones given.
 */
export function validateToolCall(name: unknown, args: unknown): ToolCall {
  if (!isToolName(name)) {
    throw new ToolError('unknown_tool',
      `unknown tool ${JSON.stringify(name)}; the allowed tools are ${TOOL_NAMES.join(', ')}`);
  }
  const parsed = TOOLS[name].schema.safeParse(args);
  if (!parsed.success) {
    const keys = Object.keys(TOOLS[name].schema.shape);
    const issues = parsed.error.issues.map((i) => issueWords(i, args, 'arguments', keys));
    throw new ToolError('invalid_arguments', `${name}: ${issues.join('; ')}`);
  }
  return { name, args: parsed.data } as ToolCall;
}

/**
 * What every tool answers (docs/tools.md, Evidence; docs/tools.md), for hosts that check answers
 * against a schema (MCP's outputSchema). Loose objects: an optional field added
 * to an item or the result must not make a checking host reject the answer.
 */
export const EvidenceSchema = z.looseObject({
  path: z.string().describe('Repository-relative POSIX path of the file.'),
  start_line: z.number().int().min(1).describe('First line of the item, 1-based.'),
  end_line: z.number().int().min(1).describe('Last line of the item, inclusive.'),
  kind: z.enum(EVIDENCE_KINDS),
  name: z.string().describe('What was found: the query, the qualified symbol, the module, the path.'),
  snippet: z.string().describe('Exactly lines start_line..end_line of the file, joined by "\\n" (a diff item: the hunk text); with truncated, their first 4,000 characters.'),
  truncated: z.literal(true).optional().describe('The snippet was cut to its first 4,000 characters.'),
  excerpt: z.object({
    column: z.number().int().min(1).describe('Where the text starts in the line, 1-based (UTF-16 code units).'),
    text: z.string().describe('The part of the line around the match.'),
  }).optional().describe('search_code, on a line cut before its first match: the part of the line around that match.'),
  via: z.array(z.string()).optional()
    .describe('find_importers with via_reexports: the re-exporting files between the import statement and the module, nearest first.'),
  next_start_line: z.number().int().min(1).optional()
    .describe('read_evidence, on a cut snippet: the first line it does not hold whole; read on from there.'),
});
/** Every field an Evidence item may carry is described for hosts: one added to Evidence alone does not compile. */
const evidenceFieldsDescribed: [Exclude<keyof Evidence, keyof typeof EvidenceSchema.shape>] extends [never] ? true : never = true;
void evidenceFieldsDescribed;
/**
 * Why a name is suggested (docs/tools.md, Suggestions), in the order
 * suggestions are listed: what the name means through the index's own
 * records first, then names spelled alike.
 */
export const SUGGESTION_REASONS = ['filtered_out', 'reexported', 'module', 'inherited', 'case', 'tail', 'edit', 'prefix'] as const;
/** One near miss: a name to ask for instead, with the definition (find_symbol) or file (find_importers) it stands for. */
export const SuggestionSchema = z.looseObject({
  name: z.string().describe('A name to call the tool with instead: a (module-)qualified name, a module name or a path.'),
  why: z.enum(SUGGESTION_REASONS).describe('How it was found: filtered_out (matches without kind/path_prefix), reexported, module (a TypeScript module\'s export: Effect.map is map of Effect.ts), inherited, case, tail, edit, prefix.'),
  kind: z.enum(SYMBOL_KINDS).optional().describe('find_symbol: the kind of the definition.'),
  path: z.string().optional().describe('The file the definition or module is in (not evidence: call the tool to see it).'),
  line: z.number().int().min(1).optional().describe('find_symbol: the first line of the definition (the first one, when the name finds several).'),
  count: z.number().int().min(2).optional().describe('find_symbol: how many definitions the name finds, when more than one.'),
  kinds: z.partialRecord(z.enum(SYMBOL_KINDS), z.number().int().min(1)).optional().describe('find_symbol: how many of those definitions are of each kind, when they are not all of one kind.'),
});
export type Suggestion = z.infer<typeof SuggestionSchema>;
/**
 * Said with an answer given while the daemon's watcher held changes not yet in
 * the index (a checkout, a re-walk): the answer may not match the files on
 * disk yet. The same record is index/status's `daemon.catchingUp`.
 */
export const CatchingUpSchema = z.object({
  changes: z.number().int().min(0).describe('Changes seen on disk and not yet in the index (a re-walk counts as one; while it runs, so does each file it has still to read); 0 while only a re-walk no change asked for runs.'),
  since: z.string().describe('ISO time since when the index has been behind the files.'),
  rewalk: z.string().optional().describe('Why a re-walk of the tree is queued or running, when one is.'),
  progress: z.object({
    done: z.number().int().min(0),
    total: z.number().int().min(0),
  }).optional().describe('The running batch or re-walk: files read of those it has to read (it commits once they are all read). Absent before it starts reading.'),
});
export type CatchingUp = z.infer<typeof CatchingUpSchema>;
/**
 * The path_prefix of an empty answer is a folder the index leaves out as a
 * whole (prefix-note.ts): the note that says so, as fields, so that a client
 * (the command line) says it in its own words without reading the note's.
 */
export const LeftOutFolderSchema = z.object({
  path_prefix: z.string().describe('The folder, root-relative, with its "/".'),
  reason: z.enum(FOLDER_LEFT_OUT_REASONS).describe('An ignore rule, a work tree of the repository, git\'s own folder, evidex\'s own state folder, or a path too long to index.'),
  why: z.string().describe('Why, as the note says it after "is not indexed: ".'),
  note: z.number().int().min(0).optional().describe('Which of notes (its index) says this in words.'),
});
export type LeftOutFolder = z.infer<typeof LeftOutFolderSchema>;
/**
 * A call a note or refusal names (notes.ts): the tool and its arguments as
 * tools/call takes them (paths root-relative), and where the text writes it,
 * so a client shows it as its own (the command line: an `evidex …` line)
 * without reading the text's words for it. A refusal sends its calls as
 * `calls` beside its code and message.
 */
export const PlacedCallSchema = z.object({
  at: z.number().int().min(0).describe('Where the text writes it: the index of its first character (UTF-16 code units).'),
  length: z.number().int().min(1).describe('How many characters the text writes it with.'),
  name: z.enum(TOOL_NAMES as [ToolName, ...ToolName[]]).describe('The tool.'),
  arguments: z.record(z.string(), z.unknown()).describe('Its arguments, as tools/call takes them.'),
});
/** A call a note names: PlacedCallSchema, and which of notes. */
export const NoteCallSchema = PlacedCallSchema.extend({
  note: z.number().int().min(0).describe('Which of notes names the call (its index).'),
});
/** PlacedCallSchema with the exact arguments of its tool. */
export type PlacedCall = { at: number; length: number } & ToolCallParams;
/** NoteCallSchema with the exact arguments of its tool. */
export type NoteCall = { note: number } & PlacedCall;
export const ToolResultSchema = z.looseObject({
  evidence: z.array(EvidenceSchema).describe('The items of this page of the answer, in answer order.'),
  total: z.number().int().min(0).describe('How many matches exist in all; more than the items returned when limit or offset cut the answer.'),
  generation: z.number().int().min(0).describe('The index generation that answered (it rises with every index update).'),
  suggestions: z.array(SuggestionSchema).optional()
    .describe('Only when find_symbol or find_importers found nothing: the nearest names the index does hold, best first.'),
  notes: z.array(z.string()).optional()
    .describe('What the answer alone leaves unsaid, one line each: what a package name resolves to, a path_prefix nothing is under, a search query written as a regular expression, that an interface\'s members are no definitions.'),
  catching_up: CatchingUpSchema.optional()
    .describe('Only when files changed on disk were not all indexed yet: the answer is provisional; ask again shortly.'),
  left_out_folder: LeftOutFolderSchema.optional()
    .describe('Only when the answer is empty because path_prefix is a folder the index leaves out: which, and why (one of notes says it in words).'),
  note_calls: z.array(NoteCallSchema).optional()
    .describe('The calls notes name, as calls: which note, where in it, the tool and its arguments.'),
});

/**
 * What every tool answers (docs/tools.md; docs/architecture.md): the items, how many matched in
 * all, and which index generation answered. ToolResultSchema above describes
 * the same fields for hosts; it is loose on purpose (a host must accept an
 * added field), so this stays the exact type the tools produce.
 */
export interface ToolResult {
  evidence: Evidence[];
  total: number;
  generation: number;
  /** Near misses, when find_symbol or find_importers found nothing (see SuggestionSchema). */
  suggestions?: Suggestion[];
  /** One-line remarks on the answer (see ToolResultSchema): what a name resolves to, a path_prefix nothing is under. */
  notes?: string[];
  /** The calls `notes` name, each where its note writes it (see NoteCallSchema). */
  note_calls?: NoteCall[];
  /** The repository paths `notes` name (notes.ts), for a reader elsewhere in the tree; never on the wire. */
  notePaths?: string[];
  /** Only from the daemon, when its watcher held changes not yet in the index as it answered (see CatchingUpSchema). */
  catching_up?: CatchingUp;
  /** When path_prefix is a folder the index leaves out as a whole: the note on it, as fields (see LeftOutFolderSchema). */
  left_out_folder?: LeftOutFolder;
}

/** Every field of a result on the wire is described for hosts (but those never sent): one added to ToolResult alone does not compile. */
const resultFieldsDescribed: [Exclude<keyof ToolResult, keyof typeof ToolResultSchema.shape | 'notePaths'>] extends [never] ? true : never = true;
void resultFieldsDescribed;

export interface ToolDescriptor {
  name: ToolName;
  description: string;
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the answer ({evidence, total, generation}), the same for every tool. */
  outputSchema: Record<string, unknown>;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, override: dropSafeIntegerBounds }) as Record<string, unknown>;
  return rest;
}

let descriptors: ToolDescriptor[] | null = null;

/**
 * zod writes `.int()` as bounded by ±(2^53-1); those bounds say nothing a
 * model or host can use and cost every prompt their characters, so they go.
 */
function dropSafeIntegerBounds(ctx: { jsonSchema: Record<string, unknown> }): void {
  if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
  if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
}

/**
 * JSON Schema of each tool's arguments, generated from the same zod schema that
 * validates, and of its answer (ToolResultSchema). Generated once (it is the same every time, and costs ~0.3 ms); each
 * call gets its own copy, so a caller may change what it is given.
 */
export function toolDescriptors(): ToolDescriptor[] {
  if (!descriptors) {
    const outputSchema = jsonSchemaOf(ToolResultSchema, 'output');
    descriptors = TOOL_NAMES.map((name) => ({
      name, description: TOOLS[name].description, inputSchema: jsonSchemaOf(TOOLS[name].schema, 'input'), outputSchema,
    }));
  }
  return structuredClone(descriptors);
}
