// Python re-exports as find_symbol's empty answers follow them (docs/tools.md,
// find_symbol, Suggestions and Notes): `httpx.Client` names no definition,
// since httpx/__init__.py only writes `from ._client import *`, and a
// statement defines nothing. The walk goes from a module-qualified name to
// the statements of that module's files that bind its first part — a star
// import, `from P import N`, `from P import M as N` — and on to `P.M…`,
// through packages that pass it on again, to the definitions at the end.
// Read from the indexed statements and the lines that write them; nothing is
// stored for it. `__all__` is not read: a star import is followed whatever
// it lists, as the suggestions always were.
import type { PyImport } from '../model.js';
import type { DefinitionHit, Store } from '../store/store.js';
import { moduleQualified } from './qualified.js';

/** How many re-export hops are followed. */
const MAX_HOPS = 4;

/** One statement of a file known as `module` that binds `bound` to `imported` of module `from`. */
export interface PyStep {
  module: string;
  fid: number;
  /** The line that writes the binding (a statement over several lines: the one naming it). */
  line: number;
  bound: string;
  from: string;
  /** `*` for a star import. */
  imported: string;
}

/** A walk from an asked name: the steps taken, the name reached, and its definitions (none: the walk ends there without one). */
export interface PyChain {
  steps: PyStep[];
  target: string;
  hits: DefinitionHit[];
}

/**
 * Every chain `name` reaches through re-exports, for each way of reading it as
 * `M.R` with M a module the index knows, depth first in the files' path order.
 * A chain whose end has definitions is said first where it was found; one that
 * ends at a module binding nothing further (an external package) has none.
 */
export function pyReexportChains(store: Store, name: string): PyChain[] {
  const out: PyChain[] = [];
  const visited = new Set<string>();
  for (let i = name.indexOf('.'); i > 0 && i < name.length - 1; i = name.indexOf('.', i + 1)) {
    walk(store, name.slice(0, i), name.slice(i + 1), [], visited, out);
  }
  return out;
}

function walk(store: Store, module: string, rest: string, steps: PyStep[], visited: Set<string>, out: PyChain[]): void {
  const key = `${module}\0${rest}`;
  if (steps.length >= MAX_HOPS || visited.has(key)) return;
  visited.add(key);
  const dot = rest.indexOf('.');
  const head = dot < 0 ? rest : rest.slice(0, dot), tail = dot < 0 ? '' : rest.slice(dot);
  for (const step of pyBindings(store, module, head)) {
    const next = step.imported === '*' ? rest : `${step.imported}${tail}`;
    const target = `${step.from}.${next}`;
    const chain = [...steps, step];
    const hits = definitionsOf(store, target);
    if (hits.length) { out.push({ steps: chain, target, hits }); continue; }
    const before = out.length;
    walk(store, step.from, next, chain, visited, out);
    // A named import that leads nowhere further ends here; a star import that does not hold the name is no chain.
    if (out.length === before && step.imported !== '*' && store.moduleFiles(step.from).length === 0) out.push({ steps: chain, target, hits: [] });
  }
}

/** The definitions find_symbol answers for module-qualified `target` whose qualname is what it names in its module. */
function definitionsOf(store: Store, target: string): DefinitionHit[] {
  const quals = moduleQualified(store, target);
  const hits = store.plan.definitions(target, { quals }, { offset: 0, end: Number.MAX_SAFE_INTEGER }).hits;
  return hits.filter((h) => quals.some((q) => q.qual === h.qualname && q.fids.includes(h.fid)));
}

/** The statements of the files known as `module` (in path order) that bind `name`: star imports, and from-imports naming it, aliased or not. */
export function pyBindings(store: Store, module: string, name: string): PyStep[] {
  const out: PyStep[] = [];
  const path = (fid: number): string => store.file(fid)?.path ?? '';
  const fids = [...store.moduleFiles(module)].sort((a, b) => (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0));
  for (const fid of fids) {
    for (const imp of store.imports(fid)) {
      const raw = imp.raw as Partial<PyImport>;
      if (!raw.isFrom || !raw.names) continue;
      const lines = store.searchText(fid).textRange(imp.start, imp.end).split('\n');
      for (const b of bindingsOf(lines)) {
        if (b.bound !== name && b.imported !== '*') continue;
        // A star import's one target is its module; a named one's are `P` and `P.n`, and P is the one `P.imported` extends (`from .__version__ import __version__`: not P.imported itself).
        const from = b.imported === '*' ? imp.targets[0] : imp.targets.find((t) => imp.targets.includes(`${t}.${b.imported}`));
        if (from === undefined || from === module) continue;
        out.push({ module, fid, line: imp.start + b.index, bound: name, from, imported: b.imported });
      }
    }
  }
  return out;
}

const NAME = /^[A-Za-z_]\w*$/;

/** The names a `from … import …` statement's `lines` bind: `imported` (`*` for a star) bound as `bound`, and the index of the line that writes it. */
export function bindingsOf(lines: readonly string[]): Array<{ imported: string; bound: string; index: number }> {
  const out: Array<{ imported: string; bound: string; index: number }> = [];
  let after = false;
  lines.forEach((line, index) => {
    let code = line.replace(/#.*$/, '');
    if (!after) {
      const m = /\bimport\b/.exec(code);
      if (m === null) return;
      after = true;
      code = code.slice(m.index + m[0].length);
    }
    for (const part of code.replace(/[()\\]/g, ' ').split(',')) {
      const words = part.trim().split(/\s+/);
      if (words.length === 1 && words[0] === '*') out.push({ imported: '*', bound: '*', index });
      else if (words.length === 1 && NAME.test(words[0])) out.push({ imported: words[0], bound: words[0], index });
      else if (words.length === 3 && words[1] === 'as' && NAME.test(words[0]) && NAME.test(words[2])) out.push({ imported: words[0], bound: words[2], index });
    }
  });
  return out;
}
