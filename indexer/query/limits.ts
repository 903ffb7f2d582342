// The bounds of the tools' arguments (numbers, and the kinds a definition can
// have), in a module of their own with no imports: the zod schemas
// (schemas.ts) are built from them, and the CLI, which never loads zod or the
// rest of the indexer, pages and checks `--kind` by them too.

/** Items per page of a list tool when the call names no `limit`, and the most one page may hold. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;
/** The furthest a list tool pages (`offset`). */
export const MAX_OFFSET = 100_000;
/** A snippet longer than this is cut to a prefix and flagged `truncated` (indexer/evidence.ts); the CLI says so in these words. */
export const SNIPPET_MAX_CHARS = 4000;
/** read_evidence returns at most this many lines (the CLI's `read FILE` pages by it). */
export const READ_MAX_LINES = 400;

/** At most this many suggestions: enough for the usual few candidates, little enough to read in one line (the CLI's merged near misses too). */
export const SUGGESTIONS_MAX = 8;

/** read_evidence widens a read by at most this many lines on each side (`context`). */
export const MAX_CONTEXT = 50;

/** Every kind a definition can have (find_symbol's `kind`); the last four come from TypeScript only. */
export const SYMBOL_KINDS = ['class', 'function', 'method', 'variable', 'interface', 'type', 'enum', 'namespace'] as const;

/**
 * Why a TypeScript or JavaScript statement resolved nowhere in the repository
 * (model.ts, Unresolved), in the order `evidex index --unresolved` lists them:
 * what needs a look first (a path that reaches nothing, an unreadable config),
 * the expected last (an external package).
 */
export const UNRESOLVED_REASONS = ['missing', 'config', 'external'] as const;
/** The reasons listed when none is named: the statements that reach nothing and are no package. */
export const DEFAULT_UNRESOLVED_REASONS: readonly (typeof UNRESOLVED_REASONS)[number][] = ['missing', 'config'];
/** index/unresolved's `extensions` key for a specifier's last dot-part that is no known file type's (`./+types/client.a.b`); a real extension starts with ".". */
export const OTHER_EXTENSION = 'other';
