// Which index an answer came from, as its footer says it: the generation,
// and, while the daemon catches up, since when and how far its running batch
// (or re-walk) has read, as `daemon status` says it too: a checkout's batch
// reads thousands of files before its one commit, and a count that moves is
// what tells a user it is not stuck.
import { human, plural, type Shown } from '../local/human.js';
import { clock } from '../local/when.js';
import type { CatchingUp, ToolResult } from '../indexer/query/schemas.js';

/** `; read N of M files` (or in `open`/`close`), nothing before the batch reads. */
export function readSoFar(c: CatchingUp, open = '; ', close = ''): Shown | '' {
  return c.progress ? human`${open}read ${c.progress.done} of ${c.progress.total} files${close}` : '';
}

/**
 * `index generation G`, and whether the index was still catching up with the
 * files (since when, as the local clock, as `daemon status` says it: the
 * daemon's ISO UTC string is for --json): the end of a tool command's footer,
 * and what `evidex call` says on stderr.
 */
export function answeredFrom(r: Pick<ToolResult, 'generation' | 'catching_up'>, now: number = Date.now()): Shown {
  const c = r.catching_up;
  const behind = !c ? '' : c.changes === 0 && c.rewalk
    ? human` · ${c.rewalk} (since ${clock(c.since, now)}): this answer may be out of date`
    : human` · catching up: ${plural(c.changes, 'change')}${c.rewalk ? ' and a re-walk' : ''} since ${clock(c.since, now)} not indexed yet${readSoFar(c, ' (', ')')}, this answer may be out of date`;
  return human`index generation ${r.generation}${behind}`;
}
