// How far the daemon's running batch (or re-walk) has read, as `daemon status`
// and an answer's footer both say it while it catches up: a checkout's batch
// reads thousands of files before its one commit, and a count that moves is
// what tells a user it is not stuck.
import { human, type Shown } from '../local/human.js';
import type { CatchingUp } from '../indexer/query/schemas.js';

/** `; read N of M files` (or in `open`/`close`), nothing before the batch reads. */
export function readSoFar(c: CatchingUp, open = '; ', close = ''): Shown | '' {
  return c.progress ? human`${open}read ${c.progress.done} of ${c.progress.total} files${close}` : '';
}
