// A caller's path that goes through a symbolic link inside the root
// (docs/tools.md, What is indexed: Symbolic links). The index holds each real
// file once, under its real path, so `tests/pydantic_core/x.py` through
// `tests/pydantic_core -> ../pydantic-core/tests` names no indexed file; it is
// followed to the real path, and the answer says so in a note, so that a
// reader who cites the evidence's path knows why it is not the one typed.
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import type { Store } from '../store/store.js';
import { normalizeLexically, resolveCallerPath } from './caller-paths.js';
import type { Note } from './notes.js';
import { holdsUnder } from './prefix-note.js';

/** The note on an answer for `given`, a name through a link of what the index holds as `real` (a file, or a folder with its "/"). */
export function followedNote(given: string, real: string): Note {
  const shown = real === '' ? 'the repository root' : JSON.stringify(real);
  return {
    text: `${JSON.stringify(given)} goes through a symbolic link to ${shown}, the name the index holds it under (each file is indexed once, under its real path)`,
    paths: real === '' ? [] : [real],
  };
}

/**
 * `path_prefix` followed through a link inside the root: the prefix on the
 * real path, and its note; null when the prefix names no link (or one out of
 * the root, which holds nothing indexed: the prefix note says so). A prefix
 * that is no whole name (`tests/pydantic_core/test_v`) is followed by its
 * folder, as a string prefix it keeps its last part as typed. A prefix
 * the index holds files under names no link (no file is indexed under one):
 * it is taken as it is, without a look at the disk.
 */
export function followedPrefix(store: Store, rules: RepoRules, raw: string | undefined): { prefix: string; note: Note } | null {
  if (raw === undefined) return null;
  const clean = normalizeLexically(raw, { allowRoot: true });
  if (clean === '') return null;
  const slash = raw.endsWith('/') ? '/' : '';
  if (holdsUnder(store, `${clean}${slash}`)) return null;
  const whole = realOf(rules, clean);
  let prefix: string;
  if (whole !== null) prefix = whole === '' ? '' : `${whole}${slash}`;
  else {
    const cut = clean.lastIndexOf('/');
    if (cut < 0) return null;
    const folder = realOf(rules, clean.slice(0, cut));
    if (folder === null) return null;
    prefix = `${folder === '' ? '' : `${folder}/`}${clean.slice(cut + 1)}${slash}`;
  }
  if (prefix === `${clean}${slash}`) return null;
  return { prefix: prefix === '' ? '.' : prefix, note: followedNote(`${clean}${slash}`, prefix === '' ? '' : prefix) };
}

/**
 * Where `clean` leads, root-relative, when something is there inside the root; null when nothing is, or it leads out.
 * A secret, by name or as the file a secret name leads to, is refused as read_evidence refuses it: the note
 * would otherwise name what is behind `.env -> settings.txt`.
 */
function realOf(rules: RepoRules, clean: string): string | null {
  const isSecret = (p: string): boolean => rules.isSecret(p) || rules.isKnownSecretFile(p);
  try {
    return resolveCallerPath({ realRoot: rules.realRoot, isSecret }, clean, { allowRoot: true }).real;
  } catch (err) {
    if (err instanceof ToolError && err.code !== 'secret_denied') return null;
    throw err;
  }
}
