// The sorted Python targets find_importers' submodule note reads
// (store/target-order.ts), against the plain answer (every live target
// starting with the parent and a dot, sorted), through adds and removals
// past the point where the new ones are sorted in, and with targets coming
// and going while a sort runs in slices.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { drain } from '../indexer/store/in-slices.js';
import { TargetOrder } from '../indexer/store/target-order.js';
import { mulberry32 } from './helpers/random.js';

/** A target set with its order followed as SymbolIndex follows it. */
function followed() {
  const live = new Set<string>();
  const order = new TargetOrder(() => live.keys(), (t) => live.has(t));
  const add = (t: string): void => { if (!live.has(t)) { live.add(t); order.added(t); } };
  const remove = (t: string): void => { if (live.delete(t)) order.removed(t); };
  const expected = (p: string): string[] => [...live].filter((t) => t.startsWith(`${p}.`)).sort();
  return { live, order, add, remove, expected };
}

test('targets under a parent stay exact through adds and removals, before and after they are sorted in', () => {
  const rand = mulberry32(53);
  const { order, add, remove, expected, live } = followed();
  const name = (): string => ['a', 'a.b', 'ab', 'a.c', 'b', ':a', './a.ts'][Math.floor(rand() * 7)] + (rand() < 0.8 ? `.m${Math.floor(rand() * 400)}` : '');
  for (let i = 0; i < 300; i++) add(name());
  for (let step = 0; step < 3000; step++) {
    const t = name();
    if (rand() < 0.5) add(t); else remove(t);
    if (step % 50 === 0) {
      for (const p of ['a', 'a.b', 'ab', 'b', 'nope']) assert.equal(drain(order.under(p, () => false)), expected(p), `${p} at step ${step}`);
    }
  }
  // TypeScript targets are never among them, even for a parent spelled like one.
  assert.ok([...live].some((t) => t.startsWith(':a.')));
  assert.equal(drain(order.under(':a', () => false)), []);
});

test('targets that come and go while a sort runs in slices are there when it ends', () => {
  const { order, add, remove, expected } = followed();
  for (let i = 0; i < 5000; i++) add(`p.m${i}`);
  // Every slice ends at once; between slices, the index changes.
  const it = order.under('p', () => true);
  let i = 0;
  for (let r = it.next(); !r.done; r = it.next(), i++) {
    add(`p.new${i}`);
    remove(`p.m${i}`);
    if (i % 2 === 0) add(`p.m${i}`); // gone and back
  }
  assert.ok(i > 1, `the sort yielded ${i} times`);
  assert.equal(drain(order.under('p', () => false)), expected('p'));
  order.clear();
  assert.equal(drain(order.under('p', () => false)), expected('p'), 'sorted again from every target after clear()');
});

test.run();
