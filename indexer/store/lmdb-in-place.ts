// Values of an LMDB environment read in place: Buffers over its memory map,
// not copies. Everything evidex knows of lmdb-js's insides is here, so a new
// lmdb-js is checked in one place.
//
// Why not getBinaryFast: it hands back a view over the map only from the
// builds of lmdb-js's addon made with V8's own API (its prebuilds for Node 20
// and 22); the generic N-API build, which Node 24 and 26 load, copies every
// value into a read buffer (and grows it to twice the value). The addon's
// getSharedByBinary, exported by every build (lmdb's own JS does not use it),
// does mdb_get in the environment's current read transaction and returns
// napi_create_external_buffer over the value's bytes with a finalizer that
// frees nothing: the map's own bytes, on every Node line alike.
//
// What it needs, and how it is given:
// - the key in lmdb-js's key buffer (`keyBytes`, shared by every environment
//   and not exported): caught by wrapping the store's writeKey once around
//   the read of a key that is absent, which also writes nothing and copies
//   nothing;
// - a live read transaction as the environment's current one: that same read
//   renews lmdb-js's read transaction, and the values are read in the same
//   synchronous step, before lmdb-js can reset or replace it.
// Why the views stay valid after that transaction is reset: the environment
// is read-only and nothing writes its file again, so no page is reused and
// the map is never resized; its pages are unmapped only when it is closed
// (text-map.ts nulls its segments first).
//
// What is checked, so a future lmdb-js that changes any of this is refused
// with one line (the text then stays in the heap) instead of trusted: each
// value comes back as a Buffer of the stored length, and its bytes lie, whole,
// inside a mapping of this very file (its device and inode) in
// /proc/self/maps — a copy, anywhere, would not.
import { readFileSync, statSync } from 'node:fs';
import * as lmdb from 'lmdb';

/** The two functions of lmdb-js's native addon used here (not in its types). */
interface Addon {
  getSharedByBinary(dbAddress: number, keySize: number): unknown;
  getBufferAddress(buffer: Buffer): number;
}

/** What of an open lmdb-js store is used here (not in its types). */
interface StoreInsides {
  dbAddress: number;
  writeKey(key: number, target: Uint8Array, start: number): number;
  doesExist(key: number): boolean;
}

/**
 * Buffers over the values of `keys` in `db`, an environment opened read-only
 * from `file` that nothing writes again, `sizes[i]` bytes each; `absent` is a
 * key it does not hold. Made once per value, to be kept: V8 counts each as
 * external memory. Throws one line when lmdb-js did not give the map's bytes.
 */
export function readInPlace(db: object, file: string, keys: readonly number[], sizes: readonly number[], absent: number): Buffer[] {
  const addon = (lmdb as unknown as { nativeAddon?: Partial<Addon> }).nativeAddon;
  const store = db as Partial<StoreInsides>;
  const refuse = (why: string): Error => new Error(`lmdb did not read the text map in place on Node ${process.version}: ${why}`);
  if (typeof addon?.getSharedByBinary !== 'function' || typeof addon.getBufferAddress !== 'function') throw refuse('its native addon has no getSharedByBinary');
  if (typeof store.dbAddress !== 'number' || typeof store.writeKey !== 'function' || typeof store.doesExist !== 'function') throw refuse('its store is not the one known here');
  const keyBytes = captureKeyBuffer(store as StoreInsides, absent);
  if (!keyBytes) throw refuse('its key buffer could not be found');
  const views: Buffer[] = [];
  // One synchronous step from the read that renewed the transaction: lmdb-js resets it on a later turn.
  for (let i = 0; i < keys.length; i++) {
    const view = addon.getSharedByBinary(store.dbAddress, store.writeKey(keys[i], keyBytes, 0));
    if (!Buffer.isBuffer(view) || view.length !== sizes[i]) throw refuse(`value ${keys[i]} came back ${Buffer.isBuffer(view) ? `${view.length} bytes long, not ${sizes[i]}` : 'as no Buffer'}`);
    views.push(view);
  }
  const maps = mappingsOf(file);
  for (let i = 0; i < views.length; i++) {
    const at = addon.getBufferAddress(views[i]);
    if (!maps.some(([from, to]) => at >= from && at + views[i].length <= to)) throw refuse(`value ${keys[i]} is not in ${file}'s memory map (a copy)`);
  }
  return views;
}

/** lmdb-js's key buffer: the target its writeKey is given while the store reads `absent` (null when it is not given one). */
function captureKeyBuffer(store: StoreInsides, absent: number): Uint8Array | null {
  const own = Object.prototype.hasOwnProperty.call(store, 'writeKey');
  const writeKey = store.writeKey;
  let caught: Uint8Array | null = null;
  store.writeKey = function (this: unknown, key: number, target: Uint8Array, start: number): number {
    if (caught === null && target instanceof Uint8Array) caught = target;
    return writeKey.call(this, key, target, start);
  };
  try {
    if (store.doesExist(absent)) return null;
  } finally {
    if (own) store.writeKey = writeKey;
    else delete (store as Partial<StoreInsides>).writeKey;
  }
  return caught;
}

/** Address ranges at which this process maps `file` (matched by device and inode, as /proc/self/maps gives them). */
function mappingsOf(file: string): Array<[number, number]> {
  const st = statSync(file);
  const out: Array<[number, number]> = [];
  let maps: string;
  try {
    maps = readFileSync('/proc/self/maps', 'latin1');
  } catch {
    return out; // no /proc: nothing can be shown to be in place, so nothing is trusted
  }
  // start-end perms offset major:minor inode path
  const row = /^([0-9a-f]+)-([0-9a-f]+) \S+ [0-9a-f]+ ([0-9a-f]+):([0-9a-f]+) (\d+)/gm;
  for (let m = row.exec(maps); m; m = row.exec(maps)) {
    if (Number(m[5]) !== st.ino || devOf(parseInt(m[3], 16), parseInt(m[4], 16)) !== st.dev) continue;
    out.push([parseInt(m[1], 16), parseInt(m[2], 16)]);
  }
  return out;
}

/** Linux's dev_t from a major and a minor number (new_encode_dev), as stat's `dev` gives it. */
function devOf(major: number, minor: number): number {
  return (minor % 256) + (major % 4096) * 256 + (minor - (minor % 256)) * 4096 + (major - (major % 4096)) * 2 ** 32;
}
