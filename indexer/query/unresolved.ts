// The TypeScript/JavaScript import statements that resolved nowhere in the
// repository, with why (docs/tools.md, "A statement that resolves nowhere";
// `evidex index --unresolved`, the daemon's `index/unresolved`). Not a tool:
// the five are fixed; this answers a person asking what the summary's
// "N missing" are. Each statement is an Evidence item, so its text is the
// file's lines as indexed and can be checked like any answer.
//
// The counts come from the file table in memory (each file's statements by
// outcome, what index/status adds up), so only the files of the asked page
// have their statement rows read.
import { makeEvidenceLazy, type Evidence } from '../evidence.js';
import { isTsImport, type Unresolved } from '../model.js';
import { UNRESOLVED_AT, type Store } from '../store/store.js';
import { UNRESOLVED_REASONS } from './limits.js';

export interface UnresolvedQuery {
  /** The reasons to list (any order, in UNRESOLVED_REASONS' order in the answer). */
  reasons: readonly Unresolved[];
  limit: number;
  offset: number;
}

/** A statement that resolved nowhere: its lines (kind `import`, name its specifier) and why. */
export type UnresolvedStatement = Evidence & { reason: Unresolved };

export interface UnresolvedImports {
  /** The page: by reason (UNRESOLVED_REASONS' order), then by path and line. */
  items: UnresolvedStatement[];
  /** Statements of the asked reasons, whatever the page cut. */
  total: number;
  /** Statements of every reason, asked or not: the same figures as index/status's `tsImports.unresolved`. */
  counts: Record<Unresolved, number>;
  /**
   * For each asked reason but `external` that has statements: every one of
   * them counted by its specifier's extension (`.css`; `''` for none), most
   * first — hundreds of missing statements are often stylesheets and fonts a
   * bundler resolves, and this says so without paging through them.
   */
  extensions: Partial<Record<Unresolved, Array<[ext: string, n: number]>>>;
  generation: number;
}

/** A specifier's extension: of its last segment's name, past any `?query` or `#hash` a bundler reads (`./logo.svg?react` is `.svg`); '' for none. */
export function specExtension(spec: string): string {
  const bare = spec.replace(/(.)[?#].*$/s, '$1'); // not the `#` a subpath import starts with
  // A dot that starts the name (`./.env`) makes no extension.
  const m = /.\.([^./\\]+)$/.exec(bare.slice(bare.lastIndexOf('/') + 1));
  return m ? `.${m[1]}` : '';
}

/** The reason's statements counted by specifier extension, most first (ties by extension). */
function extensionsOf(store: Store, reason: Unresolved): Array<[string, number]> {
  const at = UNRESOLVED_AT[reason];
  const by = new Map<string, number>();
  for (const f of store.ordered()) {
    if (!f.tr?.[at]) continue;
    for (const rec of store.imports(f.fid)) {
      if (rec.why !== reason || !isTsImport(rec.raw)) continue;
      const ext = specExtension(rec.raw.spec);
      by.set(ext, (by.get(ext) ?? 0) + 1);
    }
  }
  return [...by].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

export function unresolvedImports(store: Store, q: UnresolvedQuery): UnresolvedImports {
  const all = store.counts.tsImports;
  const counts = Object.fromEntries(UNRESOLVED_REASONS.map((r) => [r, all[UNRESOLVED_AT[r]]])) as Record<Unresolved, number>;
  const reasons = UNRESOLVED_REASONS.filter((r) => q.reasons.includes(r));
  const total = reasons.reduce((n, r) => n + counts[r], 0);
  const items: UnresolvedStatement[] = [];
  let skip = q.offset;
  for (const reason of reasons) {
    if (items.length === q.limit) break;
    if (skip >= counts[reason]) { skip -= counts[reason]; continue; }
    const at = UNRESOLVED_AT[reason];
    for (const f of store.ordered()) {
      const n = f.tr?.[at] ?? 0;
      if (n === 0) continue;
      if (skip >= n) { skip -= n; continue; }
      for (const rec of store.imports(f.fid)) {
        if (rec.why !== reason || !isTsImport(rec.raw)) continue;
        if (skip > 0) { skip--; continue; }
        const text = store.searchText(f.fid);
        const e = makeEvidenceLazy(f.path, rec.start, rec.end, 'import', rec.raw.spec, (s, end, max) => text.textRange(s, end, max));
        items.push({ ...e, reason });
        if (items.length === q.limit) break;
      }
      if (items.length === q.limit) break;
    }
  }
  const extensions: UnresolvedImports['extensions'] = {};
  for (const r of reasons) if (r !== 'external' && counts[r] > 0) extensions[r] = extensionsOf(store, r);
  return { items, total, counts, extensions, generation: store.generation };
}
