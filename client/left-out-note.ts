// `evidex search`'s one line about files it could not search (docs/tools.md,
// What is indexed): when the query appears in the path of a file the index
// leaves out — a secret, one over the size cap, a binary, an ignored entry, a
// path too long, a name that is not UTF-8 — the user is told which and why,
// so `0 of 0` never hides a file rg would have found. Names and reasons
// only: the daemon never sends a left-out file's content, and none is shown.
// The CLI loads nothing of the indexer at run time (test/cli-shell): its types alone.
import type { LeftOut, LeftOutReason } from '../indexer/api.js';
import { escapedPath, human, join, path, type Shown } from '../local/human.js';
import { Methods } from '../protocol/messages.js';
import type { Client } from './connection.js';

/** How each reason is said to a person, in the order `daemon status` lists them. */
export const LEFT_OUT_WORDS: Readonly<Record<LeftOutReason, string>> = Object.freeze({
  secret: 'secret',
  tooLarge: 'over the size cap',
  binary: 'binary',
  ignored: 'ignored',
  pathTooLong: 'path too long',
  nameNotUtf8: 'name not UTF-8',
  worktree: 'work tree of this repository',
});

/** How many left-out names the line shows before "and N more". */
const SHOWN = 3;

/** The line for these left-out files (`total` of them in all), or null when there are none. */
export function formatNotSearched(items: readonly LeftOut[], total: number): Shown | null {
  if (items.length === 0) return null;
  // A name that is not UTF-8 comes already escaped (`bad\xffname.py`): shown so, not escaped twice.
  const named = items.slice(0, SHOWN).map((e) => human`${e.reason === 'nameNotUtf8' ? escapedPath(e.path) : path(e.path)} (${LEFT_OUT_WORDS[e.reason]})`);
  const more = total > named.length ? human` and ${total - named.length} more` : '';
  return human`not searched: ${join(named, ', ')}${more}`;
}

/** Asks the daemon for left-out files matching a search's query and prefix; null when none (or a daemon that cannot say). */
export async function notSearched(client: Client, args: Record<string, unknown>): Promise<Shown | null> {
  if (typeof args.query !== 'string' || args.query === '') return null;
  try {
    const r = await client.request(Methods.indexLeftOut, {
      query: args.query,
      case_sensitive: args.case_sensitive === true,
      path_prefix: typeof args.path_prefix === 'string' ? args.path_prefix : undefined,
      limit: SHOWN,
    });
    return formatNotSearched(r.items, r.total);
  } catch {
    return null; // an older daemon, or a query it refuses: the search itself has answered
  }
}
