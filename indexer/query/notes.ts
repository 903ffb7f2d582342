// A note on an answer (docs/tools.md: `notes`, one line each, not evidence):
// its line, and the repository paths the line names, so that a reader who
// stands elsewhere in the tree is shown them from there (tools/call's
// `shown_from`, daemon/tool-calls.ts) and can type them as printed.
import { shownFrom, withPathsShown } from '../../local/shown-from.js';
import { escapeRegExp } from '../../local/regexp.js';
import type { LeftOutFolder, ToolResult } from './schemas.js';

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
  /**
   * Calls `text` names, each written whole in it, that cover the whole
   * repository (no path_prefix), as its counts do. A reader standing in a
   * subfolder is shown each with path_prefix "/" (the command line's --all):
   * typed there without it, the command would be scoped to that folder and
   * list only that folder's part of the count.
   */
  wholeCalls?: string[];
  /** The folder path_prefix names is left out as a whole: `text` as fields, the result's `left_out_folder` (its `note` is where `text` lands). */
  leftOutFolder?: Omit<LeftOutFolder, 'note'>;
}

/** `a, b and c`: at most `max` of `names`, then `and N more`. */
export function namedList(names: readonly string[], max: number): string {
  const shown = names.slice(0, max);
  const more = names.length - shown.length;
  const all = more > 0 ? [...shown, `${more} more`] : shown;
  return all.length === 1 ? all[0] : `${all.slice(0, -1).join(', ')} and ${all[all.length - 1]}`;
}

/** `result` with `note` added (as is when null). */
export function withNote<R extends Pick<ToolResult, 'notes' | 'notePaths' | 'noteScopes' | 'noteWholeCalls' | 'left_out_folder'>>(result: R, note: Note | null): R {
  if (note === null) return result;
  return {
    ...result, notes: [...(result.notes ?? []), note.text], notePaths: [...(result.notePaths ?? []), ...note.paths],
    ...(note.leftOutFolder === undefined ? {} : { left_out_folder: { ...note.leftOutFolder, note: result.notes?.length ?? 0 } }),
    ...(note.scope === undefined ? {} : { noteScopes: [...(result.noteScopes ?? []), note.scope] }),
    ...(note.wholeCalls?.length ? { noteWholeCalls: [...(result.noteWholeCalls ?? []), ...note.wholeCalls] } : {}),
  };
}

/**
 * `notes` with the `paths` they name shown from `from` (a folder of the root,
 * with its "/"), a call's path_prefix that is `from` itself (one of
 * `scopes`, Note.scope) left out, and, from a subfolder, a call of the whole
 * repository (one of `wholeCalls`, Note.wholeCalls) given path_prefix "/";
 * as they are without one.
 */
export function notesShownFrom(notes: readonly string[], paths: readonly string[], from: string | undefined, scopes: readonly string[] = [], wholeCalls: readonly string[] = []): string[] {
  return notes.map((n) => textShownFrom(n, paths, from, scopes, wholeCalls));
}

/** One note's or refusal's `text` shown from `from`, as notesShownFrom shows each note. */
export function textShownFrom(text: string, paths: readonly string[], from: string | undefined, scopes: readonly string[] = [], wholeCalls: readonly string[] = []): string {
  if (from === undefined) return text;
  const here = scopes.filter((s) => shownFrom(from, s) === '.').map((s) => ` path_prefix ${JSON.stringify(s)}`);
  const whole = from === '' ? [] : wholeCalls;
  return withPathsShown(wholeScoped(here.reduce((t, clause) => t.split(clause).join(''), text), whole), paths, (p) => shownFrom(from, p));
}

/** `text` with each of `calls` it names whole (followed by its end, a blank or punctuation) given path_prefix "/". */
function wholeScoped(text: string, calls: readonly string[]): string {
  if (calls.length === 0) return text;
  const alternatives = [...new Set(calls)].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return text.replace(new RegExp(`(${alternatives.join('|')})(?=$|[\\s,;])`, 'g'), '$1 path_prefix "/"');
}
