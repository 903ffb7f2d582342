// What an index write that could not land is called. A full disk is the one
// failure a user can fix and evidex cannot: it gets its own code, `no_space`,
// and one line naming the state folder, wherever the write came from (`evidex
// index`, index/refresh, the watcher's batches). Everything else thrown by a
// write stays as it was.
//
// LMDB does not always say ENOSPC: a write the disk cut short is reported as
// EIO ("Input/output error"), as is a sync that failed. An I/O error on a
// disk with almost no room left is therefore taken as the disk being full;
// with room left it is a real I/O error and keeps its own message.
import { statfsSync } from 'node:fs';
import { ToolError } from './errors.js';

/** Below this much room for an unprivileged writer, an I/O error from a write is the disk being full. */
export const NEARLY_FULL_BYTES = 1024 * 1024;

const FULL = /no space left on device|disk quota exceeded/i;
const IO = /input\/output error/i;

/** The one-line refusal of a write on a full disk: `no space left on DIR (state folder)`; it knows the folder, so a retry can watch for room there. */
export class NoSpaceError extends ToolError {
  constructor(readonly stateDir: string) {
    super('no_space', `no space left on ${stateDir} (state folder)`);
  }
}

export function noSpace(stateDir: string): NoSpaceError {
  return new NoSpaceError(stateDir);
}

/** Whether `e` is the no_space refusal. */
export function isNoSpace(e: unknown): boolean {
  return e instanceof ToolError && e.code === 'no_space';
}

/** Room left on the file system that holds `dir`, for a writer that is not root; Infinity when it cannot be told. */
export function roomLeft(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

/** `e` as a write under `stateDir` reports it: the no_space refusal when the disk is full, else `e` itself. */
export function asWriteFailure(e: unknown, stateDir: string): unknown {
  if (e instanceof ToolError) return e;
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (code === 'ENOSPC' || code === 'EDQUOT' || FULL.test(text)) return noSpace(stateDir);
  if ((code === 'EIO' || code === 5 || IO.test(text)) && roomLeft(stateDir) < NEARLY_FULL_BYTES) return noSpace(stateDir);
  return e;
}
