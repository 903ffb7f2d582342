// A folder the index leaves out (an answer's `left_out_folder`, the fields of
// the tools' note on it: indexer/query/prefix-note.ts) in the command line's
// words (docs/cli.md, Tool commands): the folder as typed here ("." when the user
// stands in it) with its root-relative path beside it, the tool's why as it
// is, and what to type to index that folder as a tree of its own — this
// command again with --repo naming it (the tool cannot know the command; the
// command line can). Every name goes out through local/human.ts.
import { human, line, path, type Shown } from '../local/human.js';
import { commandLine } from './command-line.js';
import type { LeftOutFolder } from '../protocol/messages.js';

/** Flags that choose the repository or the scope: the command typed again names the folder as its repository instead. */
const VALUED = new Set(['--repo', '--path-prefix']);
const BARE = new Set(['--all']);

/** Where the command runs (client/paths.ts's Place): outside the root (`here` null) a root-relative path would not work as typed, so it is given absolute. */
export interface FolderHere {
  /** A root-relative path as typed from the current folder ("." for itself). */
  shown(rootPath: string): string;
  readonly here: string | null;
  readonly root: { readonly path: string };
}

/** The `note:` line on a folder the index leaves out, for the command typed as `argv` (the words after `evidex`). */
export function leftOutFolderNote(out: LeftOutFolder, here: FolderHere, argv: readonly string[]): Shown {
  const folder = out.path_prefix;
  const typed = here.here !== null ? here.shown(folder).replace(/(.)\/$/, '$1') : `${here.root.path.replace(/\/$/, '')}/${folder.replace(/\/$/, '')}`;
  const bare = folder.replace(/\/$/, '');
  const named = typed === bare ? path(typed) : human`${path(typed)} (${path(bare)})`;
  // git's own folder and evidex's state are no trees of code to index: no --repo command.
  if (out.reason === 'gitDir' || out.reason === 'state') return human`note: ${named} is not indexed: ${line(out.why)}`;
  return human`note: ${named} is not indexed: ${line(out.why)}; to index it as a tree of its own: ${line(typedAgain(argv, typed))}`;
}

/** The command as typed (`argv`, the words after `evidex`), its repository and scope flags dropped, with `--repo DIR`. */
export function typedAgain(argv: readonly string[], dir: string): string {
  const words: string[] = [];
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const a = argv[i];
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (BARE.has(a)) continue;
    if (VALUED.has(name)) { if (name === a) i++; continue; }
    words.push(a);
  }
  // Before a `--`, which makes every word after it a positional one.
  words.push('--repo', dir, ...argv.slice(i));
  return commandLine(undefined, words);
}
