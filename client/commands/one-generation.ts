// A tool command may print what several calls answered: the answer, then a
// follow-up's line (how many more the whole repository has, how to read on,
// files the search could not look in), or a read made of several reads. Each
// call is answered from the index as it is then, and the index may move
// between them: a watcher batch lands, or the start-up check finds the file
// added while no daemon ran. Seen on hono: `0 of 0 shown` from src/, marked
// "start-up check ... may be out of date", then "1 more in the whole
// repository" — the new file itself, in src/, counted by the follow-up a
// moment later. So the rule for every command: its calls are made in rounds,
// and a round whose answers came from more than one index generation is made
// again, at most ROUNDS times in all; the printed lines then agree. A tree
// that changes faster than that is told plainly (mixedNote), never hidden.
import { human, type Shown } from '../../local/human.js';
import type { Client } from '../connection.js';

/** How many rounds a command makes at most before it prints one that spans generations, saying so. */
export const ROUNDS = 3;

/** What one round returned, and the index generations its calls answered from (ascending; one when they agree). */
export interface OfGenerations<T> { value: T; generations: number[] }

/**
 * `round`'s value, made over a client that notes the generation of every
 * answer (tools/call answers carry one; other methods' answers do not and
 * count for nothing), again while its answers span generations, up to ROUNDS
 * rounds.
 */
export async function ofOneGeneration<T>(client: Client, round: (c: Client) => Promise<T>): Promise<OfGenerations<T>> {
  for (let n = 1; ; n++) {
    const seen = new Set<number>();
    const value = await round(noting(client, seen));
    if (seen.size <= 1 || n === ROUNDS) return { value, generations: [...seen].sort((a, b) => a - b) };
  }
}

/** The line a command prints under answers that still span generations after ROUNDS rounds; null when they agree. */
export function mixedNote(generations: readonly number[]): Shown | null {
  if (generations.length <= 1) return null;
  return human`note: the index changed while this command was answered (generation ${generations[0]} to ${generations[generations.length - 1]}, ${ROUNDS} tries): the lines above may not agree; run it again`;
}

/** `client`, with the generation of every answer that names one added to `seen`. */
function noting(client: Client, seen: Set<number>): Client {
  const note = <R>(r: R): R => {
    const g = (r as { generation?: unknown } | null)?.generation;
    if (typeof g === 'number') seen.add(g);
    return r;
  };
  return {
    info: client.info,
    stateDir: client.stateDir,
    closed: client.closed,
    request: ((def, ...rest) => client.request(def, ...rest).then(note)) as Client['request'],
    requestRaw: (method, params, signal) => client.requestRaw(method, params, signal).then(note),
    onNotification: client.onNotification.bind(client) as Client['onNotification'],
    close: () => client.close(),
    leave: () => client.leave(),
  };
}
