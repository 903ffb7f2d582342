// find_symbol's note on a Python name that is only re-exported (docs/tools.md,
// find_symbol, Notes): `httpx.Client` is what users and models type, and the
// exact rules answer it with nothing, since httpx/__init__.py's
// `from ._client import *` defines nothing. The note says which statement
// passes the name on (each hop of a chain), where its definition is, and the
// call that answers it, so a model's next step is that call. Made only on an
// empty answer, from py-reexports.ts's walk.
import type { DefinitionHit, Store } from '../store/store.js';
import { joinWorded, worded, type Note, type Worded } from './notes.js';
import { pyReexportChains, type PyChain, type PyStep } from './py-reexports.js';

/** Chains said in one note, and definitions named for one chain. */
const CHAINS_SAID = 3;
const DEFINITIONS_NAMED = 3;

/** Whether `name` can be a module-qualified Python name (dotted identifiers). */
export function mayBeReexported(name: string): boolean {
  return /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/.test(name);
}

/** The note for `name` when a re-export reaches it (null when none does). */
export function pyReexportNote(store: Store, name: string): Note | null {
  // Shortest first (httpx.Client: `from ._client import *`, not `from ._api import *` and then _api's own import of Client); of the chains that reach one name, the first is said.
  const seen = new Set<string>();
  const chains = pyReexportChains(store, name).sort((a, b) => a.steps.length - b.steps.length).filter((c) => !seen.has(c.target) && seen.add(c.target));
  if (chains.length === 0) return null;
  const ordered = [...chains.filter((c) => c.hits.length), ...chains.filter((c) => !c.hits.length)];
  const paths: string[] = [];
  const said = ordered.slice(0, CHAINS_SAID).map((c) => chainWords(store, name, c, paths));
  const more = ordered.length - said.length;
  if (more > 0) said.push(worded`${more} more re-export${more === 1 ? '' : 's'}`);
  return { ...worded`no definition is named ${JSON.stringify(name)} (a re-export defines nothing): ${joinWorded(said, '; ')}`, paths };
}

/** One chain: each statement that passes the name on, then its definitions and the call that answers them (or where the walk ended). */
function chainWords(store: Store, name: string, c: PyChain, paths: string[]): Worded {
  let asked = name;
  const hops = c.steps.map((s, i) => {
    const path = store.file(s.fid)!.path;
    paths.push(path);
    const words = `${i === 0 ? `${asked} is re-exported by` : `${asked} by`} ${path}:${s.line} (\`${lineAt(store, s)}\`)`;
    asked = s.imported === '*' ? `${s.from}.${asked.slice(s.module.length + 1)}` : `${s.from}.${s.imported}${asked.slice(s.module.length + 1 + s.bound.length)}`;
    return words;
  });
  const through = hops.join(', ');
  if (c.hits.length === 0) {
    return worded`${through}; ${c.target} is not in the index (a package outside the repository, or a file left out)`;
  }
  const places = c.hits.slice(0, DEFINITIONS_NAMED).map((h: DefinitionHit) => {
    const p = store.file(h.fid)!.path;
    paths.push(p);
    return `${p}:${h.start}`;
  });
  if (c.hits.length > places.length) places.push(`${c.hits.length - places.length} more`);
  return worded`${through}; its definition: ${c.target} (${places.join(', ')}), which ${{ name: 'find_symbol', arguments: { name: c.target } }} answers`;
}

/** The line a step cites, as the file writes it (trimmed). */
function lineAt(store: Store, s: PyStep): string {
  return store.searchText(s.fid).textRange(s.line, s.line).trim();
}
