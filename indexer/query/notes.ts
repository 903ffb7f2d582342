// A note on an answer (docs/tools.md: `notes`, one line each, not evidence):
// its line, and the repository paths the line names, so that a reader who
// stands elsewhere in the tree is shown them from there (tools/call's
// `shown_from`, daemon/tool-calls.ts) and can type them as printed.
import { shownFrom, withPathsShown } from '../../local/shown-from.js';
import type { ToolResult } from './schemas.js';

export interface Note {
  text: string;
  /** Root-relative paths `text` names, each written whole in it. */
  paths: string[];
  /**
   * The path_prefix of the call `text` names, written in it as ` path_prefix "P"`.
   * A reader standing in P (tools/call's shown_from) is shown the call
   * without it: the command line scopes a command typed there to that
   * folder already (docs/cli.md, Scope), so `--path-prefix "."` says nothing.
   */
  scope?: string;
}

/** `result` with `note` added (as is when null). */
export function withNote<R extends Pick<ToolResult, 'notes' | 'notePaths' | 'noteScopes'>>(result: R, note: Note | null): R {
  if (note === null) return result;
  return {
    ...result, notes: [...(result.notes ?? []), note.text], notePaths: [...(result.notePaths ?? []), ...note.paths],
    ...(note.scope === undefined ? {} : { noteScopes: [...(result.noteScopes ?? []), note.scope] }),
  };
}

/**
 * `notes` with the `paths` they name shown from `from` (a folder of the root,
 * with its "/"), and a call's path_prefix that is `from` itself (one of
 * `scopes`, Note.scope) left out; as they are without one.
 */
export function notesShownFrom(notes: readonly string[], paths: readonly string[], from: string | undefined, scopes: readonly string[] = []): string[] {
  if (from === undefined) return [...notes];
  const here = scopes.filter((s) => shownFrom(from, s) === '.').map((s) => ` path_prefix ${JSON.stringify(s)}`);
  return notes.map((n) => withPathsShown(here.reduce((t, clause) => t.split(clause).join(''), n), paths, (p) => shownFrom(from, p)));
}
