// Every evidex command line evidex prints — a read-on hint, a note's "evidex
// importers FILE", a refusal's advice — is written here (docs/cli.md, Paths),
// so each works as typed in the folder it was printed in: each argument
// quoted as a POSIX shell needs it, and, when the command ran on a repository
// that is not the current folder's (`--repo` naming another, or run from
// outside it), `--repo` naming that root from here. The paths in the words are
// the caller's, already as the command takes them from here (Place.shown):
// inside the root from the current folder, else from the root, which is how
// a command given `--repo` takes them. Quoting comes first; escaping for the
// screen (local/human.ts) after, on the whole line.
import { shellWord } from '../local/human.js';

/** Where the command ran, as client/paths.ts's Place says it: null `here` is outside the root. */
export interface CommandPlace {
  readonly here: string | null;
  /** The root from here when it lies below the current folder (Place.below); absent or null: named by its absolute path. */
  readonly below?: string | null;
  readonly root: { readonly path: string };
}

/** `evidex WORDS…`, each quoted as needed, with `--repo ROOT` (before a `--`) when `place` lies outside the root. */
export function commandLine(place: CommandPlace | undefined, words: readonly string[]): string {
  return quotedLine(place, words.map(shellWord));
}

/** commandLine over words already quoted for a shell. */
function quotedLine(place: CommandPlace | undefined, quoted: readonly string[]): string {
  const repo = place === undefined || place.here !== null ? [] : ['--repo', shellWord(repoFromHere(place))];
  const end = quoted.indexOf('--');
  return ['evidex', ...(end === -1 ? [...quoted, ...repo] : [...quoted.slice(0, end), ...repo, ...quoted.slice(end)])].join(' ');
}

/** The root as a `--repo` typed here takes it: the path down to it when it lies below, else its absolute path. */
function repoFromHere(place: CommandPlace): string {
  return place.below ? place.below.replace(/\/$/, '') : place.root.path;
}

/**
 * A command a note names after ": ": its argument in double quotes, or bare
 * up to what notes write after one (the end, `;`, `, `, ` (or `, ` lists`,
 * its flags), so a path with blanks (one with a "." or "/": not prose,
 * `find_importers answers only for those, …`) is one argument; then the
 * flags notes give.
 */
const NOTE_COMMAND = /(: )evidex (importers|search|symbol|read|diff) ("(?:[^"\\]|\\.)*"|[^\s;"]+?|[^;"]*?[./][^;"]*?)((?: --path-prefix "(?:[^"\\]|\\.)*"| --all)*)(?=$|;|, | \(or | lists )/g;

/**
 * `text` (a note or refusal, its tools already named as commands) with each
 * command it names after ": " written as commandLine writes one. An argument
 * the daemon wrote in double quotes that a shell reads as written keeps them
 * (`evidex search "styles.css"`).
 */
export function notedCommands(text: string, place: CommandPlace | undefined): string {
  return text.replace(NOTE_COMMAND, (_all, lead: string, command: string, arg: string, flags: string) =>
    `${lead}${quotedLine(place, [command, requoted(arg), ...flagWords(flags)])}`);
}

/** A note's word as a shell takes it: bare, or in the daemon's double quotes when a shell reads them as written, else single-quoted. */
function requoted(word: string): string {
  if (!word.startsWith('"')) return shellWord(word);
  if (!/[$`\\!]/.test(word.slice(1, -1))) return word;
  try { return shellWord(JSON.parse(word) as string); } catch { return shellWord(word); }
}

/** ` --path-prefix "P" --all` as quoted words. */
function flagWords(flags: string): string[] {
  const out: string[] = [];
  for (const m of flags.matchAll(/--path-prefix ("(?:[^"\\]|\\.)*")|--all/g)) out.push(...(m[1] !== undefined ? ['--path-prefix', requoted(m[1])] : ['--all']));
  return out;
}
