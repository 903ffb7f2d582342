// The text map's values read in place (indexer/store/lmdb-in-place.ts) on the
// Node line this runs on, and the hazards of views over a memory map, tried
// rather than assumed: lmdb-js resetting and renewing its read transaction
// under the views; generation after generation mapped where the last one was,
// while the last one's views are still alive, compacted from each other, with
// collections forced between (V8 once crashed on two external buffers over
// one address: lmdb-js's env.cpp says so); a view read after its environment
// closed (refused); and a copy of the file, same bytes, refused as not in the
// map.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as lmdb from 'lmdb';
import { readInPlace } from '../indexer/store/lmdb-in-place.js';
import { mapSlice, TextMapGeneration, type MapPiece } from '../indexer/store/text-map.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

setFlagsFromString('--expose-gc');
/** A full collection, as `node --expose-gc` would give it. */
const gc = runInNewContext('gc') as () => void;
const { getBufferAddress } = (lmdb as unknown as { nativeAddon: { getBufferAddress(b: Buffer): number } }).nativeAddon;

test.after(() => cleanupTemp());

/** Values of sizes that lmdb-js's own reads treat differently (a leaf page, its read buffer, past it), each a pattern of its own. */
const SIZES = [100, 5000, 16 << 20, (32 << 20) + 3];
const valueOf = (k: number, size: number): Buffer => Buffer.alloc(size, `value ${k}: ça va; `, 'latin1');

/** An environment written with SIZES' values under keys 0…, closed, then opened read-only as text-map.ts does. */
async function readOnlyEnv(dir: string): Promise<{ file: string; env: lmdb.RootDatabase<Uint8Array, number> }> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'values.mdb');
  const opts = { path: file, noSubdir: true, keyEncoding: 'uint32' as const, encoding: 'binary' as const, compression: false };
  const writer = lmdb.open<Uint8Array, number>(opts);
  SIZES.forEach((size, k) => writer.putSync(k, valueOf(k, size)));
  await writer.close();
  return { file, env: lmdb.open<Uint8Array, number>({ ...opts, readOnly: true }) };
}

test('values of every size come back as the map\'s bytes, and stay right while lmdb-js resets and renews its read transaction', async () => {
  const { file, env } = await readOnlyEnv(tempDir('in-place'));
  const keys = SIZES.map((_, k) => k);
  const views = readInPlace(env, file, keys, SIZES, SIZES.length);
  assert.equal(views.map((v) => v.length), SIZES);
  const check = (when: string): void => views.forEach((v, k) => assert.ok(v.equals(valueOf(k, SIZES[k])), `value ${k} ${when}`));
  check('as read');
  const at = views.map((v) => getBufferAddress(v));
  // lmdb-js resets its read transaction on a later turn, and renews it at the next read.
  await new Promise((r) => setTimeout(r, 10));
  check('after the reset');
  for (let round = 0; round < 3; round++) {
    assert.ok(env.getBinaryFast(0)?.length === SIZES[0], 'a read renews the transaction');
    env.resetReadTxn();
    await new Promise((r) => setTimeout(r, 1));
  }
  check('after resets and renewals');
  // Read again: the same bytes, at the same addresses (a copy would be elsewhere).
  assert.equal(readInPlace(env, file, keys, SIZES, SIZES.length).map((v) => getBufferAddress(v)), at);
  await env.close();
});

test('a copy of the file (the same bytes) is refused as not in place, with one line; a wrong size and an absent key that is there too', async () => {
  const dir = tempDir('in-place');
  const { file, env } = await readOnlyEnv(dir);
  const copy = join(dir, 'copy.mdb');
  copyFileSync(file, copy);
  const keys = SIZES.map((_, k) => k);
  assert.throws(() => readInPlace(env, copy, keys, SIZES, SIZES.length), (e: Error) => /^lmdb did not read the text map in place on Node v\d+\.\d+\.\d+: value 0 is not in .*copy\.mdb's memory map \(a copy\)$/.test(e.message));
  assert.throws(() => readInPlace(env, file, [1], [5001], SIZES.length), /value 1 came back 5000 bytes long, not 5001$/);
  assert.throws(() => readInPlace(env, file, [1], [5000], 0), /its key buffer could not be found$/);
  assert.throws(() => readInPlace(env, file, [SIZES.length + 1], [1], SIZES.length), /came back as no Buffer$/);
  await env.close();
});

test('generation after generation, each compacted from the last, mapped while the last one\'s views are alive, with collections forced between: the text stays right, and a closed generation is refused', async () => {
  const dir = join(tempDir('in-place'), 'map');
  const texts = [`def café(self): pass\n`.repeat(2000), 'x = 1\n'.repeat(300_000), 'tail: the last piece\n'];
  let pieces: Array<MapPiece | string> = texts;
  let gen: TextMapGeneration | null = null;
  /** The views of closed generations, kept alive (not collected) while the next is mapped. */
  const closedViews: Buffer[] = [];
  const seen = new Set<number>();
  let again = 0;
  // Six generations at least, and on until one lands where an earlier one's views were (the case this is
  // about): the kernel picks the addresses, and under load it does not always reuse one within six.
  for (let g = 1; g <= 6 || (again === 0 && g <= 40); g++) {
    const placed: MapPiece[] = [];
    const next = await TextMapGeneration.write(dir, g, pieces, (i, p) => { placed[i] = p; });
    for (const s of next.segments) {
      const a = getBufferAddress(s.bytes!);
      if (seen.has(a)) again++;
      seen.add(a);
    }
    placed.forEach((p, i) => assert.is(mapSlice(p, 0, texts[i].length), texts[i], `generation ${g}, text ${i}`));
    if (gen) {
      const old = gen.segments.map((s) => s.bytes!);
      const piece = pieces[0] as MapPiece;
      await gen.close();
      assert.throws(() => mapSlice(piece, 0, 1), /closed text map/, 'a closed generation is not read');
      if (g % 2 === 0) closedViews.push(...old); // kept alive across the next generations
      gc();
    }
    gen = next;
    pieces = placed;
    placed.forEach((p, i) => assert.is(mapSlice(p, 0, texts[i].length), texts[i], `generation ${g}, text ${i}, after a collection`));
  }
  assert.ok(again > 0, `a later generation was mapped at an address an earlier one's views had (${seen.size} addresses seen)`);
  closedViews.length = 0;
  gc();
  await gen!.close();
  gc();
});

test.run();
