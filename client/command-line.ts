// Every evidex command line evidex prints — a read-on hint, a note's "evidex
// importers FILE" (made from its call: call-words.ts), a refusal's advice —
// is written here (docs/cli.md, Paths),
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
  const quoted = words.map(shellWord);
  const repo = place === undefined || place.here !== null ? [] : ['--repo', shellWord(repoFromHere(place))];
  const end = quoted.indexOf('--');
  return ['evidex', ...(end === -1 ? [...quoted, ...repo] : [...quoted.slice(0, end), ...repo, ...quoted.slice(end)])].join(' ');
}

/** The root as a `--repo` typed here takes it: the path down to it when it lies below, else its absolute path. */
function repoFromHere(place: CommandPlace): string {
  return place.below ? place.below.replace(/\/$/, '') : place.root.path;
}
