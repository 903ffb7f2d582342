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
}

/** `result` with `note` added (as is when null). */
export function withNote<R extends Pick<ToolResult, 'notes' | 'notePaths'>>(result: R, note: Note | null): R {
  if (note === null) return result;
  return { ...result, notes: [...(result.notes ?? []), note.text], notePaths: [...(result.notePaths ?? []), ...note.paths] };
}

/** `notes` with the `paths` they name shown from `from` (a folder of the root, with its "/"); as they are without one. */
export function notesShownFrom(notes: readonly string[], paths: readonly string[], from: string | undefined): string[] {
  return from === undefined ? [...notes] : notes.map((n) => withPathsShown(n, paths, (p) => shownFrom(from, p)));
}
