// A command's answers never contradict each other: on hono, from src/, right
// after a start, `evidex symbol offlineAdded2` said `0 of 0 shown` (marked:
// the start-up check was running) and then "1 more in the whole repository"
// — the new file itself, counted by the follow-up once the check had indexed
// it. Here the index moves between the answer and its follow-up on purpose:
// the client the command uses writes a file into the folder it asks about
// after the first answer and waits until the real daemon's watcher has
// indexed it, so nothing depends on speed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '../client/connection.js';
import { callTool, answering, wholeRepositoryNote } from '../client/commands/tool-command.js';
import { mixedNote, ofOneGeneration, ROUNDS } from '../client/commands/one-generation.js';
import { Methods } from '../protocol/messages.js';
import { fixtureCopy, startWatched, stopWatched, waitFor, type TestDaemon } from './helpers/daemon.js';

let d: TestDaemon | undefined;
let c: Client | undefined;
let root = '';

test.before(async () => {
  root = fixtureCopy({ git: true });
  ({ d, c } = await startWatched(root));
});
test.after(() => stopWatched(d, c));

/** How many definitions of `name` the whole index holds now. */
const totalOf = async (name: string): Promise<number> =>
  (await c!.request(Methods.toolsCall, { name: 'find_symbol', arguments: { name } })).total;

/**
 * `c`, but after each of the first `times` answers to a call scoped to src/,
 * a new definition of `name` is written into src/ and waited for until the
 * daemon has indexed it: the next call is answered from a newer generation.
 */
function movingUnder(name: string, times: number): { client: Client; moved: () => number } {
  let moved = 0;
  const client: Client = {
    ...c!,
    request: (async (def: { method: string }, params: { arguments?: { path_prefix?: unknown } }) => {
      const r = await c!.request(def as typeof Methods.toolsCall, params as never);
      if (def.method === Methods.toolsCall.method && params.arguments?.path_prefix === 'src/' && moved < times) {
        moved++;
        writeFileSync(join(root, `src/${name}_${moved}.py`), `def ${name}():\n    return ${moved}\n`);
        await waitFor(`${name} #${moved} indexed`, async () => (await totalOf(name)) === moved);
      }
      return r;
    }) as Client['request'],
  };
  return { client, moved: () => moved };
}

/** `evidex symbol NAME` from src/: find_symbol there, and the whole repository's count as its follow-up (tool-command.ts). */
function symbolFromSrc(name: string) {
  const args = { name, path_prefix: 'src/' };
  return answering({
    call: (cl) => callTool(cl, 'find_symbol', args),
    followUp: (cl, r) => wholeRepositoryNote(cl, (c, a) => callTool(c, 'find_symbol', a), args, r),
  });
}

test('an answer and its follow-up of different generations are asked again: the count agrees with the answer', async () => {
  const { client, moved } = movingUnder('added_between_calls', 1);
  const once = await symbolFromSrc('added_between_calls')(client);
  assert.is(moved(), 1, 'the index moved between the answer and its follow-up');
  assert.is(once.result.total, 0);
  assert.match(String(once.note?.plain), /^1 more in the whole repository/, 'one round alone contradicts itself, as seen on hono');

  const { client: again } = movingUnder('added_between_calls2', 1);
  const { value, generations } = await ofOneGeneration(again, symbolFromSrc('added_between_calls2'));
  assert.is(value.result.total, 1, 'the answer is asked again, of the follow-up\'s generation');
  assert.is(value.note, null, 'and nothing more is counted outside src/');
  assert.is(generations.length, 1);
  assert.is(mixedNote(generations), null);
});

test('a tree that moves between every call: the rounds stop, and the lines say they may not agree', async () => {
  const { client, moved } = movingUnder('always_moving', 100);
  const { value, generations } = await ofOneGeneration(client, symbolFromSrc('always_moving'));
  assert.is(moved(), ROUNDS, 'asked ROUNDS times, no more');
  assert.is(generations.length, 2);
  assert.ok(value.note, 'the last round\'s follow-up counted the file written after its answer');
  assert.match(String(mixedNote(generations)?.plain), new RegExp(`^note: the index changed while this command was answered \\(generation ${generations[0]} to ${generations[1]}, ${ROUNDS} tries\\): the lines above may not agree; run it again$`));
});

test.run();
