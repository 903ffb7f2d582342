// The via_reexports half of the TypeScript comparison (docs/tools.md,
// Matching): which statements import a module through a chain of re-exporting
// files (`export * from`, `export {…} from`, `export * as ns from`), worked out
// from the oracle's statements and targets, and whether a `via` list evidex
// gives is such a chain.
import type { OracleStatementAnswer } from '../oracle/ts-oracle.js';
import { isBareSpecifier, isPackageName, matchesPackage, packageNamesOf } from '../oracle/ts-resolve.js';

type Statement = OracleStatementAnswer & { path: string };

export interface ViaQuery {
  /** A file path or a package name that some re-export reaches. */
  module: string;
  /** Every statement that imports it, by "path:start-end", with the shortest chain of re-exporting files from its own target (empty: a direct import). */
  items: Map<string, string[]>;
  /** The same statements' keys, one per statement: two on the same lines (`f(require("fs"), require("fs"))`) are the key twice, as find_importers lists them twice. */
  statements: string[];
  /** What each file re-exports directly (file paths and package names). */
  reexports: Map<string, Set<string>>;
}

/** The modules a file's re-export statement names: its target file, and the package names of a bare specifier (resolved or not). */
function reexported(s: Statement): string[] {
  const out = s.target !== null ? [s.target] : [];
  if (isBareSpecifier(s.spec) && isPackageName(s.spec)) out.push(...packageNamesOf(s.spec));
  return out;
}

export function reexportChains(all: readonly Statement[]): ViaQuery[] {
  const reexports = new Map<string, Set<string>>();
  for (const s of all) {
    if (!s.reexport) continue;
    for (const m of reexported(s)) {
      const set = reexports.get(s.path) ?? new Set<string>();
      set.add(m);
      reexports.set(s.path, set);
    }
  }
  const files = new Set(all.filter((s) => s.reexport && s.target !== null).map((s) => s.target!));
  const modules = new Set([...reexports.values()].flatMap((set) => [...set]));
  const out: ViaQuery[] = [];
  for (const module of [...modules].sort()) {
    const isFile = files.has(module);
    // Breadth-first from the module outwards: chain[R] = R, then the file R re-exports, ..., the file that re-exports the module.
    const chain = new Map<string, string[]>();
    let frontier: string[] = [];
    for (const [r, set] of reexports) if (set.has(module) && r !== module) { chain.set(r, [r]); frontier.push(r); }
    while (frontier.length) {
      const next: string[] = [];
      for (const [r, set] of reexports) {
        if (chain.has(r) || r === module) continue;
        const via = frontier.find((f) => set.has(f));
        if (via !== undefined) { chain.set(r, [r, ...chain.get(via)!]); next.push(r); }
      }
      frontier = next;
    }
    const items = new Map<string, string[]>();
    const statements: string[] = [];
    for (const s of all) {
      const key = `${s.path}:${s.start}-${s.end}`;
      // A package is imported directly by name, whether or not the specifier also resolves to a file of the repository.
      const direct = isFile ? s.target === module : isBareSpecifier(s.spec) && matchesPackage(s.spec, module);
      const via = direct ? [] : s.target !== null ? chain.get(s.target) : undefined;
      if (via === undefined) continue;
      items.set(key, via);
      statements.push(key);
    }
    out.push({ module, items, statements, reexports });
  }
  return out;
}

/**
 * What is wrong with a `via` evidex gave for a statement whose shortest chain
 * is `chain` (none when it is right), and the order it came in when that can
 * be told: "importer-first" (the statement's own target first) or "module-first".
 */
export function viaProblem(via: unknown, chain: string[], module: string, reexports: Map<string, Set<string>>): { error?: string; order?: string } {
  if (chain.length === 0) {
    return via === undefined || (Array.isArray(via) && via.length === 0) ? {} : { error: `a direct import, but via is ${JSON.stringify(via)}` };
  }
  if (!Array.isArray(via) || !via.every((x) => typeof x === 'string')) return { error: `via is ${JSON.stringify(via)}, expected the chain ${JSON.stringify(chain)} (or another as short)` };
  if (via.length !== chain.length) return { error: `via ${JSON.stringify(via)} has ${via.length} files, the shortest chain ${JSON.stringify(chain)} has ${chain.length}` };
  const valid = (c: string[]): boolean => c[0] === chain[0]
    && c.every((f, i) => reexports.get(f)?.has(i + 1 < c.length ? c[i + 1] : module) === true);
  const forward = valid(via as string[]);
  const backward = valid([...(via as string[])].reverse());
  if (via.length === 1) return forward ? {} : { error: `via ${JSON.stringify(via)}, expected ${JSON.stringify(chain)}` };
  if (forward) return { order: 'importer-first' };
  if (backward) return { order: 'module-first' };
  return { error: `via ${JSON.stringify(via)} is no chain of re-exports from the statement's target to the module (expected ${JSON.stringify(chain)} or another as short)` };
}
