// What find_importers adds when a Python module name is answered by the rule
// alone (docs/tools.md, find_importers, Notes): a statement imports `werkzeug`
// only when one of its targets is `werkzeug`, so `from werkzeug.exceptions
// import HTTPException` is not in the answer. That is exact, but an answer of
// 1 reads as "barely used" where 55 more statements import its submodules;
// the note says how many, and which submodules most, with the call that lists them.
import type { Due } from '../store/in-slices.js';
import type { Store } from '../store/store.js';
import { isPythonTarget } from '../store/target-order.js';
import { worded, type Note } from './notes.js';

/** Submodules named in one note. */
const SUBMODULES_NAMED = 3;

/**
 * The note on find_importers' answer for `m` (of `total` statements, matched
 * by `names`): the statements under the Python names among `names` (a target
 * starting with one and a `.`) that the answer does not count, under
 * `prefix` as the answer is. A `from P import n` has the target `P.n` too,
 * but also `P`, so it is in the answer already and never counted here. Null
 * when there are none.
 */
export function* submodulesNote(store: Store, m: string, names: ReadonlySet<string>, prefix: string | undefined, total: number, due: Due): Generator<void, Note | null, void> {
  const parents = [...names].filter(isPythonTarget);
  if (parents.length === 0) return null;
  const under = yield* store.plan.importsUnder(parents, names, prefix, due);
  if (under.total === 0) return null;
  const top = [...under.byTarget].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, SUBMODULES_NAMED);
  const listed = top.map(([t, n]) => `${t} ${n}`).join(', ') + (under.byTarget.length > top.length ? ', …' : '');
  const n = under.total;
  const statements = `${n}${total > 0 ? ' more' : ''} statement${n === 1 ? '' : 's'} import${n === 1 ? 's' : ''}`;
  // The call that lists them keeps the prefix they were counted under: without it, it lists those of the whole tree.
  const call = { name: 'find_importers', arguments: { module_name: top[0][0], ...(prefix === undefined ? {} : { path_prefix: prefix }) } } as const;
  return {
    ...worded`${statements} modules under ${m} (${listed}); a statement imports ${m} only when it names it: ${call} lists ${top[0][1] === 1 ? 'it' : 'those'}`,
    paths: [],
  };
}
