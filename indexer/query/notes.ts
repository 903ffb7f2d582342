// A note on an answer (docs/tools.md: `notes`, one line each, not evidence):
// its line, the repository paths the line names, so that a reader who
// stands elsewhere in the tree is shown them from there (tools/call's
// `shown_from`, daemon/tool-calls.ts) and can type them as printed, and the
// calls it names, as calls (`note_calls`), each where the line writes it:
// a client shows those in its own words (the command line as `evidex …`
// lines) without reading the line's words for them.
import { shownFrom, withPathsShown } from '../../local/shown-from.js';
import type { LeftOutFolder, NoteCall, PlacedCall, ToolCallParams, ToolResult } from './schemas.js';

export type { PlacedCall };

/** Words that may name calls: the text, and each call it names, where it writes it. */
export interface Worded {
  text: string;
  calls: PlacedCall[];
}

export interface Note {
  text: string;
  /** The calls `text` names, each where it writes it (callText's words). */
  calls?: PlacedCall[];
  /** Root-relative paths `text` names, each written whole in it (outside its calls). */
  paths: string[];
  /** The folder path_prefix names is left out as a whole: `text` as fields, the result's `left_out_folder` (its `note` is where `text` lands). */
  leftOutFolder?: Omit<LeftOutFolder, 'note'>;
}

/** The argument a call is named by, written first: the query, the name, the module, the path. */
const FIRST_ARGUMENT: Record<ToolCallParams['name'], string> = {
  search_code: 'query', find_symbol: 'name', find_importers: 'module_name', read_evidence: 'path', read_git_diff: 'path',
};

/**
 * How a note writes a call: the tool, its first argument (a query always
 * quoted, since its blanks count; any other only when it holds a blank or
 * a quote), then each other argument as `name value` (`path_prefix "src/"`).
 */
export function callText(call: ToolCallParams): string {
  const first = FIRST_ARGUMENT[call.name];
  const args = call.arguments as Record<string, unknown>;
  const words: string[] = [call.name];
  const value = args[first];
  if (typeof value === 'string') words.push(call.name === 'search_code' || /[\s"'\\]/.test(value) ? JSON.stringify(value) : value);
  for (const [k, v] of Object.entries(args)) if (k !== first && v !== undefined) words.push(k, JSON.stringify(v));
  return words.join(' ');
}

/** A tagged template of words: text and numbers as they are, calls written as callText writes them, and Worded parts with their calls. */
export function worded(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number | ToolCallParams | Worded>): Worded {
  let text = strings[0];
  const calls: PlacedCall[] = [];
  values.forEach((v, i) => {
    if (typeof v === 'string' || typeof v === 'number') text += v;
    else if ('text' in v) {
      for (const c of v.calls) calls.push({ ...c, at: c.at + text.length });
      text += v.text;
    } else {
      const written = callText(v);
      calls.push({ at: text.length, length: written.length, ...v });
      text += written;
    }
    text += strings[i + 1];
  });
  return { text, calls };
}

/** `parts` joined by `separator`, their calls kept where they land. */
export function joinWorded(parts: ReadonlyArray<string | Worded>, separator: string): Worded {
  return parts.reduce<Worded>((all, p, i) => worded`${all}${i === 0 ? '' : separator}${p}`, { text: '', calls: [] });
}

/** `a, b and c`: at most `max` of `names`, then `and N more`. */
export function namedList(names: readonly string[], max: number): string {
  return namedWords(names, max).text;
}

/** namedList over words that may name calls (those past `max` are not named). */
export function namedWords(names: ReadonlyArray<string | Worded>, max: number): Worded {
  const shown = names.slice(0, max);
  const more = names.length - shown.length;
  const all = more > 0 ? [...shown, `${more} more`] : shown;
  return all.length === 1 ? worded`${all[0]}` : worded`${joinWorded(all.slice(0, -1), ', ')} and ${all[all.length - 1]}`;
}

/** `result` with `note` added (as is when null). */
export function withNote<R extends Pick<ToolResult, 'notes' | 'notePaths' | 'note_calls' | 'left_out_folder'>>(result: R, note: Note | null): R {
  if (note === null) return result;
  const index = result.notes?.length ?? 0;
  return {
    ...result, notes: [...(result.notes ?? []), note.text], notePaths: [...(result.notePaths ?? []), ...note.paths],
    ...(note.leftOutFolder === undefined ? {} : { left_out_folder: { ...note.leftOutFolder, note: index } }),
    ...(note.calls?.length ? { note_calls: [...(result.note_calls ?? []), ...note.calls.map((c): NoteCall => ({ note: index, ...c }))] } : {}),
  };
}

/**
 * `notes` with the `paths` they name shown from `from` (a folder of the root,
 * with its "/"), and their `calls` where they land then: a call is written as
 * a call takes its arguments, from the root, wherever the reader stands (a
 * client shows it as its own: the command line from where it ran); as they
 * are without `from`.
 */
export function notesShownFrom(notes: readonly string[], paths: readonly string[], from: string | undefined, calls: readonly NoteCall[] = []): { notes: string[]; calls: NoteCall[] } {
  if (from === undefined) return { notes: [...notes], calls: [...calls] };
  const out: NoteCall[] = [];
  const shown = notes.map((text, i) => {
    let said = '';
    let from0 = 0;
    for (const c of calls.filter((k) => k.note === i).sort((a, b) => a.at - b.at)) {
      said += textShownFrom(text.slice(from0, c.at), paths, from);
      out.push({ ...c, at: said.length });
      said += text.slice(c.at, c.at + c.length);
      from0 = c.at + c.length;
    }
    return said + textShownFrom(text.slice(from0), paths, from);
  });
  return { notes: shown, calls: out };
}

/** Words of a note or refusal shown from `from`: the `paths` they name. */
function textShownFrom(text: string, paths: readonly string[], from: string): string {
  return withPathsShown(text, paths, (p) => shownFrom(from, p));
}

/** A refusal's message shown from `from` as notesShownFrom shows a note: the paths it names moved, its `calls` where they land then. */
export function refusalShownFrom(message: string, paths: readonly string[], from: string, calls: readonly PlacedCall[]): { message: string; calls: PlacedCall[] } {
  const shown = notesShownFrom([message], paths, from, calls.map((c) => ({ note: 0, ...c })));
  return { message: shown.notes[0], calls: shown.calls.map(({ note: _note, ...c }) => c as PlacedCall) };
}
