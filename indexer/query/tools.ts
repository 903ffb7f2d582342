// The five tools' answers (contract §2), read from the store. Each query runs
// synchronously from start to end, so it sees one state of the index: either
// before or after any update, never half of one (the store commits and patches
// its memory in one synchronous step too). read_git_diff is the exception: it
// asks git about the working tree, not the index.
import type { ToolResult } from '../api.js';
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import { makeEvidenceLazy, type Evidence } from '../evidence.js';
import { normalizeCallerPath, normalizeLexically } from '../paths.js';
import { READ_MAX_LINES, type ToolArgs, type ToolCall } from './schemas.js';
import { readGitDiff } from './git-diff.js';
import { ExactFinder } from '../store/search-text.js';
import type { FileMeta, Store } from '../store/store.js';
import { queryBuckets } from '../store/trigrams.js';
import { importOrder, type ImportRef } from '../store/symbols.js';

const DEFAULT_LIMIT = 20;

export interface ToolContext {
  root: string;
  store: Store;
  /** The repository's ignore and secret rules, loaded (callers' paths are checked against them). */
  rules: RepoRules;
}

/**
 * The four tools that read only the index, answered synchronously (so a
 * caller can send the answer in the same turn of the event loop); null for
 * read_git_diff, which asks git (runTool).
 */
export function answerFromIndex(ctx: ToolContext, call: ToolCall): ToolResult | null {
  switch (call.name) {
    case 'search_code': return searchCode(ctx.store, call.args);
    case 'find_symbol': return findSymbol(ctx.store, call.args);
    case 'read_evidence': return readEvidence(ctx.store, ctx.root, ctx.rules, call.args);
    case 'find_importers': return findImporters(ctx.store, ctx.root, ctx.rules, call.args);
    case 'read_git_diff': return null;
  }
}

export async function runTool(ctx: ToolContext, call: ToolCall): Promise<ToolResult> {
  if (call.name !== 'read_git_diff') return answerFromIndex(ctx, call)!;
  const evidence = await readGitDiff(ctx.root, call.args, ctx.rules);
  return { evidence, total: evidence.length, generation: ctx.store.generation };
}

/**
 * One item over lines start..end of a file, built by makeEvidence (so the
 * snippet rule holds by construction) from just those lines, read from the
 * file's in-memory blocks.
 */
function evidenceAt(store: Store, f: FileMeta, start: number, end: number, kind: Evidence['kind'], name: string): Evidence {
  const st = store.searchText(f.fid);
  if (!(start >= 1 && start <= end && end <= st.lineCount)) throw new Error(`internal: evidence span ${start}-${end} outside ${f.path} (${st.lineCount} lines)`);
  return makeEvidenceLazy(f.path, start, end, kind, name, (from, to, max) => st.textRange(from, to, max));
}

/**
 * `path_prefix` is a caller's path (contract §4): refused like any other when it
 * is absolute or leaves the root, and normalised ("./src//" is "src/"). It stays
 * a plain string prefix, so "src" also takes "src2/" while "src/" means the folder.
 * The root itself ("", ".") filters nothing.
 */
function pathPrefixOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const clean = normalizeLexically(raw, { allowRoot: true });
  if (clean === '') return undefined;
  return raw.endsWith('/') ? `${clean}/` : clean;
}

/**
 * Literal substring search. Case-insensitive means exactly
 * `line.toLowerCase().includes(query.toLowerCase())` (and the same for paths).
 * Every match is counted for `total`; only the first `limit` become items.
 * Work per query: the block signatures pick the blocks that can hold a match
 * (store.candidateBlocks), and a block is scanned with indexOf on its one
 * lowercased string, jumping to the next line end after a hit (a line counts
 * once). Line numbers are worked out only for the first `limit` hits;
 * original-case snippets are read only for those. A three-character
 * case-insensitive query over the whole index takes its `total` from the
 * per-trigram line counts and stops scanning once it has its items.
 */
export function searchCode(store: Store, args: ToolArgs['search_code']): ToolResult {
  const { query } = args;
  const cs = args.case_sensitive ?? false;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const prefix = pathPrefixOf(args.path_prefix);
  const q = cs ? query : query.toLowerCase();
  const items: Evidence[] = [];
  let total = 0;

  for (const f of store.filesWithPathContaining(q, cs)) {
    if (prefix !== undefined && !f.path.startsWith(prefix)) continue;
    total++;
    if (items.length < limit) items.push(evidenceAt(store, f, 1, 1, 'path_match', f.path));
  }

  // Lines never contain "\n" (and "\r" only inside a line), so a query with a newline matches no line.
  if (!q.includes('\n')) {
    const lines = !cs && prefix === undefined && q.length === 3 && store.textComplete ? store.linesWithTrigram(q) : null;
    const counted = lines !== null;
    if (counted) total += lines;
    const { blocks, files } = store.candidateBlocks(queryBuckets(query, cs), prefix);
    // Case-insensitive: the lowercased blocks, searched from the query's rarest character; case-sensitive: ExactFinder.
    const findLower = cs ? null : anchoredFind(q, store.rarestCharAt(q));
    const exact = cs ? new ExactFinder(q) : null;
    for (const { f, st, from, to } of files) {
      if (counted && items.length >= limit) break;
      for (let i = from; i < to; i++) {
        const b = blocks ? blocks[i] : i;
        const hay = exact ? exact.at(st, b) : st.blocks[b];
        const found = scanBlock(store, f, hay, exact ? exact.find : findLower, st.firstLine[b], q, query, items, limit);
        if (!counted) total += found;
        else if (items.length >= limit) break;
      }
    }
  }
  return { evidence: items, total, generation: store.generation };
}

/**
 * A finder for q that runs indexOf on the part of q starting at its rarest
 * character, then checks the part before it: indexOf stops at every
 * occurrence of the first character it looks for, and in code "s" or "e" come
 * every few characters while "q" or "," do not. Null when that part is q itself.
 */
function anchoredFind(q: string, at: number): ((hay: string, from: number) => number) | null {
  if (at === 0) return null;
  const anchor = q.slice(at);
  const head = q.slice(0, at);
  return (hay, from) => {
    for (let p = hay.indexOf(anchor, from + at); p >= 0; p = hay.indexOf(anchor, p + 1)) {
      if (hay.startsWith(head, p - at)) return p - at;
    }
    return -1;
  };
}

/** Counts the lines of one block holding q (found by `find`, else by indexOf in `hay`; `hay` gives the line ends); the first ones (up to limit overall) become items. */
function scanBlock(store: Store, f: FileMeta, hay: string, find: ((hay: string, from: number) => number) | null, line0: number, q: string, query: string, items: Evidence[], limit: number): number {
  // find is null for the plain case: indexOf itself, no closure.
  let pos = find ? find(hay, 0) : hay.indexOf(q);
  if (pos < 0) return 0;
  let n = 0;
  // Line number of the current hit, found by counting "\n" forward from the last one (only while items are wanted).
  let at = 0, line = line0;
  while (pos >= 0) {
    n++;
    if (items.length < limit) {
      for (let nl = hay.indexOf('\n', at); nl >= 0 && nl < pos; nl = hay.indexOf('\n', nl + 1)) { line++; at = nl + 1; }
      items.push(evidenceAt(store, f, line + 1, line + 1, 'content_match', query));
    }
    const nl = hay.indexOf('\n', pos + q.length);
    if (nl < 0) break;
    pos = find ? find(hay, nl + 1) : hay.indexOf(q, nl + 1);
  }
  return n;
}

/** Definitions whose simple name or qualname is exactly `name`, sorted by (path, start line, qualname). */
export function findSymbol(store: Store, args: ToolArgs['find_symbol']): ToolResult {
  if (!store.symbolsReady) return findSymbolFromRows(store, args);
  const { name, kind } = args;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const rank = store.pathRank();
  const sym = store.symbols;
  const before = (a: number, b: number): boolean => {
    const ra = rank[sym.fid(a)], rb = rank[sym.fid(b)];
    if (ra !== rb) return ra < rb;
    if (sym.start(a) !== sym.start(b)) return sym.start(a) < sym.start(b);
    const qa = sym.qualname(a), qb = sym.qualname(b);
    return qa !== qb ? qa < qb : sym.seq(a) < sym.seq(b);
  };
  const all = kind === undefined ? sym.defs(name) : sym.defs(name).filter((d) => sym.kind(d) === kind);
  const total = all.length;
  let top: number[];
  if (total <= limit) {
    top = [...all].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  } else {
    // `total` is a count; only the first `limit` in order are kept (insertion into a short sorted list).
    top = [];
    for (const d of all) {
      if (top.length === limit && !before(d, top[top.length - 1])) continue;
      let i = top.length;
      while (i > 0 && before(d, top[i - 1])) i--;
      top.splice(i, 0, d);
      if (top.length > limit) top.pop();
    }
  }
  const items = top.map((d) => evidenceAt(store, store.file(sym.fid(d))!, sym.start(d), sym.end(d), sym.kind(d), sym.qualname(d)));
  return { evidence: items, total, generation: store.generation };
}

/** find_symbol from the LMDB rows, while the in-memory symbol index is still being read. */
function findSymbolFromRows(store: Store, args: ToolArgs['find_symbol']): ToolResult {
  const { name, kind } = args;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const fids = store.sortByPath([...new Set(store.symbolFiles(name))].filter(store.isLive));
  const items: Evidence[] = [];
  let total = 0;
  for (const fid of fids) {
    const f = store.file(fid)!;
    const defs = store.defs(fid)
      .filter((d) => (d.name === name || d.qualname === name) && (kind === undefined || d.kind === kind))
      .sort((a, b) => a.start - b.start || (a.qualname < b.qualname ? -1 : a.qualname > b.qualname ? 1 : 0));
    for (const d of defs) {
      total++;
      if (items.length < limit) items.push(evidenceAt(store, f, d.start, d.end, d.kind, d.qualname));
    }
  }
  return { evidence: items, total, generation: store.generation };
}

function indexedFile(store: Store, root: string, rules: RepoRules, input: string): FileMeta {
  const rel = normalizeCallerPath(root, input, { rules });
  const f = store.fileByPath(rel);
  if (!f) throw new ToolError('not_indexed', `${JSON.stringify(rel)} is not in the index (missing, ignored, binary or too large)`);
  return f;
}

export function readEvidence(store: Store, root: string, rules: RepoRules, args: ToolArgs['read_evidence']): ToolResult {
  const f = indexedFile(store, root, rules, args.path);
  const count = store.searchText(f.fid).lineCount;
  const end = args.end_line ?? args.start_line;
  if (args.start_line > count) {
    throw new ToolError('out_of_range', `start_line ${args.start_line} is past the end of ${f.path} (${count} lines)`);
  }
  if (end < args.start_line) {
    throw new ToolError('invalid_arguments', `end_line ${end} is before start_line ${args.start_line}`);
  }
  const ctx = args.context ?? 0;
  const s = Math.max(1, args.start_line - ctx);
  const e = Math.min(count, end + ctx);
  if (e - s + 1 > READ_MAX_LINES) {
    throw new ToolError('invalid_arguments', `read_evidence returns at most ${READ_MAX_LINES} lines; lines ${s}-${e} are ${e - s + 1}`);
  }
  return { evidence: [evidenceAt(store, f, s, e, 'source', f.path)], total: 1, generation: store.generation };
}

/**
 * Import statements that import the module (contract §3): S = {M} plus every
 * module name of each repository file M names; a statement imports M when one
 * of its targets is in S.
 */
export function findImporters(store: Store, root: string, rules: RepoRules, args: ToolArgs['find_importers']): ToolResult {
  const m = args.module_name;
  const names = new Set<string>([m]);
  // A path names a file; "pkg.py" without a slash is a path only when the index
  // holds that file at the root, else it is the dotted name of module `py` in `pkg`.
  if (m.includes('/') || (m.endsWith('.py') && store.fileByPath(m) !== undefined)) {
    const f = indexedFile(store, root, rules, m);
    if (!f.py) throw new ToolError('not_indexed', `${JSON.stringify(f.path)} is not a Python file of the index`);
    for (const n of f.mods) names.add(n);
  } else {
    for (const fid of store.moduleFiles(m)) for (const n of store.file(fid)?.mods ?? []) names.add(n);
  }
  const items: Evidence[] = [];
  if (store.symbolsReady) {
    const rank = store.pathRank();
    let stmts: readonly ImportRef[];
    if (names.size === 1) {
      stmts = store.symbols.importersInOrder(m, rank);
    } else {
      // A statement with several targets in `names` is one item: dedupe by identity.
      const set = new Set<ImportRef>();
      for (const n of names) for (const r of store.symbols.importers(n)) set.add(r);
      stmts = [...set].sort(importOrder(rank));
    }
    for (const r of stmts) {
      const text = store.importText(r); // read through textRange, which checks the span, when first needed
      items.push(makeEvidenceLazy(store.file(r.fid)!.path, r.start, r.end, 'import', m, () => text));
    }
    return { evidence: items, total: items.length, generation: store.generation };
  }
  const fids = new Set<number>();
  for (const n of names) for (const fid of store.targetFiles(n)) if (store.isLive(fid)) fids.add(fid);
  for (const fid of store.sortByPath([...fids])) {
    const f = store.file(fid)!;
    const stmts = store.imports(fid).filter((imp) => imp.targets.some((t) => names.has(t)));
    stmts.sort((a, b) => a.start - b.start);
    for (const imp of stmts) items.push(evidenceAt(store, f, imp.start, imp.end, 'import', m));
  }
  return { evidence: items, total: items.length, generation: store.generation };
}
