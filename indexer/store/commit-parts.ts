// How much of one commit goes into one LMDB write transaction. lmdb mallocs
// a page for every page a write transaction dirties and, once the
// transaction ends, keeps each single page on a list of its own for the next
// one (mdb.c: mdb_page_malloc, mdb_page_free, mdb_dlist_free); the list is
// freed only when the environment closes. So a daemon's memory grows to the
// dirty set of the largest transaction it ever wrote, and keeps it: a
// checkout or a formatter over a third of site-packages, written as one
// transaction, left ~56 MB there (docs/performance/memory.md). Store.commit
// therefore writes a large commit as several transactions of bounded size,
// one after another in the same synchronous step (no query runs between
// them), each of whole files, each a point the index can be reopened at.
// (MDB_WRITEMAP would write pages in the map instead of malloc'ing them, but
// turns a full disk into SIGBUS.)
import { opBytes } from './commit-room.js';
import type { FileWrite } from './tables.js';

/** Operations per transaction at most: each dirties a few leaf pages of the lookup tables however small its file. */
export const PART_OPS = 256;
/** Estimated bytes (commit-room.ts: text, trigram buckets, rows and keys) per transaction at most; one operation larger than this is a part alone. */
export const PART_BYTES = 4 << 20;

/**
 * `ops` cut, in order, into runs of at most PART_OPS operations and
 * PART_BYTES estimated bytes (`putOf`: the file an operation writes, null
 * for one that writes a row only); one empty part for no operations, so a
 * commit of none still writes its meta.
 */
export function commitParts<T>(ops: readonly T[], putOf: (op: T) => FileWrite | null): T[][] {
  const parts: T[][] = [[]];
  let bytes = 0;
  for (const op of ops) {
    const size = opBytes(putOf(op));
    let part = parts[parts.length - 1]!;
    if (part.length > 0 && (part.length >= PART_OPS || bytes + size > PART_BYTES)) {
      parts.push(part = []);
      bytes = 0;
    }
    part.push(op);
    bytes += size;
  }
  return parts;
}
