// One named path's look (the walk's decision, checkPath) and read (parseOne)
// for an update, settled against atomic saves. An editor or tool that saves by
// writing a temp file and renaming it over the original can land between the
// look and the read: the read then meets another file than the one vetted and
// answers 'replaced' (never its content: that file was not vetted). The look
// and the read are then made again, so a file replaced every few milliseconds
// is read whole rather than ever dropped as if deleted; past a few attempts
// the result stays 'replaced', the index keeps what it had, and the rename's
// own event brings the next look.
import type { RepoRules } from '../discover/rules.js';
import { checkPath, type WalkEntry } from '../discover/walk.js';
import type { ParseResult } from './messages.js';
import { parseOne } from './parse-worker.js';
import type { ReadSlabs } from './read-slabs.js';

/** Looks and reads made while the file keeps being replaced between the two. */
const ATTEMPTS = 3;

/** The walk's decision for `path` and, when it is an indexable file, its read (`knownHash`: the indexed content's hash). */
export async function lookAndRead(
  root: string, rules: RepoRules, path: string, knownHash: string | undefined, opts: { maxFileBytes?: number; maxBytes: number; slabs?: ReadSlabs },
): Promise<{ entry: WalkEntry | null | 'gone'; result?: ParseResult }> {
  for (let attempt = 1; ; attempt++) {
    const entry = await checkPath(root, rules, path, { maxFileBytes: opts.maxFileBytes });
    if (entry === null || entry === 'gone') return { entry };
    const result = parseOne({ path, abs: entry.abs, dev: entry.dev, ino: entry.ino, knownHash }, opts.maxBytes, opts.slabs);
    if (result.kind !== 'replaced' || attempt >= ATTEMPTS) return { entry, result };
  }
}

/**
 * How many looks of a mass change (a checkout names a couple of thousand paths) are in flight at once:
 * one after another, each waits its own turn of the thread pool, and at a load of 16 on 2 cores a trpc
 * checkout's 2,000 looks took 5 s, the thread idle half of it.
 */
const LOOKS_AT_ONCE = 32;

/** checkPath for each of `paths`, LOOKS_AT_ONCE at a time; each answer in its path's place. */
export async function lookMany(root: string, rules: RepoRules, paths: readonly string[], opts: { maxFileBytes?: number }): Promise<Array<WalkEntry | null | 'gone'>> {
  const out = new Array<WalkEntry | null | 'gone'>(paths.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < paths.length) {
      const i = next++;
      out[i] = await checkPath(root, rules, paths[i]!, opts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKS_AT_ONCE, paths.length) }, lane));
  return out;
}

/**
 * The named files of a mass change, looked at by lookMany and parsed in the
 * pool (their places in `results`: `slots`): one replaced between its look and
 * its read is looked at and read again, as lookAndRead does; gone or left out
 * by then, it keeps its 'replaced' and its own event brings the next look.
 */
export async function settleReplaced(
  root: string, rules: RepoRules, results: ParseResult[], slots: readonly number[],
  knownHash: (path: string) => string | undefined, opts: { maxFileBytes?: number; maxBytes: number; slabs?: ReadSlabs },
): Promise<void> {
  for (const slot of slots) {
    const { path, kind } = results[slot]!;
    if (kind !== 'replaced') continue;
    const again = await lookAndRead(root, rules, path, knownHash(path), opts);
    if (again.result) results[slot] = again.result;
  }
}
