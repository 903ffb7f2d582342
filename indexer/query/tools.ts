// The five tools' answers (contract §2), read from the store. Each query runs
// synchronously from start to end, so it sees one state of the index: either
// before or after any update, never half of one (the store commits and patches
// its memory in one synchronous step too). read_git_diff is the exception: it
// asks git about the working tree, not the index.
import type { ToolResult } from '../api.js';
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import { makeEvidence, type Evidence } from '../evidence.js';
import { normalizeCallerPath } from '../paths.js';
import { READ_MAX_LINES, type ToolArgs, type ToolCall } from './schemas.js';
import { readGitDiff } from './git-diff.js';
import type { FileMeta, Store } from '../store/store.js';
import { queryBuckets } from '../store/trigrams.js';

const DEFAULT_LIMIT = 20;

export interface ToolContext {
  root: string;
  store: Store;
  rules: () => Promise<RepoRules>;
}

export async function runTool(ctx: ToolContext, call: ToolCall): Promise<ToolResult> {
  switch (call.name) {
    case 'search_code': return searchCode(ctx.store, call.args);
    case 'find_symbol': return findSymbol(ctx.store, call.args);
    case 'read_evidence': return readEvidence(ctx.store, ctx.root, await ctx.rules(), call.args);
    case 'find_importers': return findImporters(ctx.store, ctx.root, await ctx.rules(), call.args);
    case 'read_git_diff': {
      const evidence = await readGitDiff(ctx.root, call.args, await ctx.rules());
      return { evidence, total: evidence.length, generation: ctx.store.generation };
    }
  }
}

/** Index of the line holding string offset `pos`, given ascending line start offsets. */
function lineAt(starts: Int32Array, pos: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/**
 * Literal substring search. Case-insensitive means exactly
 * `line.toLowerCase().includes(query.toLowerCase())` (and the same for paths).
 * Every match is counted for `total`; only the first `limit` become items.
 */
export function searchCode(store: Store, args: ToolArgs['search_code']): ToolResult {
  const { query } = args;
  const cs = args.case_sensitive ?? false;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const prefix = args.path_prefix;
  const q = cs ? query : query.toLowerCase();
  const items: Evidence[] = [];
  let total = 0;

  for (const f of store.ordered()) {
    if (prefix !== undefined && !f.path.startsWith(prefix)) continue;
    if (!(cs ? f.path : f.pathLower).includes(q)) continue;
    total++;
    if (items.length < limit) items.push(makeEvidence(f.path, store.lines(f.fid), 1, 1, 'path_match', f.path));
  }

  // Lines never contain "\n" (and "\r" only inside a line), so a query with a newline matches no line.
  if (!q.includes('\n')) {
    const buckets = queryBuckets(query, cs);
    let fids = buckets ? store.candidates(buckets) : store.ordered().map((f) => f.fid);
    if (prefix !== undefined) fids = fids.filter((fid) => store.file(fid)!.path.startsWith(prefix));
    if (buckets) store.sortByPath(fids);
    for (const fid of fids) {
      const st = store.searchText(fid);
      const hay = cs ? st.canon : st.lower;
      let pos = hay.indexOf(q);
      if (pos < 0) continue;
      const path = store.file(fid)!.path;
      const starts = cs ? st.canonStarts() : st.lowerStarts();
      while (pos >= 0) {
        total++;
        if (items.length < limit) {
          const line = lineAt(starts, pos) + 1;
          items.push(makeEvidence(path, st.lines, line, line, 'content_match', query));
        }
        const nl = hay.indexOf('\n', pos + q.length);
        if (nl < 0) break;
        pos = hay.indexOf(q, nl + 1);
      }
    }
  }
  return { evidence: items, total, generation: store.generation };
}

/** Definitions whose simple name or qualname is exactly `name`, sorted by (path, start line, qualname). */
export function findSymbol(store: Store, args: ToolArgs['find_symbol']): ToolResult {
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
      if (items.length < limit) items.push(makeEvidence(f.path, store.lines(fid), d.start, d.end, d.kind, d.qualname));
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
  const lines = store.lines(f.fid);
  const end = args.end_line ?? args.start_line;
  if (args.start_line > lines.length) {
    throw new ToolError('out_of_range', `start_line ${args.start_line} is past the end of ${f.path} (${lines.length} lines)`);
  }
  if (end < args.start_line) {
    throw new ToolError('invalid_arguments', `end_line ${end} is before start_line ${args.start_line}`);
  }
  const ctx = args.context ?? 0;
  const s = Math.max(1, args.start_line - ctx);
  const e = Math.min(lines.length, end + ctx);
  if (e - s + 1 > READ_MAX_LINES) {
    throw new ToolError('invalid_arguments', `read_evidence returns at most ${READ_MAX_LINES} lines; lines ${s}-${e} are ${e - s + 1}`);
  }
  return { evidence: [makeEvidence(f.path, lines, s, e, 'source', f.path)], total: 1, generation: store.generation };
}

/**
 * Import statements that import the module (contract §3): S = {M} plus every
 * module name of each repository file M names; a statement imports M when one
 * of its targets is in S.
 */
export function findImporters(store: Store, root: string, rules: RepoRules, args: ToolArgs['find_importers']): ToolResult {
  const m = args.module_name;
  const names = new Set<string>([m]);
  if (m.includes('/') || m.endsWith('.py')) {
    const f = indexedFile(store, root, rules, m);
    if (!f.py) throw new ToolError('not_indexed', `${JSON.stringify(f.path)} is not a Python file of the index`);
    for (const n of f.mods) names.add(n);
  } else {
    for (const fid of store.moduleFiles(m)) for (const n of store.file(fid)?.mods ?? []) names.add(n);
  }
  const fids = new Set<number>();
  for (const n of names) for (const fid of store.targetFiles(n)) if (store.isLive(fid)) fids.add(fid);
  const items: Evidence[] = [];
  for (const fid of store.sortByPath([...fids])) {
    const f = store.file(fid)!;
    const stmts = store.imports(fid).filter((imp) => imp.targets.some((t) => names.has(t)));
    stmts.sort((a, b) => a.start - b.start);
    for (const imp of stmts) items.push(makeEvidence(f.path, store.lines(fid), imp.start, imp.end, 'import', m));
  }
  return { evidence: items, total: items.length, generation: store.generation };
}
