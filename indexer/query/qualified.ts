// Module-qualified names (docs/tools.md, find_symbol): `pkg.mod.Class.method`
// is split into a module name the index knows and the qualname inside its
// files. find_symbol asks it, and so do its near-miss suggestions.
import type { Store } from '../store/store.js';

/**
 * The ways `name` names definitions besides its simple name or qualname
 * (docs/tools.md): for every module name M the index knows with `name` =
 * `M.Q`, the definitions with qualname exactly Q in the files known as M
 * (`pkg.mod.Class.method`; `pkg.Class` for a class of `pkg/__init__.py`).
 */
export function moduleQualified(store: Store, name: string): Array<{ qual: string; fids: number[] }> {
  const out: Array<{ qual: string; fids: number[] }> = [];
  for (let i = name.indexOf('.'); i > 0 && i < name.length - 1; i = name.indexOf('.', i + 1)) {
    const fids = store.moduleFiles(name.slice(0, i));
    if (fids.length) out.push({ qual: name.slice(i + 1), fids });
  }
  return out;
}
