// A tool call (a note's `note_calls`: the tool and its arguments, from the
// root) as the words of the command that makes it (docs/cli.md, Tool
// commands), typed where the command that printed it ran: its paths from
// there (Place.shown), and its path_prefix as the command's scope says it —
// nothing when the current folder is that prefix (a command typed there is
// scoped to it already), --all for the whole repository from a subfolder
// (typed there without it, it would be scoped to that folder), else
// --path-prefix from there. command-line.ts then quotes the words.
import type { PlacedCall, ToolCallParams } from '../protocol/messages.js';
import { commandLine, type CommandPlace } from './command-line.js';

/** Where the command ran, as client/paths.ts's Place says it. */
export interface CallPlace {
  /** The current folder from the root, with its "/" ("" at the root); null outside the root. */
  readonly here: string | null;
  /** A root-relative path as typed here. */
  shown(rootPath: string): string;
  /** Whether a path typed here names a file inside the root (`importers app.py` is a path, `importers pkg.mod` a name). */
  namesFile(typed: string): boolean;
}

/** The words after `evidex` of the command that makes `call` from `place`. */
export function callWords(call: ToolCallParams, place: CallPlace): string[] {
  const a = call.arguments as Record<string, unknown>;
  const page = [...valued(a, 'limit', '--limit'), ...valued(a, 'offset', '--offset')];
  switch (call.name) {
    case 'search_code':
      return words('search', String(a.query), [...bare(a, 'case_sensitive', '--case-sensitive'), ...scope(a.path_prefix, place), ...page]);
    case 'find_symbol':
      return words('symbol', String(a.name), [...valued(a, 'kind', '--kind'), ...scope(a.path_prefix, place), ...page]);
    case 'find_importers':
      return words('importers', moduleTyped(String(a.module_name), place), [...bare(a, 'via_reexports', '--via-reexports'), ...scope(a.path_prefix, place), ...page]);
    case 'read_evidence': {
      const end = a.end_line === undefined ? '' : `-${String(a.end_line)}`;
      return words('read', `${place.shown(String(a.path))}:${String(a.start_line)}${end}`, valued(a, 'context', '--context'));
    }
    case 'read_git_diff':
      return words('diff', a.path === undefined ? undefined : place.shown(String(a.path)),
        [...bare(a, 'staged', '--staged'), ...valued(a, 'base', '--base'), ...(a.untracked === false ? ['--tracked-only'] : []), ...page]);
  }
}

/** A command's words: its positional word after its flags and a `--` when it would read as an option. */
function words(command: string, word: string | undefined, flags: readonly string[]): string[] {
  if (word === undefined) return [command, ...flags];
  return word.startsWith('-') ? [command, ...flags, '--', word] : [command, word, ...flags];
}

/** A module asked for by a file's path is typed as that path from here; any other name as it is. */
function moduleTyped(name: string, place: CallPlace): string {
  const shown = place.shown(name);
  return place.namesFile(shown) ? shown : name;
}

/** How the command's scope says `prefix` from `place` (see the file comment). */
function scope(prefix: unknown, place: CallPlace): string[] {
  const here = place.here;
  if (prefix === undefined) return here ? ['--all'] : [];
  if (typeof prefix !== 'string' || prefix === here) return [];
  return ['--path-prefix', place.shown(prefix)];
}

function bare(a: Record<string, unknown>, arg: string, flag: string): string[] {
  return a[arg] === true ? [flag] : [];
}

function valued(a: Record<string, unknown>, arg: string, flag: string): string[] {
  return a[arg] === undefined ? [] : [flag, String(a[arg])];
}

/**
 * `text` (a note or a refusal) with each of its `calls` (where it writes
 * them) as the command line that makes it from `place`, and its other words
 * as `prose` says them. A call the text does not hold where it says (a
 * daemon of another version) is left in the words as the text writes it.
 */
export function withCommands(text: string, calls: readonly PlacedCall[], place: CommandPlace & CallPlace, prose: (words: string) => string): string {
  let said = '';
  let at = 0;
  for (const c of [...calls].sort((a, b) => a.at - b.at)) {
    if (c.at < at || c.at + c.length > text.length) continue;
    said += prose(text.slice(at, c.at)) + commandLine(place, callWords(c, place));
    at = c.at + c.length;
  }
  return said + prose(text.slice(at));
}
