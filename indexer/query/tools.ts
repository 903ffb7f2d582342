// The five tools' answers (docs/tools.md), read from the store. Each query runs
// synchronously from start to end, so it sees one state of the index: either
// before or after any update, never half of one (the store commits and patches
// its memory in one synchronous step too). read_git_diff is the exception: it
// asks git about the working tree, not the index. search_code, whose work
// grows with the lines that match, and find_symbol and find_importers, whose
// work can grow with a name's definitions or importers, can also run in
// slices (pace.ts): then a write between two slices starts the answer again,
// so it too sees one state.
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import { makeEvidenceLazy, withExcerpt, withNextStart, type Evidence } from '../evidence.js';
import { SNIPPET_MAX_CHARS } from './limits.js';
import { indexedFile, NotIndexedError, pageOf, pathPrefixOf, type LeftOutLookup, type Page } from './args.js';
import { normalizeCallerPath, normalizeLexically } from './caller-paths.js';
import { followedNote, followedPrefix } from './link-names.js';
import { nearPaths, nearPathWords } from './path-near.js';
import { findImporters } from './importers.js';
import { READ_MAX_LINES, type ToolArgs, type ToolCall, type ToolCallParams, type ToolResult } from './schemas.js';
import { readGitDiff } from './git-diff.js';
import { moduleQualified } from './qualified.js';
import { withSymbolSuggestions } from './suggest.js';
import { ALIAS_LINES, exportAliasNote, mayBeAlias } from './export-alias.js';
import { mayBeReexported, pyReexportNote } from './py-reexport-note.js';
import { ASSIGNED_LINES, assignedNote, assignedQueries, mayBeAssigned } from './assigned-note.js';
import { withImporterSuggestions } from './suggest-modules.js';
import type { WouldReach } from './missing-file.js';
import { prefixIsWhy, withPrefixNote } from './prefix-note.js';
import { lineBreakNote, regexNote } from './regex-note.js';
import { withNote, worded, type Note } from './notes.js';
import { ExactFinder, type SearchText } from '../store/search-text.js';
import type { FileMeta, Store } from '../store/store.js';
import { queryBuckets } from '../store/trigrams.js';
import { answerPaced, type Pace } from './pace.js';
import type { Due } from '../store/in-slices.js';

export interface ToolContext {
  root: string;
  store: Store;
  /** The repository's ignore and secret rules, loaded (callers' paths are checked against them). */
  rules: RepoRules;
  /** Why the index left a file out, so a refusal of its path can say so. */
  leftOut?: LeftOutLookup;
  /** Which of some unresolved statements a file would take, were it there (missing-file.ts): find_importers of a path no file is at counts them. */
  wouldReach?: WouldReach;
}

/**
 * Answers one validated call. The four tools that read only the index answer
 * synchronously, as a value (so the daemon can send the answer in the same
 * turn of the event loop), and throw their refusals; read_git_diff asks git
 * and answers with a promise. Given a pace, a search, find_symbol or
 * find_importers that outlasts its slice goes on in later ones and answers
 * with a promise.
 */
export function runTool(ctx: ToolContext, call: ToolCall, pace?: Pace): ToolResult | Promise<ToolResult> {
  // A path_prefix through a symbolic link inside the root looks under the real folder, the name the index holds its files under.
  const followed = 'path_prefix' in call.args ? followedPrefix(ctx.store, ctx.rules, call.args.path_prefix) : null;
  if (followed) {
    const r = answerTool(ctx, { ...call, args: { ...call.args, path_prefix: followed.prefix } } as ToolCall, pace);
    return r instanceof Promise ? r.then((x) => withNote(x, followed.note)) : withNote(r, followed.note);
  }
  return answerTool(ctx, call, pace);
}

function answerTool(ctx: ToolContext, call: ToolCall, pace?: Pace): ToolResult | Promise<ToolResult> {
  switch (call.name) {
    case 'search_code': {
      const { store } = ctx;
      return answerPaced(function* (due) {
        const r = yield* searchCode(store, call.args, due);
        // Nothing in the index under path_prefix is why it found nothing, not how the query is written (prefix-note.ts).
        if (prefixIsWhy(store, call.args.path_prefix, r.total)) return withPrefixNote(store, call.args.path_prefix, r, ctx.rules);
        return withNote(r, lineBreakNote(call.args.query, r.total) ?? regexNote(call.args.query, r.total, call.args.case_sensitive ?? false));
      }, pace, () => store.generation);
    }
    case 'find_symbol': return answerPaced((due) => symbolAnswer(ctx.store, ctx.rules, call.args, due), pace, () => ctx.store.generation);
    case 'read_evidence': return readEvidence(ctx.store, ctx.rules, call.args, ctx.leftOut);
    case 'find_importers': {
      const { store, rules, leftOut } = ctx;
      return answerPaced(function* (due) {
        return withPrefixNote(store, call.args.path_prefix, yield* withImporterSuggestions(store, call.args, findImporters(store, rules, call.args, due, leftOut), ctx.wouldReach), rules);
      }, pace, () => store.generation);
    }
    case 'read_git_diff': return gitDiff(ctx, call.args);
  }
}

async function gitDiff(ctx: ToolContext, args: ToolArgs['read_git_diff']): Promise<ToolResult> {
  const hunks = await readGitDiff(ctx.root, args, ctx.rules, (path) => indexedText(ctx.store, path));
  const { offset, end } = pageOf(args);
  return { evidence: hunks.slice(offset, end), total: hunks.length, generation: ctx.store.generation };
}

/** A file's whole text as the index holds it (its lines joined by "\n"), or null when the index does not hold it. */
function indexedText(store: Store, path: string): string | null {
  const f = store.fileByPath(path);
  if (!f) return null;
  const st = store.searchText(f.fid);
  return st.lineCount === 0 ? '' : st.textRange(1, st.lineCount);
}

/** Gathers a page from matches met in answer order: the first `offset` are skipped, the next `limit` kept, the rest only counted. */
class PageItems {
  readonly items: Evidence[] = [];
  private skip: number;
  private readonly limit: number;
  constructor(page: Page) { this.skip = page.offset; this.limit = page.limit; }
  /** Whether the next match in order belongs on the page. */
  get wantsNext(): boolean { return this.skip === 0 && this.items.length < this.limit; }
  get full(): boolean { return this.items.length >= this.limit; }
  /** Records the next match: made into an item by `make` (called only then) when it belongs on the page. */
  take(make: () => Evidence): void {
    if (this.wantsNext) this.items.push(make());
    else this.pass();
  }
  /** Records the next match when it does not belong on the page (hot loops test wantsNext themselves, without a closure per match). */
  pass(): void { if (this.skip > 0) this.skip--; }
  add(item: Evidence): void { this.items.push(item); }
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
 * The content_match item of line `n`, whose first match starts at `column`
 * (0-based, as the scan found it): on a line cut before that match ends, with
 * the excerpt that shows it. (A lowercased line keeps its length in all but
 * rare letters; then the excerpt is only near the match.)
 */
function matchAt(store: Store, f: FileMeta, n: number, query: string, column: number): Evidence {
  const item = evidenceAt(store, f, n, n, 'content_match', query);
  if (!item.truncated) return item;
  return withExcerpt(item, store.searchText(f.fid).textRange(n, n), column, query.length);
}

/**
 * Literal substring search. Case-insensitive means exactly
 * `line.toLowerCase().includes(query.toLowerCase())` (and the same for paths).
 * Every match is counted for `total`; only those on the page become items.
 * Work per query: the block signatures pick the blocks that can hold a match
 * (store.plan.candidateBlocks), and a block is scanned with indexOf on its one
 * lowercased string, jumping to the next line end after a hit (a line counts
 * once). Line numbers are worked out only for the hits on the page;
 * original-case snippets are read only for those. A three-character
 * case-insensitive query over the whole index takes its `total` from the
 * per-trigram line counts and stops scanning once its page is full.
 * Yields between blocks once `due()` says its slice is over (asked every
 * DUE_EVERY blocks: reading a clock per 256-character block would cost more
 * than the scan).
 */
function* searchCode(store: Store, args: ToolArgs['search_code'], due: () => boolean): Generator<void, ToolResult, void> {
  const { query } = args;
  const cs = args.case_sensitive ?? false;
  const prefix = pathPrefixOf(args.path_prefix);
  const q = cs ? query : query.toLowerCase();
  const page = new PageItems(pageOf(args));
  let total = 0;

  for (const f of store.filesWithPathContaining(q, cs)) {
    if (prefix !== undefined && !f.path.startsWith(prefix)) continue;
    total++;
    page.take(() => evidenceAt(store, f, 1, 1, 'path_match', f.path));
  }

  // Lines never contain "\n" (and "\r" only inside a line), so a query with a newline matches no line.
  if (!q.includes('\n')) {
    // Null unless the store knows the count exactly (every file's text in memory).
    const lines = !cs && prefix === undefined && q.length === 3 ? store.plan.linesWithTrigram(q) : null;
    const counted = lines !== null;
    if (counted) total += lines;
    const { blocks, files } = yield* store.plan.candidateBlocks(queryBuckets(query, cs), prefix, due);
    // Case-insensitive: the lowercased blocks, searched from the query's rarest character; case-sensitive: ExactFinder.
    const findLower = cs ? null : anchoredFind(q, store.plan.rarestCharAt(q));
    const exact = cs ? new ExactFinder(q) : null;
    let sinceDue = 0;
    for (const { f, st, from, to } of files) {
      if (counted && page.full) break;
      for (let i = from; i < to;) {
        // A run of consecutive candidate blocks of one piece (every block, when the query has no
        // trigram) is read through one slice, not a slice (an object, or a copy out of the text
        // map) per block: a piece holds its blocks joined by "\n" as a block its lines.
        // Case-insensitive, the run is scanned as one string; case-sensitive, block by block
        // within it (a block's case data is its own), each a view of the run's one copy.
        const e = blocks ? candidateRunEnd(st, blocks, i, Math.min(to, i + DUE_EVERY)) : st.runEnd(i, Math.min(to, i + DUE_EVERY));
        if ((sinceDue += e - i) >= DUE_EVERY) {
          sinceDue = 0;
          if (due()) yield;
        }
        const b = blocks ? blocks[i] : i;
        let found = 0;
        if (exact && e - i === 1) {
          // A lone candidate (most, for a selective query): its block sliced at once, not cut from a run of one.
          found = scanBlock(store, f, exact.at(st, b), exact.find, st.firstLineOf(b), q, query, page);
        } else if (exact) {
          const run = st.blockRange(b, b + e - i);
          for (let k = b; k < b + e - i; k++) found += scanBlock(store, f, exact.at(st, k, run, b), exact.find, st.firstLineOf(k), q, query, page);
        } else {
          found = scanBlock(store, f, st.blockRange(b, b + e - i), findLower, st.firstLineOf(b), q, query, page);
        }
        i = e;
        if (!counted) total += found;
        else if (page.full) break;
      }
    }
  }
  return { evidence: page.items, total, generation: store.generation };
}

/** The end of the run of candidates from i (blocks[i], blocks[i]+1, …) that lie in one piece, at most `max` (> i). */
function candidateRunEnd(st: SearchText, blocks: ArrayLike<number>, i: number, max: number): number {
  const b = blocks[i];
  const stop = i + (st.runEnd(b, b + (max - i)) - b);
  let e = i + 1;
  while (e < stop && blocks[e] === b + (e - i)) e++;
  return e;
}

/** Blocks scanned between two looks at the slice clock (a block is ~256 characters). */
const DUE_EVERY = 64;

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

/** Counts the lines of one block (or a run of blocks) holding q (found by `find`, else by indexOf in `hay`; `hay` gives the line ends); those on the page become items. */
function scanBlock(store: Store, f: FileMeta, hay: string, find: ((hay: string, from: number) => number) | null, line0: number, q: string, query: string, page: PageItems): number {
  // find is null for the plain case: indexOf itself, no closure.
  let pos = find ? find(hay, 0) : hay.indexOf(q);
  if (pos < 0) return 0;
  let n = 0;
  // Line number of the current hit, found by counting "\n" forward from the last one (only for hits on the page).
  let at = 0, line = line0;
  while (pos >= 0) {
    n++;
    if (page.wantsNext) {
      for (let nl = hay.indexOf('\n', at); nl >= 0 && nl < pos; nl = hay.indexOf('\n', nl + 1)) { line++; at = nl + 1; }
      page.add(matchAt(store, f, line + 1, query, pos - at));
    } else {
      page.pass();
    }
    const nl = hay.indexOf('\n', pos + q.length);
    if (nl < 0) break;
    pos = find ? find(hay, nl + 1) : hay.indexOf(q, nl + 1);
  }
  return n;
}

/**
 * The indexed file read_evidence's `path` names, or its refusal; a path that
 * names no file there gets the indexed path it most likely meant
 * (path-near.ts) in its one line. A file that is there and left out is the
 * file asked for: its refusal says why, and no other name is nearer.
 */
function readableFile(store: Store, rules: RepoRules, path: string, leftOut?: LeftOutLookup): FileMeta {
  try {
    return indexedFile(store, rules, path, leftOut);
  } catch (err) {
    if (!(err instanceof NotIndexedError) || err.fileThere) throw err;
    const near = nearPaths(store, normalizeCallerPath(rules, path));
    const words = nearPathWords(near);
    if (words === null) throw err;
    throw new NotIndexedError(`${err.message}; ${words}`, false, [...err.paths, ...near.map((n) => n.path)], err.calls);
  }
}

/** find_symbol's answer in slices, with suggestions when it finds nothing (and the note when path_prefix is why). */
function* symbolAnswer(store: Store, rules: RepoRules, args: ToolArgs['find_symbol'], due: Due): Generator<void, ToolResult, void> {
  const found = yield* findSymbol(store, args, due);
  const r = withPrefixNote(store, args.path_prefix, withSymbolSuggestions(store, args, found), rules);
  if (found.total > 0 || prefixIsWhy(store, args.path_prefix, found.total)) return r;
  let out = r;
  if (mayBeAlias(args.name)) {
    // A name that is only an export alias (`export { Hono as HonoBase }`): said, with what it stands for (export-alias.ts).
    const lines = yield* searchCode(store, { query: `as ${args.name}`, case_sensitive: true, limit: ALIAS_LINES }, due);
    out = withNote(out, exportAliasNote(store, args.name, lines));
  }
  // A Python name a package only re-exports (`httpx.Client`, by `from ._client import *`): which statement, and its definition (py-reexport-note.ts).
  if (mayBeReexported(args.name)) out = withNote(out, pyReexportNote(store, args.name));
  if (!mayBeAssigned(args.name)) return out;
  // A name JavaScript only assigns a function to (`res.send = function send(body) {`): where, and the search that lists them (assigned-note.ts).
  const answers: ToolResult[] = [];
  for (const query of assignedQueries(args.name)) answers.push(yield* searchCode(store, { query, case_sensitive: true, limit: ASSIGNED_LINES }, due));
  return withNote(out, assignedNote(args.name, answers));
}

/**
 * Definitions named `name` (simple name, qualname or module-qualified name),
 * sorted by (path, start line, qualname); `total` counts them all. Gathered
 * in slices that yield when `due` (a name can have 100,000 definitions).
 */
function* findSymbol(store: Store, args: ToolArgs['find_symbol'], due: Due): Generator<void, ToolResult, void> {
  const { name, kind } = args;
  const query = { kind, prefix: pathPrefixOf(args.path_prefix), quals: moduleQualified(store, name) };
  const { total, hits } = yield* store.plan.definitionsInSlices(name, query, pageOf(args), due);
  const evidence = hits.map((d) => evidenceAt(store, store.file(d.fid)!, d.start, d.end, d.kind, d.qualname));
  return { evidence, total, generation: store.generation };
}

export function readEvidence(store: Store, rules: RepoRules, args: ToolArgs['read_evidence'], leftOut?: LeftOutLookup): ToolResult {
  const f = readableFile(store, rules, args.path, leftOut);
  const count = store.searchText(f.fid).lineCount;
  const end = args.end_line ?? args.start_line;
  if (args.start_line > count) {
    throw new ToolError('out_of_range', `start_line ${args.start_line} is past the end of ${f.path} (${count} lines)`);
  }
  if (end < args.start_line) {
    throw new ToolError('invalid_arguments', `read_evidence: end_line ${end} is before start_line ${args.start_line}`);
  }
  const ctx = args.context ?? 0;
  const s = Math.max(1, args.start_line - ctx);
  const e = Math.min(count, end + ctx);
  if (e - s + 1 > READ_MAX_LINES) throw tooManyLines(f.path, s, e);
  const item = withNextStart(evidenceAt(store, f, s, e, 'source', f.path));
  const result: ToolResult = { evidence: [item], total: 1, generation: store.generation };
  // A path through a symbolic link names the file at its real path: the evidence names that, and the note says why.
  const typed = normalizeLexically(args.path);
  return withNote(withNote(result, f.path === typed ? null : followedNote(typed, f.path)), firstLineCutNote(store, f, item));
}

/**
 * The refusal of a read over READ_MAX_LINES, with the reads that cover the
 * same lines as calls: the first two pages, and the rest said in words (a
 * 5,000-line ask is not answered with 13 calls).
 */
function tooManyLines(path: string, s: number, e: number): ToolError {
  const page = (from: number): ToolCallParams => ({ name: 'read_evidence', arguments: { path, start_line: from, end_line: Math.min(e, from + READ_MAX_LINES - 1) } });
  const second = s + READ_MAX_LINES;
  const rest = second + READ_MAX_LINES <= e ? worded`, then ${page(second)} and so on, ${READ_MAX_LINES} at a time, to line ${e}` : worded`, then ${page(second)}`;
  const why = worded`read_evidence returns at most ${READ_MAX_LINES} lines; lines ${s}-${e} are ${e - s + 1}: ${page(s)}${rest}`;
  return new ToolError('invalid_arguments', why.text, [], why.calls);
}

/**
 * A snippet cut inside its first line (over SNIPPET_MAX_CHARS alone) holds
 * none of the lines after it, and has no next_start_line (that line is its
 * first): said, with the line to read on from, or the lines after a long
 * first line are never seen. Null for any other item.
 */
function firstLineCutNote(store: Store, f: FileMeta, item: Evidence): Note | null {
  if (!item.truncated || item.next_start_line !== undefined || item.end_line === item.start_line) return null;
  const s = item.start_line;
  const chars = store.searchText(f.fid).textRange(s, s).length;
  const rest = item.end_line === s + 1 ? `line ${s + 1}` : `lines ${s + 1}-${item.end_line}`;
  return {
    text: `line ${s} alone is ${chars.toLocaleString('en')} characters: the snippet is its first ${SNIPPET_MAX_CHARS.toLocaleString('en')} and holds none of ${rest}; read on with start_line ${s + 1} (search_code shows the part of a long line around a match)`,
    paths: [],
  };
}
