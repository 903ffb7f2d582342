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
import type { LeftOut, LeftOutReason } from '../discover/left-out.js';
import type { RepoRules } from '../discover/rules.js';
import { isTsImport, type TsImport, type Unresolved } from '../model.js';
import { isResolutionInput, isTsJsPath } from '../typescript/paths.js';
import { UNRESOLVED_AT, type Store } from '../store/store.js';
import type { FileMeta } from '../store/store.js';
import { pathPrefixOf } from './args.js';
import { OTHER_EXTENSION, UNRESOLVED_REASONS } from './limits.js';
import { notesShownFrom } from './notes.js';
import { prefixNote } from './prefix-note.js';
import type { LeftOutFolder } from './schemas.js';

export interface UnresolvedQuery {
  /** The reasons to list (any order, in UNRESOLVED_REASONS' order in the answer). */
  reasons: readonly Unresolved[];
  limit: number;
  offset: number;
  /** Only statements in files whose path starts with this, as the tools' path_prefix (checked and normalised as theirs are). */
  path_prefix?: string;
  /** The folder a person reads the notes from (tools/call's shown_from): the paths they name are written from there. */
  shown_from?: string;
}

/** A file the index left out (too large, binary) that a statement would resolve to were it indexed. */
export interface LeftOutTarget { path: string; reason: LeftOutReason }

/**
 * A statement that resolved nowhere: its lines (kind `import`, name its
 * specifier) and why; `reaches_left_out`: a `missing` one whose file is there
 * but left out of the index.
 */
export type UnresolvedStatement = Evidence & { reason: Unresolved; reaches_left_out?: LeftOutTarget };

/** What the index knows to tell whether a listed statement reaches a file it left out. */
export interface LeftOutReach {
  /** Every file left out, with why (left-out.ts). */
  leftOut: Iterable<LeftOut>;
  /** The file of `extra` each statement would resolve to were `extra` indexed too, else null (build/ts-imports.ts, wouldReach). */
  wouldReach(stmts: ReadonlyArray<{ file: string; raw: TsImport }>, extra: ReadonlySet<string>): Array<string | null>;
}

export interface UnresolvedImports {
  /** The page: by reason (UNRESOLVED_REASONS' order), then by path and line. */
  items: UnresolvedStatement[];
  /** Statements of the asked reasons, whatever the page cut. */
  total: number;
  /**
   * Statements of every reason, asked or not: the same figures as
   * index/status's `tsImports.unresolved`; under `path_prefix` only, when one
   * is given (`repository_counts` then has the whole repository's).
   */
  counts: Record<Unresolved, number>;
  /** With a `path_prefix`: `counts` of the whole repository, so a reader sees what the prefix left out. */
  repository_counts?: Record<Unresolved, number>;
  /** As a tool answer's: a `path_prefix` nothing in the index is under, with the folder nearest it (prefix-note.ts). */
  notes?: string[];
  /** As a tool answer's: the `path_prefix` is a folder the index leaves out, as fields (schemas.ts LeftOutFolder). */
  left_out_folder?: LeftOutFolder;
  /**
   * For each asked reason but `external` that has statements: every one of
   * them counted by its specifier's extension (`.css`; `''` for none), most
   * first — hundreds of missing statements are often stylesheets and fonts a
   * bundler resolves, and this says so without paging through them.
   */
  extensions: Partial<Record<Unresolved, Array<[ext: string, n: number]>>>;
  generation: number;
}

/**
 * The extensions a specifier's tally names: the compiler's own (TypeScript,
 * JavaScript, JSON) and those of the files bundlers load through imports
 * (styles, images, fonts, media, data, framework components). Anything else
 * after a name's last dot is part of a name (`./+types/client.a.b`, a route
 * module's, is no `.b` file), counted as OTHER_EXTENSION.
 */
const KNOWN_EXTENSIONS: ReadonlySet<string> = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'json', 'json5', 'jsonc',
  'css', 'scss', 'sass', 'less', 'styl', 'pcss', 'postcss',
  'svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico', 'bmp',
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  'mp3', 'mp4', 'webm', 'wav', 'ogg',
  'txt', 'md', 'mdx', 'html', 'csv', 'xml', 'yaml', 'yml', 'toml', 'graphql', 'gql', 'wasm', 'node',
  'vue', 'svelte', 'astro',
]);

/**
 * A specifier's extension: of its last segment's name, past any `?query` or
 * `#hash` a bundler reads (`./logo.svg?react` is `.svg`); '' for none;
 * OTHER_EXTENSION for a last dot-part that is no known file type's (`.b`).
 */
export function specExtension(spec: string): string {
  const bare = spec.replace(/(.)[?#].*$/s, '$1'); // not the `#` a subpath import starts with
  // A dot that starts the name (`./.env`) makes no extension.
  const m = /.\.([^./\\]+)$/.exec(bare.slice(bare.lastIndexOf('/') + 1));
  if (!m) return '';
  return KNOWN_EXTENSIONS.has(m[1].toLowerCase()) ? `.${m[1]}` : OTHER_EXTENSION;
}

/** The reason's statements in `files` counted by specifier extension, most first (ties by extension). */
function extensionsOf(store: Store, files: readonly FileMeta[], reason: Unresolved): Array<[string, number]> {
  const at = UNRESOLVED_AT[reason];
  const by = new Map<string, number>();
  for (const f of files) {
    if (!f.tr?.[at]) continue;
    for (const rec of store.imports(f.fid)) {
      if (rec.why !== reason || !isTsImport(rec.raw)) continue;
      const ext = specExtension(rec.raw.spec);
      by.set(ext, (by.get(ext) ?? 0) + 1);
    }
  }
  return [...by].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The listed `missing` statements that would resolve to a file the index left
 * out as too large or binary (never a secret or ignored one: those are no
 * one's target), marked with it. Only these statements are resolved again,
 * and only when such a file is one a statement can name (TypeScript,
 * JavaScript, JSON; a package.json or tsconfig is read, not imported).
 */
function markLeftOutTargets(items: UnresolvedStatement[], raws: ReadonlyArray<TsImport>, reach: LeftOutReach): void {
  const why = new Map<string, LeftOutReason>();
  for (const e of reach.leftOut) {
    if ((e.reason === 'tooLarge' || e.reason === 'binary') && (isTsJsPath(e.path) || e.path.endsWith('.json')) && !isResolutionInput(e.path)) why.set(e.path, e.reason);
  }
  const asked = items.flatMap((e, i) => (e.reason === 'missing' ? [i] : []));
  if (why.size === 0 || asked.length === 0) return;
  const reached = reach.wouldReach(asked.map((i) => ({ file: items[i].path, raw: raws[i] })), new Set(why.keys()));
  asked.forEach((i, k) => {
    const path = reached[k];
    if (path !== null) items[i] = { ...items[i], reaches_left_out: { path, reason: why.get(path)! } };
  });
}

export function unresolvedImports(store: Store, q: UnresolvedQuery, reach?: LeftOutReach, rules?: RepoRules): UnresolvedImports {
  const all = store.counts.tsImports;
  const everywhere = Object.fromEntries(UNRESOLVED_REASONS.map((r) => [r, all[UNRESOLVED_AT[r]]])) as Record<Unresolved, number>;
  const prefix = pathPrefixOf(q.path_prefix);
  const ordered = store.ordered();
  const files = prefix === undefined ? ordered : ordered.filter((f) => f.path.startsWith(prefix));
  // Under a prefix, each reason counted over its files (each file's statements by outcome, as the whole repository's are kept).
  const counts = prefix === undefined ? everywhere
    : Object.fromEntries(UNRESOLVED_REASONS.map((r) => [r, files.reduce((n, f) => n + (f.tr?.[UNRESOLVED_AT[r]] ?? 0), 0)])) as Record<Unresolved, number>;
  const reasons = UNRESOLVED_REASONS.filter((r) => q.reasons.includes(r));
  const total = reasons.reduce((n, r) => n + counts[r], 0);
  const items: UnresolvedStatement[] = [];
  const raws: TsImport[] = [];
  let skip = q.offset;
  for (const reason of reasons) {
    if (items.length === q.limit) break;
    if (skip >= counts[reason]) { skip -= counts[reason]; continue; }
    const at = UNRESOLVED_AT[reason];
    for (const f of files) {
      const n = f.tr?.[at] ?? 0;
      if (n === 0) continue;
      if (skip >= n) { skip -= n; continue; }
      for (const rec of store.imports(f.fid)) {
        if (rec.why !== reason || !isTsImport(rec.raw)) continue;
        if (skip > 0) { skip--; continue; }
        const text = store.searchText(f.fid);
        const e = makeEvidenceLazy(f.path, rec.start, rec.end, 'import', rec.raw.spec, (s, end, max) => text.textRange(s, end, max));
        items.push({ ...e, reason });
        raws.push(rec.raw);
        if (items.length === q.limit) break;
      }
      if (items.length === q.limit) break;
    }
  }
  if (reach) markLeftOutTargets(items, raws, reach);
  const extensions: UnresolvedImports['extensions'] = {};
  for (const r of reasons) if (r !== 'external' && counts[r] > 0) extensions[r] = extensionsOf(store, files, r);
  const answer: UnresolvedImports = { items, total, counts, ...(prefix === undefined ? {} : { repository_counts: everywhere }), extensions, generation: store.generation };
  const note = prefixNote(store, q.path_prefix, total, rules);
  return note ? { ...answer, notes: notesShownFrom([note.text], note.paths, q.shown_from).notes, ...(note.leftOutFolder ? { left_out_folder: { ...note.leftOutFolder, note: 0 } } : {}) } : answer;
}
